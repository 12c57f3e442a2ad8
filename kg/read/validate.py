"""Check raw records and turn them into :class:`~kg.records.Paper` or :class:`~kg.records.Reject`."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from kg.read.formats import RawRecord
from kg.records import Paper, Reject

CORE_FIELDS = ("id", "title", "abstract", "year", "authors", "venue")
DEFAULT_MAX_ABSTRACT_CHARS = 20_000
DEFAULT_MIN_ABSTRACT_CHARS = 20

_SURROGATE = re.compile("[\udc80-\udcff]")
_AUTHOR_SPLIT = re.compile(r"\s*;\s*|\s+and\s+")


class Validator:
    """Validates records one at a time; remembers ids to reject duplicates.

    >>> v = Validator()
    >>> v.check(RawRecord("f.jsonl", 1, {"id": "p1", "abstract": "We study parsing of Korean."}, "")).id
    'p1'
    >>> v.check(RawRecord("f.jsonl", 2, {"id": "p1", "abstract": "Again the same id here."}, "")).reason
    'duplicate id p1 (first seen at f.jsonl:1)'
    """

    def __init__(
        self,
        *,
        max_abstract_chars: int = DEFAULT_MAX_ABSTRACT_CHARS,
        min_abstract_chars: int = DEFAULT_MIN_ABSTRACT_CHARS,
    ) -> None:
        self.max_abstract_chars = max_abstract_chars
        self.min_abstract_chars = min_abstract_chars
        self._seen: dict[str, str] = {}

    def check(self, rec: RawRecord) -> Paper | Reject:
        if rec.fields is None:
            # A reader may still know the id of a broken entry (a BibTeX key, an OpenAlex id).
            return self._reject(rec, rec.id, rec.error_kind or "unreadable record", rec.error)
        fields = rec.fields
        rid = _text(fields.get("id"))
        if not rid:
            return self._reject(rec, None, "missing id")
        for name, value in fields.items() if _may_have_surrogates(rec.raw) else ():
            if _has_surrogates(value):
                return self._reject(
                    rec, rid, "undecodable text", f"undecodable text in field {name!r} (not valid UTF-8)"
                )
        # The abstract is kept exactly as given: mention offsets index into it.
        abstract = fields.get("abstract")
        if abstract is None:
            return self._reject(rec, rid, "missing abstract")
        if not isinstance(abstract, str):
            return self._reject(rec, rid, "abstract not text", f"abstract is not text (got {type(abstract).__name__})")
        if len(abstract.strip()) < self.min_abstract_chars:
            what = "empty abstract" if not abstract.strip() else "abstract too short"
            n = len(abstract.strip())
            return self._reject(rec, rid, what, f"{what} ({n} characters, minimum {self.min_abstract_chars})")
        if len(abstract) > self.max_abstract_chars:
            n, most = len(abstract), self.max_abstract_chars
            return self._reject(
                rec, rid, "abstract too long", f"abstract too long ({n:,} characters, maximum {most:,})"
            )
        year = fields.get("year")
        if year is not None:
            try:
                year = _year(year)
            except ValueError:
                return self._reject(
                    rec, rid, "invalid year", f"invalid year {year!r} (expected a whole number such as 2021)"
                )
        if rid in self._seen:
            return self._reject(rec, rid, "duplicate id", f"duplicate id {rid} (first seen at {self._seen[rid]})")
        self._seen[rid] = f"{rec.source}:{rec.line}"
        return Paper(
            id=rid,
            title=unicodedata.normalize("NFC", _text(fields.get("title")) or ""),
            abstract=abstract,
            year=year,
            authors=_authors(fields.get("authors")),
            venue=_text(fields.get("venue")),
            extra={k: v for k, v in fields.items() if k not in CORE_FIELDS},
        )

    @staticmethod
    def _reject(rec: RawRecord, rid: str | None, kind: str, reason: str | None = None) -> Reject:
        raw = rec.raw.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="backslashreplace")
        return Reject(source=rec.source, line=rec.line, id=rid, kind=kind, reason=reason or kind, raw=raw)


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return None
    return value.strip() or None


def _year(value: Any) -> int | None:
    if isinstance(value, bool):
        raise ValueError(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        if not value.strip():
            return None
        return int(value.strip())
    raise ValueError(value)


def _authors(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [a for a in _AUTHOR_SPLIT.split(value.strip()) if a]
    if isinstance(value, list):
        return [str(a).strip() for a in value if str(a).strip()]
    return [str(value)]


def _may_have_surrogates(raw: str) -> bool:
    """Whether fields read from ``raw`` may hold undecodable bytes: it has one, or a JSON escape of one.

    (Fields come from their entry's text; a record without that text has all its fields checked.)
    """
    return not raw or "\\ud" in raw or "\\uD" in raw or (not raw.isascii() and bool(_SURROGATE.search(raw)))


def _has_surrogates(value: Any) -> bool:
    if isinstance(value, str):
        return not value.isascii() and bool(_SURROGATE.search(value))
    if isinstance(value, list):
        return any(_has_surrogates(v) for v in value)
    if isinstance(value, dict):
        return any(_has_surrogates(k) or _has_surrogates(v) for k, v in value.items())
    return False
