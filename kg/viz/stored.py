"""Pages drawn from a store without reading the whole graph into memory.

A capped page shows at most ``max_nodes`` nodes, the most important ones, and its side
panel lists what those nodes are linked to. :func:`page_graph` asks the store for exactly
that part of the graph, so drawing a page costs what the page shows, not what the corpus
holds, and the page is the one :func:`kg.viz.write_html` draws from the whole graph.
"""

from __future__ import annotations

import heapq
import json
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from kg.analyse import name_paper_communities
from kg.analyse.communities import NAME_CHARS, NAMING_PAPERS
from kg.build.graph import concept_node, paper_node
from kg.records import RELATION_TYPES
from kg.store.schema import EDGE_ATTR, NODE_TABLES, REL_TABLES
from kg.viz.html import PANEL_PAPERS
from kg.viz.overview import whole_map
from kg.viz.views import concept_map

#: ``run(query, params)`` -> rows: a query function of either store.
Run = Callable[[str, dict[str, Any]], list[Any]]


@dataclass
class PageGraph:
    """The part of a stored graph that the pages show, and how to draw each one."""

    #: Shown nodes with all their properties, plus the papers and concepts their panels list.
    G: nx.DiGraph
    #: view name -> (view graph, node importance or None, nodes in the whole view)
    views: dict[str, tuple[nx.Graph, dict[str, float] | None, int]] = field(default_factory=dict)


def page_graph(run: Run, *, max_nodes: int, views: Iterable[str] = ("graph",)) -> PageGraph:
    """Read what the capped ``views`` ("graph", "concepts") show from a store.

    The "graph" view keeps the nodes with the most ``MENTIONS`` (a paper's ``n_concepts``, a
    concept's ``paper_count``), ties by node id, as :func:`kg.viz.write_html` does.
    """
    views = list(views)
    G = nx.DiGraph()
    papers: set[str] = set()
    concepts: set[str] = set()
    out = PageGraph(G)
    scores: dict[str, float] = {}
    total = 0
    if "graph" in views:
        ranked = [
            (-(n or 0), paper_node(k))
            for k, n in run(
                "MATCH (n:Paper) RETURN n.id, n.n_concepts ORDER BY n.n_concepts DESC, n.id LIMIT $k", {"k": max_nodes}
            )
        ]
        ranked += [(-(n or 0), concept_node(k)) for k, n in run(
            "MATCH (n:Concept) RETURN n.key, n.paper_count ORDER BY n.paper_count DESC, n.key LIMIT $k",
            {"k": max_nodes})]  # fmt: skip
        top = sorted(ranked)[:max_nodes]
        papers |= {n.removeprefix("paper:") for _, n in top if n.startswith("paper:")}
        concepts |= {n.removeprefix("concept:") for _, n in top if n.startswith("concept:")}
        counted = {label: run(f"MATCH (n:{label}) RETURN count(n)", {})[0][0] for label in NODE_TABLES}
        total = sum(counted.values())
        scores = {n: float(-s) for s, n in top}
    cooccurs: list[list[Any]] = []
    if "concepts" in views:
        cooccurs = run("MATCH (a:Concept)-[r:CO_OCCURS]->(b:Concept) RETURN a.key, b.key, r.weight", {})
        degree: dict[str, int] = {}
        for a, b, _ in cooccurs:
            degree[a] = degree.get(a, 0) + 1
            degree[b] = degree.get(b, 0) + 1
        shown = sorted(degree, key=lambda k: (-degree[k], concept_node(k)))[:max_nodes]
        concepts |= set(shown)
        _add_nodes(run, G, "Concept", sorted(degree.keys() - concepts))  # in the view, not in a panel
    _add_nodes(run, G, "Paper", sorted(papers))
    _add_nodes(run, G, "Concept", sorted(concepts))
    _add_mentions(run, G, papers, concepts)
    _add_stated(run, G, concepts)
    for a, b, w in cooccurs:
        G.add_edge(concept_node(a), concept_node(b), rel="CO_OCCURS", weight=w)
    if "graph" in views:
        # the shown nodes and the MENTIONS among them: full_view(G) restricted to them
        sizes, mentions = _paper_communities(run)
        labels = _paper_labels(run, sizes, mentions)
        shown = nx.Graph(communities={"Paper": labels} if labels else {})
        # the map of the whole view, should the page open as one (kg.viz.html.write_html)
        shown.graph["map"] = whole_map(sizes, mentions, n_papers=counted["Paper"], n_nodes=total)
        shown.add_nodes_from((n, G.nodes[n]) for n in scores)
        shown.add_edges_from((u, v, d) for u in scores for v, d in G.succ[u].items()
                             if v in scores and d.get("rel") == "MENTIONS")  # fmt: skip
        out.views["graph"] = (shown, scores, total)
    if "concepts" in views:
        H = concept_map(G)
        out.views["concepts"] = (H, None, H.number_of_nodes())
    return out


