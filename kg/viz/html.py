"""One self-contained HTML page of the knowledge graph.

pyvis holds the nodes, edges and options and ships vis-network; the page itself comes from
kg's own template, because pyvis's templates load Bootstrap from a CDN (a blank or stalled
page offline). The template inlines vis-network, autoescapes every text, and passes the data
through ``tojson`` so nothing from an abstract can end a ``<script>``. Positions are computed
here and physics is off, so the page is usable as soon as it is drawn.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import networkx as nx
from jinja2 import Environment, PackageLoader, select_autoescape
from pyvis.network import Network

COLOURS = {"Paper": "#9aa5b1", "Method": "#1f77b4", "Technique": "#2ca02c", "Problem": "#d62728"}
DEFAULT_MAX_NODES = 2000


@dataclass(frozen=True, slots=True)
class VizResult:
    path: Path
    nodes: int
    edges: int
    omitted_nodes: int


def write_html(
    G: nx.DiGraph,
    path: str | Path,
    *,
    title: str = "kg knowledge graph",
    max_nodes: int = DEFAULT_MAX_NODES,
    rels: tuple[str, ...] = ("MENTIONS",),
    seed: int = 7,
) -> VizResult:
    """Write the papers, concepts and their ``rels`` edges of ``G`` as one HTML file.

    Above ``max_nodes`` nodes, the best-connected ones are kept and the page says how many
    were left out.
    """
    H = nx.Graph()
    H.add_nodes_from(G.nodes(data=True))
    H.add_edges_from((u, v, d) for u, v, d in G.edges(data=True) if d.get("rel") in rels)
    omitted = 0
    if H.number_of_nodes() > max_nodes:
        keep = sorted(H.nodes, key=lambda n: (-H.degree(n), n))[:max_nodes]
        omitted = H.number_of_nodes() - len(keep)
        H = H.subgraph(keep).copy()
    pos = _layout(H, seed=seed)
    net = Network(height="100%", width="100%", directed=False, cdn_resources="in_line")
    net.toggle_physics(False)
    degree = dict(H.degree())
    top = max(degree.values(), default=1) or 1
    labelled = set(sorted(H.nodes, key=lambda n: (-degree[n], n))[:60])
    net.nodes = [_node(n, d, pos[n], degree[n], top, n in labelled) for n, d in H.nodes(data=True)]
    net.edges = [_edge(u, v, d) for u, v, d in H.edges(data=True)]
    net.node_ids = [n["id"] for n in net.nodes]
    counts = {k: sum(1 for _, d in H.nodes(data=True) if _group(d) == k) for k in COLOURS}
    html = _render(
        title=title,
        nodes=net.nodes,
        edges=net.edges,
        options=net.options.to_json() if hasattr(net.options, "to_json") else net.options,
        legend=[(k, c, counts[k]) for k, c in COLOURS.items() if counts[k]],
        omitted=omitted,
        total=H.number_of_nodes() + omitted,
    )
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html, encoding="utf-8")
    return VizResult(path, H.number_of_nodes(), H.number_of_edges(), omitted)


def _layout(H: nx.Graph, *, seed: int) -> dict[Any, tuple[float, float]]:
    """Positions for every node: a spring layout of the core, leaves ringed round their one neighbour.

    Most concepts are mentioned by one paper; laying them out with the springs costs most of
    the time (networkx's layout is quadratic-ish in Python) and adds nothing a ring does not show.
    """
    if H.number_of_nodes() == 0:
        return {}
    leaves = {n for n in H if H.degree(n) == 1 and H.degree(next(iter(H[n]))) > 1}
    core = H.subgraph(n for n in H if n not in leaves)
    scale = 60 * max(1.0, core.number_of_nodes() ** 0.5)
    pos = {
        n: (float(x), float(y)) for n, (x, y) in nx.spring_layout(core, seed=seed, iterations=50, scale=scale).items()
    }
    children: dict[Any, list[Any]] = {}
    for leaf in sorted(leaves):
        children.setdefault(next(iter(H[leaf])), []).append(leaf)
    for parent, kids in children.items():
        px, py = pos[parent]
        radius = 25 + 3 * len(kids)
        for i, kid in enumerate(kids):
            angle = 2 * math.pi * i / len(kids)
            pos[kid] = (px + radius * math.cos(angle), py + radius * math.sin(angle))
    return {n: (round(x, 1), round(y, 1)) for n, (x, y) in pos.items()}


def _group(d: dict[str, Any]) -> str:
    return "Paper" if d.get("kind") == "Paper" else str(d.get("type", "Concept"))


def _node(n: str, d: dict[str, Any], xy: tuple[float, float], degree: int, top: int, labelled: bool) -> dict[str, Any]:
    group = _group(d)
    if d.get("kind") == "Paper":
        name = d.get("title") or d.get("id", n)
        tip = f"{name}\n{d.get('year') or ''} {d.get('venue') or ''}\n{d.get('id')}"
    else:
        name = d.get("name", n)
        tip = f"{name}\n{group} · {d.get('paper_count', 0)} papers"
    return {
        "id": n,
        "label": _short(name) if labelled else "",
        "name": name,
        "group": group,
        "year": d.get("year"),
        "title": tip,
        "color": COLOURS.get(group, "#999999"),
        "size": 6 + 24 * (degree / top) ** 0.5,
        "x": xy[0],
        "y": xy[1],
        "shape": "dot",
    }


def _edge(u: str, v: str, d: dict[str, Any]) -> dict[str, Any]:
    if d.get("rel") == "MENTIONS":
        tip = f"{d.get('role')}: {d.get('sentence', '')}"
    elif d.get("rel") == "SHARES_CONCEPTS":
        tip = "shared: " + ", ".join(d.get("shared", []))
    else:
        tip = f"{d.get('weight')} papers"
    return {"from": u, "to": v, "title": tip, "color": {"color": "#c8ccd2", "opacity": 0.6}, "width": 0.6}


def _short(text: str, n: int = 40) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _render(**context: Any) -> str:
    env = Environment(loader=PackageLoader("kg.viz", "templates"), autoescape=select_autoescape(["html"]))
    lib = resources.files("pyvis") / "lib" / "vis-9.1.2"
    context["vis_js"] = (lib / "vis-network.min.js").read_text(encoding="utf-8")
    context["vis_css"] = (lib / "vis-network.css").read_text(encoding="utf-8")
    return env.get_template("graph.html").render(**context)
