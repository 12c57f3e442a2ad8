"""The two projections the analytics run on.

Both projections are undirected graphs whose nodes and links have the knowledge graph's own
attribute dicts (a copy of every property of a corpus's concepts would cost as much memory as
the knowledge graph's nodes), which the analytics read and never write; the knowledge graph
itself is never changed. The concepts' is a graph of its own; the papers' a view, whose links
are read from the knowledge graph when they are asked for.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import networkx as nx

from kg.build.attributes import add_edge_dict, set_node_dict


def concept_graph(G: nx.DiGraph) -> nx.Graph:
    """Every concept, linked to the concepts it co-occurs with (``CO_OCCURS``, with its ``weight``).

    Concepts without a co-occurrence link are kept, unlinked. Nodes and links have ``G``'s own
    attribute dicts, as in a subgraph view: what is set on them is set in ``G``.

    Examples
    --------
    >>> G = nx.DiGraph()
    >>> G.add_nodes_from(["concept:x", "concept:y", "concept:z"], kind="Concept")
    >>> G.add_edge("concept:x", "concept:y", rel="CO_OCCURS", weight=3)
    >>> C = concept_graph(G)
    >>> sorted(C), list(C.edges(data="weight"))
    (['concept:x', 'concept:y', 'concept:z'], [('concept:x', 'concept:y', 3)])
    """
    return _projection(G, "Concept", "CO_OCCURS")


def paper_graph(G: nx.DiGraph) -> nx.Graph:
    """Every paper, linked to the papers it shares concepts with (``SHARES_CONCEPTS``, with its ``weight``
    and the rest of the link's attributes). Nodes and links have ``G``'s own attribute dicts.

    A view: a paper's links are read from ``G`` when they are asked for, not copied into a graph
    of their own (150,965 arXiv ML papers' 2.2 million links: 590 MB, the analyse stage's
    peak), in the order such a graph would hold them. Read it, do not change it; ``clear``
    lets go of it (``G`` keeps its links).

    Examples
    --------
    >>> G = nx.DiGraph()
    >>> G.add_nodes_from(["paper:a", "paper:b"], kind="Paper")
    >>> G.add_edge("paper:a", "paper:b", rel="SHARES_CONCEPTS", weight=1.5, n_shared=1, shared=["x"])
    >>> paper_graph(G).edges["paper:b", "paper:a"]["weight"]
    1.5
    """
    nodes = {n: d for n, d in G.nodes(data=True) if d.get("kind") == "Paper"}
    H = nx.Graph()
    H._node = nodes
    H._adj = _Links(G, nodes, "SHARES_CONCEPTS")
    return H


class _Links(Mapping[str, dict[str, dict[str, Any]]]):
    """The links of one ``rel`` in ``G`` between ``nodes``, both ways, read when a node's are asked for.

    A node's come in the order :func:`_projection` would have added them (the floats summed over
    them, as PageRank's, are the same): the links from nodes before it in ``G``'s order, in that
    order, then its own out-links, then the links from nodes after it.
    """

    def __init__(self, G: nx.DiGraph, nodes: Mapping[str, Any], rel: str) -> None:
        self._succ, self._pred, self._rel = G._succ, G._pred, rel
        self._at = {n: i for i, n in enumerate(nodes)}

    def __getitem__(self, u: str) -> dict[str, dict[str, Any]]:
        at, rel = self._at, self._rel
        i = at[u]
        into = sorted(((at[v], v, d) for v, d in self._pred[u].items() if d.get("rel") == rel and v in at),
                      key=lambda x: x[0])  # fmt: skip
        links = {v: d for j, v, d in into if j < i}
        links.update((v, d) for v, d in self._succ[u].items() if d.get("rel") == rel and v in at)
        links.update((v, d) for j, v, d in into if j > i)
        return links

    def __contains__(self, u: object) -> bool:
        return u in self._at

    def __iter__(self) -> Iterator[str]:
        return iter(self._at)

    def __len__(self) -> int:
        return len(self._at)

    def clear(self) -> None:
        self._at = {}


def _projection(G: nx.DiGraph, kind: str, rel: str) -> nx.Graph:
    # Only the nodes of one kind can start a link of ``rel``: walk their out-edges, not every edge.
    nodes = [n for n, k in G.nodes(data="kind") if k == kind]
    H = nx.Graph()
    # As in a networkx subgraph view, a node's attributes are G's own dict: a copy of each concept's
    # kind and name took 80 MB (61,839 ACL papers' 398,420 concepts).
    for n in nodes:
        set_node_dict(H, n, G.nodes[n])
    # A link's attributes are the knowledge graph's own dict, not a copy of its weight: 61,839 ACL
    # papers' 902,731 links took 229 MB more copied.
    for u in nodes:
        for v, d in G.succ[u].items():
            if d.get("rel") == rel:
                add_edge_dict(H, u, v, d)
    return H
