"""Outputs replaced whole or not at all, by one run at a time, and a store that says it is complete.

The runs are real (`kg run` in a subprocess, killed with SIGKILL at a named point by
tests/kill_at.py); the store is the real LadybugDB and the load target the real Neo4j.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import networkx as nx
import pytest

from kg.errors import ConfigError, KGError, StoreError
from kg.outputs import LockedError, clean_leftovers, locked
from kg.pipeline import load_pipeline_file, run_pipeline
from kg.pipeline import run as run_module
from kg.store import query_embedded, read_embedded, write_embedded
from kg.store.embedded import is_complete
from tests.conftest import ROOT
from tests.test_pipeline import LINES

OUT = {"store": "kg.lbug", "html": "graph.html", "mentions": "m.jsonl", "rejects": "r.jsonl",
       "report": "report.json", "cache": "cache.sqlite", "report_html": "report.html",
       "report_md": "report.md"}  # fmt: skip
BEFORE, AFTER = 15, 20


def _pipeline(folder: Path, n: int, *, incremental: bool = False) -> tuple[Path, Path]:
    """A pipeline on the first ``n`` sample records writing every output into ``folder/out``."""
    folder.mkdir(parents=True, exist_ok=True)
    data, out = folder / "records.jsonl", folder / "out"
    data.write_text("".join(LINES[:n]), encoding="utf-8")
    update = "[update]\nincremental = true\nrefresh = 1.0\n" if incremental else ""
    text = f'name = "atomic"\n[[sources]]\npath = "{data}"\n{update}[outputs]\n' + "".join(
        f'{k} = "{out / v}"\n' for k, v in OUT.items()
    )
    path = folder / "p.toml"
    path.write_text(text, encoding="utf-8")
    return path, out


def _kg(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kg", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, **kw)  # fmt: skip


def _canon(db: Path):
    G = read_embedded(db)
    return {n: dict(d) for n, d in G.nodes(data=True)}, {(u, v): dict(d) for u, v, d in G.edges(data=True)}


def _files(out: Path) -> dict[str, bytes]:
    """Every output file's bytes (the extraction cache and the lock file aside)."""
    skip = {"cache.sqlite", ".kg.lock"}
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()
            and p.name not in skip and ".kg-" not in str(p)}  # fmt: skip


def _leftovers(out: Path) -> list[str]:
    return sorted(p.name for p in out.iterdir() if ".kg-" in p.name)


def _mentioned(out: Path) -> list[str]:
    return sorted(json.loads(line)["id"] for line in (out / "m.jsonl").read_text(encoding="utf-8").splitlines())


def _stored(out: Path) -> list[str]:
    return sorted(row[0] for row in query_embedded(out / "kg.lbug", "MATCH (p:Paper) RETURN p.id").rows)


