"""Run a pipeline: read -> extract -> normalise -> build -> link -> analyse -> visualise -> store, with a report."""

from __future__ import annotations

import contextlib
import gc
import importlib
import io
import json
import logging
import os
import platform
import resource
import shutil
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import IO, Any

import networkx as nx

import kg
from kg.analyse import analyse, annotate
from kg.build import build_graph, knowledge_graph
from kg.build.texts import TextFile
from kg.errors import ConfigError, InputError
from kg.extract import extract, load_pipeline, model_version
from kg.extract.cache import ExtractionCache, namespace, paper_text
from kg.extract.pipeline import Workers, model_digest
from kg.link import cooccurrence, link_papers
from kg.link.index import LinkIndex
from kg.memory import give_back_memory
from kg.normalise import Normaliser
from kg.normalise.gazetteer import load_gazetteer
from kg.normalise.run import RunTables, rekeyed, run_tables
from kg.normalise.types import decide_types, short_forms, typed
from kg.outputs import Staging, clean_leftovers, locked, refuse_folder, replacing
from kg.pipeline import incremental
from kg.pipeline.incremental import Update
from kg.pipeline.spec import PipelineSpec
from kg.read import Validator, read_records, split_records
from kg.read.dedupe import Deduped, dedupe_papers
from kg.records import Extraction, PackedExtractions, Paper, pack
from kg.report import ReportFacts, render_report, report_facts
from kg.store import read_embedded, reader, update_embedded
from kg.store.embedded import create_embedded, is_ladybug, replace_store
from kg.viz import concept_map, paper_map, write_html
from kg.viz.stored import page_graph
from kg.viz.views import full_view_top

log = logging.getLogger(__name__)

#: ``progress(done, total)``: called as papers are extracted.
Progress = Callable[[int, int], None]


@dataclass
class RunReport:
    """What a run did: counts, sizes, times and where every output went."""

    pipeline: str
    #: "full" or "incremental", why, and the papers added to the graph
    update: dict[str, Any] = field(default_factory=dict)
    records: dict[str, Any] = field(default_factory=dict)
    mentions: dict[str, Any] = field(default_factory=dict)
    #: how often each key rule fired (README "Concept keys"): ``{"rules": {name: count}}``
    normalise: dict[str, Any] = field(default_factory=dict)
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


@dataclass
class _Run:
    """What the stages of one run share: the settings, the report, and the data so far."""

    spec: PipelineSpec
    report: RunReport
    progress: Progress | None = None
    #: An output folder of the run (locked by it), for what it keeps on disk until it ends.
    folder: Path | None = None
    #: The extraction's worker processes, from the run's start to the extract stage (:func:`_fork_workers`).
    workers: Workers | None = None
    #: The papers read, until a full run's graph is built (then only ``n_papers``).
    papers: list[Paper] = field(default_factory=list)
    n_papers: int = 0
    #: The papers' extractions from the extract stage to the build stage, packed (a corpus's
    #: mentions as objects would take their memory, and leave it part-used once freed).
    extractions: PackedExtractions = field(default_factory=PackedExtractions)
    B: nx.DiGraph = field(default_factory=nx.DiGraph)
    G: nx.DiGraph = field(default_factory=nx.DiGraph)
    #: Where a full run's graph keeps its abstracts and sentences until the store (:mod:`kg.build.texts`).
    texts: TextFile | None = None
    #: What the report shows of the analytics, kept from the analyse stage (not the analytics).
    report_facts: ReportFacts | None = None
    #: Set when this run adds papers to the stored graph instead of rebuilding it.
    update: Update | None = None
    fingerprint: str = ""
    #: What was read from each source (:mod:`kg.pipeline.incremental`).
    sources: list[incremental.SourceRead] = field(default_factory=list)
    #: The sources not read again, in an incremental run.
    unchanged: incremental.Unchanged | None = None
    #: What the run-wide key rules decided (:mod:`kg.normalise.run`), kept for incremental runs.
    tables: RunTables = field(default_factory=RunTables)
    #: The rejects file's lines, kept for incremental runs even when the pipeline names no file.
    rejects: list[str] = field(default_factory=list)
    #: The outputs written so far, beside their targets until the run ends.
    staged: Staging = field(default_factory=Staging)
    #: The papers' digests and link index of a full incremental run (:func:`incremental.state_files`),
    #: written by the build and link stages, saved once the outputs are in place.
    state_files: Path | None = None
    #: Writes the incremental state once the outputs are in place.
    save_state: Callable[[], None] | None = None
    started: float = field(default_factory=time.perf_counter)


