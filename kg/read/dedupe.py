"""Cross-source duplicates: one paper read from several sources (BibTeX, OpenAlex, arXiv, S2...).

Two papers are the same when they share a DOI, an arXiv id, or a normalised title (Unicode NFKC,
case-folded, everything but letters and digits dropped). A title match needs a title of at least
``min_title_chars`` letters and digits ("Introduction" or "Editorial" name many papers), and is
refused when both papers have DOIs, or both arXiv ids, that differ. The first paper keeps its id
and gains the fields it lacks from the later ones; each later one is reported as merged, never
dropped silently. Matching is one pass in input order: a later paper joins the first kept paper it
matches, through any key that paper or its merged duplicates brought.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kg.read.fields import find_arxiv_id, normalise_arxiv_id, normalise_doi
from kg.records import Paper

#: Letters and digits a normalised title needs before it may match another paper's.
MIN_TITLE_CHARS = 15
#: DOIs that arXiv mints for its preprints: the arXiv id says the same, and they are no journal DOI.
_ARXIV_DOI_PREFIX = "10.48550/arxiv."


@dataclass(frozen=True, slots=True)
class Merged:
    """A paper folded into an earlier one: its id, the kept id, and the key they share."""

    id: str
    into: str
    key: str
    value: str

    def to_dict(self) -> dict[str, str]:
        return dataclasses.asdict(self)


@dataclass(slots=True)
class Deduped:
    """The papers kept, in input order, and the duplicates merged into them."""

    papers: list[Paper] = field(default_factory=list)
    merged: list[Merged] = field(default_factory=list)
    #: Paper id -> its DOI, arXiv id and title keys, for every paper, kept or merged: what a later
    #: paper is matched by.
    keys: dict[str, list[tuple[str, str]]] = field(default_factory=dict)


#: What is not a letter or digit (``str.isalnum``): ``\W`` and the underscore.
_NOT_ALNUM = re.compile(r"[\W_]+")


def title_key(title: str) -> str:
    """The form of a title that duplicates share: NFKC, case-folded, letters and digits only.

    >>> title_key("ＢＥＲＴ: Pre-training of Deep  Bidirectional Transformers!")
    'bertpretrainingofdeepbidirectionaltransformers'
    """
    return _NOT_ALNUM.sub("", unicodedata.normalize("NFKC", title).casefold())


def dedupe_papers(papers: Iterable[Paper], *, min_title_chars: int = MIN_TITLE_CHARS) -> Deduped:
    """Merge the papers that are one paper; the inputs are not changed.

    Parameters
    ----------
    papers
        Validated papers from one or more sources, in the order that decides who is kept.
    min_title_chars
        Letters and digits a normalised title needs before it may match another one.

    Returns
    -------
    Deduped
        ``papers``: the kept ones in input order; one that others merged into is a copy that
        gained the fields it lacked and lists their ids in ``extra["merged_ids"]``; ``merged``: one
        :class:`Merged` per duplicate, so that ``len(papers) + len(merged)`` is the input count.

    >>> a = Paper("bib:vaswani", "Attention Is All You Need", "We propose the Transformer.", year=2017)
    >>> b = Paper("arxiv:1706.03762", "Attention is all you need", "The Transformer...", venue="arXiv",
    ...           extra={"arxiv_id": "1706.03762"})
    >>> result = dedupe_papers([a, b])
    >>> [(p.id, p.venue, p.extra) for p in result.papers]
    [('bib:vaswani', 'arXiv', {'arxiv_id': '1706.03762', 'merged_ids': ['arxiv:1706.03762']})]
    >>> result.merged
    [Merged(id='arxiv:1706.03762', into='bib:vaswani', key='title', value='attentionisallyouneed')]
    """
    result = Deduped()
    index: dict[tuple[str, str], int] = {}
    copied: set[int] = set()  # positions holding a copy (made when the first duplicate merges in)
    for paper in papers:
        keys = result.keys[paper.id] = _keys(paper, min_title_chars)
        target = next(
            (
                (index[k], k)
                for k in keys
                if k in index and not (k[0] == "title" and _conflict(result.papers[index[k]], paper))
            ),
            None,
        )
        if target is None:
            position = len(result.papers)
            result.papers.append(paper)
        else:
            position, (key, value) = target
            if position not in copied:
                kept = result.papers[position]
                result.papers[position] = dataclasses.replace(kept, authors=list(kept.authors), extra=dict(kept.extra))
                copied.add(position)
            kept = result.papers[position]
            _absorb(kept, paper)
            result.merged.append(Merged(id=paper.id, into=kept.id, key=key, value=value))
        for k in keys:
            index.setdefault(k, position)
    return result


def _keys(paper: Paper, min_title_chars: int) -> list[tuple[str, str]]:
    keys = []
    doi = normalise_doi(paper.extra.get("doi"))
    arxiv = normalise_arxiv_id(paper.extra.get("arxiv_id")) or find_arxiv_id(doi)
    if doi:
        keys.append(("doi", doi))
    if arxiv:
        keys.append(("arxiv_id", arxiv))
    title = title_key(paper.title or "")
    if len(title) >= min_title_chars:
        keys.append(("title", title))
    return keys


def _conflict(kept: Paper, paper: Paper) -> bool:
    """Whether identifiers say that two papers with the same title are different papers."""
    dois = [_journal_doi(p) for p in (kept, paper)]
    arxiv = [normalise_arxiv_id(p.extra.get("arxiv_id")) for p in (kept, paper)]
    return (None not in dois and dois[0] != dois[1]) or (None not in arxiv and arxiv[0] != arxiv[1])


def _journal_doi(paper: Paper) -> str | None:
    doi = normalise_doi(paper.extra.get("doi"))
    return None if doi is None or doi.startswith(_ARXIV_DOI_PREFIX) else doi


def _absorb(kept: Paper, later: Paper) -> None:
    """Give ``kept`` what it lacks from ``later``; what it has stays."""
    kept.title = kept.title or later.title
    kept.year = later.year if kept.year is None else kept.year
    kept.authors = kept.authors or list(later.authors)
    kept.venue = kept.venue or later.venue
    for name, value in later.extra.items():
        if name != "merged_ids" and _empty(kept.extra.get(name)):
            kept.extra[name] = value
    # a record's own merged_ids (a list of text: kg.read.validate) are papers merged before this run
    merged_ids = [*(kept.extra.get("merged_ids") or []), later.id, *(later.extra.get("merged_ids") or [])]
    kept.extra["merged_ids"] = merged_ids


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == []
