"""Inputs found by attacking kg (issue 15): each ends kept or rejected with a reason, never lost or a crash."""

from __future__ import annotations

import datetime
import json
import subprocess
import sys

import pytest

from kg.config import option_value
from kg.errors import ConfigError, InputError
from kg.normalise import Normaliser
from kg.pipeline import load_pipeline_file, run_pipeline
from kg.read import Validator, read_records, split_records
from kg.records import Paper, Reject
from tests.conftest import ROOT, SAMPLE

GOOD = "Neural machine translation has improved a lot with attention mechanisms."
NEXT_YEAR = datetime.date.today().year + 1


def _read(path, **kwargs) -> list[Paper | Reject]:
    """Read ``path`` as a run does, rejects written to a real UTF-8 file; every item comes out."""
    items = list(read_records(path, **kwargs))
    rejects = path.with_name(path.name + ".rejects.jsonl")
    with rejects.open("w", encoding="utf-8") as fh:
        papers, kinds = split_records(items, fh)
    assert len(papers) + sum(kinds.values()) == len(items)
    assert len(rejects.read_text(encoding="utf-8").splitlines()) == sum(kinds.values())
    return items


def _outcome(items):
    return [(i.id, None) if isinstance(i, Paper) else (i.id, i.kind) for i in items]


# --- 4: an unclosed quote swallows no row -----------------------------------------------------