def _one_line_error(result: subprocess.CompletedProcess, *parts: str) -> str:
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith("kg: error: ")
    for part in parts:
        assert part in result.stderr, result.stderr
    return result.stderr


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A finished run on 15 records and, apart, a clean run on 20, for both kinds of pipeline."""
    tmp = tmp_path_factory.mktemp("atomic")
    made = {}
    for incremental in (False, True):
        kind = "incremental" if incremental else "full"
        path, before = _pipeline(tmp / f"{kind}-before", BEFORE, incremental=incremental)
        run_pipeline(load_pipeline_file(path))
        path, after = _pipeline(tmp / f"{kind}-after", BEFORE, incremental=incremental)
        run_pipeline(load_pipeline_file(path))
        path, after = _pipeline(tmp / f"{kind}-after", AFTER, incremental=incremental)
        report = run_pipeline(load_pipeline_file(path))
        assert report.update["mode"] == kind
        made[kind] = (before, _canon(after / "kg.lbug"), (after / "m.jsonl").read_text(encoding="utf-8"))
    return made


def _copy_before(runs, kind: str, tmp_path: Path) -> tuple[Path, Path]:
    """The 15-record run's outputs, and its pipeline grown to 20 records.

    Copied; but an incremental run's state names its files, so that run is made again here
    (from the copied cache).
    """
    before, _, _ = runs[kind]
    incremental = kind == "incremental"
    path, out = _pipeline(tmp_path, BEFORE, incremental=incremental)
    if incremental:
        out.mkdir()
        shutil.copy(before / "cache.sqlite", out / "cache.sqlite")
        assert run_pipeline(load_pipeline_file(path)).cache == {"hits": BEFORE, "extracted": 0}
    else:
        shutil.copytree(before, out)
    _pipeline(tmp_path, AFTER, incremental=incremental)
    return path, out


# --- paths kg must not replace ---------------------------------------------------------------


def test_build_refuses_an_existing_folder_as_its_store(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("my notes", encoding="utf-8")
    records = tmp_path / "r.jsonl"
    records.write_text("".join(LINES[:3]), encoding="utf-8")
    result = _kg("build", str(records), "--db", str(folder))
    _one_line_error(result, f"{folder} is a folder", "does not replace folders")
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]
    assert (folder / "notes.txt").read_text(encoding="utf-8") == "my notes"
    # nor a file that is not a LadybugDB store
    result = _kg("build", str(records), "--db", str(folder / "notes.txt"))
    _one_line_error(result, "is not a LadybugDB store")
    assert (folder / "notes.txt").read_text(encoding="utf-8") == "my notes"
    with pytest.raises(KGError, match="is a folder"):
        write_embedded(nx.DiGraph(), folder)
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]


def test_a_store_naming_the_output_folder_is_refused_before_anything_is_touched(runs, tmp_path):
    path, out = _copy_before(runs, "full", tmp_path)
    (out / "mine.txt").write_text("a file of mine", encoding="utf-8")
    before = _files(out) | {"cache": (out / "cache.sqlite").read_bytes()}
    result = _kg("run", str(path), "--set", f"outputs.store={out}")
    _one_line_error(result, f"outputs.store: {out} is a folder")
    assert _files(out) | {"cache": (out / "cache.sqlite").read_bytes()} == before
    # a user's file under the store's name, an input file as an output, two outputs on one path
    for setting, message in [
        (f"outputs.store={out / 'mine.txt'}", "is not a LadybugDB store"),
        (f"outputs.mentions={tmp_path / 'records.jsonl'}", "is also sources.0.path"),
        (f"outputs.rejects={out / 'm.jsonl'}", "is also outputs.mentions"),
    ]:
        with pytest.raises(ConfigError, match=message):
            run_pipeline(load_pipeline_file(path, [setting]))
    assert _files(out) | {"cache": (out / "cache.sqlite").read_bytes()} == before


# --- failures and kills leave the previous outputs, or the new ones -------------------------------


def test_a_run_that_fails_in_a_later_stage_leaves_the_previous_outputs(runs, tmp_path, monkeypatch):
    path, out = _copy_before(runs, "full", tmp_path)
    before = _files(out)

    def broken(run):
        raise RuntimeError("the pages could not be drawn")

    stages = [(name, broken if name == "visualise" else stage) for name, stage in run_module.STAGES]
    monkeypatch.setattr(run_module, "STAGES", stages)
    with pytest.raises(RuntimeError, match="could not be drawn"):
        run_pipeline(load_pipeline_file(path))
    assert _files(out) == before and _leftovers(out) == []
    assert _stored(out) == _mentioned(out) and len(_stored(out)) == BEFORE

    def failing_copy(*args, **kwargs):  # the store stage fails half-way through its bulk copy
        if args[1] == "SHARES_CONCEPTS":
            raise StoreError("COPY failed")
        return copy(*args, **kwargs)

    monkeypatch.setattr(run_module, "STAGES", [s for s in stages if s[0] != "visualise"])
    import kg.store.embedded as embedded

    copy = embedded._copy
    monkeypatch.setattr(embedded, "_copy", failing_copy)
    with pytest.raises(StoreError, match="COPY failed"):
        run_pipeline(load_pipeline_file(path))
    assert _files(out) == before and _leftovers(out) == []


#: How LadybugDB reports a full disk (the ACL corpus's store, on a disk that filled up in this project).
FULL_DISK = ("Transaction committed successfully, but the post-commit checkpoint failed. The committed data is "
             "durable and will be recovered on restart: IO exception: Cannot write to file. path: x/.kg.lbug.kg-tmp "
             "fileDescriptor: 4 offsetToWrite: 476278784 numBytesToWrite: 4096 numBytesWritten: -1. Error: No space "
             "left on device")  # fmt: skip
#: A ``kg run`` whose store writes fail as on a full disk: the full run's third COPY, an update's second batch.
_DISK_FULL_RUN = """
import sys
import kg.store.embedded as e
message, calls = sys.argv[1], 0
def full(fn):
    def wrapped(*args, **kwargs):
        global calls
        calls += 1
        if calls == 2:
            raise RuntimeError(message)
        return fn(*args, **kwargs)
    return wrapped
