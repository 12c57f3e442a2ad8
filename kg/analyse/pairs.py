"""Method-problem pairs: which methods and techniques the papers on each problem bring to it."""

from __future__ import annotations

from array import array
from collections import Counter
from dataclasses import dataclass

import networkx as nx
import numpy as np

SOLUTION_TYPES = ("Method", "Technique")
PROBLEM_TYPES = ("Problem",)


@dataclass(frozen=True, slots=True)
class Pair:
    """A method or technique and a problem that the same papers mention."""

    method: str
    problem: str
    #: Papers that mention both.
    papers: int


def method_problem_pairs(
    G: nx.DiGraph,
    *,
    min_papers: int = 2,
    limit: int = 20,
    per_concept: int | None = None,
    include_generic: bool = True,
) -> list[Pair]:
    """The (method or technique, problem) concept pairs mentioned together by the most papers.

    Each paper counts once per pair, whatever the roles; a pair needs ``min_papers`` papers
    (one paper naming both is an anecdote, not a pattern); ties go to the smaller node ids.
    With ``per_concept``, a concept is in at most that many of the pairs, the ones with most
    papers, and a pair of a concept and a name that holds it ("unlearning" and "machine
    unlearning", "word sense" and "word sense disambiguation") is left out: of the 15 pairs of
    150,965 arXiv ML papers with most papers, 13 are "large language models" with one problem or
    another, which says little that the concept's paper count does not. Without
    ``include_generic``, generic concepts are in no pair.

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
    # a concept in fewer papers than a pair needs is in no pair (its in-edges count its papers
    # and more): 82% of the 61,839 ACL papers' concepts, whose pairs had taken +105 MB, the
    # analyse stage's peak
    types = {n: d.get("type") for n, d in G.nodes(data=True)
             if d.get("kind") == "Concept" and G.in_degree(n) >= min_papers
             and (include_generic or not d.get("generic"))}  # fmt: skip
    # each pair a paper mentions as one number, method * n + problem, with the concepts numbered
    # in id order: a corpus's papers mention millions of pairs (61,839 ACL papers: as a Counter of
    # tuples, +140 MB: the analyse stage's peak)
    names = sorted(c for c, t in types.items() if t in SOLUTION_TYPES or t in PROBLEM_TYPES)
    number = {c: i for i, c in enumerate(names)}
    codes = array("q")
    for p, kind in G.nodes(data="kind"):
        if kind != "Paper":
            continue
        concepts = [c for c, d in G.succ[p].items() if d.get("rel") == "MENTIONS"]
        methods = [number[c] * len(names) for c in concepts if types.get(c) in SOLUTION_TYPES]
        problems = [number[c] for c in concepts if types.get(c) in PROBLEM_TYPES]
        codes.extend(m + q for m in methods for q in problems)
    pairs, counts = np.unique(np.asarray(codes, dtype=np.int64), return_counts=True)
    pairs, counts = pairs[counts >= min_papers], counts[counts >= min_papers]
    ranked = np.lexsort((pairs, -counts))  # most papers first, then by (method, problem) id
    found: list[Pair] = []
    used: Counter[str] = Counter()
    for i in ranked:
        if len(found) == limit:
            break
        method, problem = names[int(pairs[i]) // len(names)], names[int(pairs[i]) % len(names)]
        if per_concept is not None:
            if used[method] >= per_concept or used[problem] >= per_concept or _nested(method, problem):
                continue
            used.update((method, problem))
        found.append(Pair(method=method, problem=problem, papers=int(counts[i])))
    return found


def _nested(a: str, b: str) -> bool:
    """Whether one concept's key holds the other's words in a row: a narrower or a broken name of
    the same thing ("machine unlearning" and "unlearning"; "word sense" and "word sense
    disambiguation", 135 ACL papers; "dialogue" and "dialogue systems").

    >>> _nested("concept:unlearning", "concept:machine unlearning"), _nested("concept:rl", "concept:url")
    (True, False)
    >>> _nested("concept:named entity", "concept:named entity recognition")
    True
    """
    x, y = sorted((a.removeprefix("concept:").split(), b.removeprefix("concept:").split()), key=len)
    return any(y[i : i + len(x)] == x for i in range(len(y) - len(x) + 1))
