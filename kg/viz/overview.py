"""Communities of papers in a view of papers and concepts, and the map of a view too big to draw node by node.

A page of a few thousand dots is a grey hairball. Above :data:`OVERVIEW_NODES` nodes the graph
page opens as a map instead: one summary node per community of papers (size: its papers, label:
its name), linked by how many of one community's papers mention the other's concepts. Each
community opens in place, its papers and concepts laid out in a disc around where its summary
node stood.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

#: Views with more nodes than this open as the map of their communities.
OVERVIEW_NODES = 1000
#: The links each community keeps on the map: its strongest ones (all of them make a hairball too).
LINKS_PER_COMMUNITY = 3
#: A concept or paper in no community of papers.
NONE = -1
#: The map draws at most this many communities, each of at least MIN_SIZE members; the rest are one "other".
MOST = 24
MIN_SIZE = 3


def paper_groups(H: nx.Graph) -> dict[Any, int]:
    """Each node's community of papers: a paper's own, a concept's the commonest among its papers here.

    Ties go to the lower community number; a node with neither is in :data:`NONE`.

    >>> H = nx.Graph([("paper:a", "concept:x"), ("paper:b", "concept:x"), ("paper:c", "concept:y")])
    >>> for p, k in (("paper:a", 1), ("paper:b", 1), ("paper:c", 0)):
    ...     H.nodes[p].update(kind="Paper", community=k)
    >>> sorted(paper_groups(H).items())
    [('concept:x', 1), ('concept:y', 0), ('paper:a', 1), ('paper:b', 1), ('paper:c', 0)]
    """
    groups: dict[Any, int] = {}
    for n, d in H.nodes(data=True):
        if d.get("kind") == "Paper":
            k = d.get("community")
            groups[n] = k if isinstance(k, int) and k >= 0 else NONE
    for n in H:
        if n in groups:
            continue
        votes = Counter(groups[m] for m in H[n] if groups.get(m, NONE) != NONE)
        groups[n] = min(votes, key=lambda k: (-votes[k], k)) if votes else NONE
    return groups


def coarsen(H: nx.Graph, groups: Mapping[Any, int]) -> dict[Any, int]:
    """``groups`` with the communities too small or too many for a map (:data:`MOST`, :data:`MIN_SIZE`) in :data:`NONE`.

    Size counts papers where the view has papers, else members.

    >>> H = nx.path_graph(["a", "b", "c", "d"])
    >>> coarsen(H, {"a": 0, "b": 0, "c": 0, "d": 1})
    {'a': 0, 'b': 0, 'c': 0, 'd': -1}
    """
    papers = any(d.get("kind") == "Paper" for _, d in H.nodes(data=True))
    size = Counter(k for n, k in groups.items() if not papers or H.nodes[n].get("kind") == "Paper")
    kept = {k for k in sorted(size, key=lambda k: (-size[k], k))[:MOST] if k != NONE and size[k] >= MIN_SIZE}
    return {n: k if k in kept else NONE for n, k in groups.items()}


@dataclass
class Overview:
    """The communities of a view as a map: who is in each, and how strongly each pair is linked."""

    #: community number -> its member nodes (papers and concepts), in id order
    members: dict[int, list[Any]]
    #: community number -> papers in it (in the view; its members in a view of concepts)
    papers: dict[int, int]
    #: (a, b, weight), a < b: the links the map draws
    links: list[tuple[int, int, int]] = field(default_factory=list)


def overview(H: nx.Graph, groups: Mapping[Any, int]) -> Overview:
    """The map of ``H`` by ``groups`` (:func:`paper_groups`).

    The weight of a link between two communities is the number of ``H``'s edges from a member of
    one to a member of the other (a paper of one mentioning a concept of the other, or two
    papers sharing concepts); each community keeps its :data:`LINKS_PER_COMMUNITY` strongest.
    """
    members: dict[int, list[Any]] = defaultdict(list)
    papers: Counter[int] = Counter()
    any_paper = any(d.get("kind") == "Paper" for _, d in H.nodes(data=True))
    for n in sorted(H, key=str):
        members[groups[n]].append(n)
        if H.nodes[n].get("kind") == "Paper" or not any_paper:
            papers[groups[n]] += 1
    weight: Counter[tuple[int, int]] = Counter()
    for u, v in H.edges():
        a, b = groups[u], groups[v]
        if a != b and NONE not in (a, b):
            weight[(min(a, b), max(a, b))] += 1
    strongest: set[tuple[int, int]] = set()
    for k in members:
        mine = sorted((pair for pair in weight if k in pair), key=lambda pair: (-weight[pair], pair))
        strongest.update(mine[:LINKS_PER_COMMUNITY])
    links = [(a, b, weight[(a, b)]) for a, b in sorted(strongest)]
    return Overview(members=dict(sorted(members.items())), papers=dict(papers), links=links)
