"""Semantic Scholar papers -> kg fields: Graph API papers and pages (``data``), and the datasets' JSON Lines.

The id is ``s2:<paperId>`` or, for the bulk datasets, which have no paperId, ``s2:<corpusid>``. The
datasets spell keys in lower case (``externalids``, ``corpusid``): keys are matched either way.
Their ``papers`` lines carry no abstract and their ``abstracts`` lines no title: each line is
mapped as it is.
"""

from __future__ import annotations

from typing import Any

from kg.read.fields import compact, normalise_arxiv_id, normalise_doi
from kg.read.jsondocs import JsonSource
from kg.read.raw import RecordError
from kg.read.shapes import items, mapping, text

KIND = "malformed S2 paper"
_PAGE_KEYS = ("total", "offset", "next", "token")


def looks_like(obj: dict[str, Any]) -> bool:
    """Whether a JSON object is a Semantic Scholar paper, an ``abstracts`` line or a page of papers.

    >>> looks_like({"paperId": "df2b0e26"}), looks_like({"corpusid": 1}), looks_like({"id": "p1"})
    (True, True, False)
    """
    keys = {k.lower() for k in obj}
    if keys & {"paperid", "corpusid", "externalids", "publicationvenue"}:
        return True
    return isinstance(obj.get("data"), list) and bool(keys & set(_PAGE_KEYS))


def record_id(paper: dict[str, Any]) -> str | None:
    """kg's id of a paper: ``s2:`` and its paperId, else its corpus id.

    >>> record_id({"paperId": "df2b0e26", "corpusId": 52967399}), record_id({"corpusid": 52967399})
    ('s2:df2b0e26', 's2:52967399')
    """
    low = _lower(paper)
    paper_id = low.get("paperid")
    if isinstance(paper_id, str) and paper_id.strip():
        return f"s2:{paper_id.strip()}"
    corpus_id = _corpus_id(low)
    return f"s2:{corpus_id}" if corpus_id is not None else None


def to_fields(paper: dict[str, Any]) -> dict[str, Any]:
    """Map one Semantic Scholar paper (or dataset line) to kg fields.

    >>> to_fields({"paperId": "ab12", "title": "T", "authors": [{"name": "Ann Lee"}], "externalIds": {"DOI": "10.1/X"}})
    {'id': 's2:ab12', 'title': 'T', 'authors': ['Ann Lee'], 's2_paper_id': 'ab12', 'doi': '10.1/x'}
    """
    low = _lower(paper)
    open_access = mapping(low, "openaccessinfo", kind=KIND)
    external = _lower(mapping(low, "externalids", kind=KIND) or mapping(open_access, "externalids", kind=KIND) or {})
    paper_id = text(low, "paperid", kind=KIND)
    venue = mapping(low, "publicationvenue", kind=KIND)
    journal = mapping(low, "journal", kind=KIND)
    return compact(
        {
            "id": record_id(paper),
            "title": text(low, "title", kind=KIND),
            "abstract": low.get("abstract"),
            "year": low.get("year"),
            "authors": _authors(low),
            "venue": _first_text((low, "venue"), (venue, "name"), (journal, "name")),
            "s2_paper_id": paper_id,
            "s2_corpus_id": _corpus_id(low),
            "doi": normalise_doi(external.get("doi")),
            "arxiv_id": normalise_arxiv_id(external.get("arxiv")),
            "url": text(low, "url", kind=KIND) or text(open_access, "url", kind=KIND),
            "fields_of_study": _fields_of_study(low),
            "publication_date": text(low, "publicationdate", kind=KIND),
        }
    )


def _first_text(*places: tuple[dict[str, Any] | None, str]) -> str | None:
    # The dataset's "journal": {"name": ""} is common: an empty name gives way to the next place.
    for obj, key in places:
        value = text(obj, key, kind=KIND)
        if value and value.strip():
            return value
    return None


def _authors(low: dict[str, Any]) -> list[str]:
    names = []
    for author in items(low, "authors", kind=KIND, what="a list of objects with a name"):
        if not isinstance(author, dict):
            raise RecordError(KIND, "authors is not a list of objects with a name")
        name = text(author, "name", kind=KIND)
        if name and name.strip():
            names.append(name.strip())
    return names


def _fields_of_study(low: dict[str, Any]) -> list[str]:
    found = [f for f in items(low, "fieldsofstudy", kind=KIND) if isinstance(f, str)]
    for entry in items(low, "s2fieldsofstudy", kind=KIND):
        if isinstance(entry, dict) and isinstance(entry.get("category"), str):
            found.append(entry["category"])
    return list(dict.fromkeys(found))


def _corpus_id(low: dict[str, Any]) -> int | None:
    external = low.get("externalids")
    candidates = [low.get("corpusid")]
    if isinstance(external, dict):
        candidates += [v for k, v in external.items() if k.lower() == "corpusid"]
    for value in candidates:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().isdigit():
            return int(value.strip())
    return None


def _lower(obj: dict[str, Any]) -> dict[str, Any]:
    return {k.lower(): v for k, v in obj.items() if isinstance(k, str)}


SOURCE = JsonSource("s2", KIND, "data", looks_like, record_id, to_fields)
