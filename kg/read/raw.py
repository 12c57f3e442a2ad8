"""What a reader makes of one entry of a file, before validation: kg fields, or why there are none."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class RawRecord:
    """One entry of an input file.

    ``fields`` uses kg's field names (``id``, ``title``, ``abstract``, ``year``, ``authors``,
    ``venue``, extras); it is ``None`` when the entry cannot be read, and then ``error`` says why
    in a sentence and ``error_kind`` names the problem in a few stable words. ``raw`` is the
    entry's text as read, which the fields come from. ``id`` is the entry's
    id when a broken entry still shows one, so that its reject can name it.

    >>> RawRecord("refs.bib", 12, None, "@article{x,", "malformed BibTeX entry", "malformed BibTeX", id="x").id
    'x'
    """

    source: str
    line: int
    fields: dict[str, Any] | None
    raw: str
    error: str | None = None
    error_kind: str | None = None
    id: str | None = None


class RecordError(ValueError):
    """An entry that a reader cannot map to kg fields.

    >>> err = RecordError("malformed OpenAlex work", "authorships is not a list")
    >>> err.kind, str(err)
    ('malformed OpenAlex work', 'authorships is not a list')
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def failed(source: str, line: int, raw: str, error: RecordError, *, id: str | None = None) -> RawRecord:
    """The raw record of an entry that could not be read.

    >>> failed("a.ris", 3, "TI  - x", RecordError("malformed RIS", "no TY line")).error_kind
    'malformed RIS'
    """
    return RawRecord(source, line, None, raw, error.message, error.kind, id)
