"""All the analytics of a knowledge graph in one call, and the graph annotated with them."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import networkx as nx

from kg.analyse.bridges import Bridge, bridges, participation
from kg.analyse.centrality import BETWEENNESS_BUDGET, Centrality, centrality
from kg.analyse.communities import Communities, communities
from kg.analyse.graphs import concept_graph, paper_graph
from kg.analyse.pairs import Pair, method_problem_pairs
from kg.analyse.trends import Trends, trends, yearly_json
from kg.build.attributes import OneEach
from kg.memory import give_back_memory

log = logging.getLogger(__name__)

_NO_YEARS: dict[int, int] = {}
#: In how many of the analytics' method-problem pairs one concept can be (:func:`method_problem_pairs`).
PAIRS_PER_CONCEPT = 2

#: Node properties :func:`annotate` writes, by node label, with their Python types.
CONCEPT_PROPERTIES: dict[str, str] = {
    "community": "int",
    "pagerank": "float",
    "degree": "int",
    "betweenness": "float",
    "first_year": "int | None",
    "yearly": "str",
    "trend": "float",
    "bridge": "float",
}
PAPER_PROPERTIES: dict[str, str] = {"community": "int", "pagerank": "float"}


@dataclass(frozen=True, slots=True)
class Analytics:
    """What the graph tells a researcher: communities, rankings, bridges, trends and pairs."""

    #: Concepts partitioned on ``CO_OCCURS``; papers on ``SHARES_CONCEPTS``.
    concept_communities: Communities
    paper_communities: Communities
    #: PageRank, degree and betweenness on the concept graph and on the paper graph.
    concepts: Centrality
    papers: Centrality
    #: Concept node -> participation coefficient over the concept communities.
    participation: dict[str, float]
    #: Concepts linking several concept communities, best first.
    bridges: list[Bridge]
    #: Papers per year, each concept's yearly counts and growth, emerging and fading concepts.
    trends: Trends
    #: The (method or technique, problem) pairs mentioned together by the most papers: each
    #: concept in at most :data:`PAIRS_PER_CONCEPT` of them, generic ones in none.
    pairs: list[Pair]
    #: Seconds per step.
    seconds: dict[str, float]

    @property
    def notes(self) -> list[str]:
        """What was approximated or left out, one sentence each."""
        ranked = (("Concept", self.concepts), ("Paper", self.papers))
        return [f"{what} betweenness: {c.note}" for what, c in ranked if c.note != "exact"]


def analyse(
    G: nx.DiGraph,
    *,
    seed: int = 7,
    resolution: float = 1.0,
    label_size: int = 3,
    recent_years: int = 3,
    baseline_years: int = 5,
    min_papers: int = 3,
    min_bridge_degree: int = 3,
    limit: int = 50,
    betweenness_budget: int = BETWEENNESS_BUDGET,
) -> Analytics:
    """Compute every analytic of the knowledge graph ``G``; ``G`` is not changed.

    Parameters
    ----------
    G
        A knowledge graph from :func:`kg.build.knowledge_graph` (or read back from a store).
    seed, resolution
        Louvain's seed and resolution; the seed also picks betweenness's sampled sources.
    label_size
        Concepts named in each community label.
    recent_years, baseline_years, min_papers
        The windows and minimum support of :func:`~kg.analyse.trends`.
    min_bridge_degree
        Links a concept needs to be listed as a bridge.
    limit
        Concepts kept in the emerging and fading lists, and method-problem pairs kept.
    betweenness_budget
        Edge visits sampled betweenness may spend (see :func:`~kg.analyse.centrality`).

    Returns
    -------
    Analytics

    Examples
    --------
    >>> from kg.build import build_graph, knowledge_graph
    >>> from kg.link import cooccurrence, link_papers
    >>> from kg.records import Extraction, Mention, Paper
    >>> papers = [Paper(f"p{i}", "", "BERT for NER.", 2020) for i in range(3)]
    >>> found = [Extraction(p.id, [Mention("BERT", "Method", 0, 4, "", "uses", "bert"),
    ...                            Mention("NER", "Problem", 9, 12, "", "addresses", "ner")]) for p in papers]
    >>> B = build_graph(papers, found)
    >>> a = analyse(knowledge_graph(B, link_papers(B, max_df=1.0), cooccurrence(B)))
    >>> [(c.size, c.label) for c in a.concept_communities.communities]
    [(2, 'BERT, NER')]
    >>> a.pairs
    [Pair(method='concept:bert', problem='concept:ner', papers=3)]
    """
    seconds: dict[str, float] = {}
    # One projection at a time: each is a graph of its own, and a corpus's two together were the
    # analyse stage's peak (61,839 ACL papers: +781 MB over the graph, now +504). Emptied when done,
    # not left to the collector: their cached views (``C.degree``) make a cycle through them. The
    # papers' first: their communities take the most memory while they are found (igraph's
    # Louvain, +105 MB), which the concepts' analytics (+166 MB, kept to the end) then come on top of.
    with _step(seconds, "projections"):
        P = paper_graph(G)
    paper_parts, paper_rank = _parts_and_ranks(P, G, seconds, seed, resolution, label_size, betweenness_budget)
    P.clear()
    with _step(seconds, "projections"):
        C = concept_graph(G)
    concept_parts, concept_rank = _parts_and_ranks(C, G, seconds, seed, resolution, label_size, betweenness_budget)
    with _step(seconds, "bridges"):
        spread = participation(C, concept_parts.membership)
        found_bridges = bridges(C, concept_parts.membership, min_degree=min_bridge_degree)
    C.clear()
    with _step(seconds, "trends"):
        found_trends = trends(
            G, recent_years=recent_years, baseline_years=baseline_years, min_papers=min_papers, limit=limit
        )
    with _step(seconds, "pairs"):
        pairs = method_problem_pairs(G, limit=limit, per_concept=PAIRS_PER_CONCEPT, include_generic=False)
    return Analytics(
        concept_communities=concept_parts,
        paper_communities=paper_parts,
        concepts=concept_rank,
        papers=paper_rank,
        participation=spread,
        bridges=found_bridges,
        trends=found_trends,
        pairs=pairs,
        seconds=seconds,
    )


def _parts_and_ranks(H: nx.Graph, G: nx.DiGraph, seconds: dict[str, float], seed: int, resolution: float,
                     label_size: int, budget: int) -> tuple[Communities, Centrality]:  # fmt: skip
    """The communities and rankings of one projection ``H`` of ``G``, timed into ``seconds``."""
    with _step(seconds, "communities"):
        parts = communities(H, G, seed=seed, resolution=resolution, label_size=label_size)
    with _step(seconds, "rankings"):
        rank = centrality(H, seed=seed, budget=budget)
    return parts, rank


@contextmanager
def _step(seconds: dict[str, float], name: str) -> Iterator[None]:
    t0 = time.perf_counter()
    yield
    # what the step's igraph, SciPy and NumPy freed, for the steps after it: kept, it came on top
    # of theirs (61,839 ACL papers: the stage's peak 1,804 -> 1,777 MB, the paper communities')
    give_back_memory()
    took = time.perf_counter() - t0
    seconds[name] = round(seconds.get(name, 0.0) + took, 3)
    log.info("analyse %s: %.2fs", name, took)


def annotate(G: nx.DiGraph, analytics: Analytics, *, copy: bool = True) -> nx.DiGraph:
    """A copy of ``G`` with the analytics as node properties the stores can hold; ``G`` is not changed.

    With ``copy=False`` the properties are set on ``G`` itself, which is returned (a run does
    this: a copy of a corpus's graph costs as much memory as the graph).

    Concepts get ``community`` (int, -1 for none), ``pagerank`` (float), ``degree`` (int,
    co-occurring concepts), ``betweenness`` (float, 0.0 where skipped), ``first_year`` (int or
    None), ``yearly`` (JSON text ``'{"2019": 3, "2020": 5}'``), ``trend`` (float, growth) and
    ``bridge`` (float, participation coefficient); papers get ``community`` and ``pagerank``.
    The graph gets ``communities``: for each kind, community number -> label.

    Examples
    --------
    >>> G = nx.DiGraph()
    >>> G.add_node("paper:a", kind="Paper", year=2020)
    >>> G.add_node("concept:x", kind="Concept", name="X")
    >>> G.add_edge("paper:a", "concept:x", rel="MENTIONS")
    >>> A = annotate(G, analyse(G))
    >>> A.nodes["concept:x"]["yearly"], A.nodes["concept:x"]["community"], "yearly" in G.nodes["concept:x"]
    ('{"2020": 1}', -1, False)
    """
    A = G.copy() if copy else G
    cc, pc = analytics.concept_communities, analytics.paper_communities
    cr, pr, tr = analytics.concepts, analytics.papers, analytics.trends
    # One object per value, not per concept: most of a corpus's concepts are in one paper, with the
    # same analytics (61,839 ACL papers: 325,483 of 398,420 concepts).
    values = OneEach()
    texts: dict[int, str] = {}  # the yearly counts' text, by dict (concepts share them: concept_years)

    def one(x: Any) -> float:
        return values(float(x))

    def yearly(counts: dict[int, int]) -> str:
        text = texts.get(id(counts))
        if text is None:
            text = texts[id(counts)] = yearly_json(counts)
        return text

    for n, d in A.nodes(data=True):
        kind = d.get("kind")
        if kind == "Concept":
            d["community"] = cc.of(n)
            d["pagerank"] = one(cr.pagerank.get(n, 0.0))
            d["degree"] = int(cr.degree.get(n, 0))
            d["betweenness"] = one(cr.betweenness.get(n, 0.0))
            d["first_year"] = tr.first_year.get(n)
            d["yearly"] = yearly(tr.yearly.get(n, _NO_YEARS))
            d["trend"] = one(round(float(tr.growth.get(n, 0.0)), 6))
            d["bridge"] = one(round(float(analytics.participation.get(n, 0.0)), 6))
        elif kind == "Paper":
            d["community"] = pc.of(n)
            d["pagerank"] = one(pr.pagerank.get(n, 0.0))
    # the pages colour by the same communities, with the same labels
    A.graph["communities"] = {
        "Concept": {c.number: c.label for c in cc.communities},
        "Paper": {c.number: c.label for c in pc.communities},
    }
    return A
