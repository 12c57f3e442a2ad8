"""The graph schema shared by every store, and the rows each table is written from.

Rows are built by pure functions from the networkx knowledge graph, so every writer
(embedded, Neo4j, file exports) stores exactly the same properties.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import networkx as nx

#: label -> [(property, LadybugDB type)]; the first property is the primary key.
NODE_TABLES: dict[str, list[tuple[str, str]]] = {
    "Paper": [
        ("id", "STRING"),
        ("title", "STRING"),
        ("abstract", "STRING"),
        ("year", "INT64"),
        ("authors", "STRING[]"),
        ("venue", "STRING"),
        ("extra", "STRING"),
        ("n_concepts", "INT64"),
    ],
    "Concept": [
        ("key", "STRING"),
        ("name", "STRING"),
        ("type", "STRING"),
        ("aliases", "STRING[]"),
        ("paper_count", "INT64"),
    ],
}

#: relationship type -> (from label, to label, [(property, type)])
REL_TABLES: dict[str, tuple[str, str, list[tuple[str, str]]]] = {
    "MENTIONS": (
        "Paper",
        "Concept",
        [
            ("role", "STRING"),
            ("text", "STRING"),
            ("sentence", "STRING"),
            ("start_char", "INT64"),
            ("end_char", "INT64"),
            ("n_mentions", "INT64"),
        ],
    ),
    "SHARES_CONCEPTS": ("Paper", "Paper", [("weight", "DOUBLE"), ("n_shared", "INT64"), ("shared", "STRING[]")]),
    "CO_OCCURS": ("Concept", "Concept", [("weight", "INT64")]),
}

_KEY = {"Paper": "id", "Concept": "key"}


def node_rows(G: nx.DiGraph, label: str) -> Iterator[dict[str, Any]]:
    """Rows of one node table, one dict per node, properties in schema order.

    >>> G = nx.DiGraph()
    >>> G.add_node("concept:bert", kind="Concept", key="bert", name="BERT", type="Method", aliases=[], paper_count=2)
    >>> next(node_rows(G, "Concept"))
    {'key': 'bert', 'name': 'BERT', 'type': 'Method', 'aliases': [], 'paper_count': 2}
    """
    props = [p for p, _ in NODE_TABLES[label]]
    for _, data in G.nodes(data=True):
        if data.get("kind") != label:
            continue
        row = {p: data.get(p) for p in props}
        if label == "Paper":
            row["extra"] = json.dumps(data.get("extra") or {}, ensure_ascii=False, sort_keys=True, default=str)
        yield row


def rel_rows(G: nx.DiGraph, rel: str) -> Iterator[dict[str, Any]]:
    """Rows of one relationship table: ``from`` and ``to`` keys, then the properties.

    >>> G = nx.DiGraph()
    >>> G.add_node("paper:p1", kind="Paper", id="p1"); G.add_node("concept:x", kind="Concept", key="x")
    >>> G.add_edge("paper:p1", "concept:x", rel="MENTIONS", role="uses", text="X", sentence="We use X.",
    ...            start=7, end=8, count=1)
    >>> next(rel_rows(G, "MENTIONS"))["start_char"]
    7
    """
    src, dst, props = REL_TABLES[rel]
    rename = {"start_char": "start", "end_char": "end", "n_mentions": "count"}
    for u, v, data in G.edges(data=True):
        if data.get("rel") != rel:
            continue
        row: dict[str, Any] = {
            "from": G.nodes[u][_KEY[src]],
            "to": G.nodes[v][_KEY[dst]],
        }
        for p, _ in props:
            row[p] = data.get(rename.get(p, p))
        yield row
