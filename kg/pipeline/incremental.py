"""Incremental runs: add the papers that are new since the last run to the stored graph.

A full run that ends writing its store (``update.incremental = true``) leaves a state folder
beside it (``<store>.state/``): a digest of every paper, the link index
(:class:`kg.link.index.LinkIndex`) and the run's counts. The next run compares its papers
with the digests. When papers were only added, and the model, the configuration and the
settings are the same, it extracts, links and stores only those papers, in one store
transaction, and draws the pages from the store; otherwise it rebuilds everything. The
analytics and the report are those of the last full run until the next one, which comes
once the papers added since exceed ``update.refresh`` of the papers it had.

The state is removed before the run's outputs are moved into place and written back once
they are (:func:`kg.pipeline.run._commit`), so a run killed in between leaves no state and
the next run rebuilds from the cache.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import networkx as nx

from kg.build.graph import combine_statements, concept_node
from kg.config import config_dir
from kg.link.index import LinkDelta, LinkIndex
from kg.normalise.run import RunTables
from kg.normalise.specificity import specificity
from kg.pipeline.spec import PipelineSpec
from kg.read import sniff_format
from kg.records import RELATION_TYPES, Paper
from kg.store import GraphDelta, reader
from kg.store.cypher import match_rel
from kg.store.embedded import is_complete
from kg.store.schema import RELATION_PROPS, node_rows, rel_rows

log = logging.getLogger(__name__)

STATE_FILE = "run.json"
SOURCES_FILE = "sources.json"
REJECTS_FILE = "rejects.jsonl"
#: The run-wide key tables (:class:`kg.normalise.run.RunTables`).
TABLES_FILE = "keys.json"
#: Changes whenever what the state holds or how it is computed (the digests) changes, or the store's
#: schema does (8: known names keep their acronyms, a long form's initials no longer outvote the run;
#: 7: the link index's unlinked concepts; 6: Paper.categories; 5: neighbour lists in the link
#: index), so that the next run rebuilds the store.
STATE_VERSION = 8
#: What of the config folder a run does not read, left out of its fingerprint (:func:`config_digest`):
#: training's settings and the query cookbook (``tests/test_incremental.py`` runs without them).
NOT_READ_BY_A_RUN = frozenset({"ner.cfg", "vectors.toml", "queries"})


@dataclass
class SourceRead:
    """What a run read from one source file: the file's size and digest, and its records."""

    #: The path as the pipeline gives it (rejects name it so), the file it is, and its format.
    path: str
    resolved: str
    format: str
    size: int
    sha256: str
    read: int = 0
    #: Rejected records by reason, the ones merged into another paper included.
    rejected: dict[str, int] = field(default_factory=dict)
    #: Ids of the papers read (kept, or merged into another), in order, and their duplicate keys (:func:`dedupe_key`).
    ids: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    kept: int = 0

    @classmethod
    def of(cls, path: Path, fmt: str) -> SourceRead:
        sha = hashlib.sha256()
        with path.open("rb") as fh:
            while block := fh.read(1 << 20):
                sha.update(block)
        fmt = sniff_format(path) if fmt == "auto" else fmt
        return cls(str(path), str(path.resolve()), fmt, path.stat().st_size, sha.hexdigest())

    def same_file(self, other: SourceRead) -> bool:
        mine, theirs = (
            (self.resolved, self.format, self.size, self.sha256),
            (other.resolved, other.format, other.size, other.sha256),
        )
        return mine == theirs


@dataclass
class Unchanged:
    """The leading sources of a run that the last run read, unchanged: they need not be read again.

    Their papers are those the last run stored, and their rejects the lines it wrote for them.
    """

    sources: list[SourceRead]
    #: Paper id -> digest (:func:`digest`), of the papers they keep.
    digests: dict[str, str]
    #: Ids and duplicate keys (:func:`dedupe_key`) of every paper read from them.
    ids: set[str]
    keys: set[str]
    rejects: list[str]

    @property
    def kept(self) -> int:
        return sum(s.kept for s in self.sources)

    def clash(self, papers: list[Paper], keys: dict[str, list[tuple[str, str]]]) -> str | None:
        """Why ``papers`` (read from the other sources, with their duplicate ``keys``) need the unchanged ones read."""
        if same := next((p.id for p in papers if p.id in self.ids), None):
            return f"paper {same} has the id of a paper read before"
        if any(dedupe_key(k) in self.keys for found in keys.values() for k in found):
            return "a new paper may be a duplicate of one read before"
        return None


