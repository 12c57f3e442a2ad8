"""Loads interrupted for real (kill -9 of kg, kill -9 of the server) end in the state of a clean load."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from kg.store import read_embedded
from kg.store.neo4j import Neo4jSettings, query_neo4j, read_neo4j
from tests.conftest import NEO4J_ENV, NEO4J_PASSWORD, ROOT


def _canon(G):
    return ({n: dict(d) for n, d in G.nodes(data=True)}, {(u, v): dict(d) for u, v, d in G.edges(data=True)})


def _load(db, settings: Neo4jSettings, *extra: str) -> subprocess.Popen:
    env = {**os.environ, "NEO4J_URI": settings.uri, "NEO4J_USER": settings.user, "NEO4J_PASSWORD": NEO4J_PASSWORD}
    return subprocess.Popen([sys.executable, "-m", "kg", "load", "--db", str(db), *extra], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip


def _rels(settings: Neo4jSettings) -> int:
    try:
        return query_neo4j(settings, "MATCH ()-[r]->() RETURN count(r)").rows[0][0]
    except Exception:
        return -1


def _kill_mid_load(proc: subprocess.Popen, settings: Neo4jSettings, total: int, victim=None) -> int:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        n = _rels(settings)
        if 0 < n < total:
            target = victim or proc
            os.kill(target.pid, signal.SIGKILL)
            target.wait(timeout=60)
            return n
        time.sleep(0.05)
    raise AssertionError(f"the load finished before it could be interrupted (exit {proc.returncode})")


def test_kill_9_of_the_loader_then_rerun(neo4j, sample_run):
    out, _ = sample_run
    db = out / "kg.lbug"
    G = read_embedded(db)
    proc = _load(db, neo4j, "--batch-size", "20")
    written = _kill_mid_load(proc, neo4j, G.number_of_edges())
    assert 0 < written < G.number_of_edges()
    assert _load(db, neo4j).wait(timeout=300) == 0
    assert _canon(read_neo4j(neo4j)) == _canon(G)


def test_server_killed_mid_load_then_restarted(tmp_path, sample_run):
    out, _ = sample_run
    db = out / "kg.lbug"
    G = read_embedded(db)
    home = tmp_path / "neo4j-home"

    def start() -> tuple[subprocess.Popen, Neo4jSettings]:
        server = subprocess.Popen(
            [str(ROOT / "tools" / "neo4j" / "start.sh"), "--port", "0", "--data", str(home)], env=NEO4J_ENV,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        line = server.stdout.readline()  # type: ignore[union-attr]
        assert line.startswith("BOLT "), "Neo4j did not start"
        return server, Neo4jSettings(uri=line.split()[1], password=NEO4J_PASSWORD)

    server, settings = start()
    try:
        proc = _load(db, settings, "--batch-size", "20")
        _kill_mid_load(proc, settings, G.number_of_edges(), victim=server)  # the server dies, not kg
        assert proc.wait(timeout=300) == 1  # after the driver's retries give up
        assert proc.stderr is not None and "kg: error:" in proc.stderr.read()
    finally:
        if server.poll() is None:
            server.kill()
    server, settings = start()
    try:
        assert 0 < _rels(settings) < G.number_of_edges()  # what the dead server had committed
        assert _load(db, settings).wait(timeout=300) == 0
        assert _canon(read_neo4j(settings)) == _canon(G)
    finally:
        server.stdin.close()  # type: ignore[union-attr]
        server.wait(timeout=60)
