"""Build stage: papers and their mentions -> a paper-concept graph (networkx)."""

from kg.build.graph import build_graph, concept_node, knowledge_graph, merge_graphs, paper_node

__all__ = ["build_graph", "concept_node", "knowledge_graph", "merge_graphs", "paper_node"]
