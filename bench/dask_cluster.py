"""Extraction on a Dask cluster of separate worker processes: one worker, then two, on 1,000 abstracts.

Each size is a fresh `LocalCluster(processes=True, threads_per_worker=1)`, as
`extract.executor = "dask"` starts without a scheduler address. The model is loaded on every
worker first (timed apart: a long-lived cluster pays it once), then the papers go out in shards
(`extract.shard_size`, here 100) through `kg.extract.distributed.extract_on_dask`, as a
pipeline sends them. Both sizes must give the same extractions. Other processes on the machine
make the wall-clock figures noisy: each run also says how much CPU its workers had. Prints per-size figures,
then one JSON line. Run: .venv/bin/python bench/dask_cluster.py [--papers 1000] [--workers 1,2]
(not bench/dask.py: a script of that name would shadow the dask package).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from itertools import islice
from pathlib import Path

from dask.distributed import Client, LocalCluster

from kg.extract.distributed import extract_on_dask
from kg.read import read_records
from kg.records import Paper

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT.parent / "shared" / "data" / "corpus" / "acl-anthology-abstracts-sample2k.jsonl"


def _load_model() -> None:
    """On a worker: the pipeline kg.extract.distributed keeps for its shards, loaded now."""
    from kg.extract import distributed
    from kg.extract.pipeline import load_pipeline

    if None not in distributed._NLP:
        distributed._NLP[None] = load_pipeline()


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure(papers: list[Paper], workers: int, shard_size: int) -> tuple[dict[str, float], list[dict]]:
    t0 = time.perf_counter()
    with (
        LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        started = time.perf_counter() - t0
        client.run(_load_model)
        loaded = time.perf_counter() - t0 - started
        cpu0 = sum(client.run(_cpu_seconds).values())
        t1 = time.perf_counter()
        xs = extract_on_dask(papers, client=client, shard_size=shard_size, batch_size=64)
        secs = time.perf_counter() - t1
        cpu = sum(client.run(_cpu_seconds).values()) - cpu0
    # On a busy machine a worker gets less than a core: the CPU share says how much it had.
    figures = {"workers": workers, "cluster_start_s": round(started, 2), "model_load_s": round(loaded, 2),
               "extract_s": round(secs, 2), "abstracts_per_s": round(len(papers) / secs, 1),
               "workers_cpu_s": round(cpu, 1), "abstracts_per_cpu_s": round(len(papers) / cpu, 1),
               "cpu_share_per_worker": round(cpu / secs / workers, 2)}  # fmt: skip
    print(json.dumps(figures), file=sys.stderr)
    return figures, [x.to_dict() for x in xs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=SAMPLE)
    parser.add_argument("--papers", type=int, default=1000)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--shard-size", type=int, default=100)
    args = parser.parse_args()
    papers = list(islice((p for p in read_records(args.corpus) if isinstance(p, Paper)), args.papers))
    runs, outputs = [], []
    for n in (int(w) for w in args.workers.split(",")):
        figures, xs = measure(papers, n, args.shard_size)
        runs.append(figures)
        outputs.append(xs)
    if any(xs != outputs[0] for xs in outputs):
        raise SystemExit("the clusters' extractions differ")
    base = runs[0]["extract_s"]
    print(json.dumps({
        "bench": "dask", "papers": len(papers), "shard_size": args.shard_size, "same_output": True,
        "runs": runs,
        "speedup": {str(r["workers"]): round(base / r["extract_s"], 2) for r in runs},
        # abstracts per CPU second against one worker's: ~1 means the workers add no work of their own,
        # so on cores of its own each worker adds one worker's speed
        "cpu_efficiency": {str(r["workers"]): round(r["abstracts_per_cpu_s"] / runs[0]["abstracts_per_cpu_s"], 2)
                           for r in runs},
    }))  # fmt: skip


if __name__ == "__main__":
    main()
