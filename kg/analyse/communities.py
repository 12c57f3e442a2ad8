"""Louvain communities of concepts and of papers, each named by its most characteristic concepts."""

from __future__ import annotations

import math
import random
from array import array
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass

import networkx as nx
import numpy as np

from kg.link.papers import UNLINKED_TYPES
from kg.memory import give_back_memory
from kg.normalise.specificity import is_acronym

#: A concept names a community of papers only if at least this many of its papers mention it
#: (any concept may, in a community where none is mentioned so often).
NAMING_PAPERS = 2

#: How far down its ranked concepts a community's name may look for a first concept that no larger
#: community's name starts with (:func:`_named`).
LEAD_SEARCH = 5

#: Links handed to igraph at a time (:func:`louvain`).
EDGE_CHUNK = 65_536


@dataclass(frozen=True, slots=True)
class Community:
    """One community: its number (0 is the largest), size, label and the concepts the label names."""

    number: int
    size: int
    label: str
    #: Node ids of the community's most characteristic concepts, best first.
    top: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Communities:
    """A partition of the concepts (``kind="Concept"``) or the papers (``kind="Paper"``)."""

    kind: str
    #: Node id -> community number; nodes without a link belong to none and are absent.
    membership: dict[str, int]
    #: Largest first; ``communities[i].number == i``.
    communities: list[Community]

    def of(self, node: str) -> int:
        """The community number of ``node``, or -1 when it is in none."""
        return self.membership.get(node, -1)


def louvain(H: nx.Graph, *, seed: int = 7, resolution: float = 1.0) -> dict[Hashable, int]:
    """Louvain communities of the linked nodes of ``H`` (``weight``), numbered 0 = the largest.

    Runs igraph's Louvain (Blondel et al.'s multilevel algorithm, in C) with igraph's random
    numbers drawn from ``random.Random(seed)``: networkx's ``louvain_communities`` took 78 s on
    the paper graph of the full ACL corpus (62k papers, 900k links), igraph 6 s.
    Ties in size are broken by the smallest node id, so the numbering is reproducible, and the
    order nodes and edges were added in does not matter. Nodes without links are left out.

    Examples
    --------
    >>> H = nx.Graph([(1, 2), (2, 3), (1, 3), (4, 5)])
    >>> H.add_node(6)
    >>> louvain(H)
    {1: 0, 2: 0, 3: 0, 4: 1, 5: 1}
    """
    import igraph

    # The links' ends and weights in typed arrays, not a tuple per link (a corpus's paper graph has
    # 2.2 million), read in one pass: a paper projection reads a node's links from the knowledge
    # graph each time they are asked for. The linked nodes are numbered as they are met, then in
    # sorted order, so the result does not depend on the order the graph was built in.
    met: dict[Hashable, int] = {}
    at, weighed = array("q"), array("d")
    for u, v, w in H.edges(data="weight", default=1.0):
        at.append(met.setdefault(u, len(met)))
        at.append(met.setdefault(v, len(met)))
        weighed.append(float(w))
    if not met:
        return {}
    nodes = sorted(met, key=str)
    renumber = np.empty(len(nodes), dtype=np.int64)
    renumber[[met[n] for n in nodes]] = np.arange(len(nodes))
    m = len(weighed)
    ends = renumber[np.frombuffer(at, dtype=np.int64)].reshape(m, 2)
    del at, met
    ends.sort(axis=1)
    weights = np.frombuffer(weighed, dtype=float)
    order = np.lexsort((weights, ends[:, 1], ends[:, 0]))
    # added in chunks: made at once, the graph took +125 MB while it was built, +29 MB once built
    # (a corpus's paper graph), in chunks +42 MB, with the same edges in the same order
    g = igraph.Graph(n=len(nodes))
    for start in range(0, m, EDGE_CHUNK):
        g.add_edges(ends[order[start : start + EDGE_CHUNK]])
    weights = weights[order]
    igraph.set_random_number_generator(random.Random(seed))
    try:
        found = g.community_multilevel(weights=weights, resolution=resolution)
    finally:
        igraph.set_random_number_generator(random)
    parts: dict[int, list[Hashable]] = defaultdict(list)
    for n, part in zip(nodes, found.membership, strict=True):
        parts[part].append(n)
    ranked = sorted(parts.values(), key=lambda c: (-len(c), min(map(str, c))))
    return {n: i for i, members in enumerate(ranked) for n in sorted(members, key=str)}


