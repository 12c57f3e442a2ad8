"""``outputs.neo4j``: a batch run loads the real Neo4j as its last stage; the password only from the environment."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from kg.errors import ConfigError
from kg.pipeline import load_pipeline_file, run_pipeline
from kg.store import read_embedded
from kg.store.neo4j import read_neo4j
from tests.conftest import NEO4J_PASSWORD, ROOT
from tests.test_pipeline import LINES, _pipeline

QUICK = ["update.incremental=true", "update.refresh=1", "viz.views=[]", "outputs.html=", "outputs.report_html=",
         "outputs.report_md="]  # fmt: skip


def _canon(G):
    return ({n: dict(d) for n, d in G.nodes(data=True)}, {(u, v): dict(d) for u, v, d in G.edges(data=True)})


def test_a_run_loads_neo4j_then_an_incremental_run_updates_it(tmp_path, neo4j, monkeypatch):
    monkeypatch.setenv("NEO4J_PASSWORD", NEO4J_PASSWORD)
    path, out = _pipeline(tmp_path, LINES[:40], name="n4j")
    sets = [*QUICK, f"outputs.neo4j.uri={neo4j.uri}"]
    first = run_pipeline(load_pipeline_file(path, sets))
    assert first.update["mode"] == "full" and "neo4j" in first.stages
    assert first.outputs["neo4j"].startswith(neo4j.uri)
    assert _canon(read_neo4j(neo4j)) == _canon(read_embedded(out / "kg.lbug"))
    (tmp_path / "n4j.jsonl").write_text("".join(LINES[:55]), encoding="utf-8")
    second = run_pipeline(load_pipeline_file(path, sets))
    assert second.update["mode"] == "incremental" and second.update["papers_added"] == 15
    assert _canon(read_neo4j(neo4j)) == _canon(read_embedded(out / "kg.lbug"))  # 55 papers, relinked


def test_the_password_never_comes_from_a_file(tmp_path):
    path, _ = _pipeline(tmp_path, LINES[:5])
    with pytest.raises(ConfigError, match=r"outputs\.neo4j: .*NEO4J_PASSWORD only"):
        load_pipeline_file(path, ["outputs.neo4j.uri=bolt://localhost:7687", "outputs.neo4j.password=secret"])


@pytest.mark.parametrize("password", ["", "wrong-password"])
def test_a_run_without_the_right_password_stops_first_with_one_line(tmp_path, neo4j, password):
    path, out = _pipeline(tmp_path, LINES[:5])
    env = {**os.environ, "NEO4J_PASSWORD": password}
    done = subprocess.run([sys.executable, "-m", "kg", "run", str(path), "--set", f"outputs.neo4j.uri={neo4j.uri}"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 1
    [line] = [ln for ln in done.stderr.splitlines() if ln.strip()]  # (a blank line where the progress bar was)
    assert line.startswith("kg: error: ") and ("set NEO4J_PASSWORD" if not password else "wrong password") in line
    assert not (out / "kg.lbug").exists()  # said before anything ran
