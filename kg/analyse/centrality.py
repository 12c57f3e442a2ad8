"""Rankings: PageRank, degree and (where affordable) betweenness of a projection's nodes."""

from __future__ import annotations

from array import array
from dataclasses import dataclass

import networkx as nx
import numpy as np
import scipy.sparse as sp

from kg.build.attributes import OneEach

#: Edge visits (sources x edges) betweenness may spend: about two seconds of networkx.
BETWEENNESS_BUDGET = 2_000_000
#: Fewer sources than this give a ranking too noisy to show, so betweenness is skipped.
MIN_BETWEENNESS_SAMPLES = 50


@dataclass(frozen=True, slots=True)
class Centrality:
    """PageRank, degree and betweenness of every node of a projection."""

    pagerank: dict[str, float]
    degree: dict[str, int]
    #: Empty when skipped (see ``note``).
    betweenness: dict[str, float]
    #: How betweenness was computed: ``"exact"``, ``"sampled from K sources"`` or why it was skipped.
    note: str


def centrality(H: nx.Graph, *, seed: int = 7, budget: int = BETWEENNESS_BUDGET) -> Centrality:
    """PageRank (on ``weight``), degree (distinct neighbours) and betweenness (hops) of every node of ``H``.

    Each source node costs a traversal of the graph, so exact betweenness costs nodes x edges
    edge visits. Within ``budget`` visits it is exact; above, it is estimated from ``k`` random
    sources (``seed``), ``k`` as many as the budget allows, and skipped when that is fewer than
    :data:`MIN_BETWEENNESS_SAMPLES` sources (too noisy to rank by).

    Examples
    --------
    >>> H = nx.Graph([("a", "b"), ("b", "c")])
    >>> r = centrality(H)
    >>> r.degree["b"], r.betweenness["b"], r.note
    (2, 1.0, 'exact')
    >>> max(r.pagerank, key=r.pagerank.get)
    'b'
    """
    degree = {str(n): int(k) for n, k in H.degree()}
    pagerank = _pagerank(H)
    # (as networkx counts them, a self-loop twice in the degree; not read again from a paper projection)
    n, m = sum(1 for k in degree.values() if k > 0), sum(degree.values()) // 2
    betweenness: dict[str, float] = {}
    if n * m <= budget:
        note = "exact"
        k = None
    else:
        k = budget // m
        note = f"sampled from {k} of {n} sources"
    if k is not None and k < MIN_BETWEENNESS_SAMPLES:
        note = f"skipped: {n} linked nodes and {m} links allow only {k} sampled sources"
    elif m:
        # Betweenness sums over sources in node order: a canonical order gives the same floats in
        # every run, whatever order the graph was built in (a resumed run adds cached papers first).
        # A copy of the projection: built only when it is used (a corpus's paper graph skips it).
        linked = nx.Graph()
        linked.add_nodes_from(sorted((v for v, k in H.degree() if k > 0), key=str))
        linked.add_edges_from(sorted((tuple(sorted((u, v), key=str)) for u, v in H.edges()), key=str))
        betweenness = {str(v): float(x) for v, x in nx.betweenness_centrality(linked, k=k, seed=seed).items()}
    if betweenness or note == "exact":
        betweenness = {str(v): betweenness.get(str(v), 0.0) for v in H}
    return Centrality(pagerank=pagerank, degree=degree, betweenness=betweenness, note=note)


def _pagerank(H: nx.Graph, *, alpha: float = 0.85, max_iter: int = 100, tol: float = 1.0e-6) -> dict[str, float]:
    """``nx.pagerank(H, weight="weight")``, the same floats, with its matrix made from arrays.

    networkx makes the matrix from tuples of Python numbers, each edge's twice (61,839 ACL papers'
    902,731 links: +130 MB, the analyse stage's peak); here they are arrays of machine numbers in
    the same order, and the power iteration is networkx's (``_pagerank_scipy``, networkx 3.6).

    >>> H = nx.Graph()
    >>> H.add_weighted_edges_from([("a", "b", 2.0), ("b", "c", 1.0), ("c", "c", 0.5), ("d", "a", 1)])
    >>> H.add_node("e")
    >>> _pagerank(H) == nx.pagerank(H, weight="weight")
    True
    """
    nodes = list(H)
    n = len(nodes)
    if n == 0:
        return {}
    index = {v: i for i, v in enumerate(nodes)}
    # the edges in the order of H.edges(), as nx.to_scipy_sparse_array reads them
    row, col, data, loops = array("q"), array("q"), array("d"), array("q")
    seen: set[object] = set()
    for u in nodes:
        i = index[u]
        for v, d in H.adj[u].items():
            if v not in seen:
                row.append(i)
                col.append(index[v])
                data.append(d.get("weight", 1))
                if v == u:
                    loops.append(len(data) - 1)
        seen.add(u)
    r, c, w = (np.frombuffer(a, dtype=np.int64 if a.typecode == "q" else np.float64) for a in (row, col, data))
    at = np.frombuffer(loops, dtype=np.int64)
    # symmetric, each self-loop once
    A = sp.coo_array((np.concatenate((w, w, -w[at])), (np.concatenate((r, c, r[at])), np.concatenate((c, r, r[at])))),
                     shape=(n, n), dtype=float).asformat("csr")  # fmt: skip
    del r, c, w, row, col, data
    S = A.sum(axis=1)
    S[S != 0] = 1.0 / S[S != 0]
    Q = sp.dia_array((S.T, 0), shape=A.shape).tocsr()
    A = Q @ A
    x = np.repeat(1.0 / n, n)
    p = np.repeat(1.0 / n, n)
    is_dangling = np.where(S == 0)[0]
    for _ in range(max_iter):
        xlast = x
        x = alpha * (x @ A + sum(x[is_dangling]) * p) + (1 - alpha) * p
        if np.absolute(x - xlast).sum() < n * tol:
            # one float object per value: a corpus's unlinked concepts all have the same
            same = OneEach()
            return {str(v): same(score) for v, score in zip(nodes, x.tolist(), strict=True)}
    raise nx.PowerIterationFailedConvergence(max_iter)
