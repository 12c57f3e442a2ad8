"""Turn input files into raw records: a dict of fields, or the reason it is not one.

Files are decoded as UTF-8 with ``surrogateescape`` so that one record with broken bytes
does not stop the file: its fields keep the bad bytes as lone surrogates, and validation
rejects that record alone, naming it.

Formats: kg's own ``jsonl`` and ``csv``; ``bibtex`` and ``ris`` reference-manager exports; and
the JSON of ``openalex`` works, the ``arxiv`` metadata snapshot and Semantic Scholar (``s2``)
papers. Any of them may be gzipped.
"""

from __future__ import annotations

import csv
import gzip
import io
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, cast

from kg.errors import InputError
from kg.read import arxiv, openalex, s2
from kg.read.bibtex import iter_bibtex
from kg.read.jsondocs import JsonSource, iter_json, iter_source, sniff
from kg.read.raw import RawRecord
from kg.read.ris import iter_ris

__all__ = ["FORMATS", "JSON_SOURCES", "RawRecord", "detect_format", "iter_raw", "sniff_format"]

FORMATS = ("jsonl", "csv", "bibtex", "ris", "openalex", "arxiv", "s2")

#: JSON formats recognised from their first record, in the order they are tried.
JSON_SOURCES: dict[str, JsonSource] = {src.name: src for src in (openalex.SOURCE, arxiv.SOURCE, s2.SOURCE)}

_DELIMITERS = (",", ";", "\t", "|")
#: Largest CSV cell read: any real record fits, and a cell this long is rejected by the validator.
_FIELD_LIMIT = 2**30

_SUFFIXES = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".csv": "csv",
    ".tsv": "csv",
    ".bib": "bibtex",
    ".bibtex": "bibtex",
    ".ris": "ris",
}


def detect_format(path: Path) -> str:
    """Guess the format from the file name, maybe ending in ``.gz``.

    Parameters
    ----------
    path
        The input file; only its name is looked at.

    Returns
    -------
    str
        ``jsonl`` for ``.jsonl``/``.ndjson``/``.json`` (see :func:`sniff_format` for the JSON
        sources), ``csv`` for ``.csv``/``.tsv``, ``bibtex`` for ``.bib``, ``ris`` for ``.ris``.

    Raises
    ------
    InputError
        If the name says none of these.

    >>> detect_format(Path("refs.bib.gz")), detect_format(Path("works.json"))
    ('bibtex', 'jsonl')
    """
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    last = suffixes[-1] if suffixes else ""
    if last in _SUFFIXES:
        return _SUFFIXES[last]
    raise InputError(
        f"cannot tell the format of {path}: use a .jsonl, .csv, .bib or .ris name or pass --format "
        f"(one of {', '.join(FORMATS)})"
    )


def sniff_format(path: str | Path) -> str:
    """The format of a file from its name and, for JSON, from the keys of its first record.

    Parameters
    ----------
    path
        The input file, maybe gzipped.

    Returns
    -------
    str
        One of :data:`FORMATS`. A JSON file whose first record is an OpenAlex work
        (``abstract_inverted_index``, ``authorships``, an ``https://openalex.org/`` id), an arXiv
        snapshot record (``authors_parsed``, ``journal-ref``) or a Semantic Scholar paper
        (``paperId``, ``corpusid``, ``externalIds``), or an API page of them, is that source; any
        other JSON is kg's own ``jsonl``.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "works.jsonl"
    >>> _ = path.write_text('{"id": "https://openalex.org/W1", "abstract_inverted_index": null}\\n')
    >>> sniff_format(path)
    'openalex'
    """
    path = Path(path)
    fmt = detect_format(path)
    if fmt != "jsonl":
        return fmt
    with _open_binary(path) as fh:
        return sniff(fh, JSON_SOURCES.values()) or "jsonl"


def iter_raw(path: str | Path, fmt: str = "auto") -> Iterator[RawRecord]:
    """Yield the raw records of one input file in file order.

    Parameters
    ----------
    path
        The input file, maybe gzipped.
    fmt
        One of :data:`FORMATS`, or ``auto`` to tell it from the name and content (:func:`sniff_format`).

    Yields
    ------
    RawRecord
        One per entry: kg fields, or the reason the entry could not be read.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "refs.ris"
    >>> _ = path.write_text("TY  - JOUR\\nID  - p1\\nTI  - Parsing\\nER  - \\n")
    >>> [r.fields for r in iter_raw(path)]
    [{'id': 'p1', 'title': 'Parsing', 'ris_type': 'JOUR'}]
    """
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path} is a directory: give one records file (a pipeline file may list several sources)")
    if not path.is_file():
        raise InputError(f"input file not found: {path}")
    fmt = sniff_format(path) if fmt == "auto" else fmt
    if fmt not in FORMATS:
        raise InputError(f"unknown input format {fmt!r} for {path}: expected one of {', '.join(FORMATS)}")
    with _open_binary(path) as fh:
        if fmt == "jsonl":
            yield from iter_json(fh, str(path))
        elif fmt == "csv":
            yield from _iter_csv(fh, str(path), delimiter="\t" if ".tsv" in path.suffixes else ",")
        elif fmt == "bibtex":
            yield from iter_bibtex(fh, str(path))
        elif fmt == "ris":
            yield from iter_ris(fh, str(path))
        else:
            yield from iter_source(fh, str(path), JSON_SOURCES[fmt])