def run_pipeline(
    spec: PipelineSpec, *, progress: Progress | None = None, wait: bool = False, command: str | None = None
) -> RunReport:
    """Run every stage of ``spec`` and write its outputs and report.

    ``progress(done, total)`` is called as papers are extracted (the CLI draws a bar with it).
    Every output is written beside its target and moved into place when every stage has
    finished (:mod:`kg.outputs`): a run that fails leaves the outputs of the run before. One run
    writes the output folders at a time: another one is a :class:`~kg.outputs.LockedError`, or
    is waited for with ``wait``; ``command`` is how the lock names this run.
    """
    folders = {path.parent for path in output_targets(spec)}
    if spec.outputs.neo4j:  # a wrong password is said now, not after the extraction
        from kg.store.neo4j import check_neo4j

        check_neo4j(_neo4j_settings(spec))
    with locked(folders, command=command or f"kg run (pipeline {spec.name})", wait=wait):
        clean_leftovers(folders)
        run = _Run(spec, RunReport(pipeline=spec.name), progress, folder=min(folders, default=None))
        _import_early(spec)
        try:
            _fork_workers(run)
            _run_stages(run)
            _commit(run)
        finally:
            if run.workers is not None:
                run.workers.terminate()
            run.staged.discard()
            if run.texts is not None:
                run.texts.close()
    return run.report


def _fork_workers(run: _Run) -> None:
    """Where the run extracts in several local processes, fork them now, with the pipeline, before
    the records fill this process's memory (see :class:`~kg.extract.pipeline.Workers`)."""
    extract = run.spec.extract
    if extract.executor == "local" and extract.processes > 1:
        run.workers = Workers(load_pipeline(extract.model), extract.processes)


def _import_early(spec: PipelineSpec) -> None:
    """Import now the libraries that later stages of ``spec`` import on first use.

    Their modules live as long as the process. Imported while a corpus's graph is held, their
    objects fill the holes that building the graph left in Python's small-object arenas, and keep
    those arenas from going back to the system when the store lets go of the graph (61,839 ACL
    papers: the store's COPYs came on top of 1,735 MB, imported first on top of 1,250).
    """
    out = spec.outputs
    wanted = {
        "igraph": spec.analyse.enabled or bool(out.html),  # communities, and the pages' layout
        "kg.report.charts": bool(out.report_html or out.report_md),  # matplotlib
        "pyarrow.parquet": bool(out.store),
        "ladybug": bool(out.store),
        "neo4j": bool(out.neo4j),
    }
    for name in (name for name, used in wanted.items() if used):
        importlib.import_module(name)


def output_targets(spec: PipelineSpec) -> list[Path]:
    """The files a run of ``spec`` writes (the cache aside); a :class:`~kg.errors.ConfigError` for one it must not.

    Refused before anything is read or written: a folder, a store path holding something that is
    not a LadybugDB database, an input file, or a path two outputs share.
    """
    out = spec.outputs
    named = {
        f"outputs.{key}": path
        for key, path in out.model_dump().items()
        if path is not None and key not in ("cache", "neo4j")
    }
    if out.html:
        named |= {f"the {view} page of outputs.html": out.html.with_name(f"{view}.html") for view in spec.viz.views}
    if out.cache:
        refuse_folder(out.cache, "outputs.cache")
    seen: dict[Path, str] = {}
    inputs = {Path(src.path).resolve(): f"sources.{i}.path" for i, src in enumerate(spec.sources)}
    for key, path in named.items():
        refuse_folder(path, key)
        where = path.resolve()
        if other := seen.get(where) or inputs.get(where):
            raise ConfigError(f"{key}: {path} is also {other}; give each output a path of its own")
        seen[where] = key
    if out.store and out.store.exists() and not is_ladybug(out.store):
        raise ConfigError(f"outputs.store: {out.store} exists and is not a LadybugDB store; kg does not replace it "
                          "(move it away or name another path)")  # fmt: skip
    return list(named.values())


def _run_stages(run: _Run) -> None:
    spec = run.spec
    peak = _peak_rss_mb()
    try:
        for name, stage in STAGES:
            log.info("stage %s: start", name)
            by_stage = _reset_peak_rss()
            t0 = time.perf_counter()
            items = stage(run)
            # What the stages built lives until the run ends: spare the cyclic garbage collector
            # from scanning it again at every collection (and forked workers from copying it).
            # Frozen objects are never collected, so the stage's garbage cycles go first
            # (61,839 ACL papers: the run's peak 4,051 -> 3,540 MB).
            gc.collect()
            gc.freeze()
            give_back_memory()  # what the stage freed, for the stages after it (and the system)
            stage_peak = _peak_rss_mb()
            peak = max(peak, stage_peak)
            if items is None:
                continue
            secs = time.perf_counter() - t0
            run.report.stages[name] = {"seconds": round(secs, 3), "items": items,
                                       "per_second": round(items / secs, 1) if secs else 0.0}  # fmt: skip
            if by_stage:
                run.report.stages[name]["peak_rss_mb"] = stage_peak
            log.info("stage %s: %d items in %.2fs", name, items, secs)
    finally:
        gc.unfreeze()
    report = run.report
    report.seconds = round(time.perf_counter() - run.started, 3)
    report.peak_memory_mb = max(peak, _peak_rss_mb())
    # the largest worker process (spaCy's n_process workers end before this point)
    report.peak_worker_memory_mb = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)
    if spec.outputs.report:
        report.outputs["report"] = str(spec.outputs.report)
        text = json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"
        run.staged.path(spec.outputs.report).write_text(text, encoding="utf-8")


