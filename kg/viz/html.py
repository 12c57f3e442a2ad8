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
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import networkx as nx
from jinja2 import Environment, PackageLoader, select_autoescape
from pyvis.network import Network

from kg.link.papers import UNLINKED_TYPES
from kg.outputs import write_text
from kg.viz.layout import LINE, grouped_layout, layout
from kg.viz.overview import MIN_SIZE, NONE, OVERVIEW_NODES, Overview, coarsen, map_of_view, overview, paper_groups

if TYPE_CHECKING:
    from kg.build.texts import TextFile

TYPE_COLOURS = {
    "Paper": "#8c96a3",
    "Method": "#1f77b4",
    "Technique": "#2ca02c",
    "Problem": "#d62728",
    "Dataset": "#9467bd",
    "Metric": "#ff7f0e",
    "Hardware": "#8c564b",
}
#: Colour-blind-safe palette (Okabe-Ito, then Tableau) for communities; the rest are grey.
COMMUNITY_COLOURS = ["#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7", "#4e79a7",
                     "#f28e2b", "#59a14f", "#b07aa1", "#9c755f"]  # fmt: skip
OTHER = "#bbbbbb"
#: Generic concepts ("computational cost"): shown faded and small, never labelled.
FADED = "#e4e4e4"
DEFAULT_MAX_NODES = 2000
#: About the width in pixels of a character of a label (12 px system-ui), a little over most.
LABEL_PX = 7.0
#: Communities part a graph from about this modularity up (Newman: 0.3 and above is a clear structure).
MODULAR = 0.3
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
    #: Communities drawn as summary nodes (0: the page draws every node).
    communities: int = 0


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
    overview_above: int = OVERVIEW_NODES,
    texts: TextFile | None = None,
) -> VizResult:
    """Write the view graph ``H`` as one HTML file.

    ``G`` is the whole knowledge graph, read for the side panel (a paper's concepts, a
    concept's papers) when the view does not show them. Above ``max_nodes`` nodes the most
    important ones (by ``size_by``) are kept and the page says what was left out. ``H`` may
    also be the kept part of a view already, with the importance of its nodes in the whole
    view (``score``) and the size of the whole view (``total``), as :mod:`kg.viz.stored` reads
    them from a store. A view of papers and concepts with more than ``overview_above`` nodes
    opens as the map of its communities of papers (:mod:`kg.viz.overview`). An empty view
    gives a page that says why it is empty (``H.graph["empty"]``). The sentences of a graph built
    with ``texts`` (:mod:`kg.build.texts`) are read from there.
    """
    text: Callable[[Any], Any] = texts.text if texts is not None else _as_is
    G = G if G is not None else nx.DiGraph(H)
    importance = dict(score) if score is not None else _importance(H, size_by)
    whole = total if total is not None else H.number_of_nodes()
    whole_map = None
    if whole > max_nodes > overview_above and "centre" not in H.graph:
        # the kept part opens as a map: the map of all the view's papers, not only of those kept
        whole_map = H.graph["map"] if "map" in H.graph else map_of_view(H)
    if H.number_of_nodes() > max_nodes:
        keep = sorted(H.nodes, key=lambda n: (-importance[n], str(n)))[:max_nodes]
        H = H.subgraph(keep)
    H = _canonical(H)
    score = {n: importance[n] for n in H}
    omitted = whole - H.number_of_nodes()
    top = max(score.values(), default=1.0) or 1.0
    labels = _community_labels(H)
    kinds = {d.get("kind") for _, d in H.nodes(data=True)}
    if "Paper" in kinds and len(kinds) > 1:  # papers and concepts: grouped by the papers' communities
        kind = "Paper"
        groups = paper_groups(H)
    else:
        kind = "Paper" if kinds == {"Paper"} else "Concept"
        groups = {n: c if isinstance(c := d.get("community"), int) and c >= 0 else NONE for n, d in
                  H.nodes(data=True)}  # fmt: skip
    if whole_map:
        kind, groups = "Paper", {n: whole_map.group(n, d) for n, d in H.nodes(data=True)}
    names = labels.get(kind, {})
    # an ego view stays one drawing: it is about its centre
    mapped = H.number_of_nodes() > overview_above and "centre" not in H.graph
    if whole_map:
        mapped = len(set(groups.values()) - {NONE}) > 1
    elif mapped:
        coarse = coarsen(H, groups)
        mapped = len(set(coarse.values()) - {NONE}) > 1
        groups = coarse if mapped else groups
    present = sorted({g for g in groups.values() if g != NONE})
    centre = H.graph.get("centre")
    summary: list[dict[str, Any]] = []
    links: list[dict[str, Any]] = []
    cards: dict[str, Any] = {}
    regions = None
    heads: set[Any] = set()
    if mapped:
        ov = whole_map.kept(groups) if whole_map else overview(H, groups)
        short = {k: _short(_community_name(k, names)) for k in ov.members}
        room = {k: LABEL_PX * len(t) + 6 for k, t in short.items()}
        pos, centres, radius = grouped_layout(H, groups, seed=seed, score=score, labels=room)
        summary, links, cards = _map(H, ov, names, short, centres, radius, score)
    else:
        regions = _regions(H, groups) if centre is None else None
        pos = layout(H, seed=seed, score=score, regions=regions)
    order = sorted(H.nodes, key=lambda n: (-score[n], str(n)))
    labelled = order
    if centre is None:
        # the concepts are labelled first (what a community is about, in a few words), those that
        # name a community before the others, in the order they name it, and metrics last
        # ("accuracy", "F1" and then "transformer" had crowded out "convolutional neural networks",
        # the first name of a community of the arXiv sample), then the papers' titles where room
        # is left; a stable sort keeps each by score
        naming: dict[str, int] = {}
        placed = set(regions.values()) if regions else set(names)
        for k, name in names.items():
            if k not in placed:  # a community drawn in no place of its own (grey, a small one) names none
                continue
            for i, part in enumerate(name.split(", ")):
                naming[part] = min(i, naming.get(part, i))
        labelled = sorted(order, key=lambda n: (H.nodes[n].get("kind") == "Paper",
                                                 naming.get(H.nodes[n].get("name"), len(naming)),
                                                 H.nodes[n].get("type") in UNLINKED_TYPES))  # fmt: skip
    if regions:
        # laid out by community: each community's first label before any other, so that each is
        # named in its own place (a smaller one's was crowded out by a larger one's less important labels);
        # the page tries these labels around their node where the place under it is taken
        first: dict[int, Any] = {}
        for n in labelled:
            if not H.nodes[n].get("generic"):
                first.setdefault(regions[n], n)
        heads = {n for k, n in first.items() if k != NONE}
        labelled = sorted(labelled, key=lambda n: n not in heads)
    rank = {n: i + len(summary) for i, n in enumerate(labelled)}
    if centre in rank:  # the ego view's centre is labelled first
        rank[centre] = -1
    net = Network(height="100%", width="100%", cdn_resources="in_line")
    net.toggle_physics(False)
    drawn = [_node(n, H.nodes[n], pos[n], score[n] / top, rank[n], groups.get(n, NONE), colour_by, G, n in heads)
             for n in reversed(order)]  # fmt: skip
    net.nodes = drawn + summary  # the most important drawn last, on top
    net.edges = [_edge(u, v, d, G, text) for u, v, d in _edges(H)] + links
    if regions:  # the lines between two communities faded: hundreds of them hid where each one lies
        place = {str(n): k for n, k in regions.items()}
        for e in net.edges:
            if place[e["from"]] != place[e["to"]]:
                e["color"] = {"color": "#c3c8cf", "opacity": 0.25}
    legend = _legend(drawn, summary, colour_by, names)
    years = sorted({n["year"] for n in drawn if isinstance(n["year"], int)})
    empty = None
    if not H.number_of_nodes():
        empty = str(H.graph.get("empty") or "This view has no nodes to draw.")
    html = _render(
        title=title,
        line=round(LINE),  # a label's height: the map's layout makes room for it (kg.viz.layout)
        nodes=net.nodes,
        edges=net.edges,
        details={n["id"]: _details(n["id"], G, text) for n in drawn} | cards,
        legend=legend,
        groups=[g for g in TYPE_COLOURS if any(n["kind"] == g for n in drawn)],
        communities=[(i, f"{i + 1}: {names.get(i) or 'unnamed'}") for i in present],
        year_range=[years[0], years[-1]] if len(years) > 1 else None,
        omitted=omitted,
        total=H.number_of_nodes() + omitted,
        centre=centre,
        # a whole view's map is of its communities of papers, whatever kinds of node the page kept
        mapped=_map_note({"Paper", "Concept"} if whole_map else kinds) if mapped else None,
        mapped_nodes=whole if whole_map else H.number_of_nodes(),  # what the circles count
        note=H.graph.get("note"),
        empty=empty,
    )
    path = Path(path)
    write_text(path, html)
    return VizResult(path, H.number_of_nodes(), H.number_of_edges(), omitted, len(summary))


