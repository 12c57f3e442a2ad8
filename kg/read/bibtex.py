"""BibTeX (``.bib``) -> kg fields, with bibtexparser 2: Zotero, Mendeley, JabRef, Google Scholar exports.

The id is the citation key, exactly as written. In the text fields (title, abstract, venue,
authors...) LaTeX accents, escapes and protective braces become Unicode text, whitespace runs
(the line breaks of wrapped fields) one space, and math between ``$`` is kept as written; URLs,
DOIs and other identifiers are kept as written. Authors come out as ``First von Last Jr``; a trailing ``and
others`` is dropped. An entry that does not parse, or whose author list cannot be split into
names, is a ``malformed BibTeX`` reject; a citation key used twice in a file is a ``duplicate
id`` reject. A record's ``line`` is the line of its ``@``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import IO, Any

import bibtexparser
from bibtexparser import middlewares as mw
from bibtexparser.model import (
    Block,
    DuplicateBlockKeyBlock,
    DuplicateFieldKeyBlock,
    Entry,
    ImplicitComment,
    MiddlewareErrorBlock,
    ParsingFailedBlock,
)

from kg.read.fields import compact, find_arxiv_id, latex_to_text, normalise_arxiv_id, normalise_doi, squash, year_of
from kg.read.raw import RawRecord, RecordError, failed

KIND = "malformed BibTeX"
_KEYWORD_SPLIT = re.compile(r"\s*[;,]\s*")
_PAGE_DASH = re.compile(r"\s*[-–—]+\s*")
_BLOCK_START = re.compile(r"^[ \t]*@", re.MULTILINE)
_STRING_START = re.compile(r"\s*@string\b", re.IGNORECASE)
#: Text right after an entry that continues its fields: ", abstract = {...".
_CUT_SHORT = re.compile(r"\s*,?\s*[\w-]+\s*=", re.ASCII)
#: Fields whose LaTeX is decoded; the others (url, doi, eprint, file...) are identifiers, kept as written.
_LATEX_FIELDS = frozenset(
    {"title", "abstract", "journal", "journaltitle", "booktitle", "publisher", "keywords", "mendeley-tags"}
    | {"note", "language", "langid", "pages", "volume", "number"}
)
#: Extra fields kept as they are (after LaTeX decoding), under kg's name for them.
_KEPT = {
    "url": "url",
    "publisher": "publisher",
    "volume": "volume",
    "number": "number",
    "pages": "pages",
    "issn": "issn",
    "isbn": "isbn",
    "pmid": "pmid",
    "language": "language",
    "langid": "language",
}


def iter_bibtex(fh: IO[bytes], source: str) -> Iterator[RawRecord]:
    """Yield one raw record per BibTeX entry, in file order; ``@string``, ``@comment`` and the like are not records.

    Parameters
    ----------
    fh
        The file's bytes (UTF-8; a byte-order mark is skipped).
    source
        The file's name, for the records.

    >>> import io
    >>> bib = b"@article{k1, title={Caf{\\\\'e} {NLP}}, author={Doe, Jane and others}, year={2020}}"
    >>> [r.fields for r in iter_bibtex(io.BytesIO(bib), "refs.bib")]
    [{'id': 'k1', 'title': 'Café NLP', 'year': 2020, 'authors': ['Jane Doe'], 'bibtex_type': 'article'}]
    """
    # Undecodable bytes stay as lone surrogates so that validation rejects that entry alone.
    text = fh.read().removeprefix(b"\xef\xbb\xbf").decode("utf-8", errors="surrogateescape")
    try:
        library = _parse(text)
    except Exception:
        # bibtexparser raises only on its own bugs; parsed one entry at a time, the bug costs one entry.
        yield from _iter_one_by_one(text, source)
        return
    yield from _records(library.blocks, source)


def _records(blocks: list[Block], source: str, *, offset: int = 0) -> Iterator[RawRecord]:
    """The records of parsed blocks; ``offset`` is added to their line numbers."""
    for i, block in enumerate(blocks):
        after = blocks[i + 1] if i + 1 < len(blocks) else None
        line = _line(block) + offset
        raw = block.raw or ""
        if isinstance(block, Entry) and isinstance(after, ImplicitComment) and _CUT_SHORT.match(after.comment):
            # A "}" too many closed the entry: its other fields are outside it, as if a comment.
            rest = squash(after.comment)[:60]
            problem = f"malformed BibTeX entry {block.key}: a stray '}}' ends it before {rest!r}"
            yield failed(source, line, raw + after.comment, RecordError(KIND, problem), id=block.key)
        elif isinstance(block, Entry):
            yield RawRecord(source, line, to_fields(block), raw)
        elif isinstance(block, DuplicateBlockKeyBlock):
            if isinstance(block.ignore_error_block, Entry):
                first = f"{source}:{_line(block.previous_block) + offset}"
                err = RecordError("duplicate id", f"duplicate citation key {block.key} (first seen at {first})")
                yield failed(source, line, raw, err, id=block.key)
        elif isinstance(block, ParsingFailedBlock):
            entry = block.ignore_error_block
            if isinstance(block, MiddlewareErrorBlock) and not isinstance(entry, Entry):
                continue  # a broken @string is not a record; entries using it show their own problem
            key = entry.key if isinstance(entry, Entry) else None
            yield failed(source, line, raw, RecordError(KIND, _problem(block, key)), id=key)


def to_fields(entry: Entry) -> dict[str, Any]:
    """Map one parsed BibTeX entry (after kg's middlewares) to kg fields."""
    fields = {k: v.value for k, v in entry.fields_dict.items()}
    doi = normalise_doi(_text(fields.get("doi")))
    eprint_type = (_text(fields.get("archiveprefix")) or _text(fields.get("eprinttype")) or "").lower()
    arxiv_id = (
        normalise_arxiv_id(_text(fields.get("arxivid")))
        or (normalise_arxiv_id(_text(fields.get("eprint"))) if eprint_type == "arxiv" else None)
        or find_arxiv_id(doi, _text(fields.get("url")), _text(fields.get("journal")), _text(fields.get("note")))
    )
    keywords = " ; ".join(_text(fields.get(k)) or "" for k in ("keywords", "mendeley-tags"))
    out: dict[str, Any] = {
        "id": entry.key,
        "title": squash(_text(fields.get("title"))),
        "abstract": squash(_text(fields.get("abstract"))),
        "year": year_of(_text(fields.get("year")) or _text(fields.get("date"))),
        "authors": _names(fields.get("author")),
        "venue": squash(
            _text(fields.get("journal")) or _text(fields.get("journaltitle")) or _text(fields.get("booktitle"))
        ),
        "bibtex_type": entry.entry_type.lower(),
        "doi": doi,
        "arxiv_id": arxiv_id,
    }
    for name, kg_name in _KEPT.items():
        if out.get(kg_name) is None:
            out[kg_name] = squash(_text(fields.get(name)))
    # "4171--4186" (an en dash once decoded) reads the same as RIS's "4171-4186".
    out["pages"] = _PAGE_DASH.sub("-", out["pages"]) if out.get("pages") else None
    out["keywords"] = [k for k in _KEYWORD_SPLIT.split(keywords) if k]
    return compact(out)


def _iter_one_by_one(text: str, source: str) -> Iterator[RawRecord]:
    starts = [m.start() for m in _BLOCK_START.finditer(text)]
    chunks = [(text.count("\n", 0, a), text[a:b]) for a, b in zip(starts, [*starts[1:], len(text)], strict=True)]
    # Every entry is parsed after the file's @string definitions, which it may use.
    prefix = "".join(chunk for _, chunk in chunks if _STRING_START.match(chunk))
    skip = prefix.count("\n")
    for first_line, chunk in chunks:
        if _STRING_START.match(chunk):
            continue
        try:
            library = _parse(prefix + chunk)
        except Exception as exc:
            problem = RecordError(KIND, f"malformed BibTeX entry (the parser failed: {type(exc).__name__})")
            yield failed(source, first_line + 1, chunk.rstrip(), problem)
            continue
        blocks = [b for b in library.blocks if (b.start_line or 0) >= skip]
        yield from _records(blocks, source, offset=first_line - skip)


def _parse(text: str) -> bibtexparser.Library:
    # Every problem the splitter logs becomes a reject that says it, with kg's line numbers.
    splitter_log = logging.getLogger("bibtexparser.splitter")
    quiet = _DropAll()
    splitter_log.addFilter(quiet)
    try:
        return bibtexparser.parse_string(text, append_middleware=_stack())
    finally:
        splitter_log.removeFilter(quiet)


class _DropAll(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return False


def _stack() -> list[Any]:
    # Names are split before LaTeX decoding: decoding first would drop the braces that keep
    # "{Barnes and Noble}" one name.
    return [
        mw.NormalizeFieldKeys(),
        mw.SeparateCoAuthors(name_fields=("author",)),
        mw.SplitNameParts(name_fields=("author",)),
        mw.MergeNameParts(style="first", name_fields=("author",)),
        DecodeLatex(),
    ]


class DecodeLatex(mw.BlockMiddleware):
    """LaTeX -> Unicode in the text fields kg keeps and in the author names.

    Unlike bibtexparser's ``LatexDecodingMiddleware``, it leaves URLs, DOIs and file paths as
    written (LaTeX would turn ``~`` into a space and drop what follows a ``%``), reads a bare
    ``%`` or ``&`` as itself, and decodes the author list after it was split into names.
    """

    def __init__(self) -> None:
        super().__init__(allow_inplace_modification=True, allow_parallel_execution=True)

    def transform_entry(self, entry: Entry, library: bibtexparser.Library) -> Block:
        try:
            for field in entry.fields:
                if field.key in _LATEX_FIELDS and isinstance(field.value, str):
                    field.value = latex_to_text(field.value)
                elif field.key == "author" and isinstance(field.value, list):
                    field.value = [latex_to_text(str(name)) for name in field.value]
        except Exception as exc:
            # pylatexenc is tolerant; whatever it still refuses is this entry's problem alone.
            return MiddlewareErrorBlock(entry, exc)
        return entry


def _names(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    names = [squash(str(name)) for name in value]
    return [n for n in names if n and n.lower() != "others"]


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _line(block: Block) -> int:
    # bibtexparser counts lines from 0.
    return (block.start_line or 0) + 1


def _problem(block: ParsingFailedBlock, key: str | None) -> str:
    error = block.error
    where = f"malformed BibTeX entry {key}" if key else "malformed BibTeX entry"
    if isinstance(block, DuplicateFieldKeyBlock):
        return f"{where}: field {', '.join(sorted(block.duplicate_keys))} given twice"
    if isinstance(error, mw.names.InvalidNameError):
        return f"{where}: cannot split the author name {error.name!r} into parts ({error.reason.lower()})"
    reason = getattr(error, "abort_reason", None) or str(error) or type(error).__name__
    return f"{where} ({squash(reason)})" if not key else f"{where}: {squash(reason)}"