def _commit(run: _Run) -> None:
    """Move the run's outputs into place: the store first, then the mentions, then the rest.

    The incremental state goes first and is written back last: a run killed in between is
    followed by a full run, which writes every output again.
    """
    out = run.spec.outputs
    if out.store:
        incremental.forget(out.store)
    run.staged.commit([p for p in (out.store, out.mentions) if p])
    if run.save_state:
        run.save_state()


def _peak_rss_mb() -> float:
    """The peak resident memory of this process (since the last :func:`_reset_peak_rss`), in MB."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def _reset_peak_rss() -> bool:
    """Start measuring the peak resident memory afresh (Linux: ``/proc/self/clear_refs``); False where it cannot."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        return False
    return True


def read_stage(run: _Run, *, skip_unchanged: bool = True) -> int:
    """Records from every source; the rejects file gets every record that cannot be used.

    In an incremental run, the sources it starts with that the last run read and that did
    not change are not read again (:func:`kg.pipeline.incremental.unchanged_sources`): their
    papers are the stored ones, and their rejects are copied from the last run's.
    """
    spec, out = run.spec, run.spec.outputs
    run.papers = []
    unchanged = incremental.unchanged_sources(spec) if skip_unchanged else None
    run.sources = list(unchanged.sources) if unchanged else []
    validator = Validator(
        max_abstract_chars=spec.read.max_abstract_chars,
        min_abstract_chars=spec.read.min_abstract_chars,
        min_year=spec.read.min_year,
        max_year=spec.read.max_year,
    )
    rej = io.StringIO()
    with _gc_paused():
        rej.writelines(unchanged.rejects if unchanged else [])
        for i, src in enumerate(spec.sources[len(run.sources) :], start=len(run.sources)):
            if Path(src.path).is_dir():
                raise InputError(f"sources.{i}.path: {src.path} is a directory: give one records file per source")
            if not Path(src.path).is_file():
                raise InputError(f"sources.{i}.path: input file not found: {src.path} (give it in the pipeline "
                                 f"file or with --set sources.{i}.path=FILE)")  # fmt: skip
            source = incremental.SourceRead.of(Path(src.path), src.format)
            papers, kinds = split_records(read_records(src.path, fmt=src.format, validator=validator), rej)
            source.read = len(papers) + sum(kinds.values())
            source.rejected, source.ids = dict(kinds), [p.id for p in papers]
            run.sources.append(source)
            run.papers += papers
    deduped = dedupe_papers(run.papers) if spec.read.dedupe else Deduped(run.papers)
    if unchanged and (why := unchanged.clash(run.papers, deduped.keys)):
        log.info("reading every source again: %s", why)
        return read_stage(run, skip_unchanged=False)
    run.unchanged = unchanged
    run.papers = _merge_duplicates(run.papers, deduped, run.sources, rej, where=validator.where)
    run.rejects = rej.getvalue().splitlines(keepends=True)
    kept = {p.id for p in run.papers}
    for source in run.sources[len(unchanged.sources) if unchanged else 0 :]:
        source.kept = sum(1 for i in source.ids if i in kept)
        source.keys = sorted({incremental.dedupe_key(k) for i in source.ids for k in deduped.keys.get(i, [])})
    rejects = Counter[str]()
    for source in run.sources:
        rejects.update(source.rejected)
    read = sum(s.read for s in run.sources)
    run.report.records = {
        "read": read,
        "kept": len(run.papers) + (unchanged.kept if unchanged else 0),
        "rejected": sum(rejects.values()),
        "rejected_by_reason": dict(sorted(rejects.items())),
    }
    if out.rejects:
        run.staged.path(out.rejects).write_text("".join(run.rejects), encoding="utf-8")
        run.report.outputs["rejects"] = str(out.rejects)
    return read


