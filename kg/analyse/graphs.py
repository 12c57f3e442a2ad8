"""The two projections the analytics run on.

Both projections are new undirected graphs whose nodes carry the knowledge graph's ``kind``
and ``name`` (what the analytics read of a node: a copy of every property of a corpus's
concepts would cost as much memory as the knowledge graph's nodes) and whose links hold the
knowledge graph's own edge attributes, which the analytics read and never write; the knowledge
graph itself is never changed.
"""

from __future__ import annotations

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

    Examples
    --------
    >>> G = nx.DiGraph()
    >>> G.add_nodes_from(["paper:a", "paper:b"], kind="Paper")
    >>> G.add_edge("paper:a", "paper:b", rel="SHARES_CONCEPTS", weight=1.5, n_shared=1, shared=["x"])
    >>> paper_graph(G).edges["paper:b", "paper:a"]["weight"]
    1.5
    """
    return _projection(G, "Paper", "SHARES_CONCEPTS")


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