def _regions(H: nx.Graph, groups: Mapping[Any, int]) -> dict[Any, int] | None:
    """The communities a page is laid out by: those with a colour of their own and at least
    :data:`~kg.viz.overview.MIN_SIZE` members (the others: :data:`NONE`). None where fewer than
    two, or where they do not part the graph (modularity under :data:`MODULAR`: the papers
    of a query around one concept, whose communities are spokes of one star)."""
    size = Counter(groups.values())
    own = {k for k in size if 0 <= k < len(COMMUNITY_COLOURS) and size[k] >= MIN_SIZE}
    if len(own) < 2 or not H.number_of_edges():
        return None
    regions = {n: k if k in own else NONE for n, k in sorted(groups.items(), key=lambda nk: str(nk[0]))}
    members: dict[int, list[Any]] = {}
    for n, k in regions.items():
        members.setdefault(k, []).append(n)
    if nx.community.modularity(H, members.values()) < MODULAR:
        return None
    return regions


def _map_note(kinds: set[Any]) -> str:
    """What the circles and lines of a map stand for."""
    if kinds == {"Paper"}:
        return "each circle is a community of papers (size: its papers; lines: the links between their papers)."
    if "Paper" in kinds:
        return ("each circle is a community of papers with their concepts (size: its papers; lines: how often "
                "the papers of one mention the concepts of the other).")  # fmt: skip
    return "each circle is a community of concepts (size: its concepts; lines: the links between them)."