e._copy, e._batches = full(e._copy), full(e._batches)
from kg.cli import main
sys.argv = ["kg", "run", "-q", sys.argv[2]]
main()
"""


@pytest.mark.parametrize("kind", ["full", "incremental"])
def test_a_full_disk_while_the_store_is_written_is_one_line_and_leaves_the_previous_outputs(runs, tmp_path, kind):
    path, out = _copy_before(runs, kind, tmp_path)
    before = _files(out)
    result = subprocess.run([sys.executable, "-c", _DISK_FULL_RUN, FULL_DISK, str(path)], cwd=ROOT,
                            capture_output=True, text=True, timeout=600)  # fmt: skip
    _one_line_error(result, "writing the store failed", "No space left on device")
    assert _files(out) == before and _leftovers(out) == []


POINTS = ["read", "extract", "normalise", "build", "link", "analyse", "copy", "store", "visualise", "report",
          "commit"]  # fmt: skip


@pytest.mark.parametrize(("kind", "point"), [*(("full", p) for p in POINTS), ("incremental", "update"),
                                             ("incremental", "store"), ("incremental", "commit")])  # fmt: skip
def test_kill_9_at_each_point_leaves_a_complete_store_and_a_rerun_repairs_the_rest(runs, tmp_path, kind, point):
    _, new_graph, new_mentions = runs[kind]
    path, out = _copy_before(runs, kind, tmp_path)
    old_graph, before = _canon(out / "kg.lbug"), _files(out)
    killed = subprocess.run([sys.executable, "-m", "tests.kill_at", point, "run", "--quiet", str(path)], cwd=ROOT,
                            capture_output=True, text=True, timeout=600)  # fmt: skip
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert is_complete(out / "kg.lbug")
    if point == "commit":  # killed between moving the store in and the rest: the new store, no state
        assert _canon(out / "kg.lbug") == new_graph
        assert not (out / "kg.lbug.state" / "run.json").exists()  # so the next run is a full one
    else:  # nothing moved in: every output is the last run's
        assert _canon(out / "kg.lbug") == old_graph and _files(out) == before
        assert _stored(out) == _mentioned(out)
    if point == "copy":  # the bulk copy's Parquet files were beside the store, not in a shared temp folder
        assert any(name.startswith(".kg.lbug.kg-tmp-") and name.endswith(".copy") for name in _leftovers(out))

    rerun = _kg("run", "--quiet", str(path))
    assert rerun.returncode == 0, rerun.stderr
    assert _leftovers(out) == []
    if point == "commit" and kind == "incremental":  # no state left: the re-run was a full run
        _, new_graph, new_mentions = runs["full"]
    assert _canon(out / "kg.lbug") == new_graph
    assert (out / "m.jsonl").read_text(encoding="utf-8") == new_mentions
    assert _stored(out) == _mentioned(out) and len(_stored(out)) == AFTER


# --- one writer at a time; readers see a complete store at every moment ------------------------------


def _lock_owner(out: Path, proc: subprocess.Popen, timeout: float = 300) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        text = (out / ".kg.lock").read_text(encoding="utf-8") if (out / ".kg.lock").exists() else ""
        if text:
            return text
        time.sleep(0.05)
    raise AssertionError(f"the first run never held the lock (exit {proc.poll()})")


def test_two_runs_at_once_one_clear_line_or_a_wait_and_a_complete_store(runs, tmp_path):
    path, out = _copy_before(runs, "full", tmp_path)
    _, new_graph, _ = runs["full"]
    first = subprocess.Popen([sys.executable, "-m", "kg", "run", "--quiet", str(path)], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    owner = json.loads(_lock_owner(out, first))
    assert owner["pid"] == first.pid and owner["command"] == f"kg run --quiet {path}"
    waiting = subprocess.Popen([sys.executable, "-m", "kg", "run", "--quiet", "--wait", str(path)], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    second = _kg("run", "--quiet", str(path))
    if first.poll() is None:  # (the first run may end while the second starts up: then the second just runs)
        _one_line_error(second, f"{out} is being written by another kg run (pid {first.pid}", "kg run --wait")
    assert first.wait(timeout=600) == 0, first.stderr.read()  # type: ignore[union-attr]
    assert waiting.wait(timeout=600) == 0, waiting.stderr.read()  # type: ignore[union-attr]
    assert _canon(out / "kg.lbug") == new_graph and _leftovers(out) == []
    assert (out / ".kg.lock").read_text(encoding="utf-8") == ""  # released


def test_the_lock_refuses_a_second_writer_in_one_process_and_reports_a_killed_one(tmp_path, caplog):
    (tmp_path / ".kg.lock").write_text(json.dumps({"pid": 999999999, "command": "kg run x", "since": "01:02:03"}))
    with caplog.at_level("INFO", logger="kg.outputs"), locked([tmp_path], command="kg run a"):
        assert "the last kg run there did not finish (pid 999999999, `kg run x`" in caplog.text
        with pytest.raises(LockedError, match="being written"), locked([tmp_path], command="kg run b"):
            pass
        assert json.loads((tmp_path / ".kg.lock").read_text())["command"] == "kg run a"


def test_a_killed_runs_database_files_are_removed_whatever_their_suffixes(tmp_path):
    # LadybugDB names what it makes beside a store after it: a store killed mid-checkpoint leaves
    # "<store>.wal.checkpoint" and "<store>.checkpoint.apply.lock", two suffixes and three
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stem = f".kg.lbug.kg-tmp-{dead.pid}-0123abcd"
    left = [stem, f"{stem}.wal", f"{stem}.wal.checkpoint", f"{stem}.checkpoint.apply.lock",
            f"{stem}.checkpoint.intent.lock", f".m.jsonl.kg-copy-{dead.pid}-0123abcd.copy"]  # fmt: skip
    live = f".kg.lbug.kg-tmp-{os.getpid()}-0123abcd"
    kept = ["kg.lbug", "kg.lbug.wal", f"{live}.wal.checkpoint", f"{stem}.wal.checkpoint~", f"{stem}.WAL",
            f"{stem}.wal..lock", f"notes{stem}", f".kg.lbug.kg-tmp-{dead.pid}-0123abcg.wal"]  # fmt: skip
    for name in [*left, *kept]:
        (tmp_path / name).write_text("x", encoding="utf-8")
    assert sorted(p.name for p in clean_leftovers([tmp_path])) == sorted(left)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(kept)


def test_readers_see_a_complete_store_at_every_moment_of_a_rewrite(runs, tmp_path):
    path, out = _copy_before(runs, "full", tmp_path)
    db = out / "kg.lbug"
    proc = subprocess.Popen([sys.executable, "-m", "kg", "run", "--quiet", str(path)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # fmt: skip
    seen: list[int] = []
    cli: list[subprocess.Popen] = []
    while proc.poll() is None:
        # the graph as `kg query` reads it, many times a second: papers, and every paper with its links
        rows = query_embedded(db, "MATCH (p:Paper) OPTIONAL MATCH (p)-[m:MENTIONS]->() RETURN p.id, count(m)").rows
        assert all(n > 0 for _, n in rows), "a paper without its mentions"
        seen.append(len(rows))
        if not cli or cli[-1].poll() is not None:  # and, one at a time, the command itself
            cli.append(subprocess.Popen([sys.executable, "-m", "kg", "query", "MATCH (p:Paper) RETURN count(p) AS n",
                                         "--db", str(db), "--format", "json"], cwd=ROOT, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True))  # fmt: skip
    assert proc.returncode == 0, proc.stderr.read()  # type: ignore[union-attr]
    seen.append(len(query_embedded(db, "MATCH (p:Paper) RETURN p.id").rows))
    assert set(seen) == {BEFORE, AFTER} and seen == sorted(seen) and len(seen) > 20
    answers = []
    for query in cli:
        stdout, stderr = query.communicate(timeout=120)
        assert query.returncode == 0, stderr
        answers.append(json.loads(stdout)[0]["n"])
    assert set(answers) <= {BEFORE, AFTER} and len(answers) >= 2


# --- an incomplete store is refused by every reader, and by kg load ------------------------------------


def _incomplete_store(db: Path, G) -> None:
    """What a kill -9 during an older kg's store stage left: papers and concepts, no links, no marker."""
    import ladybug

    from kg.store import cypher
    from kg.store.embedded import _copy, _parquet
    from kg.store.schema import NODE_TABLES, node_rows

    database = ladybug.Database(str(db))
    conn = ladybug.Connection(database)
    for ddl in cypher.ladybug_ddl():
        conn.execute(ddl)
    conn.close()
    database.close()
    copies = db.parent / "copies"
    copies.mkdir()
    for label, props in NODE_TABLES.items():
        _copy(db, label, _parquet(label, node_rows(G, label), props, copies))


