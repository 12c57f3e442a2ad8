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
_MACRO = re.compile(r"\\[A-Za-z]")
_ESCAPED = re.compile(r"\\[%&_#$]")
_DOLLAR = re.compile(r"(?<!\\)\$")
#: A LaTeX quotation: ``quoted'' (1.4% of arXiv ML abstracts).
_QUOTED = re.compile(r"``([^`'\n]{1,200}?)''")
_CITE = re.compile(r"\s*~?\\(?:cite[a-z]*|ref|eqref|autoref|[cC]ref|label)\*?(?:\[[^\]]*\])*\{[^{}]*\}")
_HREF_URL = re.compile(r"(?<=\\href)\s*\{[^{}]*\}\s*(?=\{)")  # \href{url}{text}: the url goes
_TIE = re.compile(r"~(?=\\[A-Za-z])|(?<=[A-Za-z}])~(?=[A-Za-z])")
_FONTS = ("mathsf", "mathrm", "mathbf", "mathit", "mathtt", "mathcal", "mathbb", "mathfrak", "mathscr", "boldsymbol",
          "bm")  # fmt: skip
_LOGOS = {"LaTeX": "LaTeX", "TeX": "TeX", "BibTeX": "BibTeX", "LaTeXe": "LaTeX2e"}


#: What abstract databases write where a paper has no abstract: the ACM Digital Library's "An abstract is
#: not available." and "No contact information provided yet." (567 of the 1,327 WWW papers of
#: ``shared/data/keyphrases`` end in it, after their title, and "contact information" had been the
#: concept of the most papers), "No abstract available.", "[Abstract not available]".
_PLACEHOLDER = (
    r"(?:(?:an?\s+)?abstract(?:\s+is)?\s+(?:not\s+(?:available|provided)|unavailable)|"
    r"no\s+abstract\s+(?:is\s+)?(?:available|provided)|no\s+contact\s+information\s+provided(?:\s+yet)?)"
    r"(?:\s+for\s+this\s+(?:item|article|paper|record|document))?"
)
#: ... at the end of a text (after a title that the abstract field repeats).
_PLACEHOLDER_AT_END = re.compile(rf"(?:\[\s*)?\b{_PLACEHOLDER}\s*[.!]?\s*\]?\s*$", re.IGNORECASE)
#: "No abstract." alone: a sentence may open so ("no abstract syntax tree"), a whole abstract not.
_NO_ABSTRACT = re.compile(r"\[?\s*no\s+abstract\s*[.!]?\s*\]?", re.IGNORECASE)


def placeholder_start(text: str) -> int | None:
    """Where a placeholder that ends ``text`` starts ("No contact information provided yet." after the
    title of a WWW paper), or None.

    >>> text = "Information diffusion through blogspace No contact information provided yet."
    >>> text[placeholder_start(text):], placeholder_start("An abstract is not available for us to parse here.")
    ('No contact information provided yet.', None)
    """
    if "vailable" not in text and "rovided" not in text:  # (most texts: no regular expression's scan)
        return None
    found = _PLACEHOLDER_AT_END.search(text)
    return None if found is None else found.start()


def is_placeholder(text: str) -> bool:
    """Whether ``text`` (a whole abstract) says only that there is no abstract.

    >>> [is_placeholder(t) for t in ["An abstract is not available.", "No contact information provided yet.",
    ...                              "[No abstract available]", "Abstract not available", "No abstract."]]
    [True, True, True, True, True]
    >>> is_placeholder("No abstract is needed: we parse titles."), is_placeholder("Abstract is available online.")
    (False, False)
    """
    text = text.strip()
    return placeholder_start(text) == 0 or _NO_ABSTRACT.fullmatch(text) is not None


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
    return str(
        _latex_decoder("verbatim").latex_to_text(_BARE_SPECIAL.sub(r"\\\1", text), latex_context=_latex_parsing())
    )


