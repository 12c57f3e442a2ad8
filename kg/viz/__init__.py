"""Visualise stage: self-contained interactive HTML pages of the graph (pyvis / vis-network)."""

from kg.viz.html import VizResult, write_html
from kg.viz.views import VIEWS, concept_map, ego_view, full_view, graph_from_rows, paper_map

__all__ = ["VIEWS", "VizResult", "concept_map", "ego_view", "full_view", "graph_from_rows", "paper_map", "write_html"]