@contextmanager
def _gc_paused() -> Iterator[None]:
    """No cyclic garbage collection inside: for loops that build many objects that live on and make no cycles."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def extract_stage(run: _Run) -> int:
    """Mentions and relations of every paper, from the cache or the model."""
    spec, out, report = run.spec, run.spec.outputs, run.report
    nlp = run.workers.nlp if run.workers is not None else load_pipeline(spec.extract.model)
    report.versions = {"kg": kg.__version__, "model": model_version(nlp), "python": platform.python_version()}
    ns = namespace(model_digest(nlp.path), kg.__version__)
    run.fingerprint = incremental.fingerprint(spec, ns)
    run.update, why = incremental.plan(spec, run.papers, run.fingerprint, run.unchanged)
    if run.update is None and run.unchanged:
        log.info("full run: reading the unchanged sources too")
        read_stage(run, skip_unchanged=False)
    todo = run.update.new if run.update else run.papers
    report.update = {"mode": "incremental" if run.update else "full", "reason": why, "papers_added": len(todo),
                     "sources_not_read": len(run.unchanged.sources) if run.unchanged else 0}  # fmt: skip
    if run.update:
        log.info("incremental run: adding %d new papers to the stored graph", len(todo))
    elif spec.update.incremental:
        log.info("full run: %s", why)
    cache = ExtractionCache(out.cache, namespace=ns) if out.cache else None
    try:
        with run.workers or nullcontext():  # (the workers end with the stage: their memory, for the stages after)
            run.extractions, hits = extract_cached(todo, spec, nlp=nlp, cache=cache, progress=run.progress,
                                                   workers=run.workers)  # fmt: skip
    finally:
        run.workers = None
        if cache:
            cache.close()
    report.cache = {"hits": hits, "extracted": len(todo) - hits}
    if out.cache:
        report.outputs["cache"] = str(out.cache)
    return len(run.extractions)


def normalise_stage(run: _Run) -> int:
    """Keys across the run (:func:`kg.normalise.run.normalise_run`); the mentions file gets the final keys.

    An incremental run keys its new papers with the last run's tables and theirs, as a full
    run would; the stored papers keep their keys until the next full run, even where the new
    papers would change them (counted in ``stored_keys_behind``; README "Incremental runs").
    """
    out = run.spec.outputs
    if not (run.update and out.mentions):
        return _normalise(run, None)
    # the stored papers' lines, then the new ones: copied while the new papers are keyed (the copy
    # waits on the disk, the keying on the processor; 150,965 arXiv ML papers: 1.5 GB, 12 s)
    with ThreadPoolExecutor(1) as pool:  # (waits for the copy however the stage ends)
        return _normalise(run, pool.submit(shutil.copyfile, out.mentions, run.staged.path(out.mentions)))


def _normalise(run: _Run, copying: Future[Any] | None) -> int:
    out, report, update = run.spec.outputs, run.report, run.update
    papers = update.new if update else run.papers
    gazetteer = load_gazetteer()
    norm = Normaliser()  # (one for the stage: it remembers the surfaces it has made)
    run.tables = run_tables(papers, run.extractions, prior=update.tables if update else None, normaliser=norm,
                            metrics=gazetteer.keys_of("Metric"), names=gazetteer.names,
                            datasets=gazetteer.keys_of("Dataset"))  # fmt: skip
    stored = update.tables if update else None
    rules: Counter[str] = Counter()
    # The type votes of the final keys, summed while they are made: (key, type) -> confidence.
    votes: defaultdict[tuple[str, str], float] = defaultdict(float)

    def voting(extractions: Iterable[Extraction]) -> Iterator[Extraction]:
        for x in extractions:
            for m in x.mentions:
                votes[m.concept, m.type] += m.confidence
            yield x

    # each pass reads the packed extractions one paper at a time (see _Run.extractions)
    keyed = PackedExtractions(voting(rekeyed(papers, run.extractions.drain(), rules, normaliser=norm,
                                             known=gazetteer.keys, metrics=gazetteer.keys_of("Metric"),
                                             tables=run.tables, stored=stored)))  # fmt: skip
    # One type per concept across the run's mentions, decided on the final keys, before they are
    # written anywhere; a stored concept keeps its type in an incremental run.
    known = None
    if update and out.store:
        keys = {key for key, _ in votes if f"concept:{key}" in update.known_before}
        known = incremental.stored_types(out.store, keys)
    acronyms = run.tables.acronyms | (stored.acronyms if stored else {})
    types = decide_types(((key, kind, c) for (key, kind), c in votes.items()), gazetteer=gazetteer, known=known,
                         short_forms=short_forms(acronyms, gazetteer))  # fmt: skip
    votes.clear()
    report.normalise = {"rules": dict(sorted(rules.items()))}
    if update:
        report.normalise = incremental.add_counts(update.state["counts"].get("normalise", {}), report.normalise)
        heads = norm.generic_heads | norm.process_only_heads | set(norm.class_heads)
        behind = update.tables.moved_by(
            run.tables, heads, norm.inverted, norm.head_synonyms, norm.gerund_heads, norm.nouns_of
        )
        for why in behind[:5]:
            log.info("a full run would change stored keys: %s", why)
        report.normalise["stored_keys_behind"] = len(behind)
    by_type: Counter[str] = Counter()
    by_role: Counter[str] = Counter()
    stated: Counter[str] = Counter()

    def final() -> Iterator[Extraction]:
        for x in typed(keyed.drain(), types):
            by_type.update(m.type for m in x.mentions)
            by_role.update(m.role for m in x.mentions)
            stated.update(r.type for r in x.relations)
            run.extractions.append(x)
            yield x

    if out.mentions:
        if copying is not None:
            copying.result()
        write_mentions(final(), run.staged.path(out.mentions), append=update is not None)
        report.outputs["mentions"] = str(out.mentions)
    else:
        for _ in final():
            pass
    report.mentions = {
        "total": by_type.total(),
        "by_type": dict(sorted(by_type.items())),
        "by_role": dict(sorted(by_role.items())),
        "relations": dict(sorted(stated.items())),
    }
    if run.update:
        report.mentions = incremental.add_counts(run.update.state["counts"]["mentions"], report.mentions)
    return len(run.extractions)


def build_stage(run: _Run) -> int:
    if run.update:
        return _build_update(run, run.update)
    run.n_papers = len(run.papers)
    if run.spec.update.incremental and run.spec.outputs.store:
        # the papers' digests for the next run's state, kept on disk (as the link index is)
        run.state_files = run.staged.scratch(run.spec.outputs.store)
        incremental.save_digests(run.state_files, {p.id: incremental.digest(p) for p in run.papers})
    # the graph holds what later stages need of the papers and their extractions (the mentions file
    # has them all): handed over, not kept, so that each paper and its mentions are freed once its
    # node and edges are in; the sentences and abstracts wait on disk for the store
    run.texts = TextFile(run.folder)
    run.B = build_graph(_papers_handed_over(run), _handed_over(run), texts=run.texts)
    run.report.concepts = incremental.count(d["type"] for _, d in run.B.nodes(data=True) if d["kind"] == "Concept")
    return run.n_papers


def _build_update(run: _Run, update: Update) -> int:
    """The new papers' graph; concepts it brings that the stored graph lacks are counted in."""
    run.B = build_graph(update.new, _handed_over(run))
    kinds = incremental.count(
        d["type"] for n, d in run.B.nodes(data=True) if d["kind"] == "Concept" and n not in update.known_before
    )
    run.report.concepts = incremental.add_counts(update.state["counts"]["concepts"], kinds)
    return len(update.new)


