"""A whole corpus through the pipeline a user would run, then again with 1,000 new papers; memory by size.

Each run is a `kg run PIPELINE` process, as a user would start it, with every stage on (read,
extract on every core, normalise, build, link, analyse, embedded store, capped HTML views and
the report). Run 1 starts from an empty cache and no store. Run 2 adds 1,000 new papers (real
corpus abstracts with their sentences in reverse order, new ids and titles, so their text is
new to the cache) and runs again: the pipeline is incremental (`update.incremental`), so only
those are extracted, linked and stored. Then, for each of `--sizes` smaller than the corpus, a
run from nothing on its first N records, so that the growth of peak memory with the corpus shows
(`peak_memory_mb_by_papers`, the whole corpus included). Peak memory is the largest sum of the
proportional set size (PSS: shared pages counted once) of kg and its worker processes, sampled
every 0.2 s; each run's report adds the peak resident memory of kg's own process by stage.

The runs' folder (stores, mentions files, caches: about 2 GB for the ACL corpus, 5 GB for arXiv
ML) is removed at the end; `--keep` keeps it. Prints each run's figures on stderr, then one JSON
line. Run:
    .venv/bin/python bench/corpus.py                     # the ACL corpus, sizes 10,000 and 50,000
    .venv/bin/python bench/corpus.py --corpus ../shared/data/arxiv-ml/arxiv-ml-abstracts.jsonl.gz \\
        --pipeline pipelines/arxiv-ml.toml
    .venv/bin/python bench/corpus.py --limit 10000 --sizes 2500,5000   # a quick look on a slice
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "data" / "corpus" / "acl-anthology-abstracts.jsonl.gz"
PIPELINE = ROOT / "pipelines" / "acl-full.toml"
OUTPUTS = {"store": "kg.lbug", "html": "graph.html", "mentions": "mentions.jsonl", "rejects": "rejects.jsonl",
           "report": "report.json", "report_html": "report.html", "report_md": "report.md",
           "cache": "cache/extract.sqlite"}  # fmt: skip


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
        # Reading smaps_rollup walks a process's page tables: at five times a second it took a
        # third of a core from the run it measures. A process's PSS is at most its RSS (statm,
        # cheap), so the PSS is read only when the summed RSS could beat the peak so far, and
        # then once a second unless the RSS grew by 2% since the last reading.
        tree, tick, last_rss, last_read = [self.pid], 0, 0, 0.0
        while not self._stop.wait(0.2):
            if tick % 10 == 0:
                tree = _tree(self.pid)
            tick += 1
            rss = _rss(tree)
            if rss > self.peak and (rss > 1.02 * last_rss or time.monotonic() - last_read >= 1.0):
                self.peak = max(self.peak, _pss(tree))
                last_rss, last_read = rss, time.monotonic()


_PAGE = os.sysconf("SC_PAGE_SIZE")


def _tree(root: int) -> list[int]:
    """``root`` and its descendants."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    tree, frontier = [root], [root]
    while frontier:
        pid = frontier.pop()
        children = [c for c, p in parents.items() if p == pid]
        tree += children
        frontier += children
    return tree


def _rss(tree: list[int]) -> int:
    total = 0
    for pid in tree:
        try:
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * _PAGE
        except (OSError, IndexError, ValueError):
            continue
    return total


def _pss(tree: list[int]) -> int:
    total = 0
    for pid in tree:
        try:
            rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
        except OSError:
            continue
        pss = re.search(r"^Pss:\s+(\d+) kB", rollup, re.M)
        total += int(pss.group(1)) * 1024 if pss else 0
    return total


def _lines(corpus: Path) -> Iterator[str]:
    opener = gzip.open if corpus.suffix == ".gz" else open
    with opener(corpus, "rt", encoding="utf-8") as src:
        yield from src


def first_records(corpus: Path, n: int, dest: Path) -> Path:
    """The first ``n`` lines (records) of ``corpus`` as a file of their own."""
    with dest.open("w", encoding="utf-8") as out:
        for i, line in enumerate(_lines(corpus)):
            if i >= n:
                break
            out.write(line)
    return dest


