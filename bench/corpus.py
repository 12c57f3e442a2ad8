"""The full ACL corpus (61,880 abstracts) through a pipeline, then again with 1,000 new papers.

Each run is a `kg run pipelines/acl-full.toml` process, as a user would start it, with the
stages the issue names: read, extract (all cores), build, link, embedded store and capped HTML
views (the analyse stage and the report are off in both runs). Run 1 starts from an empty
cache and no store. Run 2 adds 1,000 new papers (real corpus abstracts with their sentences in
reverse order, new ids and titles, so their text is new to the cache) and runs again: the
pipeline is incremental (`update.incremental`), so only those are extracted, linked and
stored. Peak memory is the largest sum of the proportional set size (PSS: shared pages counted
once) of kg and its worker processes, sampled every 0.2 s. Prints per-stage figures, then one
JSON line. Run: .venv/bin/python bench/corpus.py
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "data" / "corpus" / "acl-anthology-abstracts.jsonl.gz"
PIPELINE = ROOT / "pipelines" / "acl-full.toml"


class PeakMemory:
    """Peak of the summed PSS of a process and its descendants, from /proc."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            self.peak = max(self.peak, _tree_pss(self.pid))


def _tree_pss(root: int) -> int:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    tree, frontier = [root], [root]
    while frontier:
        pid = frontier.pop()
        children = [c for c, p in parents.items() if p == pid]
        tree += children
        frontier += children
    total = 0
    for pid in tree:
        try:
            rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
        except OSError:
            continue
        pss = re.search(r"^Pss:\s+(\d+) kB", rollup, re.M)
        total += int(pss.group(1)) * 1024 if pss else 0
    return total


def new_papers(n: int, dest: Path) -> None:
    with gzip.open(CORPUS, "rt", encoding="utf-8") as src, dest.open("w", encoding="utf-8") as out:
        for i, line in enumerate(src):
            if i >= n:
                break
            rec = json.loads(line)
            sentences = re.split(r"(?<=[.!?])\s+", rec["abstract"])
            rec["id"] = "new:" + rec["id"]
            rec["title"] = "Revisited: " + rec["title"]  # a new title too, or the run would merge it as a duplicate
            rec["abstract"] = " ".join(reversed(sentences))
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")


def run(overrides: list[str], report_path: Path) -> dict[str, object]:
    args = [sys.executable, "-m", "kg", "run", str(PIPELINE), "--quiet"]
    for item in overrides:
        args += ["--set", item]
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL)
    with PeakMemory(proc.pid) as mem:
        if proc.wait() != 0:
            raise SystemExit(f"kg run failed: {args}")
    wall = time.perf_counter() - t0
    report = json.loads(report_path.read_text(encoding="utf-8"))
    figures = {
        "wall_s": round(wall, 1),
        "peak_memory_mb": round(mem.peak / 2**20, 1),
        "records": report["records"],
        "cache": report["cache"],
        "update": report["update"],
        "stages": report["stages"],
        "graph": report["graph"],
    }
    print(json.dumps(figures, indent=1), file=sys.stderr)
    return figures


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="kg-bench-corpus-"))
    outputs = {"store": "kg.lbug", "html": "graph.html", "mentions": "mentions.jsonl", "rejects": "rejects.jsonl",
               "report": "report.json", "cache": "cache/extract.sqlite"}  # fmt: skip
    sets = [f"outputs.{k}={tmp / v}" for k, v in outputs.items()]
    sets += [f"extract.n_process={os.cpu_count() or 1}", "analyse.enabled=false"]
    first = run(sets, tmp / "report.json")
    extra = tmp / "new-1000.jsonl"
    new_papers(1000, extra)
    spec_sources = f'sources=[{{"path": "{CORPUS}"}}, {{"path": "{extra}"}}]'
    second = run([*sets, spec_sources], tmp / "report.json")
    print(json.dumps({
        "bench": "corpus",
        "papers": first["records"]["kept"],  # type: ignore[index]
        "first_wall_s": first["wall_s"], "first_peak_memory_mb": first["peak_memory_mb"],
        "second_wall_s": second["wall_s"], "second_peak_memory_mb": second["peak_memory_mb"],
        "second_extracted": second["cache"]["extracted"],  # type: ignore[index]
        "second_mode": second["update"]["mode"],  # type: ignore[index]
        "second_to_first": round(float(second["wall_s"]) / float(first["wall_s"]), 4),  # type: ignore[arg-type]
        "first_stages_s": {k: v["seconds"] for k, v in first["stages"].items()},  # type: ignore[attr-defined]
        "second_stages_s": {k: v["seconds"] for k, v in second["stages"].items()},  # type: ignore[attr-defined]
    }))  # fmt: skip


if __name__ == "__main__":
    main()