def _papers_handed_over(run: _Run) -> Iterator[Paper]:
    """The run's papers, which the run no longer holds: each is freed once the taker lets go of it
    (150,965 arXiv ML papers: their abstracts, 207 MB, had been held until the graph was built)."""
    papers, run.papers = run.papers, []
    papers.reverse()
    while papers:
        yield papers.pop()


def _handed_over(run: _Run) -> Iterator[Extraction]:
    """The run's extractions, which the run no longer holds: each is the taker's to free.

    The packed extractions live in the C heap, the graph in Python's own arenas: what they free
    goes back to the system as the graph grows, not once it is built.
    """
    for i, x in enumerate(run.extractions.drain(), 1):
        yield x
        if i % 8192 == 0:
            give_back_memory()


def link_stage(run: _Run) -> int:
    link = run.spec.link
    if run.update:
        return _link_update(run, run.update)
    # the papers' links go straight into B, and B becomes G: a copy would hold every node's and
    # edge's properties twice
    link_papers(run.B, min_shared=link.min_shared, min_weight=link.min_weight, max_df=link.max_df,
                top_k=link.top_k, topic_papers=link.topic_papers, into=run.B)  # fmt: skip
    give_back_memory()  # (its matrices, before the concepts' links)
    C = cooccurrence(run.B, min_papers=link.min_cooccurrence)
    run.G = knowledge_graph(run.B, nx.Graph(), C, copy=False)
    run.B = nx.DiGraph()
    del C
    give_back_memory()  # what linking freed (its matrices, the concept links' graph), before the index
    if run.state_files is not None:
        # made here, where what making it takes comes on top of the graph alone, not of the
        # analytics or the store's tables as well (61,839 ACL papers: 236 MB), and kept on disk
        # until the store is written, beside the papers' digests
        LinkIndex.from_graph(run.G, top_k=link.top_k).save(run.state_files)
    run.report.graph = {
        "nodes": incremental.count(d["kind"] for _, d in run.G.nodes(data=True)),
        "edges": incremental.count(d["rel"] for _, _, d in run.G.edges(data=True)),
    }
    return run.n_papers


def _link_update(run: _Run, update: Update) -> int:
    """Link the new papers against the stored graph's link index (:mod:`kg.link.index`)."""
    link, store = run.spec.link, run.spec.outputs.store
    assert store is not None  # an update needs its store
    update.links = update.index.add(run.B, min_shared=link.min_shared, min_weight=link.min_weight,
                                    max_df=link.max_df, min_cooccurrence=link.min_cooccurrence,
                                    topic_papers=link.topic_papers)  # fmt: skip
    update.delta, added = incremental.graph_delta(run.B, update, store)
    run.B = nx.DiGraph()  # the delta has what the store gets
    run.report.graph = incremental.add_counts(update.state["counts"]["graph"], added)
    return len(update.new)


def analyse_stage(run: _Run) -> int | None:
    """Communities, rankings, trends: computed once, stored as properties, drawn in the report."""
    if not run.spec.analyse.enabled:
        return None
    if run.update:
        log.info("analyse: skipped in an incremental run (the last full run's analytics stay)")
        return None
    a = analyse(run.G, seed=run.spec.analyse.seed)
    for note in a.notes:
        log.info("analyse: %s", note)
    run.G = annotate(run.G, a, copy=False)
    out = run.spec.outputs
    if out.report_html or out.report_md:
        # the graph has each node's analytics now; the report needs only its tables of them
        run.report_facts = report_facts(run.G, a)
    return run.G.number_of_nodes()