def plain_text(text: str) -> str:
    """A title or abstract with its LaTeX markup as the text it stands for; text without markup as it is.

    arXiv abstracts are written in LaTeX: ``\\textbf{M}ixture`` shows where an acronym's letters come
    from, ``$k$`` is math, ``\\citep{x}`` a citation. Only a text with a macro, an escaped character
    (``85\\%``) or math between two ``$`` is decoded. A ``$`` pair is math when what it holds has no
    space or has a macro, and no digit follows it (``$121 million and C$5`` and ``US $2-$4`` are
    money); a ``~`` is a tie only before a macro or between two words (``~30%`` stays); a bare ``%``
    or ``&`` is the character.
    Font macros leave plain letters, citations nothing, ``\\href{url}{text}`` its text; LaTeX
    quotation marks are quotation marks, wherever they are.

    >>> plain_text(r"\\textbf{M}ixture-of-\\textbf{E}xperts ($\\mathsf{MoE}$) gains 4.3$\\times$ \\citep{x}.")
    'Mixture-of-Experts (MoE) gains 4.3×.'
    >>> plain_text(r"Top-$k$ attention, ~30% fewer FLOPs than $x_1$ \\& more than $121 million and C$5")
    'Top-k attention, ~30% fewer FLOPs than x_1 & more than $121 million and C$5'
    >>> plain_text(r"US $2-$4 billion; code at \\href{https://x.org}{our page} and \\href{https://y.org}.")
    'US $2-$4 billion; code at our page and https://y.org.'
    >>> plain_text(r"85\\% accuracy on H\\&E images")
    '85% accuracy on H&E images'
    >>> plain_text("No markup: 5% of $100 and {braces} stay ~ as written.")
    'No markup: 5% of $100 and {braces} stay ~ as written.'
    >>> plain_text("we propose the ``Bias Vector'' method")
    'we propose the “Bias Vector” method'
    """
    text = _QUOTED.sub(r"“\1”", text)
    math = _math_dollars(text)
    if not math and not _MACRO.search(text) and not _ESCAPED.search(text):
        return text
    given = text
    money = [at for at in (m.start() for m in _DOLLAR.finditer(text)) if at not in math]
    for at in reversed(money):
        text = f"{text[:at]}\\{text[at:]}"
    text = _HREF_URL.sub("", _CITE.sub("", text))
    marked = _BARE_SPECIAL.sub(r"\\\1", _TIE.sub(" ", text)).replace("~", "\\textasciitilde{}")
    try:
        return _decode(marked)
    except Exception:  # pylatexenc parses tolerantly, but a macro's handler may still fail: keep the text
        return given


#: What pylatexenc reads a character at a time: a macro or escape, a brace, math, a space, other text.
_LATEX_TOKEN = re.compile(r"\\(?:[A-Za-z]+|.)|[{}]|\$\$|\$|\s+|[^\\{}$\s]+", re.S)
#: What makes a piece of text LaTeX to decode: a macro or escape, braces, math, a comment, a
#: special (``&``, ``~``, dashes, quotes).
_DECODED = re.compile(r"[\\{}$%&~]|--|``|''|[!?]`")
#: What opens math, and what closes it.
_MATH = {"$": "$", "$$": "$$", "\\(": "\\)", "\\[": "\\]"}
#: Tokens a macro must not take as its argument for the pieces to decode as the whole does.
_ENDS = frozenset([*_MATH, *_MATH.values(), "}"])


