"""Run a pipeline: read -> extract -> build -> link -> store -> visualise, with a report."""

from __future__ import annotations

import json
import logging
import platform
import resource
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import kg
from kg.build import build_graph, knowledge_graph
from kg.extract import extract, load_pipeline, model_version
from kg.extract.cache import ExtractionCache, namespace
from kg.link import cooccurrence, link_papers
from kg.pipeline.spec import PipelineSpec
from kg.read import Validator, read_records
from kg.read.dedupe import dedupe_papers
from kg.records import Extraction, Mention, Paper, Reject
from kg.store import write_embedded
from kg.viz import concept_map, full_view, paper_map, write_html

log = logging.getLogger(__name__)

#: ``progress(done, total)``: called as papers are extracted.
Progress = Callable[[int, int], None]


@dataclass
class RunReport:
    """What a run did: counts, sizes, times and where every output went."""

    pipeline: str
    records: dict[str, Any] = field(default_factory=dict)
    mentions: dict[str, Any] = field(default_factory=dict)
    cache: dict[str, int] = field(default_factory=dict)
    concepts: dict[str, int] = field(default_factory=dict)
    graph: dict[str, dict[str, int]] = field(default_factory=dict)
    stages: dict[str, dict[str, float]] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    peak_memory_mb: float = 0.0
    peak_worker_memory_mb: float = 0.0
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@contextmanager
def _stage(report: RunReport, name: str, count: list[int]) -> Iterator[None]:
    log.info("stage %s: start", name)
    t0 = time.perf_counter()
    yield
    secs = time.perf_counter() - t0
    n = count[0]
    report.stages[name] = {"seconds": round(secs, 3), "items": n, "per_second": round(n / secs, 1) if secs else 0.0}
    log.info("stage %s: %d items in %.2fs", name, n, secs)