def dedupe_key(key: tuple[str, str]) -> str:
    """A short stable digest of one duplicate key (DOI, arXiv id or title) of a paper."""
    return hashlib.blake2b("\x1f".join(key).encode(), digest_size=8).hexdigest()


def read_fingerprint(spec: PipelineSpec) -> str:
    """What must not change for a source file read before to read the same: the read settings."""
    from kg import __version__

    settings = json.dumps([STATE_VERSION, __version__, spec.read.model_dump(mode="json")], sort_keys=True)
    return hashlib.sha256(settings.encode()).hexdigest()[:16]


def unchanged_sources(spec: PipelineSpec) -> Unchanged | None:
    """The sources this run starts with that the last run read, if they are unchanged; else ``None``."""
    if not spec.update.incremental or spec.outputs.store is None:
        return None
    folder = state_folder(spec.outputs.store)
    try:
        json.loads((folder / STATE_FILE).read_text(encoding="utf-8"))  # the last run finished
        saved = json.loads((folder / SOURCES_FILE).read_text(encoding="utf-8"))
        stored: dict[str, str] = json.loads((folder / "papers.json").read_text(encoding="utf-8"))
        lines = (folder / REJECTS_FILE).read_text(encoding="utf-8").splitlines(keepends=True)
    except (OSError, ValueError):
        return None
    if saved.get("fingerprint") != read_fingerprint(spec):
        return None
    try:
        last = [SourceRead(**s) for s in saved["sources"]]
    except (KeyError, TypeError):
        return None
    same: list[SourceRead] = []
    renamed: dict[str, str] = {}  # the path as the last run gave it -> as this run does
    for src, old in zip(spec.sources, last, strict=False):
        if not Path(src.path).is_file() or not SourceRead.of(Path(src.path), src.format).same_file(old):
            break
        renamed[old.path] = str(src.path)
        same.append(replace(old, path=str(src.path)))
    if not same:
        return None
    ids = {i for s in same for i in s.ids}
    rejects = []
    for line in lines:
        entry = json.loads(line)
        if entry.get("source") in renamed:
            entry["source"] = renamed[entry["source"]]
            rejects.append(json.dumps(entry, ensure_ascii=False) + "\n")
        elif entry.get("source") is None and entry.get("id") in ids:
            rejects.append(line)
    digests = {i: stored[i] for i in ids if i in stored}
    return Unchanged(same, digests, ids, {k for s in same for k in s.keys}, rejects)


def stored_types(store: Path, keys: Iterable[str]) -> dict[str, str]:
    """The stored type of each of ``keys`` that the store has: a stored concept keeps its type."""
    with reader(store) as query:
        statement = "UNWIND $keys AS k MATCH (c:Concept {key: k}) RETURN c.key, c.type"
        rows = query(statement, {"keys": sorted(set(keys))}).rows
    return dict(rows)


@dataclass
class Update:
    """An incremental run: the last run's state and the papers to add."""

    folder: Path
    state: dict[str, Any]
    index: LinkIndex
    new: list[Paper]
    digests: dict[str, str]
    links: LinkDelta = field(default_factory=LinkDelta)
    #: What the store gets (:func:`graph_delta`).
    delta: GraphDelta = field(default_factory=GraphDelta)
    #: The concept nodes of the stored graph.
    known_before: set[str] = field(default_factory=set)
    #: What the run-wide key rules decided for the stored papers.
    tables: RunTables = field(default_factory=RunTables)

    def __post_init__(self) -> None:
        self.known_before = set(self.index.concepts)


def state_folder(store: Path) -> Path:
    return store.with_name(store.name + ".state")


def digest(paper: Paper) -> str:
    """A digest of everything a paper contributes to the graph."""
    extra = json.dumps(paper.extra, ensure_ascii=False, sort_keys=True, default=str) if paper.extra else ""
    fields = [paper.id, paper.title, paper.abstract, repr(paper.year), "\x1e".join(paper.authors),
              repr(paper.venue), extra]  # fmt: skip
    return hashlib.sha1("\x1f".join(fields).encode()).hexdigest()