@pytest.fixture(scope="module")
def incomplete(runs, tmp_path_factory):
    before, _, _ = runs["full"]
    db = tmp_path_factory.mktemp("incomplete") / "kg.lbug"
    _incomplete_store(db, read_embedded(before / "kg.lbug"))
    return db


@pytest.mark.parametrize(
    "command",
    [["query", "MATCH (p:Paper) RETURN count(p)"], ["viz", "concepts", "-o", "{tmp}/c.html"],
     ["viz", "papers", "-o", "{tmp}/p.html"], ["report", "-o", "{tmp}/r.html"],
     ["export", "-f", "graphml", "-o", "{tmp}/g.graphml"]],
)  # fmt: skip
def test_readers_refuse_an_incomplete_store_naming_the_rebuild(incomplete, tmp_path, command):
    args = [a.replace("{tmp}", str(tmp_path)) for a in command]
    result = _kg(*args, "--db", str(incomplete))
    _one_line_error(result, f"{incomplete} is not a complete kg store", "rebuild it with `kg run PIPELINE`")
    assert list(tmp_path.iterdir()) == []


def test_load_refuses_an_incomplete_store_and_neo4j_keeps_its_data(runs, incomplete, neo4j):
    from kg.store.neo4j import query_neo4j, write_neo4j

    before, _, _ = runs["full"]
    write_neo4j(read_embedded(before / "kg.lbug"), neo4j)
    count = "MATCH ()-[r]->() RETURN count(r)"
    rels = query_neo4j(neo4j, count).rows[0][0]
    assert rels > 0
    env = {**os.environ, "NEO4J_URI": neo4j.uri, "NEO4J_USER": neo4j.user, "NEO4J_PASSWORD": neo4j.password}
    result = _kg("load", "--db", str(incomplete), env=env)
    _one_line_error(result, "is not a complete kg store", "kg run")
    assert query_neo4j(neo4j, count).rows[0][0] == rels