def _community_labels(H: nx.Graph) -> dict[str, dict[int, str]]:
    """Community number -> name, for each kind: the analyse stage's (by kind) or a map's own (one kind)."""
    labels = H.graph.get("communities") or {}
    if set(labels) <= {"Paper", "Concept"}:
        return {kind: dict(names) for kind, names in labels.items()}
    kinds = {d.get("kind") for _, d in H.nodes(data=True)}
    return {"Paper" if kinds == {"Paper"} else "Concept": dict(labels)}


def _legend(
    drawn: list[dict[str, Any]], summary: list[dict[str, Any]], colour_by: str, names: Mapping[int, str]
) -> list[tuple[str, str]]:
    """What each colour on the page means, for every colour a node has."""
    shown = drawn + summary if colour_by == "community" or summary else drawn
    used = {n["color"] for n in shown}
    legend: list[tuple[str, str]] = []
    if colour_by == "type":
        present = {n["kind"] for n in drawn}
        legend += [(k, c) for k, c in TYPE_COLOURS.items() if k in present]
    if colour_by == "community" or summary:
        numbers = sorted({n["community"] for n in shown if n["community"] is not None})
        legend += [(f"{i + 1}: {names.get(i) or 'unnamed'}", COMMUNITY_COLOURS[i]) for i in numbers
                   if i < len(COMMUNITY_COLOURS)]  # fmt: skip
        if any(n["color"] == OTHER for n in shown):
            legend.append(("other communities, or none", OTHER))
    if FADED in used:
        legend.append(("generic concept", FADED))
    return legend