def new_papers(corpus: Path, n: int, dest: Path) -> None:
    with dest.open("w", encoding="utf-8") as out:
        for i, line in enumerate(_lines(corpus)):
            if i >= n:
                break
            rec = json.loads(line)
            sentences = re.split(r"(?<=[.!?])\s+", rec["abstract"])
            rec["id"] = "new:" + rec["id"]
            rec["title"] = "Revisited: " + rec["title"]  # a new title too, or the run would merge it as a duplicate
            rec["abstract"] = " ".join(reversed(sentences))
            out.write(json.dumps(rec, ensure_ascii=False) + "\n")


def run(pipeline: Path, overrides: list[str], report_path: Path) -> dict[str, object]:
    args = [sys.executable, "-m", "kg", "run", str(pipeline), "--quiet"]
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


def _outputs(folder: Path) -> list[str]:
    return [f"outputs.{k}={folder / v}" for k, v in OUTPUTS.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="records file (default: the ACL corpus)")
    parser.add_argument("--pipeline", type=Path, default=PIPELINE, help="pipeline file (default: acl-full.toml)")
    parser.add_argument("--limit", type=int, default=0, help="use only the first N records of the corpus")
    parser.add_argument("--sizes", default="10000,50000", help="first-N runs for memory by size ('' for none)")
    parser.add_argument("--new", type=int, default=1000, help="papers the second run adds")
    parser.add_argument("--keep", action="store_true", help="keep the runs' folder (removed by default)")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="kg-bench-corpus-"))
    try:
        bench(args, tmp)
    finally:
        if args.keep:
            print(f"the runs are in {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def bench(args: argparse.Namespace, tmp: Path) -> None:
    """The runs of :func:`main` in ``tmp``, and their figures."""
    corpus = args.corpus.resolve()
    if args.limit:
        corpus = first_records(corpus, args.limit, tmp / f"first-{args.limit}.jsonl")
    fmt = tomllib.loads(args.pipeline.read_text(encoding="utf-8"))["sources"][0].get("format", "auto")
    first = run(args.pipeline, [f"sources.0.path={corpus}", *_outputs(tmp)], tmp / "report.json")
    extra = tmp / f"new-{args.new}.jsonl"
    new_papers(corpus, args.new, extra)
    sources = f'sources=[{{"path": "{corpus}", "format": "{fmt}"}}, {{"path": "{extra}", "format": "jsonl"}}]'
    second = run(args.pipeline, [*_outputs(tmp), sources], tmp / "report.json")
    papers = first["records"]["kept"]  # type: ignore[index]
    by_size: dict[str, dict[str, object]] = {}
    records = sum(1 for _ in _lines(corpus))
    for size in sorted({int(s) for s in args.sizes.split(",") if s.strip()}):
        if size >= records:
            continue
        folder = tmp / f"size-{size}"
        folder.mkdir()
        part = first_records(corpus, size, folder / "records.jsonl")
        figures = run(args.pipeline, [f"sources.0.path={part}", *_outputs(folder)], folder / "report.json")
        by_size[str(figures["records"]["kept"])] = figures  # type: ignore[index]
    by_size[str(papers)] = first

    def stage(figures: dict[str, object], key: str) -> dict[str, object]:
        return {k: v.get(key) for k, v in figures["stages"].items()}  # type: ignore[attr-defined]

    print(json.dumps({
        "bench": "corpus",
        "corpus": str(args.corpus), "pipeline": str(args.pipeline), "limit": args.limit or None,
        "papers": papers,
        "first_wall_s": first["wall_s"], "first_peak_memory_mb": first["peak_memory_mb"],
        "second_wall_s": second["wall_s"], "second_peak_memory_mb": second["peak_memory_mb"],
        "second_extracted": second["cache"]["extracted"],  # type: ignore[index]
        "second_mode": second["update"]["mode"],  # type: ignore[index]
        "second_to_first": round(float(second["wall_s"]) / float(first["wall_s"]), 4),  # type: ignore[arg-type]
        "first_stages_s": stage(first, "seconds"),
        "second_stages_s": stage(second, "seconds"),
        "first_stages_peak_rss_mb": stage(first, "peak_rss_mb"),
        "peak_memory_mb_by_papers": {n: f["peak_memory_mb"] for n, f in by_size.items()},
        "wall_s_by_papers": {n: f["wall_s"] for n, f in by_size.items()},
        "peak_memory_kb_per_paper_by_papers": {
            n: round(float(f["peak_memory_mb"]) * 1024 / int(n), 1) for n, f in by_size.items()  # type: ignore[arg-type]
        },
    }))  # fmt: skip


if __name__ == "__main__":
    main()
