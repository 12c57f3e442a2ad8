"""Concept-concept links: how many papers mention both."""

from __future__ import annotations

from array import array
from collections import Counter

import networkx as nx
import numpy as np
import scipy.sparse as sp

from kg.build.attributes import set_node_dict


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
        that mention both. As in a networkx subgraph view, a node's attributes are ``B``'s own
        dict, not a copy (copies of the 398,420 concepts of 61,839 ACL papers took 110 MB).

    Examples
    --------
    >>> B = nx.DiGraph([("paper:a", "concept:x"), ("paper:a", "concept:y"), ("paper:b", "concept:x"),
    ...                 ("paper:b", "concept:y")])
    >>> nx.set_node_attributes(B, {n: n.split(":")[0].title() for n in B}, "kind")
    >>> list(cooccurrence(B).edges(data="weight"))
    [('concept:x', 'concept:y', 2)]
    """
    papers = [n for n, kind in B.nodes(data="kind") if kind == "Paper"]
    # a paper's concepts (not the papers it is linked to, where B has the papers' links too)
    linked = {c: (include_generic or not d.get("generic")) and d.get("kind") != "Paper"
              for p in papers for c in B.successors(p) for d in (B.nodes[c],)}  # fmt: skip
    df = Counter(c for p in papers for c in B.successors(p) if linked[c])
    # a link needs min_papers papers that mention both, so each of its concepts is in as many;
    # columns in key order, so that a pair (i < j) is the pair of keys in order
    concepts = sorted(c for c, n in df.items() if n >= min_papers)
    col = {c: j for j, c in enumerate(concepts)}
    rows, cols = array("q"), array("q")
    for i, p in enumerate(papers):
        for c in B.successors(p):
            if c in col:
                rows.append(i)
                cols.append(col[c])
    # papers x concepts, multiplied by itself: the pair counts in sparse arrays (a Counter of
    # every pair a paper mentions holds millions of tuples for a corpus)
    X = sp.csr_matrix((np.ones(len(rows), dtype=np.int64), (rows, cols)), shape=(len(papers), len(concepts)))
    pairs = sp.triu(X.T @ X, k=1).tocoo()
    keep = pairs.data >= min_papers
    us, vs, ws = pairs.row[keep], pairs.col[keep], pairs.data[keep]
    order = np.lexsort((vs, us))
    C = nx.Graph()
    for n, d in B.nodes(data=True):
        if d.get("kind") == "Concept":
            set_node_dict(C, n, d)
    C.add_edges_from(
        (concepts[u], concepts[v], {"weight": w})
        for u, v, w in zip(us[order].tolist(), vs[order].tolist(), ws[order].tolist(), strict=True)
    )
    return C
