"""Communities of papers in a view of papers and concepts, and the map of a view too big to draw node by node.

A page of a few thousand dots is a grey hairball. Above :data:`OVERVIEW_NODES` nodes the graph
page opens as a map instead: one summary node per community of papers (size: its papers, label:
its name), linked by how many of one community's papers mention the other's concepts. Each
community opens in place, its papers and concepts laid out in a disc around where its summary
node stood.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
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
    kept = _largest(size)
    return {n: k if k in kept else NONE for n, k in groups.items()}


def _largest(size: Mapping[int, int]) -> set[int]:
    """The communities a map draws: the :data:`MOST` largest of at least :data:`MIN_SIZE`."""
    ranked = sorted((k for k in size if k != NONE), key=lambda k: (-size[k], k))
    return {k for k in ranked[:MOST] if size[k] >= MIN_SIZE}


@dataclass
class Overview:
    """The communities of a view as a map: who is in each, and how strongly each pair is linked."""

    #: community number -> its member nodes (papers and concepts), in id order
    members: dict[int, list[Any]]
    #: community number -> papers in it (in the view; its members in a view of concepts)
    papers: dict[int, int]
    #: (a, b, weight), a < b: the links the map draws
    links: list[tuple[int, int, int]] = field(default_factory=list)
    #: community number -> its members in the whole view, where ``members`` holds only those a page keeps
    sizes: dict[int, int] = field(default_factory=dict)


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
    return Overview(members=dict(sorted(members.items())), papers=dict(papers), links=_strongest(weight, members))


def _strongest(weight: Mapping[tuple[int, int], int], communities: Iterable[int]) -> list[tuple[int, int, int]]:
    """The links a map draws: each community's :data:`LINKS_PER_COMMUNITY` strongest, as (a, b, weight)."""
    strongest: set[tuple[int, int]] = set()
    for k in communities:
        mine = sorted((pair for pair in weight if k in pair), key=lambda pair: (-weight[pair], pair))
        strongest.update(mine[:LINKS_PER_COMMUNITY])
    return [(a, b, weight[(a, b)]) for a, b in sorted(strongest)]


@dataclass(frozen=True)
class WholeMap:
    """The map of a whole view of papers and concepts, for a page that draws only its most important nodes.

    Such a page keeps the most connected nodes of a large corpus, mostly concepts: the map it
    opens as shows the communities, sizes and links of all the view's papers, not only of the
    few kept beside them. Made from counts (:func:`whole_map`), which a store can give without
    reading the graph (:mod:`kg.viz.stored`), or from the view itself (:func:`map_of_view`).
    """

    #: the communities of papers the map draws (:func:`coarsen`'s)
    shown: frozenset[int]
    #: concept node -> the commonest community of its papers (ties: the lower number), where the map draws it
    concepts: dict[Any, int]
    #: community (:data:`NONE` too) -> its papers in the whole view
    papers: dict[int, int]
    #: community (:data:`NONE` too) -> its papers and concepts in the whole view
    sizes: dict[int, int]
    #: (a, b, weight), a < b: papers of one mentioning concepts of the other, the links the map draws
    links: list[tuple[int, int, int]]

    def group(self, n: Any, d: Mapping[str, Any]) -> int:
        """Node ``n``'s community on the map (attributes ``d``), :data:`NONE` if none is drawn."""
        if d.get("kind") == "Paper":
            k = d.get("community")
            return k if k in self.shown else NONE
        return self.concepts.get(n, NONE)

    def kept(self, groups: Mapping[Any, int]) -> Overview:
        """The map for the nodes a page keeps (``groups``: each one's community): the whole
        communities that have a kept member, with their kept members."""
        members: dict[int, list[Any]] = defaultdict(list)
        for n in sorted(groups, key=str):
            members[groups[n]].append(n)
        return Overview(
            members=dict(sorted(members.items())),
            papers={k: self.papers.get(k, 0) for k in members},
            links=[(a, b, w) for a, b, w in self.links if a in members and b in members],
            sizes={k: self.sizes.get(k, 0) for k in members},
        )


def whole_map(
    papers: Mapping[int, int], mentions: Iterable[tuple[int, Any, int]], *, n_papers: int, n_nodes: int
) -> WholeMap | None:
    """The map of a whole view from counts: ``papers``, community of papers (>= 0) -> its papers;
    ``mentions``, (community, concept, n): n papers of the community mention the concept (one row
    per community and concept);
    ``n_papers`` and ``n_nodes``, the papers and nodes in the view. None if under two communities.

    Each concept goes to the commonest community of its papers, as :func:`paper_groups` puts it.

    >>> m = whole_map({0: 3, 1: 4, 2: 1}, [(0, "x", 3), (1, "x", 1), (1, "y", 4), (2, "y", 1)], n_papers=9,
    ...               n_nodes=11)
    >>> sorted(m.shown), m.concepts, m.papers, m.sizes, m.links
    ([0, 1], {'x': 0, 'y': 1}, {0: 3, 1: 4, -1: 2}, {0: 4, 1: 5, -1: 2}, [(0, 1, 1)])
    """
    shown = frozenset(_largest(papers))
    if len(shown) < 2:
        return None
    # two passes over the rows, no table per concept: a store's are 1.5 million for 150,965 arXiv
    # ML papers (10.8 s with a table of communities per concept, 2 s so)
    rows = mentions if isinstance(mentions, list) else list(mentions)
    best: dict[Any, tuple[int, int]] = {}
    for k, c, n in rows:
        top = best.get(c)
        if top is None or n > top[0] or (n == top[0] and k < top[1]):
            best[c] = (n, k)
    concepts = {c: k for c, (_, k) in best.items() if k in shown}
    weight: Counter[tuple[int, int]] = Counter()
    for a, c, n in rows:
        b = concepts.get(c, NONE)
        if b != NONE and a != b and a in shown:
            weight[(min(a, b), max(a, b))] += n
    count = {k: papers[k] for k in sorted(shown)}
    placed = Counter(concepts.values())
    sizes = {k: count[k] + placed[k] for k in count}
    return WholeMap(
        shown=shown,
        concepts=concepts,
        papers=count | {NONE: n_papers - sum(count.values())},
        sizes=sizes | {NONE: n_nodes - sum(sizes.values())},
        links=_strongest(weight, sorted(shown)),
    )


def map_of_view(H: nx.Graph) -> WholeMap | None:
    """The :class:`WholeMap` of a view of papers and concepts (None for any other view).

    ``H`` may also be the knowledge graph itself: only its ``MENTIONS`` count, so the map is that of
    its :func:`kg.viz.views.full_view`, without building the view.
    """
    kinds = {d.get("kind") for _, d in H.nodes(data=True)}
    if "Paper" not in kinds or len(kinds) < 2:
        return None
    papers: Counter[int] = Counter()
    community: dict[Any, int] = {}
    for n, d in H.nodes(data=True):
        k = d.get("community")
        if d.get("kind") == "Paper" and isinstance(k, int) and k >= 0:
            papers[k] += 1
            community[n] = k
    mentions: Counter[tuple[int, Any]] = Counter()
    for u, v, rel in H.edges(data="rel"):
        if rel not in (None, "MENTIONS"):
            continue
        for p, c in ((u, v), (v, u)):
            if p in community and H.nodes[c].get("kind") != "Paper":
                mentions[(community[p], c)] += 1
    n_papers = sum(1 for _, d in H.nodes(data=True) if d.get("kind") == "Paper")
    return whole_map(papers, ((k, c, n) for (k, c), n in mentions.items()), n_papers=n_papers,
                     n_nodes=H.number_of_nodes())  # fmt: skip