def _decode(text: str) -> str:
    """``text`` (markup prepared by :func:`plain_text`) decoded by pylatexenc, which reads every
    character in Python (about 20 ms an abstract): only the pieces with markup go through it.

    The text is cut at spaces outside braces and math that follow no macro and precede no
    argument; a piece without markup is its own text. Of the 301,930 titles and abstracts of the
    arXiv ML corpus, 6 read otherwise than whole, all for the better or alike: whole, a ``\\\\%``
    (a line break, then a comment) had cut off the rest of an abstract, and environments had
    lost spaces ("off=g∘with"); the pieces keep them, or move a line break. Decoding the corpus's
    texts took 99 s instead of 470 s (side by side, on a busy machine).
    """
    tokens = [m.group() for m in _LATEX_TOKEN.finditer(text)]
    pieces: list[str] = []
    depth, math, math_depth, begin = 0, "", 0, 0
    for i, tok in enumerate(tokens):
        if tok == "{":
            depth += 1
        elif tok == "}":
            depth -= 1
        elif tok in _ENDS:  # math opens or closes
            if tok == math and depth == math_depth:
                math = ""
            elif not math and tok in _MATH:
                math, math_depth = _MATH[tok], depth
            else:  # math in math or in its braces, or an end without a start: read whole
                depth = -1
        elif tok[0] == "\\" and _takes_arguments(tok[1:]) and _next_word(tokens, i + 1) in _ENDS:
            depth = -1  # a macro that would take the math's end or a brace as its argument: read whole
        elif tok[0].isspace() and not depth and not math and i:
            before, after = tokens[i - 1], tokens[i + 1] if i + 1 < len(tokens) else ""
            if before[0] != "\\" and after[:1] not in ("{", "["):  # "\\' w" is an accented w
                pieces += ["".join(tokens[begin:i]), tok]
                begin = i + 1
        if depth < 0:
            break
    decoder, context = _latex_decoder("text"), _latex_parsing()
    if depth or math:  # unbalanced: pylatexenc reads the whole text as it can
        return str(decoder.latex_to_text(text, latex_context=context))
    pieces.append("".join(tokens[begin:]))
    return "".join(
        str(decoder.latex_to_text(piece, latex_context=context)) if _DECODED.search(piece) else piece
        for piece in pieces
    )


@lru_cache(maxsize=4096)
def _takes_arguments(name: str) -> bool:
    """Whether pylatexenc reads arguments after the macro ``\\name`` (``\\textbf`` does, ``\\alpha`` not)."""
    spec = _latex_parsing().get_macro_spec(name) if name.isalpha() else None
    return bool(getattr(getattr(spec, "args_parser", None), "argspec", ""))


def _next_word(tokens: list[str], i: int) -> str:
    """The first token from ``i`` on that is not a space ("" if none)."""
    while i < len(tokens) and tokens[i][0].isspace():
        i += 1
    return tokens[i] if i < len(tokens) else ""


def _math_dollars(text: str) -> set[int]:
    """Where the ``$`` that open and close math are (see :func:`plain_text`)."""
    dollars = [m.start() for m in _DOLLAR.finditer(text)]
    math, i = set(), 0
    while i + 1 < len(dollars):
        inside, after = text[dollars[i] + 1 : dollars[i + 1]], text[dollars[i + 1] + 1 : dollars[i + 1] + 2]
        if inside and not after.isdigit() and (_MACRO.search(inside) or not any(c.isspace() for c in inside)):
            math.update(dollars[i : i + 2])
            i += 2
        else:
            i += 1
    return math


@lru_cache(maxsize=2)
def _latex_decoder(math_mode: str) -> Any:
    # The decoder bibtexparser's LatexDecodingMiddleware uses, built once: it is slow to set up.
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

    context = get_default_latex_context_db()
    # pylatexenc drops these logos, which do occur in titles; \url{x} is x, not <x>; font macros
    # would make Unicode math letters ("𝖬𝗈𝖤").
    macros = [
        *(MacroTextSpec(name, simplify_repl=text) for name, text in _LOGOS.items()),
        *(MacroTextSpec(name, simplify_repl="%s") for name in ("url", *_FONTS)),
        MacroTextSpec("href", simplify_repl=_last_argument),
        MacroTextSpec("textasciitilde", simplify_repl="~"),
    ]
    context.add_context_category("kg", prepend=True, macros=macros)
    return LatexNodes2Text(latex_context=context, math_mode=math_mode, keep_braced_groups=False)


@lru_cache(maxsize=1)
def _latex_parsing() -> Any:
    """How pylatexenc parses: its defaults, and an argument for the font macros it does not know
    (``\\boldsymbol``, ``\\bm``), whose text would otherwise be "%s" and a logged warning."""
    from pylatexenc import latexwalker, macrospec

    context = latexwalker.get_default_latex_context_db()
    unknown = [name for name in ("url", *_FONTS) if context.get_macro_spec(name) is None]
    context.add_context_category("kg", prepend=True, macros=[macrospec.MacroSpec(name, "{") for name in unknown])
    return context


def _last_argument(node: Any, l2tobj: Any) -> str:
    args = [a for a in (node.nodeargd.argnlist if node.nodeargd else []) if a is not None]
    return str(l2tobj.nodelist_to_text([args[-1]])) if args else ""


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