def store_stage(run: _Run) -> int | None:
    spec, store, update = run.spec, run.spec.outputs.store, run.update
    if not store:
        return None
    run.report.outputs["store"] = str(store)
    staged = run.staged.path(store, move=replace_store)
    counts = {"mentions": run.report.mentions, "concepts": run.report.concepts, "graph": run.report.graph,
              "normalise": run.report.normalise}  # fmt: skip
    save = partial(incremental.save, store, fingerprint=run.fingerprint, counts=counts, mentions=spec.outputs.mentions,
                   sources=run.sources, read_fingerprint=incremental.read_fingerprint(spec),
                   rejects=run.rejects, tables=run.tables)  # fmt: skip
    if update:
        items = sum(update_embedded(store, update.delta, into=staged).values())
        added = update.state["added"] + len(update.new)
        run.state_files = incremental.state_files(run.staged.scratch(store), update.digests, update.index)
        run.save_state = partial(save, files=run.state_files, added=added,
                                 full_papers=update.state["full_papers"])  # fmt: skip
        return items
    written = run.G.number_of_nodes() + run.G.number_of_edges()
    if spec.update.incremental:
        assert run.state_files is not None  # made by the build and link stages of a run with a store
        run.save_state = partial(save, files=run.state_files, added=0, full_papers=run.n_papers)
    # a full run's pages are drawn by now (visualise comes first); only a Neo4j target reads the graph after
    create_embedded(run.G, staged, release=None if spec.outputs.neo4j else partial(_let_go_of_graph, run),
                    texts=run.texts)  # fmt: skip
    return written


def _let_go_of_graph(run: _Run) -> None:
    """Empty the run's graph and hand its memory back (61,839 ACL papers: the COPYs came on top of 2.6 GB).

    Emptied, not only dropped: networkx's cached views (``G.degree``) make a cycle through the graph,
    and the run froze it (``gc.freeze``), so a dropped graph would not be collected.
    """
    run.G.clear()
    give_back_memory()


def visualise_stage(run: _Run) -> int | None:
    """The pages of a full run, drawn from its graph before the store stage lets go of it."""
    spec, G = run.spec, run.G
    if not spec.outputs.html or (run.update and spec.outputs.store):
        return None
    shown = _graph_page(run, *full_view_top(G, spec.viz.max_nodes), G)
    for name in spec.viz.views:
        shown += _view_page(run, name, concept_map(G) if name == "concepts" else paper_map(G), G)
    return shown


def visualise_stored_stage(run: _Run) -> int | None:
    """The pages of an incremental run: the same pages, drawn from what the (staged) store holds
    for them (kg.viz.stored), not a whole graph.

    What the graph page and the concepts page show is read at once: their concepts are mostly the
    same, and so are the papers and relations their panels list (1,000 papers added to 150,965
    arXiv ML ones: 31-34 s and 4.8 GB in kg's process, against 37-40 s and 4.7 + 3.7 GB in two
    processes side by side, each reading its own). Each query opens the store anew (``fresh``):
    LadybugDB held what all of them read until the reader closed (the stage's peak 4,372 ->
    2,422 MB in that update, 15 s either way, the same pages).
    """
    spec = run.spec
    if not (spec.outputs.html and run.update and spec.outputs.store):
        return None
    store = run.staged.path(spec.outputs.store)
    with reader(store, tuples=True, fresh=True) as query:
        read = page_graph(lambda q, p: query(q, p).rows, max_nodes=spec.viz.max_nodes,
                          views=["graph", *(name for name in spec.viz.views if name != "papers")])  # fmt: skip
    shown = _graph_page(run, *read.views.pop("graph"), read.G)
    for name, (H, _, _) in read.views.items():
        shown += _view_page(run, name, H, read.G)
    del read
    if "papers" in spec.viz.views:  # the paper map needs every link
        G = read_embedded(store)
        shown += _view_page(run, "papers", paper_map(G), G)
    return shown


def _graph_page(run: _Run, H: nx.Graph, score: dict[str, float] | None, total: int, G: nx.DiGraph) -> int:
    """Write the run's graph page: view ``H`` (its nodes' ``score``, ``total`` nodes in the whole view),
    panels from ``G`` (a full run's sentences in ``run.texts``). Returns the nodes drawn."""
    spec, html = run.spec, run.spec.outputs.html
    assert html is not None
    run.report.outputs["html"] = str(html)
    return write_html(H, run.staged.path(html), G=G, title=spec.viz.title, max_nodes=spec.viz.max_nodes,
                      score=score, total=total, texts=run.texts).nodes  # fmt: skip


