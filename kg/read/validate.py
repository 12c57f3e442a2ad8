"""Check raw records and turn them into :class:`~kg.records.Paper` or :class:`~kg.records.Reject`."""

from __future__ import annotations

import datetime
import re
import unicodedata
from typing import Any

from kg.read.fields import is_placeholder, plain_text
from kg.read.formats import RawRecord
from kg.records import Paper, Reject

CORE_FIELDS = ("id", "title", "abstract", "year", "authors", "venue")
DEFAULT_MAX_ABSTRACT_CHARS = 20_000
DEFAULT_MIN_ABSTRACT_CHARS = 20
DEFAULT_MIN_YEAR = 1800
#: Nesting deeper than this in a field (lists in objects in lists...) is no bibliographic record.
MAX_DEPTH = 32

# Undecodable bytes (surrogateescape) and JSON escapes of half a UTF-16 pair: no UTF-8 can hold them.
_SURROGATE = re.compile("[\ud800-\udfff]")
#: The surrogates that ``surrogateescape`` does not make from a byte.
_HALF_PAIR = re.compile("[\ud800-\udc7f\udd00-\udfff]")
_AUTHOR_SPLIT = re.compile(r"\s*;\s*|\s+and\s+")
#: Control characters but tab and line breaks (C0, DEL, C1): a NUL in a title was written raw into the
#: reports, and 492 ACL Anthology abstracts hold a C1 character left by a wrong decoding ("\x80").
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
#: Fields besides the core ones that kg reads itself (the graph's subject categories; the ids of the papers
#: merged into this one, which :mod:`kg.read.dedupe` extends), and what each may hold: text, a list of text.
TYPED_FIELDS: dict[str, tuple[type, ...]] = {
    "categories": (str, list),
    "primary_category": (str,),
    "merged_ids": (list,),
}


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
        min_year: int = DEFAULT_MIN_YEAR,
        max_year: int | None = None,
    ) -> None:
        self.max_abstract_chars = max_abstract_chars
        self.min_abstract_chars = min_abstract_chars
        self.min_year = min_year
        #: None: next year (preprints of the coming year are dated so in December).
        self.max_year = max_year if max_year is not None else datetime.date.today().year + 1
        #: Where each id kept was read: its source and line.
        self._seen: dict[str, tuple[str, int]] = {}

    def check(self, rec: RawRecord) -> Paper | Reject:
        if rec.fields is None:
            # A reader may still know the id of a broken entry (a BibTeX key, an OpenAlex id).
            return self._reject(rec, rec.id, rec.error_kind or "unreadable record", rec.error)
        fields = rec.fields
        if not _is_text(given := fields.get("id")):
            return self._reject(rec, None, "id not text", f"id is not text (got {_type_name(given)})")
        rid = _text(given)
        if not rid:
            return self._reject(rec, None, "missing id")
        for name, value in fields.items() if _may_have_surrogates(rec.raw) else ():
            if _has_surrogates(name) or _has_surrogates(value):
                return self._reject(
                    rec, rid, "undecodable text", f"undecodable text in field {_printable(name)} (not valid UTF-8)"
                )
        # The abstract is kept as given, its LaTeX markup decoded (kg.read.fields.plain_text): mention
        # offsets index into it.
        abstract = fields.get("abstract")
        if isinstance(abstract, str):
            abstract = _blank_controls(plain_text(abstract))
        if abstract is None:
            return self._reject(rec, rid, "missing abstract")
        if not isinstance(abstract, str):
            return self._reject(rec, rid, "abstract not text", f"abstract is not text (got {type(abstract).__name__})")
        if is_placeholder(abstract):
            # "An abstract is not available.": no abstract, as an empty one is
            return self._reject(rec, rid, "placeholder abstract", f"placeholder abstract ({abstract.strip()!r})")
        if len(abstract.strip()) < self.min_abstract_chars:
            what = "empty abstract" if not abstract.strip() else "abstract too short"
            n = len(abstract.strip())
            return self._reject(rec, rid, what, f"{what} ({n} characters, minimum {self.min_abstract_chars})")
        if len(abstract) > self.max_abstract_chars:
            n, most = len(abstract), self.max_abstract_chars
            return self._reject(
                rec, rid, "abstract too long", f"abstract too long ({n:,} characters, maximum {most:,})"
            )
        for name, value in fields.items():
            if name != "abstract" and isinstance(value, str) and len(value) > self.max_abstract_chars:
                n, most = len(value), self.max_abstract_chars
                return self._reject(
                    rec, rid, "field too long", f"field {name!r} too long ({n:,} characters, maximum {most:,})"
                )
            if _depth(value) > MAX_DEPTH:
                return self._reject(
                    rec, rid, "field nested too deep", f"field {name!r} nested more than {MAX_DEPTH} levels deep"
                )
        year = fields.get("year")
        if year is not None:
            try:
                year = _year(year)
            except ValueError:
                shown = _printable(year if not isinstance(year, str) else year[:40])
                return self._reject(
                    rec, rid, "invalid year", f"invalid year {shown} (expected a whole number such as 2021)"
                )
            if year is not None and not self.min_year <= year <= self.max_year:
                shown = f"{year}" if abs(year) < 10**12 else f"with {len(str(abs(year)))} digits"
                return self._reject(
                    rec,
                    rid,
                    "implausible year",
                    f"implausible year {shown} (expected {self.min_year} to {self.max_year}: read.min_year, "
                    "read.max_year)",
                )
        for name in ("title", "venue"):
            if not _is_text(value := fields.get(name)):
                return self._reject(rec, rid, f"{name} not text", f"{name} is not text (got {_type_name(value)})")
        try:
            authors = _authors(fields.get("authors"))
        except ValueError as err:
            return self._reject(rec, rid, "invalid authors", str(err))
        for name, shapes in TYPED_FIELDS.items():
            if problem := _texts_problem(name, fields.get(name), shapes):
                return self._reject(rec, rid, f"invalid {name}", problem)
        if (seen := self._seen.get(rid)) is not None:
            return self._reject(rec, rid, "duplicate id", f"duplicate id {rid} (first seen at {seen[0]}:{seen[1]})")
        self._seen[rid] = (rec.source, rec.line)
        return Paper(
            id=rid,
            title=unicodedata.normalize("NFC", _blank_controls(plain_text(_text(fields.get("title")) or ""))),
            abstract=abstract,
            year=year,
            authors=[_blank_controls(a) for a in authors],
            venue=None if (venue := _text(fields.get("venue"))) is None else _blank_controls(venue),
            extra={k: v for k, v in fields.items() if k not in CORE_FIELDS},
        )

    def where(self, rid: str) -> tuple[str, int] | None:
        """The source and line the paper with id ``rid`` was read from; None if no paper read has it.

        >>> v = Validator()
        >>> _ = v.check(RawRecord("f.jsonl", 3, {"id": "p1", "abstract": "We study parsing of Korean."}, ""))
        >>> v.where("p1"), v.where("p2")
        (('f.jsonl', 3), None)
        """
        return self._seen.get(rid)

    @staticmethod
    def _reject(rec: RawRecord, rid: str | None, kind: str, reason: str | None = None) -> Reject:
        return Reject(
            source=rec.source,
            line=rec.line,
            id=None if rid is None else _clean(rid),
            kind=kind,
            reason=_clean(reason or kind),
            raw=_clean(rec.raw),
        )


