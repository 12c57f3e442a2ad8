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
from collections.abc import Iterator
from pathlib import Path
from typing import IO, cast

from kg.errors import InputError
from kg.read import arxiv, openalex, s2
from kg.read.bibtex import iter_bibtex
from kg.read.jsondocs import JsonSource, iter_json_lines, iter_source, sniff
from kg.read.raw import RawRecord
from kg.read.ris import iter_ris

__all__ = ["FORMATS", "JSON_SOURCES", "RawRecord", "detect_format", "iter_raw", "sniff_format"]

FORMATS = ("jsonl", "csv", "bibtex", "ris", "openalex", "arxiv", "s2")

#: JSON formats recognised from their first record, in the order they are tried.
JSON_SOURCES: dict[str, JsonSource] = {src.name: src for src in (openalex.SOURCE, arxiv.SOURCE, s2.SOURCE)}

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
    if not path.is_file():
        raise InputError(f"input file not found: {path}")
    fmt = sniff_format(path) if fmt == "auto" else fmt
    if fmt not in FORMATS:
        raise InputError(f"unknown input format {fmt!r} for {path}: expected one of {', '.join(FORMATS)}")
    with _open_binary(path) as fh:
        if fmt == "jsonl":
            yield from iter_json_lines(fh, str(path))
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
