"""The command line: help with examples, documented in the README, one-line errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from kg.cli import app
from tests.conftest import ROOT

COMMANDS = sorted(c.name or c.callback.__name__ for c in app.registered_commands)


def kg(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "kg", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_commands_are_the_documented_ones():
    assert COMMANDS == ["build", "eval", "export", "extract", "load", "query", "report", "run", "viz"]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_an_example_and_is_in_the_readme(command):
    result = kg(command, "--help")
    assert result.returncode == 0
    assert "Example: kg " + command in result.stdout
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.search(rf"^kg {command}\b", readme, re.M), f"`kg {command}` is not documented in README.md"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "pipelines/nope.toml"], "kg: error: pipeline file not found: pipelines/nope.toml"),
        (["extract", "missing.jsonl", "-o", "/tmp/x.jsonl"], "kg: error: input file not found: missing.jsonl"),
        (["query", "MATCH (n) RETURN n", "--db", "nowhere.lbug"], "kg: error: no embedded database at nowhere.lbug"),
        (["query", "MATCH (n) RETURN n", "--format", "xml"], "kg: error: unknown format 'xml'"),
        (
            ["extract", "missing.jsonl", "-o", "/tmp/x.jsonl", "--n-process", "all"],
            "kg: error: n_process 'all': give a number of worker processes (1 or more) or auto",
        ),
    ],
)
def test_user_mistakes_are_one_line_and_nonzero(args, message):
    result = kg(*args)
    assert result.returncode == 1
    assert result.stderr.startswith(message)
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_bad_pipeline_file_names_file_and_key(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[[sources]]\npath = "a.jsonl"\n[extract]\nn_process = 0\n', encoding="utf-8")
    result = kg("run", str(bad))
    assert result.returncode == 1
    expected = 'extract.n_process: Input should be greater than or equal to 1 (or "auto")'
    assert result.stderr.strip() == f"kg: error: {bad}: {expected}"
    bad.write_text('name = "x"\nsources = []\nunknown = 1\n', encoding="utf-8")
    assert "sources: List should have at least 1 item" in kg("run", str(bad)).stderr
    bad.write_text("name = \n", encoding="utf-8")
    assert "not valid TOML" in kg("run", str(bad)).stderr


def test_unknown_option_is_a_usage_error_not_a_traceback():
    result = kg("query", "--bogus")
    assert result.returncode == 2
    assert "No such option" in result.stderr and "Traceback" not in result.stderr


def test_extract_build_query_viz_chain(tmp_path):
    sample = ROOT / "data" / "sample" / "acl-sample.jsonl"
    few = tmp_path / "few.jsonl"
    few.write_text("".join(sample.read_text(encoding="utf-8").splitlines(keepends=True)[:20]), encoding="utf-8")
    mentions, db, page = tmp_path / "m.jsonl", tmp_path / "kg.lbug", tmp_path / "g.html"
    assert kg("extract", str(few), "-o", str(mentions)).returncode == 0
    assert len(mentions.read_text(encoding="utf-8").splitlines()) == 20
    built = kg("build", str(few), "--mentions", str(mentions), "--db", str(db))
    assert built.returncode == 0 and "Paper 20" in built.stdout
    rows = json.loads(kg("query", "MATCH (p:Paper) RETURN count(p) AS n", "--db", str(db), "-f", "json").stdout)
    assert rows == [{"n": 20}]
    out = kg(
        "query",
        "MATCH (p:Paper) WHERE p.id = $id RETURN p.title",
        "--db",
        str(db),
        "-p",
        "id=acl:2016.gwc-1.15",
        "-f",
        "csv",
    ).stdout
    assert out.splitlines()[0] == "p.title" and len(out.splitlines()) == 2
    assert kg("viz", "--db", str(db), "-o", str(page)).returncode == 0 and page.stat().st_size > 500_000


def test_build_stores_no_mention_a_stale_or_partial_mentions_file_gives_that_does_not_fit(tmp_path):
    lines = (ROOT / "data" / "sample" / "acl-sample.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    four, mentions = tmp_path / "four.jsonl", tmp_path / "m.jsonl"
    four.write_text("".join(lines[:4]), encoding="utf-8")
    assert kg("extract", str(four), "-o", str(mentions), "--n-process", "1").returncode == 0
    # two abstracts changed since, two records more, and a line of a paper the records lack
    records = [json.loads(line) for line in lines[:6]]
    records[0]["abstract"] = "Short changed abstract: we use BERT for parsing."
    records[1]["abstract"] = records[1]["abstract"][40:]
    changed = tmp_path / "changed.jsonl"
    changed.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    other = json.loads(mentions.read_text(encoding="utf-8").splitlines()[2]) | {"id": "acl:nowhere"}
    with mentions.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(other) + "\n")
    db = tmp_path / "kg.lbug"
    built = kg("build", str(changed), "--mentions", str(mentions), "--db", str(db), "--n-process", "1")
    assert built.returncode == 0 and "Paper 6" in built.stdout
    ids = [r["id"] for r in records]

    def rows(cypher):
        return json.loads(kg("query", cypher, "--db", str(db), "-f", "json").stdout)

    mentioned = rows(
        "MATCH (p:Paper)-[m:MENTIONS]->(:Concept) RETURN p.id AS id, p.title AS title, p.abstract AS abstract, "
        "m.field AS field, m.start_char AS start_char, m.end_char AS end_char, m.text AS text, m.sentence AS sentence"
    )
    assert {r["id"] for r in mentioned} == set(ids)  # the records the file lacked have their mentions
    for r in mentioned:
        assert r[r["field"]][r["start_char"] : r["end_char"]] == r["text"] and r["sentence"] in r[r["field"]], r
    stated = rows(
        "MATCH (:Concept)-[r:USED_FOR|PART_OF|HYPONYM_OF]->(:Concept), (p:Paper {id: r.paper}) "
        "RETURN r.sentence AS sentence, p.title + ' ' + p.abstract AS text"
    )
    assert stated and all(r["sentence"] in r["text"] for r in stated)
    assert [line for line in built.stderr.splitlines() if "mentions file" in line] == [
        f"WARNING mentions file {mentions} is not the extraction of these records: extracted afresh the papers "
        f"without a line there (2, e.g. {ids[4]}) and the papers whose line does not fit their title and abstract "
        f"(2, e.g. {ids[0]}); not used its lines of ids not in the records or repeated (1, e.g. acl:nowhere)"
    ]


def test_build_extracts_afresh_a_paper_whose_line_holds_no_mention(tmp_path):
    # a line with no mention fits any text: one of an older, empty text had hidden the new text's concepts
    lines = (ROOT / "data" / "sample" / "acl-sample.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    two, mentions = tmp_path / "two.jsonl", tmp_path / "m.jsonl"
    two.write_text("".join(lines[:2]), encoding="utf-8")
    assert kg("extract", str(two), "-o", str(mentions), "--n-process", "1").returncode == 0
    first, second = mentions.read_text(encoding="utf-8").splitlines()
    emptied = json.loads(first) | {"mentions": [], "relations": []}
    mentions.write_text(json.dumps(emptied) + "\n" + second + "\n", encoding="utf-8")
    db = tmp_path / "kg.lbug"
    built = kg("build", str(two), "--mentions", str(mentions), "--db", str(db), "--n-process", "1")
    assert built.returncode == 0, built.stderr
    rows = json.loads(kg("query", "MATCH (p:Paper)-[:MENTIONS]->(:Concept) RETURN DISTINCT p.id AS id", "--db",
                         str(db), "-f", "json").stdout)  # fmt: skip
    assert {r["id"] for r in rows} == {emptied["id"], json.loads(second)["id"]}
    assert f"whose line does not fit their title and abstract (1, e.g. {emptied['id']})" in built.stderr


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("SAMPLE", "no 'mentions'"),  # the records given as their mentions
        ("{not json", "not JSON"),
        ('{"id": "x", "mentions": [{"text": "BERT"}]}', "not the fields kg writes"),
        ("[1, 2]", "not the fields kg writes"),
    ],
)
def test_build_refuses_a_mentions_file_that_is_no_extraction_in_one_line(line, reason, tmp_path):
    records, mentions = tmp_path / "two.jsonl", tmp_path / "m.jsonl"
    sample = (ROOT / "data" / "sample" / "acl-sample.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    records.write_text("".join(sample[:2]), encoding="utf-8")
    mentions.write_text("\n" + (sample[1] if line == "SAMPLE" else line + "\n"), encoding="utf-8")
    built = kg("build", str(records), "--mentions", str(mentions), "--db", str(tmp_path / "kg.lbug"))
    assert built.returncode == 1 and built.stderr.strip() == (
        f"kg: error: {mentions}, line 2: not a line of `kg extract` output ({reason}): give what kg extract wrote"
    )
