"""Method-problem pairs: which methods and techniques the papers on each problem bring to it."""

from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import dataclass

import networkx as nx

SOLUTION_TYPES = ("Method", "Technique")
PROBLEM_TYPES = ("Problem",)


@dataclass(frozen=True, slots=True)
class Pair:
    """A method or technique and a problem that the same papers mention."""

    method: str
    problem: str
    #: Papers that mention both.
    papers: int


def method_problem_pairs(G: nx.DiGraph, *, min_papers: int = 2, limit: int = 20) -> list[Pair]:
    """The (method or technique, problem) concept pairs mentioned together by the most papers.

    Each paper counts once per pair, whatever the roles; a pair needs ``min_papers`` papers
    (one paper naming both is an anecdote, not a pattern); ties go to the smaller node ids.

    Examples
    --------
    >>> G = nx.DiGraph()
    >>> G.add_node("concept:bert", kind="Concept", type="Method")
    >>> G.add_node("concept:ner", kind="Concept", type="Problem")
    >>> for p in ("paper:a", "paper:b"):
    ...     G.add_node(p, kind="Paper")
    ...     G.add_edges_from([(p, "concept:bert"), (p, "concept:ner")], rel="MENTIONS")
    >>> method_problem_pairs(G)
    [Pair(method='concept:bert', problem='concept:ner', papers=2)]
    """
    types = {n: d.get("type") for n, d in G.nodes(data=True) if d.get("kind") == "Concept"}
    counts: Counter[tuple[str, str]] = Counter()
    for p, kind in G.nodes(data="kind"):
        if kind != "Paper":
            continue
        concepts = [c for c, d in G.succ[p].items() if d.get("rel") == "MENTIONS"]
        methods = [c for c in concepts if types.get(c) in SOLUTION_TYPES]
        problems = [c for c in concepts if types.get(c) in PROBLEM_TYPES]
        counts.update((m, q) for m in methods for q in problems)
    kept = ((pair, n) for pair, n in counts.items() if n >= min_papers)
    ranked = heapq.nsmallest(limit, kept, key=lambda kv: (-kv[1], kv[0]))
    return [Pair(method=m, problem=q, papers=n) for (m, q), n in ranked]