def _open_binary(path: Path) -> IO[bytes]:
    if path.suffix.lower() == ".gz":
        return cast(IO[bytes], gzip.open(path, "rb"))
    return path.open("rb")


def _iter_csv(fh: IO[bytes], source: str, *, delimiter: str) -> Iterator[RawRecord]:
    """The rows of a CSV file as raw records; the delimiter is the one its header uses.

    A quote that is never closed would make one cell of every line up to the next quote in the
    file: the parser is strict, and the line where it opened becomes a reject that says so, while
    the lines it swallowed are read again as rows of their own.
    """
    _raise_field_limit()
    text = io.TextIOWrapper(fh, encoding="utf-8-sig", errors="surrogateescape", newline="")
    lines = _Lines(text)
    header_line = next(lines, None)
    while header_line is not None and not header_line.strip():
        header_line = next(lines, None)
    if header_line is None:
        return
    delimiter = _sniff_delimiter(header_line, delimiter)
    # Leniently: a header that is not what it should be shows as a missing id column in each row.
    [header] = csv.reader([header_line], delimiter=delimiter)
    # No id column: say what the header holds, so that a wrong delimiter shows.
    no_id = None if "id" in header else f"missing id (the header has no id column: {header_line.strip()[:200]!r})"
    while True:
        lines.taken.clear()
        reader = csv.reader(lines, delimiter=delimiter, strict=True)
        try:
            for row in reader:
                taken, lines.taken[:] = list(lines.taken), []
                if row:  # a blank line is no row
                    yield _csv_record(source, taken, header, row, no_id)
            return
        except csv.Error as exc:
            (first, raw), rest = lines.taken[0], lines.taken[1:]
            problem = str(exc)
            if problem in ("unexpected end of data", "newline inside string") or rest:
                problem = "a quote opened in this line is never closed"
            yield RawRecord(source, first, None, raw.rstrip("\r\n"), f"malformed CSV line {first}: {problem}",
                            "malformed CSV")  # fmt: skip
            lines.push_back(rest)


def _csv_record(
    source: str, taken: list[tuple[int, str]], header: list[str], row: list[str], no_id: str | None
) -> RawRecord:
    line = taken[0][0] if taken else 0
    raw = "".join(text for _, text in taken).rstrip("\r\n")
    if len(row) > len(header):
        return RawRecord(source, line, None, raw, f"{len(row) - len(header)} more cells than the header has",
                         "surplus CSV cells")  # fmt: skip
    fields = {k: v for k, v in zip(header, row, strict=False) if v != ""}
    if no_id and not fields.get("id"):
        return RawRecord(source, line, None, raw, no_id, "missing id")
    return RawRecord(source, line, fields, raw)


class _Lines:
    """The lines of a text, numbered from 1, remembering the ones taken since :attr:`taken` was cleared."""

    def __init__(self, text: Iterable[str]) -> None:
        self._text = iter(text)
        self._next = 0
        self._pending: list[tuple[int, str]] = []
        self.taken: list[tuple[int, str]] = []

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        if self._pending:
            item = self._pending.pop()
        else:
            self._next += 1
            item = (self._next, next(self._text))
        self.taken.append(item)
        return item[1]

    def push_back(self, items: list[tuple[int, str]]) -> None:
        """Read ``items`` again, first."""
        self._pending.extend(reversed(items))


def _sniff_delimiter(header: str, default: str) -> str:
    """The delimiter of a CSV header: ``default`` if it has one, else the one of ``,;\\t|`` it has most."""
    if default in header:
        return default
    counts = {d: header.count(d) for d in _DELIMITERS}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else default


def _raise_field_limit() -> None:
    # csv stops at 131,072 characters a cell: a long abstract is the validator's to reject, naming it.
    if csv.field_size_limit() < _FIELD_LIMIT:
        csv.field_size_limit(_FIELD_LIMIT)
