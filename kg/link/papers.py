"""Paper-paper links weighted by the concepts two papers share."""

from __future__ import annotations

import math
from collections import defaultdict

import networkx as nx


def link_papers(
    B: nx.DiGraph,
    *,
    min_shared: int = 1,
    min_weight: float = 0.0,
    max_df: float = 0.1,
    top_k: int = 20,
) -> nx.Graph:
    """Link papers that share concepts, rare concepts counting more.

    A shared concept ``c`` adds ``log(1 + N / df(c))`` to the weight (N papers, df(c) papers
    mention c). Built from an inverted index, not a projection over all pairs: concepts in
    more than ``max_df`` of the papers are skipped and each paper keeps its ``top_k``
    strongest neighbours, so the work grows with the postings, not with N².

    Parameters
    ----------
    B
        A paper-concept graph from :func:`kg.build.build_graph`.
    min_shared, min_weight
        A link needs at least this many shared concepts and this weight.
    max_df
        Concepts mentioned by more than this share of the papers do not link (at least 2).
    top_k
        Links kept per paper (a link is kept if either end keeps it).

    Returns
    -------
    networkx.Graph
        Paper nodes (with their attributes) and edges with ``weight``, ``n_shared`` and
        ``shared`` (concept keys, rarest first).

    Examples
    --------
    >>> B = nx.DiGraph()
    >>> B.add_nodes_from(["paper:a", "paper:b", "paper:c"], kind="Paper")
    >>> B.add_nodes_from(["concept:x", "concept:y"], kind="Concept")
    >>> B.add_edges_from([("paper:a", "concept:x"), ("paper:b", "concept:x"), ("paper:c", "concept:y")])
    >>> P = link_papers(B, max_df=1.0)
    >>> list(P.edges(data="shared"))
    [('paper:a', 'paper:b', ['x'])]
    """
    papers = [n for n, kind in B.nodes(data="kind") if kind == "Paper"]
    P = nx.Graph()
    P.add_nodes_from((n, B.nodes[n]) for n in papers)
    n_papers = len(papers)
    cap = max(2, int(max_df * n_papers))
    idf: dict[str, float] = {}
    for node, kind in B.nodes(data="kind"):
        if kind == "Concept":
            df = B.in_degree(node)
            if 2 <= df <= cap:
                idf[node] = math.log(1 + n_papers / df)
    for p in papers:
        scores: dict[str, float] = defaultdict(float)
        shared: dict[str, list[str]] = defaultdict(list)
        for c in B.successors(p):
            if c not in idf:
                continue
            for q in B.predecessors(c):
                if q != p:
                    scores[q] += idf[c]
                    shared[q].append(c)
        ranked = sorted(
            (q for q in scores if len(shared[q]) >= min_shared and scores[q] >= min_weight),
            key=lambda q: (-scores[q], q),
        )
        for q in ranked[:top_k]:
            keys = sorted(shared[q], key=lambda c: (-idf[c], c))
            P.add_edge(
                p,
                q,
                weight=round(scores[q], 6),
                n_shared=len(keys),
                shared=[B.nodes[c].get("key", c.removeprefix("concept:")) for c in keys],
            )
    return P
