"""RIS (``.ris``) -> kg fields: Zotero, EndNote, Mendeley, Scopus, Web of Science and publisher exports.

kg cuts the file into records itself (``TY`` ... ``ER``), then lets rispy read the tags of each
one, so that a broken record costs only itself and keeps its line number: a record with no
``ER`` before the next ``TY`` or before the end of the file, and tags with no ``TY`` before them,
are ``malformed RIS`` rejects. A record's ``line`` is the line of its ``TY``.

The id is the record's ``ID`` tag as written; without one, ``doi:`` and the DOI; without either,
``ris:`` and 16 hex digits of a hash of the title and year (stable from run to run).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from typing import IO, Any

import rispy

from kg.read.fields import compact, find_arxiv_id, first_last, normalise_doi, squash, year_of
from kg.read.raw import RawRecord, RecordError, failed

KIND = "malformed RIS"
# The tag test rispy applies to each line: two capitals (or a capital and a digit), two spaces, a dash.
# Some exporters write the tags in lower case: they are read as the same tags.
_TAG = re.compile(r"^([A-Za-z][A-Za-z0-9])  -")


def iter_ris(fh: IO[bytes], source: str) -> Iterator[RawRecord]:
    """Yield one raw record per RIS record, in file order.

    Parameters
    ----------
    fh
        The file's bytes (UTF-8; a byte-order mark is skipped).
    source
        The file's name, for the records.

    >>> import io
    >>> ris = b"TY  - JOUR\\nTI  - Parsing\\nAU  - Lee, Ann\\nPY  - 2020\\nDO  - 10.1/X\\nER  - \\n"
    >>> [(r.line, r.fields) for r in iter_ris(io.BytesIO(ris), "a.ris")]  # doctest: +NORMALIZE_WHITESPACE
    [(1, {'id': 'doi:10.1/x', 'title': 'Parsing', 'year': 2020, 'authors': ['Ann Lee'], 'ris_type': 'JOUR',
          'doi': '10.1/x'})]
    """
    for start, lines, problem in _records(_text_lines(fh)):
        raw = "\n".join(lines).rstrip()
        if problem is not None:
            yield failed(source, start, raw, problem)
            continue
        try:
            [parsed] = rispy.loads(raw + "\n")
        except (ValueError, KeyError, TypeError) as exc:
            yield failed(source, start, raw, RecordError(KIND, f"malformed RIS record ({exc})"))
            continue
        yield RawRecord(source, start, to_fields(parsed), raw)


def to_fields(rec: dict[str, Any]) -> dict[str, Any]:
    """Map one record as rispy reads it (tag names such as ``title``, ``authors``) to kg fields.

    >>> to_fields({"type_of_reference": "CONF", "primary_title": "T", "first_authors": ["Le, Quoc V."], "id": "7"})
    {'id': '7', 'title': 'T', 'authors': ['Quoc V. Le'], 'ris_type': 'CONF'}
    """
    title = _first(rec, "title", "primary_title")
    year = year_of(_first(rec, "year", "publication_year", "date"))
    doi = normalise_doi(_first(rec, "doi"))
    urls = _all(rec, "urls")
    start, end = _first(rec, "start_page"), _first(rec, "end_page")
    return compact(
        {
            "id": _first(rec, "id") or (f"doi:{doi}" if doi else None) or _title_id(title, year),
            "title": title,
            "abstract": _first(rec, "abstract", "notes_abstract"),
            "year": year,
            "authors": list(dict.fromkeys(first_last(a) for a in _all(rec, "authors", "first_authors"))),
            # T2 is the journal or proceedings in current exports; JF, JO and J2 in older ones.
            "venue": _first(rec, "secondary_title", "alternate_title3", "journal_name", "alternate_title1"),
            "ris_type": _first(rec, "type_of_reference"),
            "doi": doi,
            "arxiv_id": find_arxiv_id(doi, *urls),
            "url": urls[0] if urls else None,
            "publisher": _first(rec, "publisher"),
            "volume": _first(rec, "volume"),
            "number": _first(rec, "number"),
            "pages": f"{start}-{end}" if start and end and "-" not in start else start,
            "issn": _first(rec, "issn"),
            "language": _first(rec, "language"),
            "keywords": _all(rec, "keywords"),
        }
    )


def _records(lines: Iterable[str]) -> Iterator[tuple[int, list[str], RecordError | None]]:
    """(first line number, lines, problem or None) for each record, and for each run of stray tags."""
    current: list[str] | None = None
    start = 0
    stray = False
    found = False
    other: tuple[int, str] | None = None
    for lineno, line in enumerate(lines, 1):
        match = _TAG.match(line)
        tag = match.group(1).upper() if match else None
        if match and tag and not match.group(1).isupper():
            line = tag + line[2:]
        if current is None:
            if tag is None:
                # blank lines and export headers between records are not records
                other = other or ((lineno, line) if line.strip() else None)
                continue
            found = True
            current, start, stray = [line], lineno, tag != "TY"
            if tag == "ER":
                yield start, current, _stray()
                current = None
            continue
        if tag == "TY":
            yield start, current, _stray() if stray else _unclosed(f"before the next TY line (line {lineno})")
            current, start, stray = [line], lineno, False
            continue
        current.append(line)
        if tag == "ER":
            yield start, current, _stray() if stray else None
            current = None
    if current is not None:
        yield start, current, _stray() if stray else _unclosed("(the file ends inside it)")
    elif not found and other is not None:
        # Text, but not one tag in it: not RIS, or RIS in a layout kg does not know. Say so once.
        problem = RecordError(KIND, "no RIS record in the file: no line starts with a tag such as 'TY  - '")
        yield other[0], [other[1]], problem


def _unclosed(where: str) -> RecordError:
    return RecordError(KIND, f"RIS record has no ER line {where}")


def _stray() -> RecordError:
    return RecordError(KIND, "RIS tags outside a record (no TY line before them)")


def _text_lines(fh: IO[bytes]) -> Iterator[str]:
    for lineno, data in enumerate(fh, 1):
        if lineno == 1:
            data = data.removeprefix(b"\xef\xbb\xbf")
        # Undecodable bytes stay as lone surrogates so that validation rejects that record alone.
        yield data.decode("utf-8", errors="surrogateescape").rstrip("\r\n")


def _first(rec: dict[str, Any], *keys: str) -> str | None:
    for key in keys:
        values = rec.get(key)
        for value in values if isinstance(values, list) else [values]:
            if isinstance(value, str) and value.strip():
                return squash(value)
    return None


def _all(rec: dict[str, Any], *keys: str) -> list[str]:
    found = []
    for key in keys:
        values = rec.get(key)
        found += [squash(v) for v in (values if isinstance(values, list) else [values]) if isinstance(v, str)]
    return [v for v in found if v]


def _title_id(title: str | None, year: Any) -> str | None:
    if not title:
        return None
    key = f"{title.casefold()}|{year or ''}".encode("utf-8", errors="surrogateescape")
    return "ris:" + hashlib.sha1(key, usedforsecurity=False).hexdigest()[:16]
