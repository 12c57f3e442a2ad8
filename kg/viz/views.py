"""The graphs behind each page: plain functions from the knowledge graph to a view graph.

Each view is an undirected ``nx.Graph`` whose nodes keep their knowledge-graph attributes
and whose edges keep ``rel`` and their properties; :func:`kg.viz.write_html` draws any of them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import networkx as nx

from kg.analyse import communities, concept_graph, name_communities
from kg.errors import KGError
from kg.records import RELATION_TYPES
from kg.viz.overview import map_of_view

VIEWS = ("graph", "concepts", "papers", "ego", "query")


def _view(G: nx.DiGraph, nodes: Iterable[Any], rels: tuple[str, ...], kind: str = "Paper") -> nx.Graph:
    keep = set(nodes)
    H = nx.Graph(communities=community_labels(G, (kind,)))
    H.add_nodes_from((n, G.nodes[n]) for n in G if n in keep)
    for u, v, d in G.edges(data=True):
        if not (d.get("rel") in rels and u in keep and v in keep):
            continue
        stated = d.get("rel") in RELATION_TYPES
        if H.has_edge(u, v):  # one line per pair: what a sentence states says more than co-occurrence
            if not stated:
                continue
            H.remove_edge(u, v)
        # an undirected view forgets which end a stated relation starts from: keep it
        H.add_edge(u, v, **({**d, "head": u} if stated else d))
    return H


def full_view(G: nx.DiGraph) -> nx.Graph:
    """Papers and concepts, linked by ``MENTIONS``.

    >>> G = nx.DiGraph()
    >>> G.add_edge("paper:a", "concept:x", rel="MENTIONS"); G.add_edge("paper:a", "paper:b", rel="SHARES_CONCEPTS")
    >>> sorted(full_view(G).edges())
    [('paper:a', 'concept:x')]
    """
    return _view(G, G.nodes, ("MENTIONS",))


def full_view_top(G: nx.DiGraph, max_nodes: int) -> tuple[nx.Graph, dict[str, float], int]:
    """What :func:`kg.viz.write_html` keeps of :func:`full_view` at ``max_nodes``, without the whole view.

    Returns the view of the ``max_nodes`` nodes with the most ``MENTIONS`` (ties by node id),
    their degree in the whole view and its number of nodes: ``write_html(H, score=..., total=...)``
    draws the page ``write_html(full_view(G), max_nodes=max_nodes)`` draws, and a corpus's
    view (every node and ``MENTIONS`` edge copied) is never built.

    >>> G = nx.DiGraph()
    >>> G.add_edges_from([("paper:a", "concept:x"), ("paper:b", "concept:x"), ("paper:b", "concept:y")], rel="MENTIONS")
    >>> H, score, total = full_view_top(G, 2)
    >>> sorted(H.edges()), score, total
    ([('concept:x', 'paper:b')], {'concept:x': 2.0, 'paper:b': 2.0}, 4)
    """
    degree: dict[str, int] = dict.fromkeys(G, 0)
    for u, v, rel in G.edges(data="rel"):
        if rel == "MENTIONS":
            degree[u] += 1
            degree[v] += 1
    keep = sorted(G, key=lambda n: (-degree[n], str(n)))[:max_nodes]
    H = _view(G, keep, ("MENTIONS",))
    if len(keep) < len(degree):  # the map of the whole view, should the page open as one
        H.graph["map"] = map_of_view(G)
    return H, {n: float(degree[n]) for n in keep}, len(degree)


def concept_map(G: nx.DiGraph) -> nx.Graph:
    """Research concepts linked by co-occurrence, with a ``community`` on each node.

    Generic concepts ("computational cost", ``generic`` true) are left out: they name no topic.
    """
    # only the concepts with a link to another are drawn: the others are not copied into the view
    research = {n for n, d in G.nodes(data=True) if d.get("kind") == "Concept" and not d.get("generic")}
    linked = {n for u, v, rel in G.edges(data="rel") if rel == "CO_OCCURS" and u in research and v in research
              for n in (u, v)}  # fmt: skip
    H = _view(G, linked, ("CO_OCCURS",), "Concept")
    H.remove_nodes_from([n for n in list(H) if H.degree(n) == 0])
    if not H:
        H.graph["empty"] = (
            "No two research concepts are mentioned together in enough papers to be linked (a CO_OCCURS link "
            "needs link.min_cooccurrence papers). A larger corpus, or a lower link.min_cooccurrence, gives this "
            "map its links."
        )
    H.graph["note"] = (
        "The concepts mentioned together with another in at least link.min_cooccurrence papers; the others, "
        "and generic ones, are left out."
    )
    return with_communities(H, G)


def paper_map(G: nx.DiGraph) -> nx.Graph:
    """Papers linked by the concepts they share, with a ``community`` on each node."""
    papers = [n for n, d in G.nodes(data=True) if d.get("kind") == "Paper"]
    H = _view(G, papers, ("SHARES_CONCEPTS",))
    H.remove_nodes_from([n for n in list(H) if H.degree(n) == 0])
    if not H:
        H.graph["empty"] = (
            f"The graph has {len(papers):,} papers, but no two of them share a concept specific enough to link "
            "them (link.min_shared concepts, each in at most link.max_df of the papers or a topic of the collection). "
            "A larger corpus, or a "
            "higher link.max_df, gives this map its links."
        )
    H.graph["note"] = (
        "The papers that share concepts with another (link.min_shared, each concept in at most link.max_df of "
        "the papers or a topic of the collection); the others are left out."
    )
    return with_communities(H, G)


def ego_view(G: nx.DiGraph, around: str, *, depth: int = 1) -> nx.Graph:
    """Everything within ``depth`` steps of one paper or concept, with all links among them.

    ``around`` is a node id (``paper:...``/``concept:...``), a paper id, a concept key or a
    concept name (case-insensitive).

    >>> G = nx.DiGraph()
    >>> G.add_node("paper:a", kind="Paper", id="a"); G.add_node("concept:x", kind="Concept", key="x", name="X")
    >>> G.add_edge("paper:a", "concept:x", rel="MENTIONS")
    >>> sorted(ego_view(G, "X"))
    ['concept:x', 'paper:a']
    """
    centre = resolve_node(G, around)
    U = G.to_undirected(as_view=True)
    near = nx.single_source_shortest_path_length(U, centre, cutoff=depth)
    H = _view(G, near, ("MENTIONS", "SHARES_CONCEPTS", "CO_OCCURS", *RELATION_TYPES))
    H.graph["centre"] = centre
    return H


def resolve_node(G: nx.DiGraph, name: str) -> str:
    """The node a user means by ``name``; a :class:`KGError` naming it if there is none."""
    for candidate in (name, f"paper:{name}", f"concept:{name}", f"concept:{name.lower()}"):
        if candidate in G:
            return candidate
    folded = name.casefold()
    for n, d in G.nodes(data=True):
        if str(d.get("name", "")).casefold() == folded or str(d.get("title", "")).casefold() == folded:
            return str(n)
    raise KGError(f"no paper or concept {name!r} in the graph (give a paper id, a concept key or a concept name)")


def with_communities(H: nx.Graph, G: nx.DiGraph, *, seed: int = 7) -> nx.Graph:
    """The communities of :func:`kg.analyse.communities` as a ``community`` node attribute.

    ``H.graph["communities"]`` maps each community number to its label. When the analyse
    stage already stored them (``G.graph["communities"]``), those are drawn as they are.
    """
    if H.number_of_edges() == 0:
        return H
    kind = "Paper" if all(d.get("kind") == "Paper" for _, d in H.nodes(data=True)) else "Concept"
    if all(isinstance(d.get("community"), int) for _, d in H.nodes(data=True)):
        labels = (H.graph.get("communities") or {}).get(kind) or community_labels(G, (kind,)).get(kind)
        if labels is not None:
            H.graph["communities"] = dict(labels)
            return H
    parts = communities(H, G, seed=seed)
    for n in H:
        H.nodes[n]["community"] = parts.of(str(n))
    H.graph["communities"] = {c.number: c.label for c in parts.communities}
    return H


def community_labels(G: nx.DiGraph, kinds: Iterable[str] = ("Concept", "Paper")) -> dict[str, dict[int, str]]:
    """The names of the communities the analyse stage found: kind -> community number -> name.

    A graph read back from a store has each node's ``community`` but not the names
    (``G.graph["communities"]``): they are made again from the members, as the analyse stage
    made them.
    """
    known = G.graph.get("communities") or {}
    labels: dict[str, dict[int, str]] = {}
    for kind in kinds:
        if kind in known:
            labels[kind] = dict(known[kind])
            continue
        membership = {n: c for n, d in G.nodes(data=True) if d.get("kind") == kind
                      and isinstance(c := d.get("community"), int) and c >= 0}  # fmt: skip
        if membership:
            H = concept_graph(G) if kind == "Concept" else None
            labels[kind] = {c.number: c.label for c in name_communities(kind, membership, G, H=H)}
    return labels


def graph_from_rows(
    rows: list[list[Any]], G: nx.DiGraph | None = None, *, params: dict[str, Any] | None = None
) -> nx.Graph:
    """The nodes, relationships and paths in query results (either store) as a view graph.

    Values may be LadybugDB dicts (``_LABEL``, ``_NODES``...) or the dicts kg makes of Neo4j
    nodes, relationships and paths. With ``G``, nodes take their full attributes from it.

    Results with no node, relationship or path in them (a table, as the cookbook's queries
    return) are drawn from ``G`` when it is given: the nodes that whole columns name (every text
    in the column is a paper id, a concept key or a concept name), the nodes the query's
    ``params`` name (a paper id or concept key: the paper of ``related_papers``), and every link
    ``G`` has among them.

    >>> G = nx.DiGraph()
    >>> G.add_node("concept:x", kind="Concept", key="x", name="X"); G.add_node("concept:y", kind="Concept", key="y")
    >>> G.add_edge("concept:x", "concept:y", rel="CO_OCCURS", weight=2)
    >>> sorted(graph_from_rows([["X", 3], ["y", 2]], G).edges())
    [('concept:x', 'concept:y')]
    """
    H = nx.Graph(communities=community_labels(G, ("Paper",))) if G is not None else nx.Graph()
    pending: list[tuple[Any, Any, dict[str, Any]]] = []
    ids: dict[Any, str] = {}

    def node(value: dict[str, Any]) -> str | None:
        label = value.get("_LABEL") or value.get("_label")
        key = value.get("id") if label == "Paper" else value.get("key") if label == "Concept" else None
        if key is None or label is None:
            return None
        nid = f"{label.lower()}:{key}"
        attrs = dict(G.nodes[nid]) if G is not None and nid in G else {
            k: v for k, v in value.items() if not k.startswith("_")} | {"kind": label}  # fmt: skip
        H.add_node(nid, **attrs)
        if "_ID" in value:
            ids[_ref(value["_ID"])] = nid
        if "_element_id" in value:
            ids[value["_element_id"]] = nid
        return nid

    def visit(value: Any) -> None:
        if isinstance(value, list):
            for v in value:
                visit(v)
        elif isinstance(value, dict):
            if "_NODES" in value or "_RELS" in value:
                visit(value.get("_NODES", []))
                visit(value.get("_RELS", []))
            elif "_SRC" in value or "_start" in value:
                src = _ref(value.get("_SRC", value.get("_start")))
                dst = _ref(value.get("_DST", value.get("_end")))
                rel = value.get("_LABEL") or value.get("_type")
                pending.append((src, dst, {k: v for k, v in value.items() if not k.startswith("_")} | {"rel": rel}))
            else:
                node(value)

    for row in rows:
        visit(row)
    for src, dst, data in pending:
        if src in ids and dst in ids:
            H.add_edge(ids[src], ids[dst], **data)
    if H.number_of_nodes() == 0 and G is not None:
        links = ("MENTIONS", "SHARES_CONCEPTS", "CO_OCCURS", *RELATION_TYPES)
        return _view(G, _named_nodes(rows, G, params or {}), links)
    return H


def _named_nodes(rows: list[list[Any]], G: nx.DiGraph, params: dict[str, Any]) -> set[str]:
    """The nodes of ``G`` that whole columns of ``rows``, or the values of ``params``, name."""
    names: dict[str, set[str]] = {}
    for n, d in G.nodes(data=True):
        if d.get("kind") == "Paper":
            names.setdefault(str(d.get("id")), set()).add(n)
        elif d.get("kind") == "Concept":
            for name in (d.get("key"), d.get("name")):
                names.setdefault(str(name), set()).add(n)
    found: set[str] = set()
    for column in zip(*rows, strict=True):
        values = [v for cell in column for v in (cell if isinstance(cell, list) else [cell]) if v is not None]
        # a column of anything else (types, counts, sentences) names nothing, even where a value looks like a name
        if values and all(isinstance(v, str) and v in names for v in values):
            found.update(n for v in values for n in names[v])
    for value in params.values():
        found.update(n for n in (f"paper:{value}", f"concept:{value}") if isinstance(value, str) and n in G)
    return found


def _ref(value: Any) -> Any:
    if isinstance(value, dict):
        return (value.get("table"), value.get("offset"))
    return value