def config_digest() -> str:
    """A digest of every file of the config folder but those a run does not read (:data:`NOT_READ_BY_A_RUN`).

    Every file, not those extraction reads (the cache's :func:`kg.extract.cache.namespace`): the
    stages after it read the config too (``generic.toml`` in full, the gazetteer, the reference
    frequencies), and a file kg reads tomorrow counts without a list to add it to.
    """
    folder = config_dir()
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder)
        if path.is_file() and name.parts[0] not in NOT_READ_BY_A_RUN:
            with path.open("rb") as fh:
                h.update(f"{name.as_posix()}\0".encode() + hashlib.file_digest(fh, "sha256").digest())
    return h.hexdigest()[:16]


def fingerprint(spec: PipelineSpec, namespace: str) -> str:
    """What must not change between a run and the update of its graph: the model and extraction
    (``namespace``), the config files (:func:`config_digest`), and the read, link and analyse settings."""
    settings = json.dumps([STATE_VERSION, namespace, config_digest(), spec.link.model_dump(),
                           spec.read.model_dump(mode="json"), spec.analyse.model_dump()], sort_keys=True)  # fmt: skip
    return hashlib.sha256(settings.encode()).hexdigest()[:16]


def plan(
    spec: PipelineSpec, papers: list[Paper], run_fingerprint: str, unchanged: Unchanged | None = None
) -> tuple[Update | None, str]:
    """The update of the stored graph this run can make, or ``None`` and why it rebuilds.

    ``papers`` are the papers read; those of the ``unchanged`` sources, not read again, count too.
    ``run_fingerprint`` is this run's :func:`fingerprint`, which the last run's must equal.
    """
    if not spec.update.incremental:
        return None, "incremental updates are off (update.incremental)"
    store = spec.outputs.store
    if store is None:
        return None, "there is no store to update (outputs.store)"
    folder = state_folder(store)
    try:
        state = json.loads((folder / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, f"no finished earlier run to update ({folder / STATE_FILE})"
    if not is_complete(store):
        return None, f"the store {store} is gone or incomplete"
    if state.get("fingerprint") != run_fingerprint:
        return None, "the model, the configuration or the read/link/analyse settings changed"
    mentions = spec.outputs.mentions
    if mentions and (state.get("mentions") != str(mentions) or not mentions.exists()):
        return None, f"the mentions file {mentions} is not the last run's"
    stored: dict[str, str] = json.loads((folder / "papers.json").read_text(encoding="utf-8"))
    digests = {**(unchanged.digests if unchanged else {}), **{p.id: digest(p) for p in papers}}
    if gone := stored.keys() - digests.keys():
        return None, f"{len(gone)} papers of the last run are gone (e.g. {min(gone)})"
    if changed := sorted(i for i, d in stored.items() if digests[i] != d):
        return None, f"{len(changed)} papers changed since the last run (e.g. {changed[0]})"
    new = [p for p in papers if p.id not in stored]
    added = state["added"] + len(new)
    if added > spec.update.refresh * state["full_papers"]:
        return None, f"{added} papers added since the last full run: over update.refresh = {spec.update.refresh}"
    tables = RunTables.from_dict(json.loads((folder / TABLES_FILE).read_text(encoding="utf-8")))
    return Update(folder, state, LinkIndex.load(folder), new, digests, tables=tables), ""


def graph_delta(B: nx.DiGraph, update: Update, store: Path) -> tuple[GraphDelta, dict[str, dict[str, int]]]:
    """What adding the papers of ``B`` (linked: ``update.links``) changes in the stored graph.

    Returns the delta and the nodes and edges it adds, by kind. Changes follow what a full run
    builds (:func:`kg.build.knowledge_graph`): a stated relation joins what the stored one
    of its pair and the new papers state, and a co-occurrence link runs against a stated
    relation of its pair, as a networkx graph holds one edge per ordered pair; of a pair stated
    both ways, the direction more papers state stays (the stored one, on a tie).
    """
    links, known = update.links, update.known_before
    delta = GraphDelta()
    added: dict[str, Counter[str]] = {"nodes": Counter(), "edges": Counter()}

    def key(node: str) -> str:
        return node.removeprefix("concept:")

    def add(rel: str, u: str, v: str, **props: Any) -> None:
        delta.rels.setdefault(rel, []).append({"from": key(u), "to": key(v), **props})
        added["edges"][rel] += 1

    def delete(rel: str, u: str, v: str) -> None:
        delta.rel_deletes.setdefault(rel, []).append({"from": key(u), "to": key(v)})
        added["edges"][rel] -= 1

    delta.nodes["Paper"] = list(node_rows(B, "Paper"))
    delta.nodes["Concept"] = [r for r in node_rows(B, "Concept") if concept_node(r["key"]) not in known]
    n_papers = len(update.index.papers)
    for row in delta.nodes["Concept"]:
        row["paper_count"] = links.paper_counts[concept_node(row["key"])]
        row["specificity"] = round(specificity(row["key"], run_df=row["paper_count"], run_docs=n_papers), 4)
        row["generic"] = concept_node(row["key"]) in update.index.generic
    delta.rels["MENTIONS"] = list(rel_rows(B, "MENTIONS"))
    added["nodes"].update(Paper=len(delta.nodes["Paper"]), Concept=len(delta.nodes["Concept"]))
    added["edges"]["MENTIONS"] = len(delta.rels["MENTIONS"])
    for u, v in links.removed:
        delete("SHARES_CONCEPTS", u.removeprefix("paper:"), v.removeprefix("paper:"))
    for u, v, d in links.links:
        add("SHARES_CONCEPTS", u.removeprefix("paper:"), v.removeprefix("paper:"), **d)

    stated = [(u, v, d) for u, v, d in B.edges(data=True) if d["rel"] in RELATION_TYPES]
    pairs = [*((u, v) for u, v, _ in stated), *((u, v) for u, v, _ in links.cooccurs_new),
             *((u, v) for u, v, _ in links.cooccurs_updated)]  # fmt: skip
    # each pair both ways: what the store says of it is all the changes below look up
    both = [{"from": a, "to": b} for a, b in sorted({(key(a), key(b)) for u, v in pairs for a, b in ((u, v), (v, u))})]
    touched = sorted(key(c) for c in links.paper_counts if c in known)
    props = [p for p, _ in RELATION_PROPS]
    relations: dict[tuple[str, str], dict[str, Any]] = {}
    with reader(store) as query:
        names = {
            k: (name, aliases or [])
            for k, name, aliases in query(
                "UNWIND $keys AS k MATCH (c:Concept {key: k}) RETURN c.key, c.name, c.aliases", {"keys": touched}
            ).rows
        }
        # (the pairs, not all the relations of their ends: a hub has thousands, 150,965 arXiv ML papers'
        # USED_FOR read so in 5.2 s; LadybugDB cannot type an empty list of rows)
        ask = ", ".join(f"r.{p}" for p in props)
        for rel in RELATION_TYPES if both else ():
            for a, b, *values in query(f"{match_rel(rel)} RETURN a.key, b.key, {ask}", {"rows": both}).rows:
                relations[concept_node(a), concept_node(b)] = {"rel": rel, **dict(zip(props, values, strict=True))}
        stored = query(f"{match_rel('CO_OCCURS')} RETURN a.key, b.key, r.weight", {"rows": both}).rows if both else []
        cooccurs = {(concept_node(a), concept_node(b)): w for a, b, w in stored}

    updates = []
    for k in touched:  # a concept keeps its name and gains the new papers' spellings
        name, aliases = names[k]
        d = B.nodes[concept_node(k)]
        merged = sorted((set(aliases) | set(d.get("aliases", [])) | {d["name"]}) - {name})
        count = links.paper_counts[concept_node(k)]
        updates.append({"key": k, "paper_count": count, "aliases": merged,
                        "specificity": round(specificity(k, run_df=count, run_docs=n_papers), 4),
                        "generic": concept_node(k) in update.index.generic})  # fmt: skip
    delta.node_updates["Concept"] = updates

    for u, v, d in stated:
        old = relations.get((u, v))
        new = {**combine_statements(old, d)}
        back = relations.get((v, u))
        if old is None and back is not None:  # stated both ways: the pair keeps the better stated one
            if new["n_papers"] <= back["n_papers"]:
                continue
            del relations[v, u]
            delete(back["rel"], v, u)
        relations[u, v] = new
        if old is not None and old["rel"] == new["rel"]:
            delta.rel_updates.setdefault(new["rel"], []).append(
                {"from": key(u), "to": key(v), **{p: new[p] for p in props}}
            )
            continue
        if old is not None:
            delete(old["rel"], u, v)
        add(new["rel"], u, v, **{p: new[p] for p in props})
        if (u, v) in cooccurs:  # the pair's co-occurrence link turns round, or goes if both ways are stated
            weight = cooccurs.pop((u, v))
            delete("CO_OCCURS", u, v)
            if (v, u) not in relations:
                cooccurs[v, u] = weight
                add("CO_OCCURS", v, u, weight=weight)
    for u, v, weight in links.cooccurs_new:
        if (u, v) in relations:
            if (v, u) in relations:
                log.warning("CO_OCCURS link %s - %s not kept: both directions carry a stated relation", u, v)
                continue
            u, v = v, u
        add("CO_OCCURS", u, v, weight=weight)
    for u, v, weight in links.cooccurs_updated:
        u, v = (u, v) if (u, v) in cooccurs else (v, u)
        delta.rel_updates.setdefault("CO_OCCURS", []).append({"from": key(u), "to": key(v), "weight": weight})
    return delta, {kind: dict(counts) for kind, counts in added.items()}


def forget(store: Path) -> None:
    """Remove the state before the outputs change: until it is written back, the next run rebuilds."""
    (state_folder(store) / STATE_FILE).unlink(missing_ok=True)


def state_files(folder: Path, digests: dict[str, str], index: LinkIndex) -> Path:
    """Write the papers' digests and the link index into ``folder``, which :func:`save` copies from.

    A run makes them while it still holds its graph and keeps them on disk until the store is
    written: the index's and the digests' many small objects, kept until then, would keep the
    memory the graph leaves in use (61,839 ACL papers: the store's COPYs came on top of 2,054 MB,
    now 1,408), and as bytes the files' 48 MB would be held from the link stage to the store.
    """
    index.save(folder)
    save_digests(folder, digests)
    return folder


def save_digests(folder: Path, digests: dict[str, str]) -> None:
    """Write the papers' digests into ``folder`` (:func:`state_files`): a full run does as soon as
    its graph is built, when it lets go of its papers (61,839 ACL papers: their digests kept until
    the link stage, made in the build stage's memory, had kept 47 MB in use through the store)."""
    with (folder / "papers.json").open("w", encoding="utf-8") as fh:
        json.dump(digests, fh, ensure_ascii=False)


def save(store: Path, *, fingerprint: str, files: Path, counts: dict[str, Any],
         added: int, full_papers: int, mentions: Path | None, sources: list[SourceRead],
         read_fingerprint: str, rejects: list[str], tables: RunTables) -> None:  # fmt: skip
    """Write the state of a run whose store is complete; the state file goes last.

    ``files`` is the folder of the papers' digests and the link index (:func:`state_files`), ``sources`` let the
    next run skip the source files that did not change, ``rejects`` (the rejects file's lines) are
    kept for their rejected records, and ``tables`` key the papers the next run adds.
    """
    folder = state_folder(store)
    folder.mkdir(parents=True, exist_ok=True)
    for path in sorted(files.iterdir()):
        shutil.copyfile(path, folder / path.name)
    with (folder / TABLES_FILE).open("w", encoding="utf-8") as fh:
        json.dump(tables.to_dict(), fh, ensure_ascii=False, sort_keys=True)
    (folder / REJECTS_FILE).write_text("".join(rejects), encoding="utf-8")
    read = {"fingerprint": read_fingerprint, "sources": [asdict(s) for s in sources]}
    (folder / SOURCES_FILE).write_text(json.dumps(read, ensure_ascii=False), encoding="utf-8")
    state = {"fingerprint": fingerprint, "counts": counts, "added": added, "full_papers": full_papers,
             "mentions": str(mentions) if mentions else None}  # fmt: skip
    tmp = folder / (STATE_FILE + ".tmp")
    tmp.write_text(json.dumps(state, indent=1, ensure_ascii=False), encoding="utf-8")
    tmp.replace(folder / STATE_FILE)


def add_counts(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """Nested counts added up: ``{"by_type": {"Method": 2}}`` + ``{"by_type": {"Method": 1}}``.

    >>> add_counts({"total": 2, "by_type": {"Method": 2}}, {"total": 1, "by_type": {"Method": 1, "Metric": 1}})
    {'by_type': {'Method': 3, 'Metric': 1}, 'total': 3}
    """
    out: dict[str, Any] = {}
    for key in sorted(old.keys() | new.keys()):
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) or isinstance(b, dict):
            out[key] = add_counts(a or {}, b or {})
        else:
            out[key] = (a or 0) + (b or 0)
    return out


def count(items: Iterable[str]) -> dict[str, int]:
    return dict(sorted(Counter(items).items()))