def _paper_communities(run: Run) -> tuple[dict[int, int], list[tuple[int, str, int]]]:
    """The stored communities of papers: community -> its papers, and the rows (community, concept node,
    n): n papers of the community mention the concept. Counted in the store."""
    sizes = {int(k): int(n) for k, n in run("MATCH (p:Paper) WHERE p.community >= 0 RETURN p.community, count(*)", {})}
    if not sizes:
        return {}, []
    # keys and counts only: a row per community and concept (150,965 arXiv ML papers: 1.5 million
    # rows, 3.7 s; with each concept's name, type and flag as well, 18 s)
    mentions = run(
        "MATCH (p:Paper)-[:MENTIONS]->(c:Concept) WHERE p.community >= 0 RETURN p.community, c.key, count(*)", {}
    )
    return sizes, [(k, concept_node(key), n) for k, key, n in mentions]


def _paper_labels(run: Run, sizes: dict[int, int], mentions: list[tuple[int, str, int]]) -> dict[int, str]:
    """The names of the stored communities of papers, as the analyse stage names them.

    Only a concept that :data:`~kg.analyse.communities.NAMING_PAPERS` papers of a community
    mention can name it (any, in a community where none is mentioned so often): only those are
    read from the store and counted per community, the others only in each concept's papers overall.
    """
    if not sizes:
        return {}
    overall: dict[str, float] = defaultdict(float)
    often: set[int] = set()
    for k, c, n in mentions:
        overall[c] += n
        if n >= NAMING_PAPERS:
            often.add(k)
    counts: dict[int, dict[str, int]] = defaultdict(dict)
    for k, c, n in mentions:
        if n >= NAMING_PAPERS or k not in often:
            counts[k][c] = n
    keys = sorted({c.removeprefix("concept:") for cnt in counts.values() for c in cnt})
    concepts = nx.DiGraph()
    for key, name, generic, kind in run("UNWIND $keys AS k MATCH (c:Concept {key: k}) "
                                        "RETURN c.key, c.name, c.generic, c.type", {"keys": keys}):  # fmt: skip
        concepts.add_node(concept_node(key), key=key, name=name, generic=bool(generic), type=kind)
    # a name too long for a community's name is said by an acronym among its aliases
    long = sorted(d["key"] for _, d in concepts.nodes(data=True) if len(d["name"] or d["key"]) > NAME_CHARS)
    for key, aliases in run("UNWIND $keys AS k MATCH (c:Concept {key: k}) RETURN c.key, c.aliases",
                            {"keys": long}) if long else ():  # fmt: skip
        concepts.nodes[concept_node(key)]["aliases"] = aliases or []
    return {c.number: c.label for c in name_paper_communities(counts, sizes, concepts, overall=overall)}


