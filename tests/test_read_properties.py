"""Property-based: whatever a file holds, every record read is kept or rejected with a reason, never a crash.

Generated records (any text, lone surrogates, odd years, nested extras) are written in each
format kg reads; the readers and the validator must account for each of them, and what they keep
or reject must be writable as UTF-8 (the rejects file, the mentions file, the store). The budget
is bounded: a few hundred examples in all.
"""

from __future__ import annotations

import csv
import io
import json
import re
import string
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kg.normalise import Normaliser
from kg.normalise.keys import keeps_final_s
from kg.read import RawRecord, Validator, read_records, split_records
from kg.records import Paper, Reject

GOOD = "Neural machine translation has improved a lot with attention mechanisms."


def budget(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )


# Any character, lone surrogates (what a JSON escape or a broken byte makes) and the characters
# each format gives a meaning to.
chars = st.one_of(
    st.characters(),
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),
    st.sampled_from([*",;\t|\"'\n\r{}[]@%\\$&~ ", "\ufeff", "\x00", "\u2028"]),
)
texts = st.text(chars, max_size=30)
abstracts = st.one_of(st.just(GOOD), texts, st.builds(lambda t: GOOD + " " + t, texts))
years = st.one_of(
    st.none(),
    st.integers(),
    st.integers(min_value=1700, max_value=2100),
    st.floats(allow_nan=True, allow_infinity=True),
    texts,
    st.sampled_from(["2021", " 1999 ", "in press", "-500", "9" * 40]),
)
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), texts),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(texts, inner, max_size=3)),
    max_leaves=10,
)
ids = st.one_of(st.sampled_from(["p1", "p2", "p3"]), texts, st.integers(), st.none())


@st.composite
def records(draw) -> dict:
    """A kg record, maybe broken in any field."""
    rec = {"id": draw(ids), "abstract": draw(abstracts)}
    for name, values in (("title", texts), ("year", years), ("authors", st.lists(texts, max_size=3)),
                         ("venue", texts), ("doi", texts)):  # fmt: skip
        if draw(st.booleans()):
            rec[name] = draw(values)
    if draw(st.booleans()):
        rec[draw(texts)] = draw(json_values)
    return rec


def _write(path: Path, text: str) -> Path:
    # surrogatepass: a lone surrogate becomes bytes that are not UTF-8, as in a broken file
    path.write_bytes(text.encode("utf-8", errors="surrogatepass"))
    return path


def _check(items: list[Paper | Reject], tmp_path: Path) -> None:
    """Each item is kept or rejected with a reason, and is writable as UTF-8; nothing is lost."""
    with (tmp_path / "rejects.jsonl").open("w", encoding="utf-8") as fh:
        papers, kinds = split_records(items, fh)
    assert len(papers) + sum(kinds.values()) == len(items)
    for item in items:
        if isinstance(item, Reject):
            assert item.kind and item.reason
            json.dumps(item.to_dict(), ensure_ascii=False).encode("utf-8")
        else:
            assert isinstance(item, Paper) and item.id and len(item.abstract.strip()) >= 20
            assert item.year is None or 1800 <= item.year <= 9999
            fields = [item.id, item.title, item.abstract, item.venue, *item.authors]
            json.dumps([fields, item.extra], ensure_ascii=False).encode("utf-8")


def _read(path: Path) -> list[Paper | Reject]:
    return list(read_records(path, validator=Validator()))


@budget(100)
@given(st.lists(records(), max_size=6), st.booleans())
def test_jsonl(tmp_path_factory, recs, ascii_only):
    tmp = tmp_path_factory.mktemp("jsonl")
    path = _write(tmp / "in.jsonl", "".join(json.dumps(r, ensure_ascii=ascii_only) + "\n" for r in recs))
    items = _read(path)
    _check(items, tmp)
    # a line of a lone "\u2028" or NUL is still one line: one record per line, blank lines skipped
    assert len(items) == len(recs)


@budget(50)
@given(st.lists(records(), min_size=1, max_size=6), st.booleans())
def test_json_document(tmp_path_factory, recs, pretty):
    tmp = tmp_path_factory.mktemp("json")
    path = _write(tmp / "in.json", json.dumps(recs, indent=2 if pretty else None))
    items = _read(path)
    _check(items, tmp)
    assert len(items) == len(recs)


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return "; ".join(str(v) for v in value)
    return str(value) if not isinstance(value, (dict, list)) else json.dumps(value)


