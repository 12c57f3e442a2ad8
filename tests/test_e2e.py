"""End to end on the bundled ACL sample plus broken records: exact counts, nothing lost."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kg.store import query_embedded
from tests.conftest import ROOT, SAMPLE

BAD = ROOT / "tests" / "data" / "bad-records.jsonl"

# Exact figures for the shipped model on the bundled sample. They change only when the model,
# the config or the sample changes; update them then, after looking at what changed.
EXPECTED = {
    "records": {
        "read": 308,
        "kept": 300,
        "rejected": 8,
        "rejected_by_reason": {
            "abstract too long": 1,
            "duplicate id": 1,
            "empty abstract": 1,
            "invalid year": 1,
            "malformed JSON": 1,
            "missing abstract": 1,
            "missing id": 1,
            "undecodable text": 1,
        },
    },
}

# Paper, Concept, MENTIONS, SHARES_CONCEPTS, CO_OCCURS
EXPECTED_GRAPH = (300, 3681, 4408, 1220, 111)
# USED_FOR, PART_OF, HYPONYM_OF
EXPECTED_RELATIONS = (745, 6, 63)
EXPECTED_MENTIONS = 6025


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("e2e")
    pipeline = out / "e2e.toml"
    pipeline.write_text(
        (ROOT / "pipelines" / "acl-sample.toml")
        .read_text(encoding="utf-8")
        .replace('path = "data/sample/acl-sample.jsonl"', f'path = "{SAMPLE}"')
        + f'\n[[sources]]\npath = "{BAD}"\n',
        encoding="utf-8",
    )
    sets = [
        f"outputs.{k}={out / v}"
        for k, v in {
            "store": "kg.lbug",
            "html": "g.html",
            "mentions": "m.jsonl",
            "rejects": "r.jsonl",
            "report": "report.json",
            "cache": "cache.sqlite",
            "report_html": "report.html",
            "report_md": "report.md",
        }.items()
    ]
    args = [sys.executable, "-m", "kg", "run", str(pipeline), "--quiet"]
    for s in sets:
        args += ["--set", s]
    proc = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return out, proc, json.loads((out / "report.json").read_text(encoding="utf-8"))


def test_every_record_is_kept_or_rejected(run):
    out, proc, report = run
    assert report["records"] == EXPECTED["records"]
    rejects = [json.loads(line) for line in (out / "r.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rejects) == 8
    assert {r["id"] for r in rejects} == {
        None,
        "bad:no-abstract",
        "bad:empty",
        "acl:2016.gwc-1.15",
        "bad:encoding",
        "bad:huge",
        "bad:year",
    }
    kept = query_embedded(out / "kg.lbug", "MATCH (p:Paper) RETURN count(p)").rows[0][0]
    assert kept + len(rejects) == report["records"]["read"]
    # each reject is named on stderr with its file, line and reason, and the run went on
    assert proc.stderr.count("rejected ") == 8
    assert "bad-records.jsonl:5 (bad:encoding): undecodable text in field 'abstract'" in proc.stderr
    assert proc.stdout.startswith("acl-sample: 308 records read, 300 kept, 8 rejected;")


def test_exact_graph_counts(run):
    out, _, report = run
    db = out / "kg.lbug"
    counts = {
        label: query_embedded(db, f"MATCH (n:{label}) RETURN count(n)").rows[0][0] for label in ("Paper", "Concept")
    }
    counts.update(
        {
            rel: query_embedded(db, f"MATCH ()-[r:{rel}]->() RETURN count(r)").rows[0][0]
            for rel in ("MENTIONS", "SHARES_CONCEPTS", "CO_OCCURS", "USED_FOR", "PART_OF", "HYPONYM_OF")
        }
    )
    assert counts == {**report["graph"]["nodes"], **report["graph"]["edges"]}
    assert (counts["Paper"], counts["Concept"], counts["MENTIONS"]) == EXPECTED_GRAPH[:3]
    assert (counts["SHARES_CONCEPTS"], counts["CO_OCCURS"]) == EXPECTED_GRAPH[3:]
    assert (counts["USED_FOR"], counts["PART_OF"], counts["HYPONYM_OF"]) == EXPECTED_RELATIONS
    assert report["mentions"]["total"] == EXPECTED_MENTIONS
    assert sum(report["concepts"].values()) == counts["Concept"]
    paper_count = query_embedded(db, "MATCH (c:Concept) RETURN sum(c.paper_count)").rows[0][0]
    assert paper_count == counts["MENTIONS"]


def test_report_has_every_figure(run):
    _, _, report = run
    assert set(report["stages"]) == {"read", "extract", "normalise", "build", "link", "analyse", "store", "visualise",
                                     "report"}  # fmt: skip
    assert report["versions"]["model"].startswith("kg_concepts-")
    assert report["peak_memory_mb"] > 0
    assert set(report["outputs"]) == {"rejects", "cache", "mentions", "store", "html", "html_concepts", "html_papers",
                                      "report", "report_html", "report_md"}  # fmt: skip


def test_analytics_are_stored_and_queryable(run):
    out, _, _ = run
    db = out / "kg.lbug"
    concepts, papers = EXPECTED_GRAPH[1], EXPECTED_GRAPH[0]
    q = "MATCH (c:Concept) WHERE c.yearly IS NOT NULL AND c.pagerank IS NOT NULL AND c.community IS NOT NULL "
    assert query_embedded(db, q + "RETURN count(c)").rows == [[concepts]]
    assert query_embedded(db, "MATCH (p:Paper) WHERE p.community IS NOT NULL RETURN count(p)").rows == [[papers]]
    first = query_embedded(db, "MATCH (c:Concept {key: 'large language model'}) RETURN c.first_year, c.yearly").rows
    assert first[0][0] == 2023 and json.loads(first[0][1])["2024"] > 0


def test_every_concept_has_one_type_that_its_mentions_carry(run):
    out, _, _ = run
    mention_types: dict[str, set[str]] = {}
    for line in (out / "m.jsonl").read_text(encoding="utf-8").splitlines():
        for m in json.loads(line)["mentions"]:
            mention_types.setdefault(m["concept"], set()).add(m["type"])
    stored = dict(query_embedded(out / "kg.lbug", "MATCH (c:Concept) RETURN c.key, c.type").rows)
    assert all(len(types) == 1 for types in mention_types.values())
    assert {key: types.pop() for key, types in mention_types.items()} == stored
    assert stored.get("large language model") == "Technique" and "english" not in stored
