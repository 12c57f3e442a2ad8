"""Bridge concepts: concepts whose co-occurrence links spread over several communities."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

import networkx as nx


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
    result = {}
    for n in H:
        spread = _spread(H, n, membership)
        total = sum(spread.values())
        result[str(n)] = 1.0 - sum((w / total) ** 2 for w in spread.values()) if total else 0.0
    return result


def bridges(H: nx.Graph, membership: Mapping[str, int], *, min_degree: int = 3) -> list[Bridge]:
    """Concepts with at least ``min_degree`` links reaching two or more communities, best bridge first.

    Ranked by participation coefficient, then by link weight (a well-linked bridge before a
    barely linked one with the same spread). Names come from the nodes' ``name``.

    Examples
    --------
    >>> H = nx.Graph([("a", "b"), ("b", "c"), ("c", "a"), ("x", "y"), ("y", "z"), ("z", "x"), ("m", "a"),
    ...               ("m", "b"), ("m", "x"), ("m", "y")])
    >>> membership = {"a": 0, "b": 0, "c": 0, "m": 0, "x": 1, "y": 1, "z": 1}
    >>> [(b.node, b.score, b.communities) for b in bridges(H, membership)][:1]
    [('m', 0.5, (0, 1))]
    """
    scores = participation(H, membership)
    result = []
    for n in H:
        if H.degree(n) < min_degree:
            continue
        spread = _spread(H, n, membership)
        if len(spread) < 2:
            continue
        reached = tuple(sorted(spread, key=lambda s: (-spread[s], s)))
        name = str(H.nodes[n].get("name") or n)
        strength = sum(spread.values())
        result.append(Bridge(node=str(n), name=name, score=scores[str(n)], communities=reached, strength=strength))
    return sorted(result, key=lambda b: (-b.score, -b.strength, b.node))


def _spread(H: nx.Graph, n: object, membership: Mapping[str, int]) -> dict[int, float]:
    # Link weight per community of the neighbours; neighbours in no community are left out.
    spread: dict[int, float] = defaultdict(float)
    for other, d in H[n].items():
        s = membership.get(str(other), -1)
        if s >= 0:
            spread[s] += float(d.get("weight", 1.0))
    return dict(spread)
