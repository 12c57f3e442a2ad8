"""Read stage: input files -> validated papers, and rejects with their reasons."""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from kg.read.dedupe import Deduped, Merged, dedupe_papers
from kg.read.formats import FORMATS, RawRecord, detect_format, iter_raw, sniff_format
from kg.read.validate import Validator
from kg.records import Paper, Reject

log = logging.getLogger(__name__)

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
    "split_records",
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


def split_records(items: Iterable[Paper | Reject], rejects: IO[str]) -> tuple[list[Paper], Counter[str]]:
    """Keep the papers; write each reject to ``rejects`` (JSON Lines) and log it with its reason.

    Returns the papers and the number of rejects of each kind, so that nothing read is lost.
    """
    papers: list[Paper] = []
    kinds: Counter[str] = Counter()
    for item in items:
        if isinstance(item, Reject):
            log.warning("rejected %s:%d (%s): %s", item.source, item.line, item.id or "no id", item.reason)
            kinds[item.kind] += 1
            rejects.write(json.dumps(item.to_dict(), ensure_ascii=False) + "\n")
        else:
            papers.append(item)
    return papers, kinds
