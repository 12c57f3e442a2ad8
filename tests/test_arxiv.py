"""The arXiv pipeline: categories kept as paper properties in both stores, and the category queries."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from kg.pipeline import load_pipeline_file, run_pipeline
from kg.store import cookbook, query_embedded, read_embedded
from kg.store.neo4j import query_neo4j, write_neo4j
from tests.conftest import ROOT, SHARED

ARXIV_SAMPLE = SHARED / "arxiv-ml" / "arxiv-ml-sample2k.jsonl"


@pytest.fixture(scope="module")
def arxiv_run(tmp_path_factory):
    """pipelines/arxiv-ml.toml on the first 50 records of the 2,000-record arXiv sample."""
    out = tmp_path_factory.mktemp("arxiv")
    records = ARXIV_SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)[:50]
    (out / "arxiv50.jsonl").write_text("".join(records), encoding="utf-8")
    outputs = {"store": "kg.lbug", "mentions": "m.jsonl", "rejects": "r.jsonl", "report": "report.json"}
    sets = [f"sources.0.path={out / 'arxiv50.jsonl'}", "outputs.html=", "outputs.report_html=", "outputs.report_md=",
            "outputs.cache=", *(f"outputs.{k}={out / v}" for k, v in outputs.items())]  # fmt: skip
    report = run_pipeline(load_pipeline_file(ROOT / "pipelines" / "arxiv-ml.toml", sets))
    assert report.records["kept"] == 50
    return out / "kg.lbug", [json.loads(r) for r in records]


def test_the_shipped_pipeline_reads_the_corpus_beside_the_checkout():
    spec = load_pipeline_file(ROOT / "pipelines" / "arxiv-ml.toml")
    corpus = SHARED / "arxiv-ml" / "arxiv-ml-abstracts.jsonl.gz"
    assert not spec.sources[0].path.is_absolute() and (ROOT / spec.sources[0].path).resolve() == corpus.resolve()
    assert spec.update.incremental and spec.extract.n_process == "auto"


def test_categories_are_paper_properties_in_both_stores(arxiv_run, neo4j):
    store, records = arxiv_run
    write_neo4j(read_embedded(store), neo4j)
    q = "MATCH (p:Paper) RETURN p.id, p.categories, p.primary_category, p.extra ORDER BY p.id"
    embedded, server = query_embedded(store, q).rows, query_neo4j(neo4j, q).rows
    expected = sorted([r["id"], r["categories"], r["categories"][0]] for r in records)
    assert [row[:3] for row in embedded] == expected
    assert [row[:3] for row in server] == expected
    assert all("categories" not in json.loads(row[3]) for row in embedded)  # not kept twice

    for name, params in [("papers_per_category", {}), ("papers_per_category", {"primary_only": True}),
                         ("concepts_per_category", {"arxiv_category": "cs.CL"}),
                         ("concepts_per_category", {"arxiv_category": "cs.LG", "primary_only": True})]:  # fmt: skip
        rows = query_embedded(store, *cookbook.prepare(name, "ladybug", params)).rows
        assert rows and rows == query_neo4j(neo4j, *cookbook.prepare(name, "neo4j", params)).rows, (name, params)


def test_papers_and_concepts_per_category_count_the_records(arxiv_run):
    store, records = arxiv_run
    listed = Counter(c for r in records for c in r["categories"])
    primary = Counter(r["categories"][0] for r in records)
    rows = query_embedded(store, *cookbook.prepare("papers_per_category", "ladybug", {"limit": 100})).rows
    assert dict(rows) == listed
    rows = query_embedded(store, *cookbook.prepare("papers_per_category", "ladybug", {"primary_only": True})).rows
    assert dict(rows) == dict(primary.most_common(30))

    G = read_embedded(store)
    in_cl = {f"paper:{r['id']}" for r in records if "cs.CL" in r["categories"]}
    counts = Counter(G.nodes[c]["name"] for p in in_cl for _, c, rel in G.out_edges(p, data="rel")
                     if rel == "MENTIONS" and not G.nodes[c].get("generic"))  # fmt: skip
    rows = query_embedded(store, *cookbook.prepare("concepts_per_category", "ladybug", {"arxiv_category": "cs.CL"}))
    assert rows.columns == ["concept", "type", "papers", "category_papers"]
    assert rows.rows and all(papers == counts[c] and n == len(in_cl) for c, _, papers, n in rows.rows)
    assert [r[2] for r in rows.rows] == sorted((r[2] for r in rows.rows), reverse=True)
    assert rows.rows[0][2] == max(counts.values())


def test_papers_without_categories_count_under_the_empty_category(sample_run):
    out, report = sample_run
    rows = query_embedded(out / "kg.lbug", *cookbook.prepare("papers_per_category", "ladybug")).rows
    assert rows == [["", report.records["kept"]]]
