"""Positions for a page: computed here, so the page is usable as soon as it is drawn (physics off).

Each function is deterministic: the same graph gives the same positions whatever order it was
built in and whatever PYTHONHASHSEED is.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

import networkx as nx

from kg.viz.overview import NONE

#: Leaves of one node beyond this many are laid out in a disc rather than a ring.
RING = 60
#: Nodes linked to no other are a disc of points about this far apart (a label's height and more).
ALONE = 36.0
GOLDEN_ANGLE = math.pi * (3 - math.sqrt(5))
#: The part of a page a map's drawing is made to fit (pixels): a 1,200 x 760 window less the bar and
#: the panel; a larger one has more room for the labels. The page fits a drawing to FIT of it.
WINDOW = (860.0, 680.0)
FIT = 0.88
#: A label's height in pixels, as the page draws it.
LINE = 16.0


def layout(
    H: nx.Graph,
    *,
    seed: int,
    score: Mapping[Any, float] | None = None,
    regions: Mapping[Any, int] | None = None,
) -> dict[Any, tuple[float, float]]:
    """Positions: each connected part laid out on its own, the parts packed in rows, largest first.

    Inside a part, a spring layout of the core and leaves ringed round their one neighbour:
    most concepts are mentioned by one paper, and springs for them cost most of the time
    (networkx's spring layout is quadratic in Python above 500 nodes) while showing nothing a
    ring does not. One spring layout of the whole graph would push small parts to the edges
    and squeeze the main one. The nodes linked to none are one disc, the most important
    (``score``) in the middle: a grid of them in name order says nothing.

    With ``regions`` (node -> community, :data:`NONE`: none), a part where two or more
    communities meet is laid out by community (:func:`grouped_layout`): one spring layout of
    a part of several communities mixes them into one hairball (the 743 concepts of 2,000
    arXiv abstracts: 12 communities in one blob). A node of no community goes with the
    community it is nearest to, so that it is drawn beside what it is linked to.
    """
    parts = sorted(nx.connected_components(H), key=lambda c: (-len(c), min(map(str, c))))
    if not parts:
        return {}
    alone = [n for c in parts if len(c) == 1 for n in c]
    layouts = []
    for c in parts:
        if len(c) == 1:
            continue
        part = induced(H, c)
        if regions is not None and len({regions[n] for n in c} - {NONE}) > 1:
            # the discs are the drawing here (a map draws a circle in each): closer than on a map
            layouts.append(grouped_layout(part, _nearest(part, regions), seed=seed, score=score, fill=2 / 3)[0])
        else:
            layouts.append(_part_layout(part, seed=seed))
    if alone:
        weight = score or {}
        ranked = sorted(alone, key=lambda n: (-weight.get(n, 0.0), str(n)))
        layouts.append({n: _sunflower(i, ALONE) for i, n in enumerate(ranked)})
    return _pack(layouts)


def _pack(layouts: list[dict[Any, tuple[float, float]]]) -> dict[Any, tuple[float, float]]:
    """The layouts side by side in rows as wide as the first (at least 600), each below the last."""
    placed: dict[Any, tuple[float, float]] = {}
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


def _nearest(H: nx.Graph, regions: Mapping[Any, int]) -> dict[Any, int]:
    """``regions`` with each node of none (:data:`NONE`) in the community nearest to it: the
    commonest among its neighbours one step nearer (ties: the lower number). ``H`` is connected."""
    assigned = {n: regions[n] for n in H if regions[n] != NONE}
    frontier = set(assigned)
    while len(assigned) < H.number_of_nodes():
        step: dict[Any, int] = {}
        for n in sorted({m for f in frontier for m in H[f] if m not in assigned}, key=str):
            votes = Counter(assigned[m] for m in H[n] if m in frontier)
            step[n] = min(votes, key=lambda k: (-votes[k], k))
        assigned.update(step)
        frontier = set(step)
    return assigned


def induced(H: nx.Graph, nodes: Iterable[Any]) -> nx.Graph:
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
    leaves = {n for n in H if H.degree(n) == 1 and H.degree(next(iter(H[n]))) > 1}
    core = induced(H, (n for n in H if n not in leaves))
    scale = 70 * max(1.0, core.number_of_nodes() ** 0.5)
    pos = _spring(core, seed=seed, scale=scale)
    children: dict[Any, list[Any]] = {}
    for leaf in sorted(leaves, key=str):
        children.setdefault(next(iter(H[leaf])), []).append(leaf)
    for parent, kids in children.items():
        px, py = pos[parent]
        if len(kids) <= RING:
            radius = 60.0 + 3 * len(kids)  # clear of a big parent's dot
            for i, kid in enumerate(kids):
                angle = 2 * math.pi * i / len(kids)
                pos[kid] = (px + radius * math.cos(angle), py + radius * math.sin(angle))
            continue
        for i, kid in enumerate(kids, start=RING // 3):  # a disc (sunflower): a ring of hundreds is a blur
            x, y = _sunflower(i, 14)
            pos[kid] = (px + x, py + y)
    return pos


def _make_room(centres: dict[int, list[float]], radius: Mapping[int, float], labels: Mapping[int, float]) -> None:
    """Part the discs (``centres``, ``radius``) until none covers another's label, nor two labels
    each other, once the drawing is fitted into a :data:`WINDOW`: each disc with its label under
    it is a box, and two boxes that overlap are pushed apart the shorter way.

    A label keeps its size in pixels however far the drawing is zoomed out, so its share of the
    drawing is fixed by the window, not by the layout: parting the discs makes them smaller
    beside their labels. Gives up after a few hundred rounds (a map of too many communities for
    the window); the page then puts a label that finds no free place where it covers a circle.
    """
    ids = sorted(centres)
    for _ in range(400):
        x0 = min(centres[g][0] - radius[g] for g in ids)
        x1 = max(centres[g][0] + radius[g] for g in ids)
        y0 = min(centres[g][1] - radius[g] for g in ids)
        y1 = max(centres[g][1] + radius[g] for g in ids)
        px = FIT * min(WINDOW[0] / max(x1 - x0, 1.0), WINDOW[1] / max(y1 - y0, 1.0))  # pixels per unit
        box = {}
        for g in ids:
            half = max(radius[g], (labels.get(g, 0.0) / 2 + 4) / px)
            x, y = centres[g]
            box[g] = (x - half, y - radius[g], x + half, y + radius[g] + (LINE + 4) / px)
        moved = False
        for i, a in enumerate(ids):
            for b in ids[i + 1 :]:
                (al, at, ar, ab), (bl, bt, br, bb) = box[a], box[b]
                across, down = min(ar, br) - max(al, bl), min(ab, bb) - max(at, bt)
                if across <= 0 or down <= 0:
                    continue
                moved = True
                axis = 0 if across < down else 1
                sign = 1.0 if centres[b][axis] >= centres[a][axis] else -1.0
                push = (min(across, down) + 1 / px) / 2
                centres[a][axis] -= sign * push
                centres[b][axis] += sign * push
        if not moved:
            return


def _sunflower(i: int, step: float) -> tuple[float, float]:
    """The ``i``-th point of a disc filled evenly from its centre, about ``step`` apart."""
    radius, angle = step * math.sqrt(i), i * GOLDEN_ANGLE
    return radius * math.cos(angle), radius * math.sin(angle)


def _spring(H: nx.Graph, *, seed: int, scale: float, weight: str | None = None) -> dict[Any, tuple[float, float]]:
    """Fruchterman-Reingold positions from igraph (in C), in a box of half-width ``scale``.

    networkx's spring layout runs in Python and took seconds for a 2,000-node page.
    """
    import igraph

    nodes = sorted(H, key=str)
    if len(nodes) == 1:
        return {nodes[0]: (0.0, 0.0)}
    index = {n: i for i, n in enumerate(nodes)}
    edges = sorted((*sorted((index[u], index[v])), w) for u, v, w in H.edges(data=weight or "weight", default=1.0))
    g = igraph.Graph(n=len(nodes), edges=[(u, v) for u, v, _ in edges])
    rng = random.Random(seed)
    start = [[rng.uniform(-1, 1), rng.uniform(-1, 1)] for _ in nodes]
    igraph.set_random_number_generator(rng)
    try:
        weights = [w for *_, w in edges] if weight else None
        coords = g.layout_fruchterman_reingold(seed=start, niter=200, weights=weights).coords
    finally:
        igraph.set_random_number_generator(random)
    cx = sum(x for x, _ in coords) / len(coords)
    cy = sum(y for _, y in coords) / len(coords)
    half = max(max(abs(x - cx), abs(y - cy)) for x, y in coords) or 1.0
    return {n: ((x - cx) / half * scale, (y - cy) / half * scale) for n, (x, y) in zip(nodes, coords, strict=True)}


def grouped_layout(
    H: nx.Graph,
    groups: Mapping[Any, int],
    *,
    seed: int,
    score: Mapping[Any, float] | None = None,
    labels: Mapping[int, float] | None = None,
    fill: float = 1 / 3,
) -> tuple[dict[Any, tuple[float, float]], dict[int, tuple[float, float]], dict[int, float]]:
    """Positions with each group (community) laid out on its own, in a disc, the discs apart.

    The discs' centres come from a spring layout of the groups, each pair pulled together by
    the edges between them, spread until the discs fill about ``fill`` of the drawing, then
    pushed apart until no two discs overlap. With ``labels``
    (group -> the width in pixels of the label a map draws under its circle), pushed apart
    until, the drawing fitted into a :data:`WINDOW`, no label covers another disc or label.
    Returns the node positions, each group's centre and its disc's radius.
    """
    members: dict[int, list[Any]] = {}
    for n in sorted(H, key=str):
        members.setdefault(groups[n], []).append(n)
    local: dict[int, dict[Any, tuple[float, float]]] = {}
    radius: dict[int, float] = {}
    for g, nodes in sorted(members.items()):
        pos = layout(induced(H, nodes), seed=seed, score=score)
        x0, y0, x1, y1 = _box(pos)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        local[g] = {n: (x - cx, y - cy) for n, (x, y) in pos.items()}
        radius[g] = max(math.hypot(x, y) for x, y in local[g].values()) + 30
    S = nx.Graph()
    S.add_nodes_from(sorted(members))
    for u, v in H.edges():
        a, b = groups[u], groups[v]
        if a != b:
            w = S.edges[a, b]["weight"] if S.has_edge(a, b) else 0
            S.add_edge(a, b, weight=w + 1)
    unit = _spring(S, seed=seed, scale=1.0, weight="weight")
    ids = sorted(unit)
    # spread so that the discs would fill about ``fill`` of the drawing, then part the overlapping ones
    area = sum(math.pi * radius[g] ** 2 for g in ids)
    scale = math.sqrt(area / fill / math.pi) if len(ids) > 1 else 0.0
    centres = {g: [unit[g][0] * scale, unit[g][1] * scale] for g in ids}
    for _ in range(200):
        moved = False
        for i, a in enumerate(ids):
            for b in ids[i + 1 :]:
                (ax, ay), (bx, by) = centres[a], centres[b]
                d = math.hypot(bx - ax, by - ay)
                need = radius[a] + radius[b] + 40
                if d >= need:
                    continue
                moved = True
                ux, uy = ((bx - ax) / d, (by - ay) / d) if d > 1e-6 else (1.0, 0.0)
                push = (need - d) / 2
                centres[a] = [ax - ux * push, ay - uy * push]
                centres[b] = [bx + ux * push, by + uy * push]
        if not moved:
            break
    if labels:
        _make_room(centres, radius, labels)
    at = {g: (round(x, 1), round(y, 1)) for g, (x, y) in centres.items()}
    placed = {
        n: (round(at[g][0] + x, 1), round(at[g][1] + y, 1)) for g, pos in local.items() for n, (x, y) in pos.items()
    }
    return placed, at, radius