def communities(
    H: nx.Graph, G: nx.DiGraph, *, seed: int = 7, resolution: float = 1.0, label_size: int = 3
) -> Communities:
    """Louvain communities of a projection, each labelled by its most characteristic concepts.

    ``H`` is :func:`~kg.analyse.concept_graph` or :func:`~kg.analyse.paper_graph` of the
    knowledge graph ``G``. A concept is characteristic of a community when much of the
    community is about it and it is about the community more than chance would have it::

        score = (share of the community's mass it carries)
                * log((share of its own mass inside the community) / (the community's share of all mass))

    For concept communities the mass is co-occurrence weight; for paper communities it is the
    member papers that mention the concept (at least two when the community has such
    concepts). A concept linked everywhere scores near zero however big it is, so a label
    names what sets the community apart, not the corpus's commonest words (a tf-idf of
    concepts over communities, in effect); generic concepts never name one. A name starts with a
    concept no larger community's name starts with, where one of its best few is such a concept.

    Parameters
    ----------
    H
        The projection to partition (``weight`` on its edges).
    G
        The knowledge graph, for concept names and the concepts of each paper.
    seed, resolution
        Louvain's seed and resolution (higher: more, smaller communities).
    label_size
        Concepts named in each label.

    Returns
    -------
    Communities

    Examples
    --------
    >>> G = nx.DiGraph()
    >>> for k in "abcdef":
    ...     G.add_node(f"concept:{k}", kind="Concept", key=k, name=k.upper())
    >>> G.add_edges_from([("concept:a", "concept:b"), ("concept:b", "concept:c"), ("concept:a", "concept:c"),
    ...                   ("concept:d", "concept:e"), ("concept:e", "concept:f"), ("concept:d", "concept:f"),
    ...                   ("concept:c", "concept:d")], rel="CO_OCCURS", weight=1)
    >>> from kg.analyse.graphs import concept_graph
    >>> parts = communities(concept_graph(G), G, label_size=2)
    >>> [(c.number, c.size, c.label) for c in parts.communities]
    [(0, 3, 'A, B'), (1, 3, 'E, F')]
    """
    membership: dict[str, int] = {str(n): i for n, i in louvain(H, seed=seed, resolution=resolution).items()}
    give_back_memory()  # igraph's, before the masses' counts (Python's own arenas cannot reuse it)
    kinds = {d.get("kind") for _, d in H.nodes(data=True)}
    kind = "Paper" if kinds == {"Paper"} else "Concept"
    masses = _paper_mass(G, membership) if kind == "Paper" else _concept_mass(H, membership)
    named = _named(kind, Counter(membership.values()), *masses, G, label_size)
    return Communities(kind=kind, membership=membership, communities=named)


def name_communities(
    kind: str, membership: Mapping[str, int], G: nx.DiGraph, *, H: nx.Graph | None = None, label_size: int = 3
) -> list[Community]:
    """The communities of a ``membership`` the analyse stage stored, named as :func:`communities` names them.

    ``G`` is the knowledge graph; concept communities also need their projection ``H``
    (:func:`~kg.analyse.concept_graph`).

    >>> G = nx.DiGraph()
    >>> G.add_node("concept:x", kind="Concept", name="X")
    >>> G.add_edge("paper:a", "concept:x", rel="MENTIONS"); G.add_edge("paper:b", "concept:x", rel="MENTIONS")
    >>> [(c.number, c.size, c.label) for c in name_communities("Paper", {"paper:a": 0, "paper:b": 0}, G)]
    [(0, 2, 'X')]
    """
    masses = _paper_mass(G, membership) if kind == "Paper" else _concept_mass(H if H is not None else G, membership)
    return _named(kind, Counter(membership.values()), *masses, G, label_size)


