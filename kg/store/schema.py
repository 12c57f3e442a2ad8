"""The graph schema shared by every store, and the rows each table is written from.

Rows are built by pure functions from the networkx knowledge graph, so every writer
(embedded, Neo4j, file exports) stores exactly the same properties.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import networkx as nx

from kg.records import RELATION_TYPES

if TYPE_CHECKING:
    from kg.build.texts import TextFile

#: label -> [(property, LadybugDB type)]; the first property is the primary key.
NODE_TABLES: dict[str, list[tuple[str, str]]] = {
    "Paper": [
        ("id", "STRING"),
        ("title", "STRING"),
        ("abstract", "STRING"),
        ("year", "INT64"),
        ("authors", "STRING[]"),
        ("venue", "STRING"),
        #: Subject categories (arXiv's cs.CL, ...), primary first; empty for sources without them.
        ("categories", "STRING[]"),
        ("primary_category", "STRING"),
        ("extra", "STRING"),
        ("n_concepts", "INT64"),
        ("community", "INT64"),
        ("pagerank", "DOUBLE"),
    ],
    "Concept": [
        ("key", "STRING"),
        ("name", "STRING"),
        ("type", "STRING"),
        ("aliases", "STRING[]"),
        ("paper_count", "INT64"),
        ("specificity", "DOUBLE"),
        ("generic", "BOOLEAN"),
        ("community", "INT64"),
        ("pagerank", "DOUBLE"),
        ("degree", "INT64"),
        ("betweenness", "DOUBLE"),
        ("first_year", "INT64"),
        ("yearly", "STRING"),
        ("trend", "DOUBLE"),
        ("bridge", "DOUBLE"),
    ],
}

#: A stated relation (USED_FOR, PART_OF, HYPONYM_OF) keeps the papers that state it and the
#: first one's sentence as evidence.
RELATION_PROPS = [("n_papers", "INT64"), ("paper", "STRING"), ("sentence", "STRING"), ("papers", "STRING[]")]

#: relationship type -> (from label, to label, [(property, type)])
REL_TABLES: dict[str, tuple[str, str, list[tuple[str, str]]]] = {
    "MENTIONS": (
        "Paper",
        "Concept",
        [
            ("role", "STRING"),
            ("text", "STRING"),
            ("sentence", "STRING"),
            ("field", "STRING"),
            ("start_char", "INT64"),
            ("end_char", "INT64"),
            ("n_mentions", "INT64"),
            ("salience", "DOUBLE"),
        ],
    ),
    "SHARES_CONCEPTS": ("Paper", "Paper", [("weight", "DOUBLE"), ("n_shared", "INT64"), ("shared", "STRING[]")]),
    "CO_OCCURS": ("Concept", "Concept", [("weight", "INT64")]),
    **{rel: ("Concept", "Concept", RELATION_PROPS) for rel in RELATION_TYPES},
}

_KEY = {"Paper": "id", "Concept": "key"}
#: Written by the analyse stage (kg.analyse.annotate); a graph without them reads back without them.
ANALYTICS = frozenset({"community", "pagerank", "degree", "betweenness", "first_year", "yearly", "trend", "bridge"})
#: Set by :func:`kg.build.build_graph`; a graph built without them (by hand, or before kg had
#: them) reads back without them.
SCORES = frozenset({"specificity", "generic", "salience"})
#: Relationship property in the stores -> edge attribute in networkx.
EDGE_ATTR = {"start_char": "start", "end_char": "end", "n_mentions": "count"}


def node_rows(G: nx.DiGraph, label: str, *, texts: TextFile | None = None) -> Iterator[dict[str, Any]]:
    """Rows of one node table, one dict per node, properties in schema order (the abstracts of a
    graph built with ``texts`` read from there).

    >>> G = nx.DiGraph()
    >>> G.add_node("concept:bert", kind="Concept", key="bert", name="BERT", type="Method", aliases=[], paper_count=2)
    >>> row = next(node_rows(G, "Concept"))
    >>> row["name"], row["paper_count"], row["community"]  # no analyse stage: its properties are null
    ('BERT', 2, None)
    """
    props = [p for p, _ in NODE_TABLES[label]]
    for _, data in G.nodes(data=True):
        if data.get("kind") != label:
            continue
        row = {p: data.get(p) for p in props}
        if label == "Paper":
            if texts is not None:
                row["abstract"] = texts.text(row["abstract"])
            row["extra"] = json.dumps(data.get("extra") or {}, ensure_ascii=False, sort_keys=True, default=str)
        yield row


def rel_rows(G: nx.DiGraph, rel: str, *, texts: TextFile | None = None) -> Iterator[dict[str, Any]]:
    """Rows of one relationship table: ``from`` and ``to`` keys, then the properties (the sentences
    of a graph built with ``texts`` read from there).

    >>> G = nx.DiGraph()
    >>> G.add_node("paper:p1", kind="Paper", id="p1"); G.add_node("concept:x", kind="Concept", key="x")
    >>> G.add_edge("paper:p1", "concept:x", rel="MENTIONS", role="uses", text="X", sentence="We use X.",
    ...            start=7, end=8, count=1)
    >>> next(rel_rows(G, "MENTIONS"))["start_char"]
    7
    """
    src, dst, props = REL_TABLES[rel]
    for u, v, data in G.edges(data=True):
        if data.get("rel") != rel:
            continue
        row: dict[str, Any] = {
            "from": G.nodes[u][_KEY[src]],
            "to": G.nodes[v][_KEY[dst]],
        }
        for p, _ in props:
            row[p] = data.get(EDGE_ATTR.get(p, p))
        if texts is not None and "sentence" in row:
            row["sentence"] = texts.text(row["sentence"])
        yield row


def graph_from_queries(run: Callable[[str], list[Any]]) -> nx.DiGraph:
    """Rebuild the networkx knowledge graph from a store, given a function that runs a query.

    The inverse of :func:`node_rows` and :func:`rel_rows`; the same Cypher works on every store.
    """
    from kg.build.graph import concept_node, paper_node

    node_id = {"Paper": paper_node, "Concept": concept_node}
    G = nx.DiGraph()
    for label, props in NODE_TABLES.items():
        names = [p for p, _ in props]
        for row in run(f"MATCH (n:{label}) RETURN " + ", ".join(f"n.{p}" for p in names)):
            data = dict(zip(names, row, strict=True))
            for p, t in props:
                if t == "STRING[]" and data[p] is None:  # neo4j-admin import leaves empty lists out
                    data[p] = []
                elif (p in ANALYTICS or p in SCORES) and data[p] is None:
                    del data[p]
            if label == "Paper":
                data["extra"] = json.loads(data["extra"] or "{}")
            G.add_node(node_id[label](row[0]), kind=label, **data)
    for rel, (src, dst, rprops) in REL_TABLES.items():
        cols = ", ".join(f"r.{p}" for p, _ in rprops)
        q = f"MATCH (a:{src})-[r:{rel}]->(b:{dst}) RETURN a.{_KEY[src]}, b.{_KEY[dst]}, {cols}"
        for row in run(q):
            attrs = {
                EDGE_ATTR.get(p, p): [] if v is None and t == "STRING[]" else v
                for (p, t), v in zip(rprops, row[2:], strict=True)
                if v is not None or p not in SCORES
            }
            G.add_edge(node_id[src](row[0]), node_id[dst](row[1]), rel=rel, **attrs)
    return G
