"""A paper's nearest papers, with the shared concepts that explain each link."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import networkx as nx

from kg.errors import KGError
from kg.link.papers import concept_weights


@dataclass(frozen=True, slots=True)
class Neighbour:
    """A paper near another one, and why."""

    #: Paper id (without the ``paper:`` prefix).
    paper: str
    title: str
    year: int | None
    weight: float
    #: Keys of the concepts the two papers share, rarest first.
    shared: tuple[str, ...]
    #: ``"SHARES_CONCEPTS"`` (a stored link) or ``"MENTIONS"`` (computed from the concepts).
    via: str


def nearest_papers(G: nx.DiGraph, paper: str, *, limit: int = 10) -> list[Neighbour]:
    """The papers closest to ``paper`` (a paper id or ``paper:`` node id), strongest link first.

    Taken from the paper's ``SHARES_CONCEPTS`` links. A paper without such links (its concepts
    are all too rare or too common to link, or the graph was never linked) falls back to the
    papers that mention the same concepts, each shared concept adding its weight in
    :func:`kg.link.link_papers` (:func:`kg.link.papers.concept_weights`: its specificity).

    Raises
    ------
    KGError
        When the graph has no such paper.

    Examples
    --------
    >>> G = nx.DiGraph()
    >>> for p in "abc":
    ...     G.add_node(f"paper:{p}", kind="Paper", id=p, title=p.upper(), year=2020)
    >>> G.add_nodes_from(["concept:x", "concept:y"], kind="Concept")
    >>> G.add_edges_from([("paper:a", "concept:x"), ("paper:b", "concept:x"), ("paper:b", "concept:y"),
    ...                   ("paper:c", "concept:y")], rel="MENTIONS")
    >>> [(n.paper, n.shared, n.via) for n in nearest_papers(G, "b")]
    [('a', ('x',), 'MENTIONS'), ('c', ('y',), 'MENTIONS')]
    """
    node = paper if paper.startswith("paper:") and paper in G else f"paper:{paper}"
    if G.nodes.get(node, {}).get("kind") != "Paper":
        raise KGError(f"no paper {paper!r} in the graph (give a paper id such as acl:P19-1001)")
    found: list[tuple[str, float, tuple[str, ...], str]] = []
    for other, d in _links(G, node):
        found.append((other, float(d.get("weight", 0.0)), tuple(d.get("shared") or ()), "SHARES_CONCEPTS"))
    if not found:
        found = _overlap(G, node)
    found.sort(key=lambda f: (-f[1], f[0]))
    result = []
    for other, weight, shared, via in found[:limit]:
        d = G.nodes[other]
        pid = str(d.get("id") or other.removeprefix("paper:"))
        result.append(Neighbour(pid, str(d.get("title") or ""), d.get("year"), round(weight, 6), shared, via))
    return result


def _links(G: nx.DiGraph, node: str) -> list[tuple[str, dict]]:
    # SHARES_CONCEPTS is stored once per pair, so look both ways.
    out = [(v, d) for v, d in G.succ[node].items() if d.get("rel") == "SHARES_CONCEPTS"]
    return out + [(u, d) for u, d in G.pred[node].items() if d.get("rel") == "SHARES_CONCEPTS"]


def _overlap(G: nx.DiGraph, node: str) -> list[tuple[str, float, tuple[str, ...], str]]:
    n_papers = sum(1 for _, kind in G.nodes(data="kind") if kind == "Paper")
    scores: dict[str, float] = defaultdict(float)
    shared: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for c, d in G.succ[node].items():
        if d.get("rel") != "MENTIONS":
            continue
        papers = [p for p, e in G.pred[c].items() if e.get("rel") == "MENTIONS"]
        key = str(G.nodes[c].get("key") or c.removeprefix("concept:"))
        weight = float(concept_weights([key], [len(papers)], n_papers)[0])
        for p in papers:
            if p != node:
                scores[p] += weight
                shared[p].append((-weight, key))
    return [(p, w, tuple(k for _, k in sorted(shared[p])), "MENTIONS") for p, w in scores.items()]