def name_paper_communities(
    counts: Mapping[int, Mapping[str, int]],
    sizes: Mapping[int, int],
    G: nx.DiGraph,
    *,
    label_size: int = 3,
    overall: Mapping[str, float] | None = None,
) -> list[Community]:
    """Paper communities named from how many member papers mention each concept (what a store can count).

    ``counts[k][c]``: the papers of community ``k`` that mention concept ``c``; ``sizes[k]``:
    the papers in ``k``; ``G`` holds at least the concepts counted (their names and ``generic``).
    ``overall[c]``: the papers of all communities that mention ``c``, if ``counts`` holds only
    the concepts that may name a community (summed from ``counts`` if not given).
    Gives the labels :func:`communities` gave the same papers.
    """
    inside = {k: {c: float(n) for c, n in cnt.items()} for k, cnt in counts.items()}
    if overall is None:
        summed: dict[str, float] = defaultdict(float)
        for cnt in counts.values():
            for c, n in cnt.items():
                summed[c] += n
        overall = summed
    totals = {k: float(n) for k, n in sizes.items()}
    return _named("Paper", sizes, inside, overall, totals, G, label_size)


def _named(
    kind: str,
    sizes: Mapping[int, int],
    inside: Mapping[int, Mapping[str, float]],
    overall: Mapping[str, float],
    totals: Mapping[int, float],
    G: nx.DiGraph,
    label_size: int,
) -> list[Community]:
    min_inside = float(NAMING_PAPERS) if kind == "Paper" else 0.0
    grand = sum(totals.values()) or 1.0
    # nor does a concept of most papers, unless nothing else does: "large language models" (174 of
    # the default sample's 300) had named a community of papers on quantization beside
    # "post-training quantization"
    common = {c for c, w in overall.items() if w > grand / 2} if kind == "Paper" else set()
    result = []
    leads: set[str] = set()  # the concepts the larger communities' names start with
    for number in sorted(sizes):
        ranked = _characteristic(inside.get(number, {}), overall, totals[number], totals[number] / grand, min_inside)
        # generic concepts ("computational cost", "experimental result") name nothing in particular
        ranked = [c for c in ranked if not (c in G and G.nodes[c].get("generic"))]
        # a metric says how the work is scored, not what it is about: it names a community last
        # ("accuracy, transformer, convolutional neural networks" had named the arXiv sample's)
        ranked.sort(key=lambda c: c in G and G.nodes[c].get("type") in UNLINKED_TYPES)
        more = _distinct((c for c in ranked if c not in common), G, label_size + LEAD_SEARCH) or _distinct(
            ranked, G, label_size + LEAD_SEARCH
        )
        top = more[:label_size]
        # a page's map labels each community's circle with the first concept of its name: that
        # one is its own ("large language models" had begun the names of two communities of the
        # arXiv ML corpus, "..., mathematical reasoning" and "..., machine translation")
        lead = next((c for c in more if c not in leads), None)
        if lead is not None and top and lead != top[0]:
            top = [lead, *(c for c in top if c != lead)][:label_size]
        leads.update(top[:1])
        label = ", ".join(_name(G, c) for c in top)
        result.append(Community(number=number, size=sizes[number], label=label, top=tuple(top)))
    return result


