"""Batched Neo4j loading against a one-row-per-query MERGE baseline, on the sample-2k graph.

Starts a real Neo4j (tools/neo4j), builds the graph of the 2,000-abstract ACL sample, and
loads its relationships both ways into an empty database; prints one JSON line of figures.
Run: .venv/bin/python bench/neo4j_load.py
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from kg.build import build_graph, knowledge_graph
from kg.extract import extract
from kg.link import cooccurrence, link_papers
from kg.read import read_records
from kg.records import Paper
from kg.store import cypher
from kg.store.neo4j import Neo4jSettings, _driver, query_neo4j, write_neo4j
from kg.store.schema import REL_TABLES, rel_rows

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT.parent / "shared" / "data" / "corpus" / "acl-anthology-abstracts-sample2k.jsonl"
BATCH = int(os.environ.get("KG_BENCH_BATCH", "5000"))
BASELINE_ROWS = int(os.environ.get("KG_BENCH_BASELINE_ROWS", "2000"))
REPEATS = int(os.environ.get("KG_BENCH_REPEATS", "3"))
PASSWORD = "kg-bench-password"


def main() -> None:
    papers = [p for p in read_records(SAMPLE) if isinstance(p, Paper)]
    B = build_graph(papers, extract(papers, n_process=os.cpu_count() or 1))
    G = knowledge_graph(B, link_papers(B), cooccurrence(B))
    rels = sum(1 for _ in G.edges)
    server = subprocess.Popen(
        [str(ROOT / "tools" / "neo4j" / "start.sh"), "--port", "0", "--password", PASSWORD],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        settings = Neo4jSettings(uri=server.stdout.readline().split()[1], password=PASSWORD)  # type: ignore[union-attr]
        batched, single, whole = [], [], []
        for i in range(REPEATS):
            query_neo4j(settings, "MATCH (n) DETACH DELETE n", write=True)
            t0 = time.perf_counter()
            phases: dict[str, float] = {}
            write_neo4j(G, settings, batch_size=BATCH, seconds=phases)
            whole.append(rels / (time.perf_counter() - t0))
            batched.append(rels / sum(phases[rel] for rel in REL_TABLES))
            single.append(_one_row_per_query(G, settings))
            print(f"run {i + 1}: batched {batched[-1]:.0f} rels/s (relationship phase), {whole[-1]:.0f} rels/s "
                  f"(whole load, nodes and clean-up included); one row per query {single[-1]:.0f} rels/s",
                  file=sys.stderr)  # fmt: skip
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.wait(timeout=60)
    b, s, w = statistics.median(batched), statistics.median(single), statistics.median(whole)
    print(json.dumps({
        "bench": "neo4j_load", "papers": len(papers), "nodes": G.number_of_nodes(), "relationships": rels,
        "batch_size": BATCH, "batched_rels_per_s": round(b, 1), "one_row_rels_per_s": round(s, 1),
        "ratio": round(b / s, 1), "whole_load_rels_per_s": round(w, 1), "whole_load_ratio": round(w / s, 1),
        "baseline_rows": BASELINE_ROWS, "repeats": REPEATS,
    }))  # fmt: skip


def _one_row_per_query(G, settings: Neo4jSettings) -> float:
    """The baseline: the same MERGE, one relationship per query and transaction (nodes already loaded)."""
    query_neo4j(settings, "MATCH ()-[r]->() DELETE r", write=True)
    rows = [(rel, row) for rel in REL_TABLES for row in rel_rows(G, rel)][:BASELINE_ROWS]
    driver = _driver(settings)
    try:
        with driver.session(database=settings.database) as session:
            t0 = time.perf_counter()
            for rel, row in rows:
                q = cypher.neo4j_merge_rels(rel)
                session.execute_write(lambda tx, q=q, row=row: tx.run(q, rows=[row]).consume())
            return len(rows) / (time.perf_counter() - t0)
    finally:
        driver.close()


if __name__ == "__main__":
    main()
