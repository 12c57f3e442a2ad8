"""Extraction on a Dask cluster: shards of papers run on the workers, results come back in order.

``dask.distributed`` does the scheduling, retries and data movement; kg only cuts the papers
into shards and loads the spaCy pipeline once per worker process.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kg.errors import ConfigError
from kg.records import Extraction, Paper

_NLP: dict[str | None, Any] = {}


def _extract_shard(shard: list[Paper], model: str | None, texts_per_batch: int) -> list[Extraction]:
    # Runs on a worker: the pipeline is loaded on the first shard and kept for the next ones.
    from kg.extract.pipeline import extract, load_pipeline

    if model not in _NLP:
        _NLP[model] = load_pipeline(model)
    return list(extract(shard, nlp=_NLP[model], batch_size=texts_per_batch))


@contextmanager
def dask_client(scheduler: str | None = None, *, n_workers: int | None = None) -> Iterator[Any]:
    """A client of the cluster at ``scheduler``, or of a new local cluster of worker processes."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as exc:
        raise ConfigError("the dask executor needs dask.distributed: pip install 'kg[dask]'") from exc
    if scheduler:
        with Client(scheduler) as client:
            yield client
        return
    workers = n_workers or os.cpu_count() or 1
    with (
        LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        yield client


def extract_on_dask(
    papers: list[Paper],
    *,
    client: Any,
    model: str | Path | None = None,
    shard_size: int = 500,
    batch_size: int = 64,
    on_shard: Callable[[list[Extraction]], None] | None = None,
) -> list[Extraction]:
    """Extract ``papers`` in shards on the cluster behind ``client``; same output as a local run.

    ``on_shard`` is called with each shard's results as it finishes (in any order), so a
    caller can commit them before the others are done.
    """
    from dask.distributed import as_completed

    shards = [papers[i : i + shard_size] for i in range(0, len(papers), shard_size)]
    if not shards:
        return []
    # (client.map has a batch_size of its own: spaCy's goes by another name)
    futures = client.map(_extract_shard, shards, model=str(model) if model else None, texts_per_batch=batch_size,
                         pure=False)  # fmt: skip
    order = {f.key: i for i, f in enumerate(futures)}
    results: list[list[Extraction]] = [[] for _ in shards]
    for future in as_completed(futures):
        shard = future.result()
        results[order[future.key]] = shard
        if on_shard:
            on_shard(shard)
    return [x for shard in results for x in shard]