def _add_nodes(run: Run, G: nx.DiGraph, label: str, keys: list[str]) -> None:
    props = [p for p, _ in NODE_TABLES[label]]
    key = props[0]
    node = paper_node if label == "Paper" else concept_node
    query = f"UNWIND $keys AS k MATCH (n:{label} {{{key}: k}}) RETURN " + ", ".join(f"n.{p}" for p in props)
    for row in run(query, {"keys": keys}):
        data = {p: v for p, v in zip(props, row, strict=True) if v is not None}
        if label == "Paper":
            data["extra"] = json.loads(data.get("extra") or "{}")
        G.add_node(node(row[0]), kind=label, **data)


def _add_stated(run: Run, G: nx.DiGraph, concepts: set[str]) -> None:
    """The relations sentences state about the shown concepts (their panels list them)."""
    keys = sorted(concepts)
    for rel in RELATION_TYPES:
        # what a panel and an edge show of it (the paper lists stay in the store)
        ask = "RETURN a.key, a.name, b.key, b.name, r.n_papers, r.sentence"
        # either end shown; UNWIND looks each key up ("IN $keys" would test every edge against the list)
        rows = run(f"UNWIND $keys AS k MATCH (a:Concept {{key: k}})-[r:{rel}]->(b:Concept) {ask}", {"keys": keys})
        rows += run(f"UNWIND $keys AS k MATCH (a:Concept)-[r:{rel}]->(b:Concept {{key: k}}) {ask}", {"keys": keys})
        for head, head_name, tail, tail_name, n_papers, sentence in rows:
            for key, name in ((head, head_name), (tail, tail_name)):
                if concept_node(key) not in G:
                    G.add_node(concept_node(key), kind="Concept", key=key, name=name)
            G.add_edge(concept_node(head), concept_node(tail), rel=rel, n_papers=n_papers, sentence=sentence)


def _add_mentions(run: Run, G: nx.DiGraph, papers: set[str], concepts: set[str]) -> None:
    """The MENTIONS edges of the shown papers and concepts, with the far ends their panels name."""
    props = [p for p, _ in REL_TABLES["MENTIONS"][2]]
    attrs = [EDGE_ATTR.get(p, p) for p in props]
    rel = ", ".join(f"m.{p}" for p in props)
    # (IN, not UNWIND: LadybugDB plans this one ten times faster)
    rows = run("MATCH (p:Paper)-[m:MENTIONS]->(c:Concept) WHERE p.id IN $keys "
               f"RETURN p.id, c.key, c.name, c.type, {rel}", {"keys": sorted(papers)})  # fmt: skip
    for pid, key, name, kind, *values in rows:
        if concept_node(key) not in G:
            G.add_node(concept_node(key), kind="Concept", key=key, name=name, type=kind)
        G.add_edge(paper_node(pid), concept_node(key), rel="MENTIONS", **dict(zip(attrs, values, strict=True)))
    # a concept's panel lists its PANEL_PAPERS latest papers, and the page its first year
    latest: dict[str, list[tuple[int, str, str]]] = defaultdict(list)
    first: dict[str, int] = {}
    for key, pid, year, role in run("UNWIND $keys AS k MATCH (p:Paper)-[m:MENTIONS]->(c:Concept {key: k}) "
                                    "RETURN c.key, p.id, p.year, m.role", {"keys": sorted(concepts)}):  # fmt: skip
        latest[key].append((-(year or 0), pid, role))
        if year is not None and year < first.get(key, year + 1):
            first[key] = year
    for key, year in first.items():
        G.nodes[concept_node(key)].setdefault("first_year", year)
    panels = {key: heapq.nsmallest(PANEL_PAPERS, found) for key, found in latest.items()}
    missing = sorted({pid for found in panels.values() for _, pid, _ in found if paper_node(pid) not in G})
    for pid, title, year in run("UNWIND $keys AS k MATCH (p:Paper {id: k}) RETURN p.id, p.title, p.year",
                                {"keys": missing}):  # fmt: skip
        G.add_node(paper_node(pid), kind="Paper", id=pid, title=title, year=year)
    for key, found in panels.items():
        for _, pid, role in found:
            if not G.has_edge(paper_node(pid), concept_node(key)):
                G.add_edge(paper_node(pid), concept_node(key), rel="MENTIONS", role=role)
