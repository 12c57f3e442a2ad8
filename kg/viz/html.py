"""One self-contained HTML page per view of the knowledge graph.

pyvis holds the nodes and edges and ships vis-network; the page itself is kg's own template,
because pyvis's templates load Bootstrap from a CDN (a blank or stalled page offline) and its
filter menus blank the graph. The template inlines vis-network, autoescapes every text,
passes data through ``tojson`` (so nothing from an abstract can end a ``<script>``) and builds
the side panel with ``textContent``. Positions are computed here and physics is off, so the
page is usable as soon as it is drawn.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import networkx as nx
from jinja2 import Environment, PackageLoader, select_autoescape
from pyvis.network import Network

TYPE_COLOURS = {
    "Paper": "#8c96a3",
    "Method": "#1f77b4",
    "Technique": "#2ca02c",
    "Problem": "#d62728",
    "Dataset": "#9467bd",
    "Metric": "#ff7f0e",
}
#: Colour-blind-safe palette (Okabe-Ito, then Tableau) for communities; the rest are grey.
COMMUNITY_COLOURS = ["#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7", "#4e79a7",
                     "#f28e2b", "#59a14f", "#b07aa1", "#9c755f"]  # fmt: skip
OTHER = "#bbbbbb"
#: Generic concepts ("computational cost"): shown faded and small, never labelled.
FADED = "#e4e4e4"
DEFAULT_MAX_NODES = 2000
PANEL_PAPERS = 40
#: Stated relation -> how the side panel words it from the head's side and from the tail's.
STATED = {"USED_FOR": ("used for", "uses"), "PART_OF": ("part of", "has part"),
          "HYPONYM_OF": ("a kind of", "has kind")}  # fmt: skip


@dataclass(frozen=True, slots=True)
class VizResult:
    path: Path
    nodes: int
    edges: int
    omitted_nodes: int


def write_html(
    H: nx.Graph,
    path: str | Path,
    *,
    G: nx.DiGraph | None = None,
    title: str = "kg knowledge graph",
    colour_by: str = "type",
    size_by: str = "degree",
    max_nodes: int = DEFAULT_MAX_NODES,
    seed: int = 7,
    score: Mapping[Any, float] | None = None,
    total: int | None = None,
) -> VizResult:
    """Write the view graph ``H`` as one HTML file.

    ``G`` is the whole knowledge graph, read for the side panel (a paper's concepts, a
    concept's papers) when the view does not show them. Above ``max_nodes`` nodes the most
    important ones (by ``size_by``) are kept and the page says what was left out. ``H`` may
    also be the kept part of a view already, with the importance of its nodes in the whole
    view (``score``) and the size of the whole view (``total``), as :mod:`kg.viz.stored` reads
    them from a store.
    """
    G = G if G is not None else nx.DiGraph(H)
    importance = dict(score) if score is not None else _importance(H, size_by)
    whole = total if total is not None else H.number_of_nodes()
    if H.number_of_nodes() > max_nodes:
        keep = sorted(H.nodes, key=lambda n: (-importance[n], str(n)))[:max_nodes]
        H = H.subgraph(keep)
    H = _canonical(H)
    score = {n: importance[n] for n in H}
    omitted = whole - H.number_of_nodes()
    pos = _layout(H, seed=seed)
    top = max(score.values(), default=1.0) or 1.0
    labelled = set(sorted(H.nodes, key=lambda n: (-score[n], str(n)))[:40])
    communities: dict[int, str] = dict(H.graph.get("communities", {}))
    net = Network(height="100%", width="100%", cdn_resources="in_line")
    net.toggle_physics(False)
    net.nodes = [_node(n, d, pos[n], score[n] / top, n in labelled, colour_by, G) for n, d in H.nodes(data=True)]
    net.edges = [_edge(u, v, d, G) for u, v, d in _edges(H)]
    if colour_by == "community":
        legend = [(f"{i + 1}: {communities.get(i, '')}", COMMUNITY_COLOURS[i]) for i in
                  sorted({n["community"] for n in net.nodes if n["community"] is not None})
                  if i < len(COMMUNITY_COLOURS)]  # fmt: skip
    else:
        present = {n["group"] for n in net.nodes}
        legend = [(k, c) for k, c in TYPE_COLOURS.items() if k in present]
    years = [n["year"] for n in net.nodes if isinstance(n["year"], int)]
    html = _render(
        title=title,
        nodes=net.nodes,
        edges=net.edges,
        details={n["id"]: _details(n["id"], G) for n in net.nodes},
        legend=legend,
        groups=[g for g in TYPE_COLOURS if any(n["group"] == g for n in net.nodes)],
        communities=[
            (i, communities.get(i, ""))
            for i in sorted({n["community"] for n in net.nodes if n["community"] is not None})
        ],
        year_range=[min(years), max(years)] if years else None,
        omitted=omitted,
        total=H.number_of_nodes() + omitted,
        centre=H.graph.get("centre"),
    )
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html, encoding="utf-8")
    return VizResult(path, H.number_of_nodes(), H.number_of_edges(), omitted)


def _canonical(H: nx.Graph) -> nx.Graph:
    """``H`` with its nodes in id order: the page does not depend on the order ``H`` was built in."""
    C = nx.Graph(**H.graph)
    C.add_nodes_from(sorted(H.nodes(data=True), key=lambda nd: str(nd[0])))
    C.add_edges_from(H.edges(data=True))
    return C


def _edges(H: nx.Graph) -> list[tuple[Any, Any, dict[str, Any]]]:
    """The edges in id order, each from its paper end first (the side panel's order)."""

    def ends(u: Any, v: Any) -> list[Any]:
        return sorted((u, v), key=lambda n: (H.nodes[n].get("kind") != "Paper", str(n)))

    return sorted(((*ends(u, v), d) for u, v, d in H.edges(data=True)), key=lambda e: (str(e[0]), str(e[1])))


def _importance(H: nx.Graph, size_by: str) -> dict[Any, float]:
    if size_by == "pagerank" and H.number_of_edges():
        return dict(nx.pagerank(H, weight="weight"))
    return {n: float(d) for n, d in H.degree()}


def _layout(H: nx.Graph, *, seed: int) -> dict[Any, tuple[float, float]]:
    """Positions: each connected part laid out on its own, the parts packed in rows, largest first.

    Inside a part, a spring layout of the core and leaves ringed round their one neighbour:
    most concepts are mentioned by one paper, and springs for them cost most of the time
    (networkx's spring layout is quadratic in Python above 500 nodes) while showing nothing a
    ring does not. One spring layout of the whole graph would push small parts to the edges
    and squeeze the main one.
    """
    parts = sorted(nx.connected_components(H), key=lambda c: (-len(c), min(map(str, c))))
    placed: dict[Any, tuple[float, float]] = {}
    if not parts:
        return placed
    layouts = [_part_layout(_induced(H, c), seed=seed) for c in parts]
    boxes = [_box(pos) for pos in layouts]
    row_width = max(boxes[0][2] - boxes[0][0], 600.0) * 1.2
    x = y = row_height = 0.0
    gap = 40.0
    for pos, (x0, y0, x1, y1) in zip(layouts, boxes, strict=True):
        w, h = x1 - x0, y1 - y0
        if x > 0 and x + w > row_width:
            x, y, row_height = 0.0, y + row_height + gap, 0.0
        for n, (px, py) in pos.items():
            placed[n] = (round(px - x0 + x, 1), round(py - y0 + y, 1))
        x += w + gap
        row_height = max(row_height, h)
    return placed


def _induced(H: nx.Graph, nodes: Iterable[Any]) -> nx.Graph:
    """The subgraph of ``H`` on ``nodes``, nodes and edges in id order (a copy: degrees in O(1)).

    ``H.subgraph(set)`` iterates the set when it is small, in an order that changes with
    PYTHONHASHSEED, and the layout depends on the order of its input.
    """
    keep = set(nodes)
    S = nx.Graph()
    S.add_nodes_from(sorted(keep, key=str))
    S.add_edges_from(sorted((tuple(sorted((u, v), key=str)) for u, v in H.edges(keep) if v in keep), key=str))
    return S


def _box(pos: dict[Any, tuple[float, float]]) -> tuple[float, float, float, float]:
    xs, ys = [p[0] for p in pos.values()], [p[1] for p in pos.values()]
    return min(xs) - 20, min(ys) - 20, max(xs) + 20, max(ys) + 20


def _part_layout(H: nx.Graph, *, seed: int) -> dict[Any, tuple[float, float]]:
    if H.number_of_nodes() == 1:
        return {next(iter(H)): (0.0, 0.0)}
    leaves = {n for n in H if H.degree(n) == 1 and H.degree(next(iter(H[n]))) > 1}
    core = _induced(H, (n for n in H if n not in leaves))
    scale = 70 * max(1.0, core.number_of_nodes() ** 0.5)
    pos = _spring(core, seed=seed, scale=scale)
    children: dict[Any, list[Any]] = {}
    for leaf in sorted(leaves, key=str):
        children.setdefault(next(iter(H[leaf])), []).append(leaf)
    for parent, kids in children.items():
        px, py = pos[parent]
        radius = 25 + 3 * len(kids)
        for i, kid in enumerate(kids):
            angle = 2 * math.pi * i / len(kids)
            pos[kid] = (px + radius * math.cos(angle), py + radius * math.sin(angle))
    return pos


def _spring(H: nx.Graph, *, seed: int, scale: float) -> dict[Any, tuple[float, float]]:
    """Fruchterman-Reingold positions from igraph (in C), in a box of half-width ``scale``.

    networkx's spring layout runs in Python and took seconds for a 2,000-node page.
    """
    import igraph

    nodes = sorted(H, key=str)
    if len(nodes) == 1:
        return {nodes[0]: (0.0, 0.0)}
    index = {n: i for i, n in enumerate(nodes)}
    g = igraph.Graph(n=len(nodes), edges=sorted(tuple(sorted((index[u], index[v]))) for u, v in H.edges()))
    rng = random.Random(seed)
    start = [[rng.uniform(-1, 1), rng.uniform(-1, 1)] for _ in nodes]
    igraph.set_random_number_generator(rng)
    try:
        coords = g.layout_fruchterman_reingold(seed=start, niter=200).coords
    finally:
        igraph.set_random_number_generator(random)
    cx = sum(x for x, _ in coords) / len(coords)
    cy = sum(y for _, y in coords) / len(coords)
    half = max(max(abs(x - cx), abs(y - cy)) for x, y in coords) or 1.0
    return {n: ((x - cx) / half * scale, (y - cy) / half * scale) for n, (x, y) in zip(nodes, coords, strict=True)}


def _group(d: dict[str, Any]) -> str:
    return "Paper" if d.get("kind") == "Paper" else str(d.get("type", "Concept"))


def _first_year(n: Any, G: nx.DiGraph) -> int | None:
    if n not in G:
        return None
    years = [G.nodes[p].get("year") for p in G.predecessors(n) if G.nodes[p].get("kind") == "Paper"]
    years = [y for y in years if isinstance(y, int)]
    return min(years) if years else None


def _node(
    n: Any, d: dict[str, Any], xy: tuple[float, float], weight: float, labelled: bool, colour_by: str, G: nx.DiGraph
) -> dict[str, Any]:
    group = _group(d)
    community = d.get("community")
    community = community if isinstance(community, int) and community >= 0 else None  # -1: in none
    if d.get("kind") == "Paper":
        name = d.get("title") or d.get("id", str(n))
        year = d.get("year")
        tip = f"{name}\n{year or ''} {d.get('venue') or ''}".strip()
    else:
        name = d.get("name", str(n))
        year = d["first_year"] if "first_year" in d else _first_year(n, G)  # stored by the analyse stage
        tip = f"{name}\n{group} · {d.get('paper_count', 0)} papers"
    if colour_by == "community":
        colour = COMMUNITY_COLOURS[community] if isinstance(community, int) and community < 12 else OTHER
    else:
        colour = TYPE_COLOURS.get(group, OTHER)
    if d.get("generic"):
        colour, weight, labelled, tip = FADED, 0.0, False, f"{tip} · generic"
    return {
        "id": str(n),
        "label": _short(str(name)) if labelled else "",
        "name": str(name),
        "group": group,
        "community": community,
        "year": year,
        "title": tip,
        "color": colour,
        "size": round(6 + 26 * math.sqrt(weight), 2),
        "x": xy[0],
        "y": xy[1],
        "shape": "dot",
    }


def _edge(u: Any, v: Any, d: dict[str, Any], G: nx.DiGraph) -> dict[str, Any]:
    rel = d.get("rel")
    edge: dict[str, Any] = {"from": str(u), "to": str(v), "rel": rel, "width": 0.7,
                            "color": {"color": "#c3c8cf", "opacity": 0.7}}  # fmt: skip
    if rel == "MENTIONS":
        edge.update(role=d.get("role"), text=d.get("text"), sentence=d.get("sentence"), field=d.get("field"))
        edge["title"] = f"{d.get('role')}: {d.get('text')}"
    elif rel == "SHARES_CONCEPTS":
        names = [str(G.nodes[f"concept:{k}"].get("name", k)) if f"concept:{k}" in G else k for k in d.get("shared", [])]
        edge.update(shared=names, weight=d.get("weight"))
        edge["title"] = "shared: " + ", ".join(names)
        edge["width"] = round(0.5 + min(4.0, float(d.get("weight") or 0) / 4), 2)
    elif rel == "CO_OCCURS":
        edge.update(weight=d.get("weight"))
        edge["title"] = f"together in {d.get('weight')} papers"
        edge["width"] = round(0.5 + min(4.0, float(d.get("weight") or 0) / 2), 2)
    elif rel in STATED:
        head, tail = (u, v) if d.get("head", u) == u else (v, u)
        edge.update({"from": str(head), "to": str(tail), "sentence": d.get("sentence"), "arrows": "to"})
        edge["title"] = f"{STATED[rel][0]} (stated in {d.get('n_papers')} papers)"
    return edge


def _details(n: str, G: nx.DiGraph) -> dict[str, Any]:
    if n not in G:
        return {}
    d = G.nodes[n]
    if d.get("kind") == "Paper":
        concepts = sorted(
            ((G.nodes[c].get("name", c), G.nodes[c].get("type"), e.get("role")) for c, e in G[n].items()
             if e.get("rel") == "MENTIONS"),
            key=lambda t: (str(t[1]), str(t[0]), str(t[2])),  # two concepts may share a name
        )  # fmt: skip
        return {"kind": "Paper", "id": d.get("id"), "title": d.get("title"), "year": d.get("year"),
                "venue": d.get("venue"), "authors": d.get("authors") or [], "concepts": concepts}  # fmt: skip
    papers = sorted(
        ((G.nodes[p].get("id"), G.nodes[p].get("title"), G.nodes[p].get("year"), e.get("role"))
         for p, e in G.pred[n].items() if e.get("rel") == "MENTIONS"),
        key=lambda t: (-(t[2] or 0), str(t[0])),
    )  # fmt: skip
    stated = sorted(
        [(STATED[e["rel"]][0], G.nodes[v].get("name", v), e.get("sentence")) for v, e in G.succ[n].items()
         if e.get("rel") in STATED]
        + [(STATED[e["rel"]][1], G.nodes[u].get("name", u), e.get("sentence")) for u, e in G.pred[n].items()
           if e.get("rel") in STATED],
        key=lambda t: (str(t[0]), str(t[1])),
    )  # fmt: skip
    return {"kind": "Concept", "name": d.get("name"), "type": d.get("type"), "key": d.get("key"),
            "aliases": d.get("aliases") or [], "paper_count": d.get("paper_count"),
            "papers": papers[:PANEL_PAPERS], "stated": stated[:PANEL_PAPERS]}  # fmt: skip


def _short(text: str, n: int = 36) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _render(**context: Any) -> str:
    env = Environment(loader=PackageLoader("kg.viz", "templates"), autoescape=select_autoescape(["html"]))
    lib = resources.files("pyvis") / "lib" / "vis-9.1.2"
    context["vis_js"] = (lib / "vis-network.min.js").read_text(encoding="utf-8")
    context["vis_css"] = (lib / "vis-network.css").read_text(encoding="utf-8")
    return env.get_template("graph.html").render(**context)