def _distinct(ranked: Iterable[str], G: nx.DiGraph, n: int) -> list[str]:
    """The first ``n`` of ``ranked`` that say something the ones before did not: a concept whose
    key's words hold, or are held by, those of one taken before is left out ("model merging,
    merging" -> "model merging"; "MoE LLMs, MoE" -> "MoE LLMs")."""
    taken: list[str] = []
    words: list[set[str]] = []
    for c in ranked if n > 0 else ():
        mine = set(str(G.nodes[c].get("key") or c).split()) if c in G else {c}
        if not any(mine <= w or w <= mine for w in words):
            taken.append(c)
            words.append(mine)
            if len(taken) == n:
                break
    return taken


#: What names communities: each community's mass of each concept, each concept's mass, each community's.
_Masses = tuple[Mapping[int, Mapping[str, float]], Mapping[str, float], Mapping[int, float]]


def _concept_mass(H: nx.Graph, membership: Mapping[str, int]) -> _Masses:
    # inside[K][c]: c's co-occurrence weight with the other members of K; overall[c]: all its weight;
    # totals[K]: the summed weight of K's members (K's share of the whole graph).
    inside: dict[int, dict[str, float]] = defaultdict(dict)
    overall: dict[str, float] = {}
    totals: dict[int, float] = defaultdict(float)
    for c, k in membership.items():
        w_in = w_all = 0.0
        for other, d in H[c].items():
            w = float(d.get("weight", 1.0))
            w_all += w
            if membership.get(str(other)) == k:
                w_in += w
        overall[c] = w_all
        totals[k] += w_all
        if w_in > 0:
            inside[k][c] = w_in
    return inside, overall, totals


def _paper_mass(G: nx.DiGraph, membership: Mapping[str, int]) -> _Masses:
    # inside[K][c]: member papers of K that mention c; overall[c]: papers in any community that do;
    # totals[K]: the size of K. Counts, not floats: they give the same scores (an int divides as
    # its float does), and a float copy of every (community, concept) count was the analyse
    # stage's peak (61,839 ACL papers: +94 MB).
    counts: dict[int, Counter[str]] = defaultdict(Counter)
    overall: Counter[str] = Counter()
    totals: dict[int, float] = defaultdict(float)
    for p, k in membership.items():
        totals[k] += 1
        concepts = [c for c, d in G.succ[p].items() if d.get("rel") == "MENTIONS"]
        counts[k].update(concepts)
        overall.update(concepts)
    return counts, overall, totals


def _characteristic(
    inside: Mapping[str, float], overall: Mapping[str, float], total: float, share: float, min_inside: float
) -> list[str]:
    candidates = [c for c, w in inside.items() if w >= min_inside] or list(inside)
    total = total or 1.0
    share = share or 1.0

    def score(c: str) -> float:
        w = inside[c]
        return (w / total) * math.log((w / overall[c]) / share) if overall[c] else 0.0

    return sorted(candidates, key=lambda c: (-score(c), -inside[c], c))


#: The longest concept name a community's name says whole; a longer one is said by its acronym
#: (``aliases``), or cut.
NAME_CHARS = 40

#: The longest acronym that says a concept in a community's name: "RLHF", "GRPO", "3DGS", "LLaMA"...
ACRONYM_CHARS = 10


def _name(G: nx.DiGraph, node: str) -> str:
    """How a community's name says concept ``node``: its name, or for a name over :data:`NAME_CHARS`
    an acronym of it ("RLHF", not "reinforcement learning from human feedb…"), or its name cut."""
    d = G.nodes[node] if node in G else {}
    name = str(d.get("name") or d.get("key") or node.removeprefix("concept:"))
    if len(name) <= NAME_CHARS:
        return name
    acronyms = [a for a in d.get("aliases") or () if len(a) <= ACRONYM_CHARS and is_acronym(a)]
    # the fullest ("RLHF" before an "RL" of the same concept), then the shortest
    best = min(acronyms, key=lambda a: (-sum(c.isupper() for c in a), len(a), a), default=None)
    return best if best is not None else name[: NAME_CHARS - 1] + "…"
