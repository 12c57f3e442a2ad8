"""Read stage: input files -> validated papers, and rejects with their reasons."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from kg.read.dedupe import Deduped, Merged, dedupe_papers
from kg.read.formats import FORMATS, RawRecord, detect_format, iter_raw, sniff_format
from kg.read.validate import Validator
from kg.records import Paper, Reject

__all__ = [
    "FORMATS",
    "Deduped",
    "Merged",
    "RawRecord",
    "Validator",
    "dedupe_papers",
    "detect_format",
    "iter_raw",
    "read_records",
    "sniff_format",
]


def read_records(
    paths: str | Path | Iterable[str | Path],
    *,
    fmt: str = "auto",
    validator: Validator | None = None,
) -> Iterator[Paper | Reject]:
    """Yield every record of the input files, as a :class:`Paper` or a :class:`Reject`.

    Nothing is dropped silently: each record read comes out exactly once, one way or the
    other. Ids are checked for duplicates across all the files.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    validator = validator or Validator()
    for path in paths:
        for raw in iter_raw(path, fmt):
            yield validator.check(raw)
