"""Visualise stage: self-contained interactive HTML pages of the graph (pyvis / vis-network)."""

from kg.viz.html import VizResult, write_html

__all__ = ["VizResult", "write_html"]
