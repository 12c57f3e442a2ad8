"""JSON inputs: JSON Lines, or one JSON document (a single object, a list, an API page of results).

A file whose first non-blank line is a JSON value by itself is read as JSON Lines, one line at a
time, so that snapshots of many gigabytes stream; otherwise, if it starts like JSON, it is read
whole as one document. For a document, a record's ``line`` is its position in the document
(1 for the first), since the parser does not report where each object starts.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from kg.read.raw import RawRecord, RecordError, failed

#: Non-blank lines looked at to recognise a JSON source.
SNIFF_LINES = 20


@dataclass(frozen=True, slots=True)
class JsonSource:
    """How to read one kind of JSON record (OpenAlex work, arXiv record, S2 paper) into kg fields."""

    name: str
    #: The ``error_kind`` of a record whose fields have the wrong shape.
    kind: str
    #: The key of an API page's list of records, e.g. ``"results"``; ``None`` if there are no pages.
    page_key: str | None
    looks_like: Callable[[dict[str, Any]], bool]
    record_id: Callable[[dict[str, Any]], str | None]
    to_fields: Callable[[dict[str, Any]], dict[str, Any]]


def iter_json(fh: IO[bytes], source: str) -> Iterator[RawRecord]:
    """Yield kg's own JSON records: one per line of JSON Lines, or the records of one JSON document.

    A line (or a document) holding a list of objects gives one record per object.

    >>> import io
    >>> [r.fields or r.error for r in iter_json(io.BytesIO(b'{"id": "p1"}\\n\\nnull\\n[{"id": "p3"}]'), "f.jsonl")]
    [{'id': 'p1'}, 'expected a JSON object, got null', {'id': 'p3'}]
    """
    yield from _iter_objects(fh, source, None)


def iter_source(fh: IO[bytes], source: str, spec: JsonSource) -> Iterator[RawRecord]:
    """Yield the records of a JSON Lines file or JSON document of ``spec``'s kind, mapped to kg fields.

    Parameters
    ----------
    fh
        The file's bytes.
    source
        The file's name, for the records.
    spec
        The kind of record, e.g. ``kg.read.openalex.SOURCE``.

    >>> import io
    >>> spec = JsonSource("demo", "malformed demo", "items", bool, lambda o: None, lambda o: {"id": o["n"]})
    >>> [r.fields for r in iter_source(io.BytesIO(b'{"items": [{"n": 1}, {"n": 2}]}'), "d.json", spec)]
    [{'id': 1}, {'id': 2}]
    """
    for rec in _iter_objects(fh, source, spec.page_key):
        if rec.fields is None:
            yield rec
            continue
        try:
            fields = spec.to_fields(rec.fields)
        except RecordError as err:
            yield failed(rec.source, rec.line, rec.raw, err, id=_safe_id(spec, rec.fields))
            continue
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            # A shape no mapper rule foresaw still costs one record, never the file.
            odd = RecordError(spec.kind, f"unexpected {spec.name} record shape ({type(exc).__name__}: {exc})")
            yield failed(rec.source, rec.line, rec.raw, odd, id=_safe_id(spec, rec.fields))
            continue
        yield RawRecord(rec.source, rec.line, fields, rec.raw)


def sniff(fh: IO[bytes], sources: Iterable[JsonSource]) -> str | None:
    """The name of the source whose records the file holds, from its first record; ``None`` for plain JSON.

    >>> import io
    >>> spec = JsonSource("demo", "malformed demo", "items", lambda o: "n" in o, lambda o: None, dict)
    >>> sniff(io.BytesIO(b'{"items": [{"n": 1}]}'), [spec]), sniff(io.BytesIO(b'{"id": 1}'), [spec])
    ('demo', None)
    """
    sources = list(sources)
    head, first = _head(fh)
    obj: Any = None
    if not _is_json_value(first) and _starts_like_json(first):
        obj = _loads(b"".join(head) + fh.read())
    if obj is None:
        # JSON Lines, maybe with a broken first line: the first line holding an object or a list.
        obj = next((v for v in map(_loads, head) if isinstance(v, (dict, list))), None)
    first_item = obj[0] if isinstance(obj, list) and obj else obj
    if not isinstance(first_item, dict):
        return None
    for spec in sources:
        page = first_item.get(spec.page_key) if spec.page_key else None
        inner = page[0] if isinstance(page, list) and page and isinstance(page[0], dict) else None
        if spec.looks_like(first_item) or (inner is not None and spec.looks_like(inner)):
            return spec.name
    return None


def _iter_objects(fh: IO[bytes], source: str, page_key: str | None) -> Iterator[RawRecord]:
    head, first = _head(fh, lines=1)
    if _is_json_value(first) or not _starts_like_json(first):
        yield from _from_lines(itertools.chain(head, fh), source, page_key)
        return
    data = b"".join(head) + fh.read()
    text = _decode(data)
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as exc:
        if _looks_like_json_lines(text):
            # The first line of a JSON Lines file was broken, not a document: read the lines.
            yield from _from_lines(data.splitlines(keepends=True), source, page_key)
            return
        # One reject for the document: its lines are not records, and how many records it
        # held cannot be told.
        error = f"malformed JSON document ({_problem(exc, document=True)}); nothing in it was read"
        yield RawRecord(source, 1, None, text, error, "malformed JSON")
        return
    yield from _records(source, doc, text, page_key, line=None)


def _parse_lines(lines: Iterable[bytes], source: str) -> Iterator[RawRecord | tuple[int, str, Any]]:
    """(line number, text, JSON value) per non-blank line, or the reject of a line that is not JSON."""
    for lineno, data in enumerate(lines, 1):
        if lineno == 1 and data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        text = data.decode("utf-8", errors="surrogateescape").rstrip("\r\n")
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError) as exc:
            yield RawRecord(source, lineno, None, text, f"malformed JSON ({_problem(exc)})", "malformed JSON")
            continue
        yield lineno, text, obj


def _from_lines(lines: Iterable[bytes], source: str, page_key: str | None) -> Iterator[RawRecord]:
    for item in _parse_lines(lines, source):
        if isinstance(item, RawRecord):
            yield item
        else:
            lineno, text, obj = item
            yield from _records(source, obj, text, page_key, line=lineno)


def _records(source: str, obj: Any, raw: str, page_key: str | None, *, line: int | None) -> Iterator[RawRecord]:
    """The records in one JSON value: itself, the items of a list, or the items of an API page.

    Items found on one line of JSON Lines share its number; items of a whole document are numbered
    by their position.
    """
    if isinstance(obj, dict) and (page_key is None or not isinstance(obj.get(page_key), list)):
        yield RawRecord(source, line or 1, obj, raw)
        return
    items = obj if isinstance(obj, list) else obj[page_key] if isinstance(obj, dict) and page_key else None
    if items is None or (isinstance(obj, list) and not any(isinstance(item, dict) for item in items)):
        # a list of no records, e.g. [1, 2], is one thing that is not a record
        yield _not_an_object(source, line or 1, raw, obj)
        return
    for position, item in enumerate(items, 1):
        item_raw = _dumps(item)
        if isinstance(item, dict):
            yield RawRecord(source, line or position, item, item_raw)
        else:
            yield _not_an_object(source, line or position, item_raw, item)


def _problem(exc: ValueError | RecursionError, *, document: bool = False) -> str:
    """What is wrong with a JSON text, from the exception its parser raised."""
    if isinstance(exc, json.JSONDecodeError):
        msg = exc.msg.removesuffix(" at")
        return f"{msg} at line {exc.lineno} column {exc.colno}" if document else f"{msg} at column {exc.colno}"
    if isinstance(exc, RecursionError):
        return "nested too deep to read"
    return "a number with too many digits to read (over 4,300)"


def _dumps(obj: Any) -> str:
    try:
        return json.dumps(obj, ensure_ascii=False)
    except (ValueError, RecursionError):
        return repr(obj)[:1000]


def _not_an_object(source: str, line: int, raw: str, obj: Any) -> RawRecord:
    # "null" rather than NoneType: a Semantic Scholar batch answers null for a paper it lacks.
    what = "null" if obj is None else type(obj).__name__
    return RawRecord(source, line, None, raw, f"expected a JSON object, got {what}", "not a JSON object")


def _head(fh: IO[bytes], *, lines: int = SNIFF_LINES) -> tuple[list[bytes], bytes]:
    """The lines up to the ``lines``-th non-blank one, and the first non-blank one."""
    head: list[bytes] = []
    non_blank = 0
    first = b""
    for data in fh:
        head.append(data)
        if data.strip():
            non_blank += 1
            first = first or data
            if non_blank >= lines:
                break
    return head, first


def _decode(data: bytes) -> str:
    return data.removeprefix(b"\xef\xbb\xbf").decode("utf-8", errors="surrogateescape")


def _loads(data: bytes) -> Any:
    try:
        return json.loads(_decode(data))
    except (ValueError, RecursionError):
        return None


def _is_json_value(line: bytes) -> bool:
    try:
        json.loads(_decode(line))
    except (ValueError, RecursionError):
        return False
    return True


def _starts_like_json(line: bytes) -> bool:
    return _decode(line).lstrip().startswith(("{", "["))


def _looks_like_json_lines(text: str) -> bool:
    # Objects, not any value: a pretty-printed document has lines such as `"NAACL"` that parse alone.
    rest = [line for line in text.splitlines()[1:] if line.strip()][:SNIFF_LINES]
    for line in rest:
        try:
            if isinstance(json.loads(line), dict):
                return True
        except (ValueError, RecursionError):
            continue
    return False


def _safe_id(spec: JsonSource, obj: dict[str, Any]) -> str | None:
    try:
        return spec.record_id(obj)
    except (TypeError, ValueError, AttributeError, KeyError):
        return None
