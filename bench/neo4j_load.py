"""Loading Neo4j: batched Bolt (`kg load`) against the offline path (`kg load --admin`), on one graph.

The graph is an embedded store: --store PATH, or else the full ACL corpus (--corpus arxiv: the
arXiv ML corpus) run through pipelines/acl-full.toml into a temporary folder first (as
bench/corpus.py runs it: all cores, no analyse stage; about an hour on 2 cores).
Both paths run as a user runs them, as `kg` processes, against the real Neo4j 5.26 of
tools/neo4j, started by tools/neo4j/start.sh with --profile (default load: full JIT, 4 GB heap,
1.5 GB page cache; test is what the tests start):
- Bolt: `kg load` into an empty database, --repeats times (a fresh server each time); the rate
  is the write's (what `kg load` reports: relationships / seconds writing, nodes included), and
  each phase's (nodes; relationships, per second of the relationship phase); the wall time is
  the whole command's (reading the store included); then once `kg load` again into the loaded
  database (the same graph: nothing changes, every relationship is MERGEd).
  The server's CPU seconds during the load are counted too: on a shared machine they say more
  than the wall time does.
- Admin: `kg load --admin --home H` (CSVs, then `neo4j-admin database import full` from the
  jars in tools/neo4j/lib), then Neo4j started on H and its counts checked against the store.
Peak memory is the largest summed PSS of the `kg` process and its children (neo4j-admin's JVM
for the admin path), as bench/corpus.py measures it. Prints figures, then one JSON line.
Run: .venv/bin/python bench/neo4j_load.py [--store out/acl/kg.lbug] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpus import PeakMemory

from kg.config import NEO4J_BATCH, NEO4J_WORKERS
from kg.store import query_embedded
from kg.store.neo4j import Neo4jSettings, query_neo4j
from kg.store.schema import NODE_TABLES, REL_TABLES

ROOT = Path(__file__).resolve().parent.parent
CORPORA = {
    "acl": ROOT.parent / "shared" / "data" / "corpus" / "acl-anthology-abstracts.jsonl.gz",
    "arxiv": ROOT.parent / "shared" / "data" / "arxiv-ml" / "arxiv-ml-abstracts.jsonl.gz",
}
PASSWORD = "kg-bench-password"
WRITE = re.compile(r"(\d+) nodes and (\d+) relationships in ([\d.]+) s .*nodes ([\d.]+) s, relationships ([\d.]+) s")


def build_store(corpus: str, folder: Path) -> Path:
    """The corpus through pipelines/acl-full.toml (its link settings) into ``folder``."""
    outputs = {"store": "kg.lbug", "html": "", "mentions": "", "rejects": "rejects.jsonl", "report": "report.json",
               "report_html": "", "report_md": "", "cache": "cache/extract.sqlite"}  # fmt: skip
    sets = [f"outputs.{k}={folder / v if v else ''}" for k, v in outputs.items()]
    sets += [f"sources.0.path={CORPORA[corpus]}", f"extract.n_process={os.cpu_count() or 1}", "analyse.enabled=false"]
    args = [sys.executable, "-m", "kg", "run", str(ROOT / "pipelines" / "acl-full.toml"), "--quiet"]
    t0 = time.perf_counter()
    subprocess.run([*args, *(x for s in sets for x in ("--set", s))], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    print(f"built the {corpus} store in {time.perf_counter() - t0:.0f} s: {folder / 'kg.lbug'}", file=sys.stderr)
    return folder / "kg.lbug"


def counts_in_store(store: Path) -> dict[str, int]:
    out = {}
    for label in NODE_TABLES:
        out[label] = query_embedded(store, f"MATCH (n:{label}) RETURN count(n)").rows[0][0]
    for rel, (src, dst, _) in REL_TABLES.items():
        out[rel] = query_embedded(store, f"MATCH (:{src})-[r:{rel}]->(:{dst}) RETURN count(r)").rows[0][0]
    return out


def counts_in_neo4j(settings: Neo4jSettings) -> dict[str, int]:
    out = {}
    for label in NODE_TABLES:
        out[label] = query_neo4j(settings, f"MATCH (n:{label}) RETURN count(n)").rows[0][0]
    for rel in REL_TABLES:
        out[rel] = query_neo4j(settings, f"MATCH ()-[r:{rel}]->() RETURN count(r)").rows[0][0]
    return out


class Server:
    """tools/neo4j/start.sh, as tests/conftest.py starts it; stopped by closing its stdin."""

    def __init__(self, data: Path | None = None, profile: str = "load") -> None:
        # the password through the environment, never the command line (tools/neo4j/README.md)
        args = [str(ROOT / "tools" / "neo4j" / "start.sh"), "--port", "0", "--profile", profile]
        args += ["--data", str(data)] if data else []
        env = {**os.environ, "NEO4J_PASSWORD": PASSWORD}
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, env=env)  # fmt: skip
        line = self.proc.stdout.readline()  # type: ignore[union-attr]
        if not line.startswith("BOLT "):
            raise SystemExit("Neo4j did not start (tools/neo4j/start.sh)")
        self.settings = Neo4jSettings(uri=line.split()[1], password=PASSWORD)

    def cpu_s(self) -> float:
        """CPU seconds the server's JVM has used (start.sh execs it: same pid)."""
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.stdin.close()  # type: ignore[union-attr]
        self.proc.wait(timeout=300)


def kg(args: list[str], settings: Neo4jSettings | None = None) -> tuple[str, float, float]:
    """Run ``kg ARGS``: its stdout, wall seconds and peak memory (MB) of it and its children."""
    env = {**os.environ, "NEO4J_PASSWORD": PASSWORD}
    if settings:
        env["NEO4J_URI"] = settings.uri
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "kg", *args], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    with PeakMemory(proc.pid) as mem:
        out, _ = proc.communicate()
    if proc.returncode != 0:
        raise SystemExit(f"kg {' '.join(args)} failed")
    return out, time.perf_counter() - t0, mem.peak / 2**20


