"""Exports: neo4j-admin CSVs imported by the real tool, GraphML and GEXF read back by networkx."""

from __future__ import annotations

import json
import subprocess
import sys

import networkx as nx

from kg.store import read_embedded
from kg.store.export import export
from kg.store.neo4j import Neo4jSettings, read_neo4j
from tests.conftest import NEO4J_ENV, NEO4J_PASSWORD, ROOT

NEO4J = ROOT / "tools" / "neo4j"


def _canon(G):
    return ({n: dict(d) for n, d in G.nodes(data=True)}, {(u, v): dict(d) for u, v, d in G.edges(data=True)})


def test_kg_load_admin_imports_into_a_fresh_database(tmp_path, sample_run, neo4j_server):
    out, _ = sample_run
    G = read_embedded(out / "kg.lbug")
    home = tmp_path / "home"
    folder = tmp_path / "csv"
    done = subprocess.run(
        [sys.executable, "-m", "kg", "load", "--admin", "--db", str(out / "kg.lbug"), "--home", str(home),
         "--csv", str(folder)], cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"imported {G.number_of_nodes()} nodes, {G.number_of_edges()} relationships" in done.stdout, done.stdout
    assert "next: start Neo4j (tools/neo4j/start.sh --data" in done.stdout
    assert (folder / "import.sh").is_file()  # --csv keeps the CSVs and the command
    server = subprocess.Popen(
        [str(NEO4J / "start.sh"), "--port", "0", "--data", str(home)], env=NEO4J_ENV,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        line = server.stdout.readline()  # type: ignore[union-attr]
        assert line.startswith("BOLT "), "the imported database did not start"
        settings = Neo4jSettings(uri=line.split()[1], password=NEO4J_PASSWORD)
        assert _canon(read_neo4j(settings)) == _canon(G)
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.wait(timeout=60)


def test_graphml_and_gexf_read_back(tmp_path, sample_run):
    out, _ = sample_run
    G = read_embedded(out / "kg.lbug")
    for fmt in ("graphml", "gexf"):
        [path] = export(G, fmt, tmp_path / f"g.{fmt}")
        H = nx.read_graphml(path) if fmt == "graphml" else nx.read_gexf(path, relabel=True)
        assert (H.number_of_nodes(), H.number_of_edges()) == (G.number_of_nodes(), G.number_of_edges())
        some = next(n for n, d in G.nodes(data=True) if d["kind"] == "Paper" and d["authors"])
        assert json.loads(H.nodes[some]["authors"]) == G.nodes[some]["authors"]