def run_pipeline(spec: PipelineSpec, *, progress: Progress | None = None) -> RunReport:
    """Run every stage of ``spec`` and write its outputs and report.

    ``progress(done, total)`` is called as papers are extracted (the CLI draws a bar with it).
    """
    started = time.perf_counter()
    out = spec.outputs
    report = RunReport(pipeline=spec.name)
    papers: list[Paper] = []
    rejects: Counter[str] = Counter()

    n = [0]
    with _stage(report, "read", n):
        out.rejects.parent.mkdir(parents=True, exist_ok=True)
        validator = Validator(
            max_abstract_chars=spec.read.max_abstract_chars, min_abstract_chars=spec.read.min_abstract_chars
        )
        with out.rejects.open("w", encoding="utf-8") as rej:
            for src in spec.sources:
                for item in read_records(src.path, fmt=src.format, validator=validator):
                    n[0] += 1
                    if isinstance(item, Reject):
                        log.warning("rejected %s:%d (%s): %s", item.source, item.line, item.id or "no id", item.reason)
                        rejects[item.kind] += 1
                        rej.write(json.dumps(item.to_dict(), ensure_ascii=False) + "\n")
                    else:
                        papers.append(item)
        if spec.read.dedupe and len(spec.sources) > 1:
            papers = _merge_duplicates(papers, rejects, out.rejects)
    report.records = {
        "read": n[0],
        "kept": len(papers),
        "rejected": sum(rejects.values()),
        "rejected_by_reason": dict(sorted(rejects.items())),
    }
    report.outputs["rejects"] = str(out.rejects)

    n = [0]
    extractions: list[Extraction] = []
    with _stage(report, "extract", n):
        nlp = load_pipeline(spec.extract.model)
        report.versions = {"kg": kg.__version__, "model": model_version(nlp), "python": platform.python_version()}
        cache = (
            ExtractionCache(out.cache, namespace=namespace(report.versions["model"], kg.__version__))
            if out.cache
            else None
        )
        try:
            extractions, hits = extract_cached(papers, spec, nlp=nlp, cache=cache, progress=progress)
        finally:
            if cache:
                cache.close()
        n[0] = len(extractions)
        report.cache = {"hits": hits, "extracted": len(papers) - hits}
        if out.cache:
            report.outputs["cache"] = str(out.cache)
        if out.mentions:
            write_mentions(extractions, out.mentions)
            report.outputs["mentions"] = str(out.mentions)
    all_mentions = [m for x in extractions for m in x.mentions]
    report.mentions = {
        "total": len(all_mentions),
        "by_type": dict(sorted(Counter(m.type for m in all_mentions).items())),
        "by_role": dict(sorted(Counter(m.role for m in all_mentions).items())),
    }

    n = [len(papers)]
    with _stage(report, "build", n):
        B = build_graph(papers, extractions)
    report.concepts = dict(sorted(Counter(d["type"] for _, d in B.nodes(data=True) if d["kind"] == "Concept").items()))

    with _stage(report, "link", n):
        P = link_papers(
            B,
            min_shared=spec.link.min_shared,
            min_weight=spec.link.min_weight,
            max_df=spec.link.max_df,
            top_k=spec.link.top_k,
        )
        C = cooccurrence(B, min_papers=spec.link.min_cooccurrence)
        G = knowledge_graph(B, P, C)
    report.graph = {
        "nodes": dict(sorted(Counter(d["kind"] for _, d in G.nodes(data=True)).items())),
        "edges": dict(sorted(Counter(d["rel"] for _, _, d in G.edges(data=True)).items())),
    }

    if out.store:
        n = [G.number_of_nodes() + G.number_of_edges()]
        with _stage(report, "store", n):
            write_embedded(G, out.store)
        report.outputs["store"] = str(out.store)

    if out.html:
        with _stage(report, "visualise", n):
            viz = write_html(full_view(G), out.html, G=G, title=spec.viz.title, max_nodes=spec.viz.max_nodes)
            n[0] = viz.nodes
            report.outputs["html"] = str(out.html)
            for name in spec.viz.views:
                page = out.html.with_name(f"{name}.html")
                H = concept_map(G) if name == "concepts" else paper_map(G)
                n[0] += write_html(H, page, G=G, title=f"{spec.viz.title}: {name}", colour_by="community",
                                   max_nodes=spec.viz.max_nodes).nodes  # fmt: skip
                report.outputs[f"html_{name}"] = str(page)

    report.seconds = round(time.perf_counter() - started, 3)
    report.peak_memory_mb = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    # the largest worker process (spaCy's n_process workers end before this point)
    report.peak_worker_memory_mb = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)
    report.outputs["report"] = str(out.report)
    out.report.parent.mkdir(parents=True, exist_ok=True)
    out.report.write_text(json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return report


def _merge_duplicates(papers: list[Paper], rejects: Counter[str], path: Path) -> list[Paper]:
    """The same paper from several sources (same DOI, arXiv id or title) kept once, the rest merged in.

    A merged record is listed in the rejects file with the paper it went into, so it is never lost.
    """
    deduped = dedupe_papers(papers)
    originals = {p.id: p for p in papers}
    with path.open("a", encoding="utf-8") as fh:
        for m in deduped.merged:
            log.warning("merged %s into %s (same %s: %s)", m.id, m.into, m.key, m.value)
            rejects["merged duplicate"] += 1
            paper = originals[m.id]
            reason = f"same {m.key} as {m.into} ({m.value}): merged into it"
            entry = {"source": None, "line": None, "id": m.id, "kind": "merged duplicate", "reason": reason,
                     "raw": json.dumps(asdict(paper), ensure_ascii=False, default=str)}  # fmt: skip
            fh.write(json.dumps(entry, ensure_ascii=False) + "\n")
    return deduped.papers


def extract_cached(
    papers: list[Paper],
    spec: PipelineSpec,
    *,
    nlp: Any,
    cache: ExtractionCache | None,
    progress: Progress | None = None,
) -> tuple[list[Extraction], int]:
    """Extract every paper, taking what the cache has and committing new results in batches.

    One ``nlp.pipe`` runs over the papers the cache lacks (looked up lazily, batch by batch),
    so worker processes start once. Returns the extractions in paper order and the cache hits.
    """
    done: dict[str, list[Mention]] = {}
    commit = spec.extract.commit_every
    total = len(papers)
    hits = 0

    def misses() -> Iterator[Paper]:
        nonlocal hits
        for i in range(0, total, commit):
            chunk = papers[i : i + commit]
            cached = cache.get(p.abstract for p in chunk) if cache else {}
            for p in chunk:
                if p.abstract in cached:
                    done[p.id] = cached[p.abstract]
                    hits += 1
                else:
                    yield p

    abstracts = {p.id: p.abstract for p in papers}
    if spec.extract.executor == "dask":
        return _extract_dask(papers, list(misses()), done, abstracts, spec, cache, progress), hits
    pending: list[tuple[str, list[Mention]]] = []
    for x in extract(misses(), nlp=nlp, batch_size=spec.extract.batch_size, n_process=spec.extract.n_process):
        done[x.id] = x.mentions
        pending.append((abstracts[x.id], x.mentions))
        if len(pending) >= commit:
            if cache:
                cache.put(pending)
            pending = []
            if progress:
                progress(len(done), total)
    if cache and pending:
        cache.put(pending)
    if progress:
        progress(total, total)
    return [Extraction(p.id, done[p.id]) for p in papers], hits


def _extract_dask(
    papers: list[Paper],
    todo: list[Paper],
    done: dict[str, list[Mention]],
    abstracts: dict[str, str],
    spec: PipelineSpec,
    cache: ExtractionCache | None,
    progress: Progress | None,
) -> list[Extraction]:
    from kg.extract.distributed import dask_client, extract_on_dask

    def finished(shard: list[Extraction]) -> None:
        for x in shard:
            done[x.id] = x.mentions
        if cache:
            cache.put((abstracts[x.id], x.mentions) for x in shard)
        if progress:
            progress(len(done), len(papers))

    with dask_client(spec.extract.scheduler or None, n_workers=spec.extract.n_process) as client:
        extract_on_dask(todo, client=client, model=spec.extract.model, shard_size=spec.extract.shard_size,
                        batch_size=spec.extract.batch_size, on_shard=finished)  # fmt: skip
    return [Extraction(p.id, done[p.id]) for p in papers]


def write_mentions(extractions: list[Extraction], path: Path) -> None:
    """Write ``kg extract`` output: one JSON object per paper."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for x in extractions:
            fh.write(json.dumps(x.to_dict(), ensure_ascii=False) + "\n")
