"""Rankings: PageRank, degree and (where affordable) betweenness of a projection's nodes."""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

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
    pagerank = {str(n): float(x) for n, x in nx.pagerank(H, weight="weight").items()} if len(H) else {}
    n, m = sum(1 for k in degree.values() if k > 0), H.number_of_edges()
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