@budget(100)
@given(st.lists(records(), max_size=6), st.sampled_from([(",", "in.csv"), (";", "in.csv"), ("\t", "in.tsv")]))
def test_csv_and_tsv(tmp_path_factory, recs, dialect):
    delimiter, name = dialect
    tmp = tmp_path_factory.mktemp("csv")
    columns = ["id", "title", "abstract", "year", "authors", "venue"]
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=delimiter)  # "\r\n" ends a row: a cell with either is quoted
    writer.writerow(columns)
    writer.writerows([[_cell(r.get(c)) for c in columns] for r in recs])
    items = _read(_write(tmp / name, buf.getvalue()))
    _check(items, tmp)
    assert len(items) == len(recs)


BIB_KEY = st.text(string.ascii_letters + string.digits + "_:-.", min_size=1, max_size=8)
BIB_TEXT = st.text(st.one_of(st.characters(exclude_characters="{}@\\"), st.sampled_from("%$&~\n")), max_size=30)


@budget(30)
@given(st.lists(st.tuples(BIB_KEY, BIB_TEXT, st.one_of(st.just(GOOD), BIB_TEXT), BIB_TEXT), max_size=4))
def test_bibtex(tmp_path_factory, entries):
    tmp = tmp_path_factory.mktemp("bib")
    text = "".join(
        f"@article{{{key},\n  title = {{{title}}},\n  abstract = {{{abstract}}},\n  year = {{{year}}}\n}}\n\n"
        for key, title, abstract, year in entries
    )
    items = _read(_write(tmp / "in.bib", text))
    _check(items, tmp)
    assert len(items) == len(entries)


def _ris_value(value) -> str:
    return re.sub(r"[\r\n\u2028\u2029\x0b\x0c\x1c-\x1e\x85]", " ", _cell(value))


@budget(50)
@given(st.lists(records(), max_size=5), st.booleans())
def test_ris(tmp_path_factory, recs, lower):
    tmp = tmp_path_factory.mktemp("ris")
    lines = []
    for r in recs:
        lines += ["TY  - JOUR", f"ID  - {_ris_value(r['id'])}", f"AB  - {_ris_value(r['abstract'])}"]
        lines += [f"TI  - {_ris_value(r.get('title'))}", f"PY  - {_ris_value(r.get('year'))}"]
        lines += [f"AU  - {_ris_value(a)}" for a in r.get("authors", [])] + ["ER  - ", ""]
    if lower:
        lines = [line[:2].lower() + line[2:] for line in lines]
    items = _read(_write(tmp / "in.ris", "\n".join(lines)))
    _check(items, tmp)
    assert len(items) == len(recs)


@budget(40)
@given(
    st.sampled_from(["in.jsonl", "in.json", "in.csv", "in.tsv", "in.bib", "in.ris"]),
    st.lists(st.one_of(st.binary(max_size=40), st.sampled_from(
        [b"{", b"}", b"[", b"]", b'"', b",", b";", b"\n", b"\r\n", b"\xff", b"\xed\xa0\x80", b"@article{k,", b"TY  - ",
         b"ER  - ", b"ty  - ", b'"abstract": ', b"id,abstract\n", GOOD.encode(), b"9" * 5000, b"[" * 3000]
    )), max_size=12),
)  # fmt: skip
def test_any_bytes_in_any_format(tmp_path_factory, name, chunks):
    tmp = tmp_path_factory.mktemp("bytes")
    path = tmp / name
    path.write_bytes(b"".join(chunks))
    _check(_read(path), tmp)


@budget(200)
@given(st.dictionaries(st.one_of(st.sampled_from(["id", "abstract", "year", "title", "authors"]), texts), json_values))
def test_validator_on_any_fields(fields):
    raw = json.dumps(fields, ensure_ascii=True)
    item = Validator().check(RawRecord("f.jsonl", 1, fields, raw))
    assert isinstance(item, (Paper, Reject))
    if isinstance(item, Reject):
        json.dumps(item.to_dict(), ensure_ascii=False).encode("utf-8")


NORM = Normaliser()
PLURALS = st.sampled_from(
    ["analyses", "hypotheses", "biases", "boxes", "matches", "policies", "crises", "theses", "classes", "processes",
     "approaches", "meshes", "statuses", "caches", "indices", "axes", "series", "movies", "niches", "searches", "the",
     "of", "models", "LLMs", "pre-trained"]
)  # fmt: skip


@budget(300)
@given(st.one_of(st.text(max_size=30), st.lists(st.one_of(PLURALS, st.text(max_size=8)), max_size=6).map(" ".join)))
def test_a_key_is_its_own_key(text):
    if keeps_final_s(text):
        return
    key = NORM.key(text)
    assert NORM.key(key) == key
