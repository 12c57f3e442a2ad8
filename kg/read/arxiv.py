"""arXiv metadata snapshot records (Kaggle / OAI ``arxiv-metadata-oai-snapshot.json``) -> kg fields.

The id is ``arxiv:<arXiv id>``; titles and abstracts have their line breaks and indentation folded
(the snapshot keeps the hard-wrapped text of the submission); the year is the year of the first
version, not of the last metadata update.
"""

from __future__ import annotations

import re
from typing import Any

from kg.read.fields import compact, latex_to_text, normalise_arxiv_id, normalise_doi, squash, year_of
from kg.read.jsondocs import JsonSource
from kg.read.raw import RecordError
from kg.read.shapes import items, text

KIND = "malformed arXiv record"
_AUTHOR_SPLIT = re.compile(r"\s*,\s*|\s+and\s+")


def looks_like(obj: dict[str, Any]) -> bool:
    """Whether a JSON object is a record of the arXiv metadata snapshot.

    >>> looks_like({"id": "0704.0001", "authors_parsed": []}), looks_like({"id": "0704.0001"})
    (True, False)
    """
    return "authors_parsed" in obj or "journal-ref" in obj or ("update_date" in obj and "versions" in obj)


def record_id(rec: dict[str, Any]) -> str | None:
    """kg's id of a record: ``arxiv:`` and the arXiv id, without a version.

    >>> record_id({"id": "math/0211159"}), record_id({"id": "1706.03762v2"})
    ('arxiv:math/0211159', 'arxiv:1706.03762')
    """
    ident = rec.get("id")
    if not isinstance(ident, str) or not ident.strip():
        return None
    return f"arxiv:{normalise_arxiv_id(ident) or ident.strip()}"


def to_fields(rec: dict[str, Any]) -> dict[str, Any]:
    """Map one snapshot record to kg fields.

    >>> to_fields({"id": "1810.04805", "title": "BERT:\\n  Pre-training", "update_date": "2019-05-28"})
    ... # doctest: +NORMALIZE_WHITESPACE
    {'id': 'arxiv:1810.04805', 'title': 'BERT: Pre-training', 'year': 2019, 'venue': 'arXiv',
     'arxiv_id': '1810.04805', 'url': 'https://arxiv.org/abs/1810.04805'}
    """
    rid = record_id(rec)
    aid = rid.removeprefix("arxiv:") if rid else None
    dois = (text(rec, "doi", kind=KIND) or "").split()
    categories = (text(rec, "categories", kind=KIND) or "").split()
    return compact(
        {
            "id": rid,
            "title": squash(text(rec, "title", kind=KIND)),
            # Validation rejects a non-text abstract by name, so it is passed on as it is.
            "abstract": squash(rec.get("abstract")),
            "year": _year(rec),
            "authors": _authors(rec),
            "venue": squash(text(rec, "journal-ref", kind=KIND) or "") or "arXiv",
            "arxiv_id": aid,
            # Some records list several DOIs separated by spaces: the first is the main one.
            "doi": normalise_doi(dois[0]) if dois else None,
            "url": f"https://arxiv.org/abs/{aid}" if aid else None,
            "categories": categories,
        }
    )


def _authors(rec: dict[str, Any]) -> list[str]:
    parsed = items(rec, "authors_parsed", kind=KIND, what="a list of [last, first, suffix] names")
    if parsed:
        names = []
        for parts in parsed:
            if not isinstance(parts, list) or not all(isinstance(p, str) for p in parts):
                raise RecordError(KIND, "authors_parsed is not a list of [last, first, suffix] names")
            last, first, suffix = [*parts, "", "", ""][:3]
            names.append(squash(latex_to_text(" ".join(p for p in (first, last, suffix) if p.strip()))))
        return [n for n in names if n]
    authors = latex_to_text(text(rec, "authors", kind=KIND) or "")
    return [squash(a) for a in _AUTHOR_SPLIT.split(authors) if a.strip()]


def _year(rec: dict[str, Any]) -> Any:
    versions = items(rec, "versions", kind=KIND)
    first = versions[0] if versions and isinstance(versions[0], dict) else {}
    created = text(first, "created", kind=KIND)
    return year_of(created) if created else year_of(text(rec, "update_date", kind=KIND))


SOURCE = JsonSource("arxiv", KIND, None, looks_like, record_id, to_fields)
