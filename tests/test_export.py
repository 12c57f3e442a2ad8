"""Exports: neo4j-admin CSVs imported by the real tool, GraphML and GEXF read back by networkx."""

from __future__ import annotations

import json
import os
import subprocess

import networkx as nx

from kg.store import read_embedded
from kg.store.export import admin_import_args, export
from kg.store.neo4j import Neo4jSettings, read_neo4j
from tests.conftest import NEO4J_ENV, NEO4J_PASSWORD, ROOT

NEO4J = ROOT / "tools" / "neo4j"


def _canon(G):
    return ({n: dict(d) for n, d in G.nodes(data=True)}, {(u, v): dict(d) for u, v, d in G.edges(data=True)})


def test_neo4j_admin_import_into_a_fresh_database(tmp_path, sample_run, neo4j_server):
    out, _ = sample_run
    G = read_embedded(out / "kg.lbug")
    folder = tmp_path / "csv"
    export(G, "neo4j-admin", folder)
    home = tmp_path / "home"
    (home / "conf").mkdir(parents=True)
    flags = [ln.strip() for ln in (NEO4J / "jvm.flags").read_text().splitlines() if ln.strip() and ln[0] != "#"]
    imported = subprocess.run(
        ["java", *flags, "-cp", f"{NEO4J}/lib/*", "org.neo4j.cli.AdminTool", *admin_import_args(folder),
         f"--report-file={tmp_path / 'import.report'}"],
        env={**os.environ, "NEO4J_HOME": str(home)}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert imported.returncode == 0, imported.stdout[-2000:] + imported.stderr[-2000:]
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