def _map(
    H: nx.Graph,
    ov: Overview,
    names: Mapping[int, str],
    short: Mapping[int, str],
    centres: Mapping[int, tuple[float, float]],
    radius: Mapping[int, float],
    score: Mapping[Any, float],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
    """The summary nodes, their links and their panels."""
    most = max(ov.papers.values(), default=1) or 1
    big = max(radius.values())
    nodes, cards = [], {}
    ranked = sorted(ov.members, key=lambda k: (k == NONE, -ov.papers.get(k, 0), k))  # the rest labelled last
    for rank, k in enumerate(ranked):
        members = ov.members[k]
        papers = ov.papers.get(k, 0)
        concepts = ov.sizes.get(k, len(members)) - papers
        name = _community_name(k, names)
        nid = f"community:{k}"
        size = round(min(radius[k] * 0.8, 0.45 * big * math.sqrt(max(papers, 1) / most)), 1)
        colour = COMMUNITY_COLOURS[k] if 0 <= k < len(COMMUNITY_COLOURS) else OTHER
        nodes.append({
            "id": nid, "name": name, "kind": "Community", "summary": True, "community": None if k == NONE else k,
            "year": None, "title": f"{name}\n{papers} papers, {concepts} concepts · double-click: open",
            "color": colour, "size": max(size, 12.0), "x": centres[k][0], "y": centres[k][1], "shape": "dot",
            "rank": rank, "short": short[k],
        })  # fmt: skip
        best = sorted(members, key=lambda n: (-score[n], str(n)))
        cards[nid] = {
            "kind": "Community", "name": name, "number": k, "papers": papers, "concepts": concepts,
            "top_papers": [str(H.nodes[n].get("title") or n) for n in best if H.nodes[n].get("kind") == "Paper"][:8],
            "top_concepts": [str(H.nodes[n].get("name") or n) for n in best if H.nodes[n].get("kind") != "Paper"][:12],
        }  # fmt: skip
    strongest = max((w for *_, w in ov.links), default=1)
    edges = [{"from": f"community:{a}", "to": f"community:{b}", "rel": "COMMUNITIES", "weight": w,
              "title": f"{w} links between them (papers of one mentioning concepts of the other)",
              "width": round(1 + 7 * w / strongest, 2), "color": {"color": "#9aa3ad", "opacity": 0.6}}
             for a, b, w in ov.links]  # fmt: skip
    return nodes, edges, cards


def _community_name(k: int, names: Mapping[int, str]) -> str:
    return (names.get(k) or "unnamed") if k != NONE else "small communities, or none"


def _short(name: str, most: int = 28) -> str:
    """A community's label on a map: the first of the concepts its name lists that fit in ``most``
    characters, whole ("machine translation", not "machine translation, neural…"), or its first
    concept alone up to 40 ("multimodal large language models").

    >>> _short("machine translation, neural machine translation, BLEU")
    'machine translation'
    >>> _short("multimodal large language models, foundation models")
    'multimodal large language models'
    """
    if len(name) <= most:
        return name
    cut = name.rfind(", ", 0, most + 2)
    if cut > 0:
        return name[:cut]
    first = name.split(", ")[0]
    return first if most < len(first) <= 40 else name[: most - 1] + "…"


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


def _group(d: dict[str, Any]) -> str:
    return "Paper" if d.get("kind") == "Paper" else str(d.get("type", "Concept"))


def _first_year(n: Any, G: nx.DiGraph) -> int | None:
    if n not in G:
        return None
    years = [G.nodes[p].get("year") for p in G.predecessors(n) if G.nodes[p].get("kind") == "Paper"]
    years = [y for y in years if isinstance(y, int)]
    return min(years) if years else None


def _node(
    n: Any,
    d: dict[str, Any],
    xy: tuple[float, float],
    weight: float,
    rank: int,
    community: int,
    colour_by: str,
    G: nx.DiGraph,
    head: bool = False,
) -> dict[str, Any]:
    """One node as the page holds it: ``kind`` (not vis-network's ``group``, whose palette would
    replace the node's colour when a filter updates it), ``rank`` (0: labelled first), ``name``
    (the label, drawn by the page where it does not cover another), ``community`` (the one
    the page's filter and map put it in, None: none) and ``head`` where its label names its
    community in the community's place (the page tries it around the node, not only under it)."""
    kind = _group(d)
    if d.get("kind") == "Paper":
        name = d.get("title") or d.get("id", str(n))
        year = d.get("year")
        tip = f"{name}\n{year or ''} {d.get('venue') or ''}".strip()
    else:
        name = d.get("name", str(n))
        year = d["first_year"] if "first_year" in d else _first_year(n, G)  # stored by the analyse stage
        tip = f"{name}\n{kind} · {d.get('paper_count', 0)} papers"
    if colour_by == "community":
        colour = COMMUNITY_COLOURS[community] if 0 <= community < len(COMMUNITY_COLOURS) else OTHER
    else:
        colour = TYPE_COLOURS.get(kind, OTHER)
    node = {
        "id": str(n),
        "name": str(name),
        "kind": kind,
        "community": None if community == NONE else community,
        "year": year,
        "title": tip,
        "color": colour,
        "size": round(6 + 26 * math.sqrt(weight), 2),
        "x": xy[0],
        "y": xy[1],
        "shape": "dot",
        "rank": rank,
    }
    if head:
        node["head"] = True
    if d.get("generic"):  # never labelled: it names no topic
        node.update(color=FADED, size=6.0, title=f"{tip} · generic", generic=True)
    return node


def _as_is(value: Any) -> Any:
    return value


def _edge(u: Any, v: Any, d: dict[str, Any], G: nx.DiGraph, text: Callable[[Any], Any]) -> dict[str, Any]:
    rel = d.get("rel")
    edge: dict[str, Any] = {"from": str(u), "to": str(v), "rel": rel, "width": 0.7,
                            "color": {"color": "#c3c8cf", "opacity": 0.7}}  # fmt: skip
    if rel == "MENTIONS":
        edge.update(role=d.get("role"), text=d.get("text"), sentence=text(d.get("sentence")), field=d.get("field"))
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
        edge.update({"from": str(head), "to": str(tail), "sentence": text(d.get("sentence")), "arrows": "to"})
        edge["title"] = f"{STATED[rel][0]} (stated in {d.get('n_papers')} papers)"
    return edge


def _details(n: str, G: nx.DiGraph, text: Callable[[Any], Any]) -> dict[str, Any]:
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
        [(STATED[e["rel"]][0], G.nodes[v].get("name", v), text(e.get("sentence"))) for v, e in G.succ[n].items()
         if e.get("rel") in STATED]
        + [(STATED[e["rel"]][1], G.nodes[u].get("name", u), text(e.get("sentence"))) for u, e in G.pred[n].items()
           if e.get("rel") in STATED],
        key=lambda t: (str(t[0]), str(t[1]), str(t[2])),  # two concepts may share a name
    )  # fmt: skip
    return {"kind": "Concept", "name": d.get("name"), "type": d.get("type"), "key": d.get("key"),
            "aliases": d.get("aliases") or [], "paper_count": d.get("paper_count"),
            "papers": papers[:PANEL_PAPERS], "stated": stated[:PANEL_PAPERS]}  # fmt: skip


def _render(**context: Any) -> str:
    env = Environment(loader=PackageLoader("kg.viz", "templates"), autoescape=select_autoescape(["html"]))
    lib = resources.files("pyvis") / "lib" / "vis-9.1.2"
    context["vis_js"] = (lib / "vis-network.min.js").read_text(encoding="utf-8")
    context["vis_css"] = (lib / "vis-network.css").read_text(encoding="utf-8")
    return env.get_template("graph.html").render(**context)
