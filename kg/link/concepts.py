"""Concept-concept links: how many papers mention both."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import networkx as nx


def cooccurrence(B: nx.DiGraph, *, min_papers: int = 2, include_generic: bool = False) -> nx.Graph:
    """Link concepts mentioned in the same papers.

    Generic concepts (``generic`` true: "computational cost", "experimental result") co-occur
    with everything and say nothing about what a paper is about, so they get no links: the
    concept map is one of research concepts.

    Parameters
    ----------
    B
        A paper-concept graph from :func:`kg.build.build_graph`.
    min_papers
        A link needs at least this many papers that mention both concepts.
    include_generic
        Link generic concepts too.

    Returns
    -------
    networkx.Graph
        Concept nodes (with their attributes) and edges with ``weight``: the number of papers
        that mention both.

    Examples
    --------
    >>> B = nx.DiGraph([("paper:a", "concept:x"), ("paper:a", "concept:y"), ("paper:b", "concept:x"),
    ...                 ("paper:b", "concept:y")])
    >>> nx.set_node_attributes(B, {n: n.split(":")[0].title() for n in B}, "kind")
    >>> list(cooccurrence(B).edges(data="weight"))
    [('concept:x', 'concept:y', 2)]
    """
    counts: Counter[tuple[str, str]] = Counter()
    for node, kind in B.nodes(data="kind"):
        if kind == "Paper":
            linked = (c for c in B.successors(node) if include_generic or not B.nodes[c].get("generic"))
            counts.update(combinations(sorted(linked), 2))
    C = nx.Graph()
    C.add_nodes_from((n, d) for n, d in B.nodes(data=True) if d.get("kind") == "Concept")
    C.add_edges_from((u, v, {"weight": w}) for (u, v), w in sorted(counts.items()) if w >= min_papers)
    return C
