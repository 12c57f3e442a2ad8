"""Analyse stage: what the graph tells a researcher.

Plain functions of the knowledge graph (networkx): communities of concepts and of papers with
readable labels, PageRank / degree / betweenness rankings, bridge concepts, per-concept time
series with emerging and fading concepts, method-problem pairs and a paper's nearest papers.
:func:`analyse` computes everything at once; :func:`annotate` copies the graph with the results
as node properties the stores can hold.
"""

from kg.analyse.analytics import CONCEPT_PROPERTIES, PAPER_PROPERTIES, Analytics, analyse, annotate
from kg.analyse.bridges import HUB_Z, Bridge, bridges, participation, within_z
from kg.analyse.centrality import Centrality, centrality
from kg.analyse.communities import (
    Communities,
    Community,
    communities,
    louvain,
    name_communities,
    name_paper_communities,
)
from kg.analyse.graphs import concept_graph, paper_graph
from kg.analyse.neighbours import Neighbour, nearest_papers
from kg.analyse.pairs import Pair, method_problem_pairs
from kg.analyse.trends import Trend, Trends, bursts, concept_years, papers_per_year, trends, yearly_json

__all__ = [
    "CONCEPT_PROPERTIES",
    "HUB_Z",
    "PAPER_PROPERTIES",
    "Analytics",
    "Bridge",
    "Centrality",
    "Communities",
    "Community",
    "Neighbour",
    "Pair",
    "Trend",
    "Trends",
    "analyse",
    "annotate",
    "bridges",
    "bursts",
    "centrality",
    "communities",
    "concept_graph",
    "concept_years",
    "louvain",
    "method_problem_pairs",
    "name_communities",
    "name_paper_communities",
    "nearest_papers",
    "paper_graph",
    "papers_per_year",
    "participation",
    "trends",
    "within_z",
    "yearly_json",
]
