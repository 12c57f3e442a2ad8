"""OpenAlex works -> kg fields: API pages (``results``), single works, snapshot JSON Lines.

The id is ``openalex:W...`` (the short work id); the abstract is rebuilt from
``abstract_inverted_index``, which maps each word to the positions where it occurs.
"""

from __future__ import annotations

import re
from typing import Any

from kg.read.fields import compact, find_arxiv_id, normalise_doi
from kg.read.jsondocs import JsonSource
from kg.read.raw import RecordError
from kg.read.shapes import items, mapping, text

KIND = "malformed OpenAlex work"
_WORK_ID = re.compile(r"(?:^|/)(W\d+)$", re.IGNORECASE)


def looks_like(obj: dict[str, Any]) -> bool:
    """Whether a JSON object is an OpenAlex work or a page of works.

    >>> looks_like({"id": "https://openalex.org/W2741809807"}), looks_like({"id": "p1"})
    (True, False)
    """
    if "abstract_inverted_index" in obj or "authorships" in obj:
        return True
    ident = obj.get("id")
    if isinstance(ident, str) and ident.startswith("https://openalex.org/"):
        return True
    return isinstance(obj.get("results"), list) and isinstance(obj.get("meta"), dict)


def work_id(work: dict[str, Any]) -> str | None:
    """The short OpenAlex work id (``W`` and digits) of a work, from ``id`` or ``ids.openalex``.

    >>> work_id({"id": "https://openalex.org/W2741809807"})
    'W2741809807'
    """
    ids = work.get("ids")
    for value in (work.get("id"), ids.get("openalex") if isinstance(ids, dict) else None):
        if isinstance(value, str) and (match := _WORK_ID.search(value.strip())):
            return match.group(1).upper()
    return None


def record_id(work: dict[str, Any]) -> str | None:
    """kg's id of a work: ``openalex:W...``.

    >>> record_id({"id": "W2741809807"})
    'openalex:W2741809807'
    """
    wid = work_id(work)
    return f"openalex:{wid}" if wid else None


def abstract_from_index(index: Any) -> str | None:
    """The abstract text of an ``abstract_inverted_index``: each word at its positions, joined by spaces.

    >>> abstract_from_index({"parsing.": [3], "We": [0], "study": [1], "Korean": [2]})
    'We study Korean parsing.'
    """
    if index is None:
        return None
    if not isinstance(index, dict) or not all(
        isinstance(word, str) and isinstance(where, list) and all(_is_position(i) for i in where)
        for word, where in index.items()
    ):
        raise RecordError(KIND, "abstract_inverted_index is not a map of words to positions")
    placed = sorted((i, word) for word, where in index.items() for i in where)
    return " ".join(word for _, word in placed)


def to_fields(work: dict[str, Any]) -> dict[str, Any]:
    """Map one OpenAlex work to kg fields.

    >>> to_fields({"id": "W1", "title": "T", "publication_year": 2020, "abstract_inverted_index": {"Hi": [0]}})
    {'id': 'openalex:W1', 'title': 'T', 'abstract': 'Hi', 'year': 2020, 'openalex_id': 'W1'}
    """
    primary = mapping(work, "primary_location", kind=KIND)
    source = mapping(primary, "source", kind=KIND)
    locations = [loc for loc in items(work, "locations", kind=KIND) if isinstance(loc, dict)]
    urls = [loc.get(key) for loc in [primary or {}, *locations] for key in ("landing_page_url", "pdf_url")]
    doi = normalise_doi(text(work, "doi", kind=KIND))
    wid = work_id(work)
    return compact(
        {
            "id": record_id(work),
            "title": text(work, "title", kind=KIND) or text(work, "display_name", kind=KIND),
            "abstract": abstract_from_index(work.get("abstract_inverted_index")),
            "year": work.get("publication_year"),
            "authors": _authors(work),
            "venue": text(source, "display_name", kind=KIND),
            "openalex_id": wid,
            "doi": doi,
            "arxiv_id": find_arxiv_id(*urls, doi),
            "url": text(primary, "landing_page_url", kind=KIND),
            "type": text(work, "type", kind=KIND),
            "language": text(work, "language", kind=KIND),
            "cited_by_count": work.get("cited_by_count"),
        }
    )


def _authors(work: dict[str, Any]) -> list[str]:
    names = []
    for authorship in items(work, "authorships", kind=KIND, what="a list of authorships"):
        if not isinstance(authorship, dict):
            raise RecordError(KIND, "authorships is not a list of authorships")
        author = mapping(authorship, "author", kind=KIND)
        # Authors OpenAlex could not match keep only the name printed on the paper.
        name = text(author, "display_name", kind=KIND) or text(authorship, "raw_author_name", kind=KIND)
        if name and name.strip():
            names.append(name.strip())
    return names


def _is_position(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


SOURCE = JsonSource("openalex", KIND, "results", looks_like, record_id, to_fields)