def bolt(store: Path, expected: dict[str, int], args: argparse.Namespace) -> tuple[list[dict], dict]:
    """``kg load`` into a fresh server, ``args.repeats`` times; the last time, a reload as well."""
    runs, reload = [], {}
    options = ["--batch-size", str(args.batch_size), "--workers", str(args.workers)]
    for i in range(args.repeats):
        with Server(profile=args.profile) as server:
            cpu = server.cpu_s()
            out, wall, peak = kg(["load", "--db", str(store), *options], server.settings)
            cpu = server.cpu_s() - cpu
            nodes, rels, secs, node_s, rel_s = WRITE.search(out).groups()  # type: ignore[union-attr]
            held = counts_in_neo4j(server.settings)
            assert held == expected, (held, expected)
            runs.append({"wall_s": round(wall, 1), "write_s": float(secs), "rels_per_s": round(int(rels) / float(secs)),
                         "node_phase_s": float(node_s), "node_phase_per_s": round(int(nodes) / float(node_s)),
                         "rel_phase_s": float(rel_s), "rel_phase_per_s": round(int(rels) / float(rel_s)),
                         "peak_memory_mb": round(peak), "server_cpu_s": round(cpu, 1),
                         "load_average": round(os.getloadavg()[0], 1)})  # fmt: skip
            print(f"bolt {i + 1}: {runs[-1]}", file=sys.stderr)
            if i == args.repeats - 1 and args.reload:
                out, wall, peak = kg(["load", "--db", str(store), *options], server.settings)
                _, rels, secs, _, _ = WRITE.search(out).groups()  # type: ignore[union-attr]
                assert counts_in_neo4j(server.settings) == expected
                reload = {"wall_s": round(wall, 1), "write_s": float(secs),
                          "rels_per_s": round(int(rels) / float(secs))}  # fmt: skip
                print(f"bolt reload (same graph): {reload}", file=sys.stderr)
    return runs, reload


def admin(store: Path, expected: dict[str, int], tmp: Path, args: argparse.Namespace) -> dict:
    """``kg load --admin`` into a new Neo4j home, then that home served and checked."""
    home = tmp / "admin-home"
    out, wall, peak = kg(["load", "--admin", "--db", str(store), "--home", str(home), "--csv", str(tmp / "csv")])
    csv_s, import_s = (float(x) for x in re.search(r"CSVs ([\d.]+) s, import ([\d.]+) s", out).groups())  # type: ignore[union-attr]
    t0 = time.perf_counter()
    with Server(home, profile=args.profile) as server:
        start_s = time.perf_counter() - t0
        held = counts_in_neo4j(server.settings)
    assert held == expected, (held, expected)
    shutil.rmtree(home)
    shutil.rmtree(tmp / "csv")
    figures = {"wall_s": round(wall, 1), "export_s": csv_s, "import_s": import_s, "start_s": round(start_s, 1),
               "peak_memory_mb": round(peak)}  # fmt: skip
    print(f"admin: {figures}", file=sys.stderr)
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", type=Path, help="an embedded store to load (default: build one from --corpus)")
    ap.add_argument("--corpus", choices=sorted(CORPORA), default="acl")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=NEO4J_BATCH)
    ap.add_argument("--workers", type=int, default=NEO4J_WORKERS)
    ap.add_argument("--profile", default="load", help="the server's profile (tools/neo4j/jvm-PROFILE.flags)")
    ap.add_argument("--no-admin", dest="admin", action="store_false", help="skip kg load --admin")
    ap.add_argument("--no-reload", dest="reload", action="store_false", help="skip the reload of the same graph")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="kg-bench-neo4j-"))
    try:
        store = args.store or build_store(args.corpus, tmp)
        expected = counts_in_store(store)
        nodes = sum(expected[label] for label in NODE_TABLES)
        rels = sum(expected[rel] for rel in REL_TABLES)
        print(f"{store}: {nodes} nodes, {rels} relationships", file=sys.stderr)
        runs, reload = bolt(store, expected, args)
        offline = admin(store, expected, tmp, args) if args.admin else {}
        median = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        print(json.dumps({
            "bench": "neo4j_load", "store": str(store) if args.store else args.corpus, "nodes": nodes,
            "relationships": rels, "batch_size": args.batch_size, "workers": args.workers, "repeats": args.repeats,
            "profile": args.profile, "bolt_rels_per_s": median["rels_per_s"],
            "bolt_node_phase_s": median["node_phase_s"], "bolt_node_phase_per_s": median["node_phase_per_s"],
            "bolt_rel_phase_s": median["rel_phase_s"], "bolt_rel_phase_per_s": median["rel_phase_per_s"],
            "bolt_write_s": median["write_s"], "bolt_wall_s": median["wall_s"],
            "bolt_peak_memory_mb": median["peak_memory_mb"], "bolt_runs_rels_per_s": [r["rels_per_s"] for r in runs],
            "bolt_server_cpu_s": median["server_cpu_s"], "bolt_runs_load_average": [r["load_average"] for r in runs],
            "bolt_reload_rels_per_s": reload.get("rels_per_s"), "bolt_reload_wall_s": reload.get("wall_s"),
            **{f"admin_{k}": v for k, v in offline.items()},
            "cpus": os.cpu_count(), "load_average": round(os.getloadavg()[0], 1),
        }))  # fmt: skip
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # the store it built, the CSVs; nothing when given --store


if __name__ == "__main__":
    main()