def _view_page(run: _Run, name: str, H: nx.Graph, G: nx.DiGraph) -> int:
    """Write the page of the view ``name`` (``H``, panels from ``G``) beside the graph page."""
    spec, html = run.spec, run.spec.outputs.html
    assert html is not None
    page = html.with_name(f"{name}.html")
    run.report.outputs[f"html_{name}"] = str(page)
    return write_html(H, run.staged.path(page), G=G, title=f"{spec.viz.title}: {name}", colour_by="community",
                      max_nodes=spec.viz.max_nodes, texts=run.texts).nodes  # fmt: skip


def report_stage(run: _Run) -> int | None:
    """The researcher's report of the run: HTML with charts, and Markdown."""
    out = run.spec.outputs
    html, md = out.report_html, out.report_md
    if run.report_facts is None or not (html or md):
        return None  # also in an incremental run: the last full run's report stays
    pages = {"graph": out.html} if out.html else {}
    if out.html:
        pages.update({name: out.html.with_name(f"{name}.html") for name in run.spec.viz.views})
    folder = (html or md or Path()).parent
    links = {f"{name} view": os.path.relpath(page, folder) for name, page in pages.items()}
    # the time so far: the report is the last stage, and the run's total is set after it
    seconds = round(time.perf_counter() - run.started, 3)
    render_report(run.report_facts, run.report.to_dict() | {"seconds": seconds},
                  html and run.staged.path(html), md and run.staged.path(md), links=links)  # fmt: skip
    if html:
        run.report.outputs["report_html"] = str(html)
    if md:
        run.report.outputs["report_md"] = str(md)
    return 1


def neo4j_stage(run: _Run) -> int | None:
    """Load Neo4j with the run's graph, as `kg load` does (idempotent: only what changed is written).

    In an incremental run the graph is the updated embedded store's; Neo4j then holds exactly it.
    """
    from kg.store.neo4j import write_neo4j

    target = run.spec.outputs.neo4j
    if target is None:
        return None
    settings = _neo4j_settings(run.spec)
    store = run.spec.outputs.store
    # the run's new store, complete but not moved in yet (kg.outputs.Staging)
    G = read_embedded(run.staged.path(store)) if run.update and store else run.G
    if G is run.G and run.texts is not None:
        run.texts.restore(G)
    counts = write_neo4j(G, settings, batch_size=target.batch_size, workers=target.workers)
    run.report.outputs["neo4j"] = f"{settings.uri} ({settings.database or 'default database'})"
    return sum(counts.values())


def _neo4j_settings(spec: PipelineSpec) -> Any:
    from kg.store.neo4j import Neo4jSettings

    target = spec.outputs.neo4j
    assert target is not None
    return Neo4jSettings.from_env(uri=target.uri, user=target.user, database=target.database)


#: The stages of every run, in order; each returns the items it handled (None: skipped).
STAGES: list[tuple[str, Callable[[_Run], int | None]]] = [
    ("read", read_stage),
    ("extract", extract_stage),
    ("normalise", normalise_stage),
    ("build", build_stage),
    ("link", link_stage),
    ("analyse", analyse_stage),
    ("visualise", visualise_stage),  # a full run's pages, from its graph, which the store then lets go of
    ("store", store_stage),
    ("visualise", visualise_stored_stage),  # an incremental run's pages, from the store it updated
    ("report", report_stage),
    ("neo4j", neo4j_stage),
]


def _merge_duplicates(papers: list[Paper], deduped: Deduped, sources: list[incremental.SourceRead],
                      rejects: IO[str], *, where: Callable[[str], tuple[str, int] | None]) -> list[Paper]:  # fmt: skip
    """The same paper from several sources (same DOI, arXiv id or title) kept once, the rest merged in.

    A merged record is listed in the rejects file with the paper it went into and where it was read
    (``where``: its source and line), so it is never lost, and counted with its source's rejects.
    """
    originals = {p.id: p for p in papers}
    source_of = {i: s for s in sources for i in s.ids} if deduped.merged else {}
    for m in deduped.merged:
        log.warning("merged %s into %s (same %s: %s)", m.id, m.into, m.key, m.value)
        rejected = source_of[m.id].rejected
        rejected["merged duplicate"] = rejected.get("merged duplicate", 0) + 1
        paper = originals[m.id]
        reason = f"same {m.key} as {m.into} ({m.value}): merged into it"
        source, line = where(m.id) or (None, None)
        entry = {"source": source, "line": line, "id": m.id, "kind": "merged duplicate", "reason": reason,
                 "raw": json.dumps(asdict(paper), ensure_ascii=False, default=str)}  # fmt: skip
        rejects.write(json.dumps(entry, ensure_ascii=False) + "\n")
    return deduped.papers


