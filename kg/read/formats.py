"""Turn input files into raw records: a dict of fields, or the reason it is not one.

Files are decoded as UTF-8 with ``surrogateescape`` so that one record with broken bytes
does not stop the file: its fields keep the bad bytes as lone surrogates, and validation
rejects that record alone, naming it.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast

from kg.errors import InputError

FORMATS = ("jsonl", "csv")


@dataclass(frozen=True, slots=True)
class RawRecord:
    source: str
    line: int
    fields: dict[str, Any] | None
    raw: str
    error: str | None = None
    error_kind: str | None = None


def detect_format(path: Path) -> str:
    """Guess the format from the file name: ``.jsonl``/``.ndjson``/``.json`` or ``.csv``, maybe ``.gz``."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    last = suffixes[-1] if suffixes else ""
    if last in (".jsonl", ".ndjson", ".json"):
        return "jsonl"
    if last in (".csv", ".tsv"):
        return "csv"
    raise InputError(f"cannot tell the format of {path}: use a .jsonl or .csv name or pass --format")


def iter_raw(path: str | Path, fmt: str = "auto") -> Iterator[RawRecord]:
    """Yield the raw records of one input file in file order."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"input file not found: {path}")
    fmt = detect_format(path) if fmt == "auto" else fmt
    if fmt not in FORMATS:
        raise InputError(f"unknown input format {fmt!r} for {path}: expected one of {', '.join(FORMATS)}")
    with _open_binary(path) as fh:
        if fmt == "jsonl":
            yield from _iter_jsonl(fh, str(path))
        else:
            yield from _iter_csv(fh, str(path), delimiter="\t" if ".tsv" in path.suffixes else ",")


def _open_binary(path: Path) -> IO[bytes]:
    if path.suffix.lower() == ".gz":
        return cast(IO[bytes], gzip.open(path, "rb"))
    return path.open("rb")


def _iter_jsonl(fh: IO[bytes], source: str) -> Iterator[RawRecord]:
    for lineno, data in enumerate(fh, 1):
        if lineno == 1 and data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        text = data.decode("utf-8", errors="surrogateescape").rstrip("\r\n")
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            yield RawRecord(
                source, lineno, None, text, f"malformed JSON ({exc.msg} at column {exc.colno})", "malformed JSON"
            )
            continue
        if not isinstance(obj, dict):
            yield RawRecord(
                source, lineno, None, text, f"expected a JSON object, got {type(obj).__name__}", "not a JSON object"
            )
            continue
        yield RawRecord(source, lineno, obj, text)


def _iter_csv(fh: IO[bytes], source: str, *, delimiter: str) -> Iterator[RawRecord]:
    text = io.TextIOWrapper(fh, encoding="utf-8-sig", errors="surrogateescape", newline="")
    reader = csv.DictReader(text, delimiter=delimiter)
    if reader.fieldnames is None:
        return
    first = 2
    for row in reader:
        # DictReader puts surplus cells under the key None and fills missing ones with None.
        raw = delimiter.join("" if v is None else str(v) for k, v in row.items() if k is not None)
        if None in row:
            yield RawRecord(
                source, first, None, raw, f"{len(row[None])} more cells than the header has", "surplus CSV cells"
            )
        else:
            yield RawRecord(source, first, {k: v for k, v in row.items() if v not in (None, "")}, raw)
        first = reader.line_num + 1
