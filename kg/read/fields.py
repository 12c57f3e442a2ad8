"""Small mappings shared by the readers: DOIs, arXiv ids, years, person names, whitespace, LaTeX."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_DOI = re.compile(r"^10\.\d+(?:\.\d+)*/\S+$")
# New-style ids (since 2007) and old-style archive/number ids, with an optional version.
_ARXIV_ID = r"(\d{4}\.\d{4,5}|[a-z][a-z-]*(?:\.[a-z]{2})?/\d{7})(?:v\d+)?"
_ARXIV_BARE = re.compile(rf"^(?:arxiv:\s*)?{_ARXIV_ID}$", re.IGNORECASE)
# Inside free text an id only counts next to the word arXiv: a bare 1234.5678 may be anything.
_ARXIV_IN_TEXT = re.compile(rf"arxiv(?:\.org/(?:abs|pdf)/|[:.]\s*){_ARXIV_ID}(?![\d.])", re.IGNORECASE)
_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")
_LATEX = re.compile(r"[\\{}~$]|--|``|''")
_BARE_SPECIAL = re.compile(r"(?<!\\)([%&])")
_LOGOS = {"LaTeX": "LaTeX", "TeX": "TeX", "BibTeX": "BibTeX", "LaTeXe": "LaTeX2e"}


def normalise_doi(value: Any) -> str | None:
    """A DOI in lower case without its ``https://doi.org/`` or ``doi:`` prefix; ``None`` if it is none.

    >>> normalise_doi("https://doi.org/10.18653/V1/N19-1423")
    '10.18653/v1/n19-1423'
    >>> normalise_doi("n/a") is None
    True
    """
    if not isinstance(value, str):
        return None
    doi = _DOI_PREFIX.sub("", value.strip()).strip().lower()
    return doi if _DOI.match(doi) else None


def normalise_arxiv_id(value: Any) -> str | None:
    """A bare arXiv id without ``arXiv:`` or version; ``None`` if ``value`` is not one.

    >>> normalise_arxiv_id("arXiv:1706.03762v5"), normalise_arxiv_id("hep-th/9901001")
    ('1706.03762', 'hep-th/9901001')
    """
    if not isinstance(value, str):
        return None
    match = _ARXIV_BARE.match(value.strip())
    return match.group(1) if match else None


def find_arxiv_id(*texts: Any) -> str | None:
    """The first arXiv id named in ``texts``: an arxiv.org URL, ``arXiv:ID`` or an arXiv DOI.

    >>> find_arxiv_id(None, "arXiv preprint arXiv:1810.04805", "x")
    '1810.04805'
    >>> find_arxiv_id("10.48550/arXiv.1706.03762"), find_arxiv_id("Phys.Rev.D76:013009,2007")
    ('1706.03762', None)
    """
    for text in texts:
        if isinstance(text, str) and (match := _ARXIV_IN_TEXT.search(text)):
            return match.group(1)
    return None


def year_of(value: Any) -> Any:
    """The year in a year or date field; a value with no year in it is returned for validation to reject.

    >>> year_of("2019/06//"), year_of("Mon, 2 Apr 2007 19:18:42 GMT"), year_of(2014), year_of("in press")
    (2019, 2007, 2014, 'in press')
    """
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        match = _YEAR.search(text)
        return int(match.group(1)) if match else text
    return value


def squash(text: Any) -> Any:
    """Runs of whitespace, line breaks included, as one space; non-text as it is.

    >>> squash("  Attention is\\n   all you need ")
    'Attention is all you need'
    """
    return " ".join(text.split()) if isinstance(text, str) else text


def first_last(name: str) -> str:
    """``"Last, First"`` or ``"Last, First, Suffix"`` as ``"First Last Suffix"``; other names as they are.

    >>> first_last("Le, Quoc V."), first_last("Smith, John, Jr."), first_last("Jane Doe")
    ('Quoc V. Le', 'John Smith Jr.', 'Jane Doe')
    """
    parts = [p.strip() for p in name.split(",")]
    if len(parts) == 2:
        parts = [parts[1], parts[0]]
    elif len(parts) == 3:
        parts = [parts[1], parts[0], parts[2]]
    return squash(" ".join(p for p in parts if p))


def latex_to_text(text: str) -> str:
    """LaTeX accents, escapes, dashes, quotes and braces as Unicode; math between ``$`` is kept as written.

    A bare ``%`` or ``&`` is the character itself, as exporters mean it, not a LaTeX comment or
    column separator.

    >>> latex_to_text("Tom{\\\\'a}{\\\\v{s}} Mikolov"), latex_to_text("Bal\\\\'azs")
    ('Tomáš Mikolov', 'Balázs')
    >>> latex_to_text("{Q&A} gains 5% on $x_1$ -- see ``below''")
    'Q&A gains 5% on $x_1$ – see “below”'
    """
    if not _LATEX.search(text):
        return text  # nothing to decode, and pylatexenc costs about a millisecond a call
    return str(_latex_decoder().latex_to_text(_BARE_SPECIAL.sub(r"\\\1", text)))


@lru_cache(maxsize=1)
def _latex_decoder() -> Any:
    # The decoder bibtexparser's LatexDecodingMiddleware uses, built once: it is slow to set up.
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

    context = get_default_latex_context_db()
    # pylatexenc drops these logos, which do occur in titles; \url{x} is x, not <x>.
    logos = [MacroTextSpec(name, simplify_repl=text) for name, text in _LOGOS.items()]
    context.add_context_category("kg", prepend=True, macros=[*logos, MacroTextSpec("url", simplify_repl="%s")])
    return LatexNodes2Text(latex_context=context, math_mode="verbatim", keep_braced_groups=False)


def compact(fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` without the empty ones (``None``, blank text, empty lists), so extras stay clean.

    A blank abstract stays, for validation to report it as empty rather than missing.

    >>> compact({"id": "x", "doi": None, "keywords": [], "venue": " ", "year": 0, "abstract": ""})
    {'id': 'x', 'year': 0, 'abstract': ''}
    """
    return {
        k: v
        for k, v in fields.items()
        if v is not None and v != [] and (k == "abstract" or not (isinstance(v, str) and not v.strip()))
    }