def extract_cached(
    papers: list[Paper],
    spec: PipelineSpec,
    *,
    nlp: Any,
    cache: ExtractionCache | None,
    progress: Progress | None = None,
    workers: Workers | None = None,
) -> tuple[PackedExtractions, int]:
    """Extract every paper, taking what the cache has and committing new results in batches.

    One ``nlp.pipe`` runs over the papers the cache lacks (looked up lazily, batch by batch),
    so worker processes start once (or are ``workers``, started before). Returns the
    extractions in paper order, packed, and the cache hits.
    """
    done: dict[str, bytes] = {}
    commit = spec.extract.commit_every
    total = len(papers)
    hits = 0

    def misses() -> Iterator[Paper]:
        nonlocal hits
        for i in range(0, total, commit):
            chunk = papers[i : i + commit]
            cached = cache.get(paper_text(p) for p in chunk) if cache else {}
            for p in chunk:
                if (hit := cached.get(paper_text(p))) is not None:
                    done[p.id] = pack(Extraction(p.id, hit.mentions, hit.relations, hit.rules))
                    hits += 1
                else:
                    yield p

    texts = {p.id: paper_text(p) for p in papers}
    if spec.extract.executor == "dask":
        return _extract_dask(papers, list(misses()), done, texts, spec, cache, progress), hits
    pending: list[tuple[str, Extraction]] = []
    for found in extract(misses(), nlp=nlp, batch_size=spec.extract.batch_size, n_process=spec.extract.processes,
                         workers=workers):  # fmt: skip
        done[found.id] = pack(found)
        pending.append((texts[found.id], found))
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
    return PackedExtractions.of_packed(done.pop(p.id) for p in papers), hits


def _extract_dask(
    papers: list[Paper],
    todo: list[Paper],
    done: dict[str, bytes],
    texts: dict[str, str],
    spec: PipelineSpec,
    cache: ExtractionCache | None,
    progress: Progress | None,
) -> PackedExtractions:
    from kg.extract.distributed import dask_client, extract_on_dask

    def finished(shard: list[Extraction]) -> None:
        for x in shard:
            done[x.id] = pack(x)
        if cache:
            cache.put((texts[x.id], x) for x in shard)
        if progress:
            progress(len(done), len(papers))

    with dask_client(spec.extract.scheduler or None, n_workers=spec.extract.processes) as client:
        extract_on_dask(todo, client=client, model=spec.extract.model, shard_size=spec.extract.shard_size,
                        batch_size=spec.extract.batch_size, on_shard=finished)  # fmt: skip
    return PackedExtractions.of_packed(done.pop(p.id) for p in papers)


def write_mentions(extractions: Iterable[Extraction], path: Path, *, append: bool = False) -> None:
    """Write ``kg extract`` output: one JSON object per paper (after the file's lines, with ``append``).

    Without ``append`` the file is replaced whole, once written (:func:`kg.outputs.replacing`).
    """
    with contextlib.ExitStack() as stack:
        file = path if append else stack.enter_context(replacing(path))
        with file.open("a" if append else "w", encoding="utf-8") as fh:
            for x in extractions:
                fh.write(json.dumps(x.to_dict(), ensure_ascii=False) + "\n")


def read_mentions(path: Path, papers: list[Paper], *, n_process: int = 1) -> list[Extraction]:
    """The extractions of ``papers`` (in their order) from ``kg extract`` output, extracting what it lacks.

    A paper without a line in the file, or whose line does not fit its title and abstract as they
    are (:meth:`~kg.records.Extraction.fits`: the file is of an older text), is extracted afresh;
    so is one whose line holds no mention nor relation, as nothing in it says which text it is of
    (it counts as not fitting where its text has mentions now). Lines of ids not in ``papers``, or
    of an id read before, are not used. One warning counts each with an example id.
    """
    if not path.is_file():
        raise InputError(f"mentions file not found: {path}")
    of = {p.id: p for p in papers}
    found: dict[str, Extraction] = {}
    seen: set[str] = set()
    stale: list[str] = []
    unused: list[str] = []
    empty: list[str] = []  # lines with nothing to check against the text
    with path.open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            x = Extraction.from_line(line, where=f"{path}, line {n}")
            if x.id not in of or x.id in seen:
                unused.append(x.id)
            elif not (x.mentions or x.relations):
                empty.append(x.id)
            elif x.fits(of[x.id]):
                found[x.id] = x
            else:
                stale.append(x.id)
            seen.add(x.id)
    todo = [p for p in papers if p.id not in found]
    fresh = {x.id: x for x in extract(todo, n_process=n_process)} if todo else {}
    stale += [i for i in empty if fresh[i].mentions or fresh[i].relations]
    missing = [p.id for p in papers if p.id not in seen]
    reasons = {"without a line there": missing, "whose line does not fit their title and abstract": stale}
    afresh = [f"the papers {what} ({len(ids)}, e.g. {ids[0]})" for what, ids in reasons.items() if ids]
    said = [f"extracted afresh {' and '.join(afresh)}"] if afresh else []
    if unused:
        said.append(f"not used its lines of ids not in the records or repeated ({len(unused)}, e.g. {unused[0]})")
    if said:
        log.warning("mentions file %s is not the extraction of these records: %s", path, "; ".join(said))
    return [found[p.id] if p.id in found else fresh[p.id] for p in papers]