@pytest.mark.parametrize(("name", "sep"), [("in.csv", ","), ("in.tsv", "\t")])
def test_an_unclosed_quote_is_a_reject_naming_its_line_and_loses_no_row(tmp_path, name, sep):
    rows = [sep.join([f"p{i}", f"T{i}", ('"' if i == 2 else "") + GOOD]) for i in range(1, 6)]
    path = tmp_path / name
    path.write_text(sep.join(["id", "title", "abstract"]) + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    items = _read(path)
    assert len(items) == 5
    assert _outcome(items) == [("p1", None), (None, "malformed CSV"), ("p3", None), ("p4", None), ("p5", None)]
    assert items[1].line == 3 and items[1].reason == "malformed CSV line 3: a quote opened in this line is never closed"
    assert items[1].raw.startswith("p2")


def test_an_unclosed_quote_closed_by_a_later_quote_loses_no_row(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text(
        f'id,title,abstract\np1,T,"{GOOD}\np2,T,{GOOD}\np3,"A, title",{GOOD}\np4,T,{GOOD}\n', encoding="utf-8"
    )
    assert _outcome(_read(path)) == [(None, "malformed CSV"), ("p2", None), ("p3", None), ("p4", None)]


def test_a_quoted_cell_over_several_lines_is_still_one_cell(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text(f'id,abstract\np1,"{GOOD}\n\nSecond paragraph, with a comma."\np2,{GOOD}\n', encoding="utf-8")
    first, second = _read(path)
    assert first.abstract.endswith("\n\nSecond paragraph, with a comma.") and second.id == "p2"


# --- 8: what passed validation and crashed later ----------------------------------------------


def test_every_lone_surrogate_escape_is_rejected_in_any_field(tmp_path):
    fields = ["title", "abstract", "venue", "authors", "doi", "key"]
    lines = []
    for n, code in enumerate(range(0xD800, 0xE000)):
        field = fields[n % len(fields)]
        rec = {"id": f"p{n}", "abstract": GOOD}
        esc = f"\\u{code:04x}"
        if field == "key":
            lines.append(json.dumps(rec)[:-1] + f', "x{esc}": 1}}')
        elif field == "authors":
            lines.append(json.dumps(rec)[:-1] + f', "authors": ["A {esc}"]}}')
        else:
            rec[field] = f"{GOOD} {esc}"
            lines.append(json.dumps(rec).replace("\\\\u", "\\u"))
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    items = _read(path)
    assert len(items) == 2048 and {type(i) for i in items} == {Reject}
    assert {i.kind for i in items} == {"undecodable text"}
    assert items[3].reason == "undecodable text in field 'authors' (not valid UTF-8)"
    assert items[5].reason == "undecodable text in field 'x\\ud805' (not valid UTF-8)"


def test_a_lone_surrogate_in_a_json_document_and_its_id_are_escaped_in_the_reject(tmp_path):
    path = tmp_path / "in.json"
    doc = json.dumps([{"id": "p@", "abstract": GOOD}, {"id": "p2", "abstract": GOOD}])
    path.write_text(doc.replace("@", "\\ud800"))
    bad, good = _read(path)
    assert bad.kind == "undecodable text" and bad.id == "p\\ud800" and isinstance(good, Paper)


@pytest.mark.parametrize("year", [-500, 0, 1799, 99999, NEXT_YEAR + 1, 2**70, "-500", "9" * 30, 1e300])
def test_implausible_years_are_rejected(tmp_path, year):
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({"id": "p1", "abstract": GOOD, "year": year}) + "\n")
    [item] = _read(path)
    assert isinstance(item, Reject) and item.kind == "implausible year"
    assert item.reason.endswith(f"(expected 1800 to {NEXT_YEAR}: read.min_year, read.max_year)")


@pytest.mark.parametrize("year", [1800, 2021, NEXT_YEAR, "2021"])
def test_plausible_years_are_kept(tmp_path, year):
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({"id": "p1", "abstract": GOOD, "year": year}) + "\n")
    [item] = _read(path)
    assert isinstance(item, Paper) and item.year == int(year)


def test_the_year_range_is_a_read_setting(tmp_path):
    (tmp_path / "p.jsonl").write_text(json.dumps({"id": "p1", "abstract": GOOD, "year": 1600}) + "\n")
    pipeline = tmp_path / "p.toml"
    pipeline.write_text(f'name = "x"\n[[sources]]\npath = "{tmp_path / "p.jsonl"}"\n[read]\nmin_year = 1500\n')
    spec = load_pipeline_file(pipeline, ["read.max_year=1700"])
    assert (spec.read.min_year, spec.read.max_year) == (1500, 1700)
    validator = Validator(min_year=spec.read.min_year, max_year=spec.read.max_year)
    [paper] = _read(tmp_path / "p.jsonl", validator=validator)
    assert isinstance(paper, Paper) and paper.year == 1600


def test_a_csv_cell_over_the_csv_module_limit_is_an_abstract_too_long(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text(f"id,abstract\np1,{'x ' * 70_000}\np2,{GOOD}\n", encoding="utf-8")
    too_long, good = _read(path)
    assert too_long.reason == "abstract too long (140,000 characters, maximum 20,000)"
    assert isinstance(good, Paper)


@pytest.mark.parametrize("suffix", ["jsonl", "bib", "ris", "csv"])
def test_an_over_long_title_is_rejected_in_every_format(tmp_path, suffix):
    title = ("word " * 5000).strip()
    path = tmp_path / f"in.{suffix}"
    text = {
        "jsonl": json.dumps({"id": "p1", "title": title, "abstract": GOOD}) + "\n",
        "bib": f"@article{{p1, title={{{title}}}, abstract={{{GOOD}}}}}\n",
        "ris": f"TY  - JOUR\nID  - p1\nTI  - {title}\nAB  - {GOOD}\nER  - \n",
        "csv": f"id,title,abstract\np1,{title},{GOOD}\n",
    }[suffix]
    path.write_text(text, encoding="utf-8")
    [item] = _read(path)
    assert isinstance(item, Reject) and item.kind == "field too long"
    assert item.reason == "field 'title' too long (24,999 characters, maximum 20,000)"


@pytest.mark.parametrize("name", ["in.jsonl", "in.json"])
def test_json_too_deep_or_with_a_huge_number_is_a_reject_not_a_crash(tmp_path, name):
    lines = [
        json.dumps({"id": "d1", "abstract": GOOD, "x": "@"}).replace('"@"', "[" * 5000 + "]" * 5000),
        json.dumps({"id": "d2", "abstract": GOOD, "year": "@"}).replace('"@"', "9" * 5000),
        json.dumps({"id": "d3", "abstract": GOOD, "x": "@"}).replace('"@"', "[" * 100 + "]" * 100),
        json.dumps({"id": "d4", "abstract": GOOD}),
    ]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    items = _read(path)
    assert [i.reason for i in items[:3]] == [
        "malformed JSON (nested too deep to read)",
        "malformed JSON (a number with too many digits to read (over 4,300))",
        "field 'x' nested more than 32 levels deep",
    ]
    assert isinstance(items[3], Paper)


def test_a_json_document_too_deep_is_one_reject(tmp_path):
    path = tmp_path / "in.json"
    path.write_text("[\n" + "[" * 5000 + "]" * 5000 + "\n]\n")
    [item] = _read(path)
    assert item.reason == "malformed JSON document (nested too deep to read); nothing in it was read"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ('[1, "b"]', "parameter x: a list must hold one kind of value (it mixes number and text)"),
        ("[" * 1000 + "]" * 1000, "parameter x: nested too deep (at most 16 levels)"),
        ("9" * 5000, "parameter x: a number with too many digits"),
        ("9" * 20, "parameter x: 99999999999999999999 is too large a whole number (at most 64 bits)"),
        ('[1, "b"', "parameter x: not valid JSON (Expecting ',' delimiter at column 8)"),
        ('{"a": [true, 1]}', "parameter x: a list must hold one kind of value (it mixes number and true/false)"),
    ],
)
def test_bad_option_values_are_one_clear_error(raw, message):
    with pytest.raises(ConfigError) as err:
        option_value(raw, what="parameter x")
    assert str(err.value).startswith(message)


