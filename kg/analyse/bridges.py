"""Bridge concepts: concepts whose co-occurrence links spread over several communities.

Spread alone ranks a concept of a few scattered links first: on 10,000 arXiv ML abstracts of 2025
the report's bridges had opened with "supervised training", "post-training phase" and "random
sampling" (10 to 12 co-occurrences each, over 5 communities) before "knowledge distillation"
(141, over 9). The concepts that fields share are the hubs of their own community that reach the
others, Guimerà and Amaral's connector hubs (2005): links within the community at least
``HUB_Z`` standard deviations above its concepts' average. They come first, by spread, then the
others, by spread.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from statistics import fmean, pstdev

import networkx as nx

#: Within-community link weight, in standard deviations above the community's mean, that makes a
#: hub (Guimerà and Amaral, 2005).
HUB_Z = 2.5


@dataclass(frozen=True, slots=True)
class Bridge:
    """A concept linked into several communities."""

    node: str
    name: str
    #: Participation coefficient: 0 when all its links stay in one community, towards 1 when spread evenly.
    score: float
    #: The communities its links reach, most weight first.
    communities: tuple[int, ...]
    #: Its summed link weight.
    strength: float
    #: Its link weight within its own community, in standard deviations above that community's
    #: concepts' mean (``within_z``); from ``HUB_Z`` on, a hub.
    hub: float = 0.0


def participation(H: nx.Graph, membership: Mapping[str, int]) -> dict[str, float]:
    """Weighted participation coefficient of every node of ``H``: ``1 - sum_s (w_s / w)^2``.

    ``w_s`` is the node's link weight into community ``s`` and ``w`` its total link weight
    (Guimerà and Amaral, 2005); a node without links scores 0.

    Examples
    --------
    >>> H = nx.Graph([("a", "x"), ("a", "y")])
    >>> participation(H, {"a": 0, "x": 0, "y": 1})
    {'a': 0.5, 'x': 0.0, 'y': 0.0}
    """
    return {n: _participation(spread) for n, spread in _spreads(H, membership).items()}


def within_z(H: nx.Graph, membership: Mapping[str, int]) -> dict[str, float]:
    """Each node's link weight within its own community as a z-score among that community's nodes
    (Guimerà and Amaral's within-module degree, weighted); 0 for a node in no community or in a
    community whose nodes are all alike.

    >>> H = nx.star_graph(4)
    >>> {n: round(z, 2) for n, z in within_z(H, dict.fromkeys(map(str, H), 0)).items()}
    {'0': 2.0, '1': -0.5, '2': -0.5, '3': -0.5, '4': -0.5}
    """
    return _within_z(_spreads(H, membership), membership)


def bridges(H: nx.Graph, membership: Mapping[str, int], *, min_degree: int = 3) -> list[Bridge]:
    """Concepts with at least ``min_degree`` links reaching two or more communities, best bridge first.

    The hubs of their community (``hub`` >= ``HUB_Z``) first, then the others; each by
    participation coefficient, then by link weight (a well-linked bridge before a barely linked
    one with the same spread). Names come from the nodes' ``name``.

    Examples
    --------
    >>> H = nx.Graph([("a", "b"), ("b", "c"), ("c", "a"), ("x", "y"), ("y", "z"), ("z", "x"), ("m", "a"),
    ...               ("m", "b"), ("m", "x"), ("m", "y")])
    >>> membership = {"a": 0, "b": 0, "c": 0, "m": 0, "x": 1, "y": 1, "z": 1}
    >>> [(b.node, b.score, b.communities) for b in bridges(H, membership)][:1]
    [('m', 0.5, (0, 1))]
    """
    spreads = _spreads(H, membership)  # (each node's, once: the scores below all read them)
    hubs = _within_z(spreads, membership)
    result = []
    for n in H:
        spread = spreads[str(n)]
        if H.degree(n) < min_degree or len(spread) < 2:
            continue
        reached = tuple(sorted(spread, key=lambda s: (-spread[s], s)))
        name = str(H.nodes[n].get("name") or n)
        strength = sum(spread.values())
        result.append(Bridge(str(n), name, _participation(spread), reached, strength, hubs.get(str(n), 0.0)))
    return sorted(result, key=lambda b: (b.hub < HUB_Z, -b.score, -b.strength, b.node))


def _spreads(H: nx.Graph, membership: Mapping[str, int]) -> dict[str, dict[int, float]]:
    """Each node's link weight per community of its neighbours (:func:`_spread`)."""
    return {str(n): _spread(H, n, membership) for n in H}


def _participation(spread: Mapping[int, float]) -> float:
    total = sum(spread.values())
    return 1.0 - sum((w / total) ** 2 for w in spread.values()) if total else 0.0


def _within_z(spreads: Mapping[str, Mapping[int, float]], membership: Mapping[str, int]) -> dict[str, float]:
    inside: dict[int, dict[str, float]] = defaultdict(dict)
    for n, spread in spreads.items():
        s = membership.get(n, -1)
        if s >= 0:
            inside[s][n] = spread.get(s, 0.0)
    result: dict[str, float] = {}
    for weights in inside.values():
        mean, sd = fmean(weights.values()), pstdev(weights.values())
        result.update({n: (w - mean) / sd if sd else 0.0 for n, w in weights.items()})
    return result


def _spread(H: nx.Graph, n: object, membership: Mapping[str, int]) -> dict[int, float]:
    # Link weight per community of the neighbours; neighbours in no community are left out.
    spread: dict[int, float] = defaultdict(float)
    for other, d in H[n].items():
        s = membership.get(str(other), -1)
        if s >= 0:
            spread[s] += float(d.get("weight", 1.0))
    return dict(spread)