def _is_text(value: Any) -> bool:
    """Whether :func:`_text` reads ``value`` as text: it is text, a number (not a bool), or missing."""
    return value is None or isinstance(value, str) or (isinstance(value, (int, float)) and not isinstance(value, bool))


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return None
    return value.strip() or None


def _texts_problem(name: str, value: Any, shapes: tuple[type, ...]) -> str | None:
    """Why field ``name`` does not hold one of ``shapes`` (text, a list of text), or None when it does or is missing.

    >>> _texts_problem("categories", "cs.CL cs.LG", (str, list)), _texts_problem("categories", ["cs.CL"], (str, list))
    (None, None)
    >>> _texts_problem("categories", 5, (str, list))
    'categories is not text or a list of text (got int)'
    >>> _texts_problem("categories", ["cs.CL", None], (str, list))
    'categories item 2 is not text (got None)'
    """
    if value is None:
        return None
    if not isinstance(value, shapes):
        expected = " or ".join("text" if shape is str else "a list of text" for shape in shapes)
        return f"{name} is not {expected} (got {_type_name(value)})"
    for i, item in enumerate(value if isinstance(value, list) else (), start=1):
        if not isinstance(item, str):
            return f"{name} item {i} is not text (got {_type_name(item)})"
    return None


def _type_name(value: Any) -> str:
    return "None" if value is None else type(value).__name__


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


def _clean(text: str) -> str:
    """``text`` with what UTF-8 cannot hold as escapes: an undecodable byte as ``\\xNN``, half a pair as ``\\uNNNN``."""
    if text.isascii() or not _SURROGATE.search(text):
        return text
    text = _HALF_PAIR.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="backslashreplace")


def _printable(value: Any) -> str:
    """``repr`` of ``value`` that any UTF-8 output can hold (a lone surrogate would not encode)."""
    return repr(value).encode("utf-8", errors="backslashreplace").decode("utf-8")


def _blank_controls(text: str) -> str:
    r"""``text`` with each control character but tab and line breaks as a space, so that what indexes
    into it still does.

    >>> _blank_controls("Zero\x00shot \x93parsing\x94\tand\nmore")
    'Zero shot  parsing \tand\nmore'
    """
    return _CONTROL.sub(" ", text) if _CONTROL.search(text) else text


def _depth(value: Any, level: int = 0) -> int:
    """How deep lists and objects nest in ``value``, counting no further than just past :data:`MAX_DEPTH`."""
    if level > MAX_DEPTH or not isinstance(value, (list, dict)):
        return level
    children = value.values() if isinstance(value, dict) else value
    return max((_depth(v, level + 1) for v in children), default=level + 1)


def _authors(value: Any) -> list[str]:
    """The names in ``value``: text separated by ``;`` or ``and``, or a list of names, each text or an
    object with a text ``name`` (as Semantic Scholar writes them); ValueError says what else it holds.

    >>> _authors("Ann Lee; Bo Chen and Cy Dee")
    ['Ann Lee', 'Bo Chen', 'Cy Dee']
    >>> _authors(["Ann Lee", {"name": "Bo Chen", "authorId": "1"}, " "])
    ['Ann Lee', 'Bo Chen']
    >>> _authors(["Ann Lee", None])
    Traceback (most recent call last):
    ValueError: authors item 2 is not a name (got None)
    """
    if value is None:
        return []
    if isinstance(value, str):
        return [a for a in _AUTHOR_SPLIT.split(value.strip()) if a]
    if not isinstance(value, list):
        raise ValueError(f"authors is not text or a list of names (got {_type_name(value)})")
    names = []
    for i, author in enumerate(value, start=1):
        name = author.get("name") if isinstance(author, dict) else author
        if not isinstance(name, str):
            got = "an object without a text name" if isinstance(author, dict) else _type_name(author)
            raise ValueError(f"authors item {i} is not a name (got {got})")
        if name.strip():
            names.append(name.strip())
    return names


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