@pytest.mark.parametrize("raw", ["2", "bert", "[1, 2.5]", '["a", "b"]', "[]", "null", "[x"[1:], "a=b"])
def test_good_option_values_pass(raw):
    option_value(raw, what="x")


@pytest.mark.parametrize(
    "args",
    [
        ["query", "MATCH (n) RETURN n", "-p", 'x=[1, "b"]'],
        ["query", "MATCH (n) RETURN n", "-p", "x=" + "[" * 2000 + "]" * 2000],
        ["query", "MATCH (n) RETURN n", "-p", "x=" + "9" * 5000],
        ["run", "pipelines/sample.toml", "--set", "link.top_k=" + "9" * 5000],
        ["run", "pipelines/sample.toml", "--set", 'viz.views=["concepts", 1]'],
    ],
)
def test_bad_cli_values_are_one_line_not_a_traceback(args):
    result = subprocess.run([sys.executable, "-m", "kg", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert result.stderr.startswith("kg: error: ") and len(result.stderr.strip().splitlines()) == 1


# --- 9: formats kg could not read said so, or are read --------------------------------------


def test_a_semicolon_csv_is_read(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text(f'id;title;abstract\np1;"A; title";{GOOD}\np2;T;{GOOD}\n', encoding="utf-8")
    first, second = _read(path)
    assert (first.id, first.title, second.id) == ("p1", "A; title", "p2")


def test_a_csv_without_an_id_column_says_what_its_header_holds(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text(f"ident,abstract\np1,{GOOD}\n", encoding="utf-8")
    [item] = _read(path)
    assert item.reason == "missing id (the header has no id column: 'ident,abstract')"


def test_a_stray_closing_brace_in_bibtex_is_named(tmp_path):
    path = tmp_path / "in.bib"
    path.write_text(f"@article{{k1, title={{T}}}}, abstract={{{GOOD}}}}}\n\n@article{{k2, abstract={{{GOOD}}}}}\n")
    bad, good = _read(path)
    assert bad.id == "k1" and bad.kind == "malformed BibTeX"
    assert bad.reason.startswith("malformed BibTeX entry k1: a stray '}' ends it before ', abstract=")
    assert isinstance(good, Paper)


def test_lower_case_ris_tags_are_read(tmp_path):
    path = tmp_path / "in.ris"
    path.write_text(f"ty  - JOUR\nid  - p1\nti  - Parsing\nab  - {GOOD}\npy  - 2020\ner  - \n")
    [paper] = _read(path)
    assert (paper.id, paper.title, paper.year) == ("p1", "Parsing", 2020)


def test_a_ris_file_without_one_record_says_so(tmp_path):
    path = tmp_path / "in.ris"
    path.write_text("Title: Parsing\nAbstract: nothing here is tagged\n")
    [item] = _read(path)
    assert item.line == 1 and item.reason == "no RIS record in the file: no line starts with a tag such as 'TY  - '"


def test_a_broken_json_document_is_one_reject(tmp_path):
    doc = json.dumps([{"id": f"j{i}", "abstract": GOOD} for i in range(3)], indent=2)
    path = tmp_path / "in.json"
    path.write_text(doc[:-10] + "\n")
    [item] = _read(path)
    assert item.kind == "malformed JSON" and item.reason.startswith("malformed JSON document (")


def test_a_one_line_json_list_is_read(tmp_path):
    path = tmp_path / "in.json"
    path.write_text(json.dumps([{"id": f"j{i}", "abstract": GOOD} for i in range(3)]) + "\n")
    assert [i.id for i in _read(path)] == ["j0", "j1", "j2"]


def test_a_directory_is_said_to_be_one(tmp_path):
    with pytest.raises(InputError, match="is a directory: give one records file"):
        list(read_records(tmp_path))
    result = subprocess.run([sys.executable, "-m", "kg", "extract", str(tmp_path), "-o", str(tmp_path / "m.jsonl")],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert result.returncode == 1 and result.stderr.strip() == (
        f"kg: error: {tmp_path} is a directory: give one records file (a pipeline file may list several sources)"
    )


# --- 10: keys ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def norm():
    return Normaliser()


@pytest.mark.parametrize(
    ("plural", "key"),
    [
        ("sentiment analyses", "sentiment analysis"),
        ("hypotheses", "hypothesis"),
        ("biases", "bias"),
        ("boxes", "box"),
        ("matches", "match"),
        ("policies", "policy"),
        ("bounding boxes", "bounding box"),
        ("approaches", "approach"),
        ("meshes", "mesh"),
        ("classes", "class"),
        ("crises", "crisis"),
        ("synopses", "synopsis"),
        ("movies", "movie"),
        ("niches", "niche"),
        ("Moses", "moses"),
    ],
)
def test_plurals_in_ses_ies_xes_ches_shes(norm, plural, key):
    assert norm.key(plural) == key
    assert norm.key(key) == key


def test_keys_of_keys_settle(norm):
    for text in ["sentiment analyses", "sentiment analyse", "hypotheses", "biases", "analysed data"]:
        key = norm.key(text)
        assert norm.key(key) == key, text


def test_reading_bytes_never_stops_the_file(tmp_path):
    # A reader that meets bytes that are not UTF-8 rejects that record, as the JSON readers do.
    data = json.dumps({"id": "p1", "abstract": GOOD}).encode() + b"\n\xff\xfe\n"
    path = tmp_path / "in.jsonl"
    path.write_bytes(data)
    assert _outcome(_read(path)) == [("p1", None), (None, "malformed JSON")]


def test_a_run_over_the_attacking_inputs_ends_with_every_record_accounted_for(tmp_path):
    # Before, these passed validation and crashed extraction, the mentions file or the store, or
    # made the report stage take minutes (years -500 and 99999).
    good = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()[:3]]
    lines = [json.dumps(r) for r in good] + [
        json.dumps({"id": "s1", "title": "@", "abstract": GOOD}).replace("@", "\\ud800"),
        json.dumps({"id": "s2", "abstract": GOOD, "extra": ["@"]}).replace("@", "\\udfff"),
        json.dumps({"id": "y1", "abstract": GOOD, "year": 2**70}),
        json.dumps({"id": "y2", "abstract": GOOD, "year": -500}),
        json.dumps({"id": "y3", "abstract": GOOD, "year": 99999}),
        json.dumps({"id": "d1", "abstract": GOOD, "x": "@"}).replace('"@"', "[" * 1000 + "]" * 1000),
        json.dumps({"id": "d2", "abstract": GOOD, "x": "@"}).replace('"@"', "9" * 4301),
    ]
    data = tmp_path / "in.jsonl"
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    pipeline = tmp_path / "p.toml"
    outputs = {"store": "kg.lbug", "mentions": "m.jsonl", "rejects": "r.jsonl", "report": "report.json",
               "report_html": "report.html"}  # fmt: skip
    pipeline.write_text(
        f'name = "p"\n[[sources]]\npath = "{data}"\n[outputs]\n'
        + "".join(f'{k} = "{out / v}"\n' for k, v in outputs.items()),
        encoding="utf-8",
    )
    report = run_pipeline(load_pipeline_file(pipeline))
    assert report.records["read"] == 10 and report.records["kept"] == 3
    assert report.records["rejected_by_reason"] == {"undecodable text": 2, "implausible year": 3, "malformed JSON": 2}
    assert len((out / "r.jsonl").read_text(encoding="utf-8").splitlines()) == 7


def test_a_directory_as_a_pipeline_source_is_said_to_be_one(tmp_path):
    pipeline = tmp_path / "p.toml"
    pipeline.write_text(f'name = "p"\n[[sources]]\npath = "{tmp_path}"\n[outputs]\nstore = "{tmp_path / "kg.lbug"}"\n')
    with pytest.raises(InputError, match=r"sources\.0\.path: .* is a directory: give one records file per source"):
        run_pipeline(load_pipeline_file(pipeline))
