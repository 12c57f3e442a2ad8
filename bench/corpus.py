"""The full ACL corpus (61,880 abstracts) through the default stages, then again with 1,000 new papers.

Run 1 starts from an empty cache: read, extract (all cores), build, link, embedded store and
a capped HTML view. Run 2 adds 1,000 new papers (real corpus abstracts with their sentences in
reverse order and new ids, so their text is new to the cache) and runs again: only those are
extracted. Peak memory is the largest sum of the resident memory of kg and its worker
processes, sampled every 0.2 s. Prints per-stage figures, then one JSON line.
Run: .venv/bin/python bench/corpus.py
"""

from __future__ import annotations

import gzip
import json
import os
import re
import sys
import tempfile
import threading
import time
from pathlib import Path

from kg.pipeline import load_pipeline_file, run_pipeline

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "data" / "corpus" / "acl-anthology-abstracts.jsonl.gz"
PIPELINE = ROOT / "pipelines" / "acl-full.toml"


class PeakMemory:
    """Peak of the summed RSS of this process and its descendants, from /proc."""

    def __init__(self) -> None:
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
            self.peak = max(self.peak, _tree_rss(os.getpid()))


def _tree_rss(root: int) -> int:
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
        except OSError:
            continue
        ppid = re.search(r"^PPid:\s+(\d+)", status, re.M)
        vm = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
        if ppid:
            parents[int(entry)] = int(ppid.group(1))
        if vm:
            rss[int(entry)] = int(vm.group(1)) * 1024
    total, frontier = rss.get(root, 0), [root]
    while frontier:
        pid = frontier.pop()
        for child, parent in parents.items():
            if parent == pid:
                total += rss.get(child, 0)
                frontier.append(child)
    return total


def new_papers(n: int, dest: Path) -> None:
    with gzip.open(CORPUS, "rt", encoding="utf-8") as src, dest.open("w", encoding="utf-8") as out:
        for i, line in enumerate(src):
            if i >= n:
                break
            rec = json.loads(line)
            sentences = re.split(r"(?<=[.!?])\s+", rec["abstract"])
            rec["id"] = "new:" + rec["id"]
            rec["abstract"] = " ".join(reversed(sentences))
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")


def run(overrides: list[str]) -> dict[str, object]:
    spec = load_pipeline_file(PIPELINE, overrides)
    with PeakMemory() as mem:
        t0 = time.perf_counter()
        report = run_pipeline(spec)
        wall = time.perf_counter() - t0
    figures = {
        "wall_s": round(wall, 1),
        "peak_memory_mb": round(mem.peak / 2**20, 1),
        "records": report.records,
        "cache": report.cache,
        "stages": report.stages,
        "graph": report.graph,
    }
    print(json.dumps(figures, indent=1), file=sys.stderr)
    return figures


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="kg-bench-corpus-"))
    outputs = {"store": "kg.lbug", "html": "graph.html", "mentions": "mentions.jsonl", "rejects": "rejects.jsonl",
               "report": "report.json", "cache": "cache/extract.sqlite"}  # fmt: skip
    sets = [f"outputs.{k}={tmp / v}" for k, v in outputs.items()] + [f"extract.n_process={os.cpu_count() or 1}"]
    first = run(sets)
    extra = tmp / "new-1000.jsonl"
    new_papers(1000, extra)
    spec_sources = f'sources=[{{"path": "{CORPUS}"}}, {{"path": "{extra}"}}]'
    second = run([*sets, spec_sources])
    print(json.dumps({
        "bench": "corpus",
        "papers": first["records"]["kept"],  # type: ignore[index]
        "first_wall_s": first["wall_s"], "first_peak_memory_mb": first["peak_memory_mb"],
        "second_wall_s": second["wall_s"], "second_peak_memory_mb": second["peak_memory_mb"],
        "second_extracted": second["cache"]["extracted"],  # type: ignore[index]
        "second_to_first": round(float(second["wall_s"]) / float(first["wall_s"]), 4),  # type: ignore[arg-type]
        "first_stages_s": {k: v["seconds"] for k, v in first["stages"].items()},  # type: ignore[attr-defined]
        "second_stages_s": {k: v["seconds"] for k, v in second["stages"].items()},  # type: ignore[attr-defined]
    }))  # fmt: skip


if __name__ == "__main__":
    main()
