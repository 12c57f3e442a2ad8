"""Concepts over time: papers per year, first year seen, and which concepts grow or fade.

Counts are normalised by the papers of each year, so a concept does not "grow" only because the
corpus does. Growth compares a concept's share of the papers in the last ``recent_years`` years
with its share in the ``baseline_years`` years before them; a two-state burst model (Kleinberg,
2002) says since when a concept has been running above its usual rate.
"""

from __future__ import annotations

import json
import math
from array import array
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

import networkx as nx
import numpy as np

#: The years a corpus's trends compare begin with the first that holds this share of its papers,
#: and end with the last: 30 of the 150,965 arXiv ML abstracts are from 2018-2023, and against them
#: every concept of 2024-2026 had grown thousands of times ("reinforcement learning", 7,060 papers:
#: x7062); 7 of 5,000 ACL papers of 2024 are from 2025, against which "transformer" (178 papers)
#: had faded 179 times.
FIRST_YEAR_SHARE = 0.01

#: Pseudo-papers added to both windows before comparing shares, so a handful of papers do not look
#: like explosive growth; spread over the two windows in proportion to their sizes.
PRIOR = 1.0


@dataclass(frozen=True, slots=True)
class Trend:
    """One growing or fading concept."""

    node: str
    name: str
    type: str
    #: log2 of (share of the recent window's papers) / (share of the baseline window's), smoothed.
    growth: float
    #: Papers mentioning it in the recent window and in the baseline window.
    recent: int
    baseline: int
    #: The latest burst (first year, last year), if the burst model finds one.
    burst: tuple[int, int] | None
    #: Papers mentioning it per year.
    yearly: dict[int, int]


@dataclass(frozen=True, slots=True)
class Trends:
    """Every concept's yearly counts and growth, and the concepts that grow and fade most."""

    papers_per_year: dict[int, int]
    #: Concept node -> {year: papers}, years ascending; concepts only in undated papers have ``{}``.
    yearly: dict[str, dict[int, int]]
    #: Concept node -> first year a paper mentions it (concepts only in undated papers are absent).
    first_year: dict[str, int]
    #: Concept node -> growth (0.0 when the corpus has no baseline window).
    growth: dict[str, float]
    #: (first, last) year of the recent and of the baseline window; None without dated papers.
    recent_window: tuple[int, int] | None
    baseline_window: tuple[int, int] | None
    emerging: list[Trend]
    fading: list[Trend]


def papers_per_year(G: nx.DiGraph) -> dict[int, int]:
    """How many papers each year has (papers without a year are not counted), years ascending.

    >>> G = nx.DiGraph()
    >>> G.add_nodes_from([("paper:a", {"year": 2020}), ("paper:b", {"year": 2020}), ("paper:c", {})], kind="Paper")
    >>> papers_per_year(G)
    {2020: 2}
    """
    counts = Counter(d["year"] for _, d in G.nodes(data=True) if d.get("kind") == "Paper" and _is_year(d.get("year")))
    return dict(sorted(counts.items()))


def concept_years(G: nx.DiGraph) -> dict[str, dict[int, int]]:
    """Papers per year for every concept (``MENTIONS`` from dated papers), years ascending.

    Concepts with the same counts share one dict, which is not to be changed: most of a corpus's
    concepts are in one paper (82% of the 61,839 ACL papers'), and a dict each took 80 MB.

    >>> G = nx.DiGraph()
    >>> G.add_nodes_from([("paper:a", {"year": 2021}), ("paper:b", {"year": 2019})], kind="Paper")
    >>> G.add_nodes_from(["concept:x", "concept:y", "concept:z"], kind="Concept")
    >>> G.add_edges_from([("paper:a", "concept:x"), ("paper:b", "concept:x"), ("paper:a", "concept:y")],
    ...                  rel="MENTIONS")
    >>> concept_years(G)
    {'concept:x': {2019: 1, 2021: 1}, 'concept:y': {2021: 1}, 'concept:z': {}}
    """
    years = {n: d["year"] for n, d in G.nodes(data=True) if d.get("kind") == "Paper" and _is_year(d.get("year"))}
    concepts = [n for n, d in G.nodes(data=True) if d.get("kind") == "Concept"]
    number = {c: i for i, c in enumerate(concepts)}
    span = sorted(set(years.values()))
    year_at = {y: i for i, y in enumerate(span)}
    # each (concept, year) a paper mentions as one number, concept * len(span) + year: counted at
    # once, in (concept, year) order
    codes = array("q")
    for p, year in years.items():
        at = year_at[year]
        codes.extend(number[c] * len(span) + at for c, d in G.succ[p].items()
                     if d.get("rel") == "MENTIONS" and c in number)  # fmt: skip
    found, counts = np.unique(np.asarray(codes, dtype=np.int64), return_counts=True)
    del codes
    which, year_of = np.divmod(found, max(len(span), 1))
    alike: dict[tuple[tuple[int, int], ...], dict[int, int]] = {(): {}}
    per_concept: list[dict[int, int]] = [alike[()]] * len(concepts)
    items: list[tuple[int, int]] = []
    cs = which.tolist()
    for i, (c, y, n) in enumerate(zip(cs, year_of.tolist(), counts.tolist(), strict=True)):
        items.append((span[y], n))
        if i + 1 == len(cs) or cs[i + 1] != c:  # the concept's last year
            key = tuple(items)
            per_concept[c] = alike.get(key) or alike.setdefault(key, dict(items))
            items = []
    return dict(zip(concepts, per_concept, strict=True))


def counted_years(per_year: Mapping[int, int]) -> tuple[int, int]:
    """The first and the last year holding :data:`FIRST_YEAR_SHARE` of the papers: where a corpus's
    years begin and end.

    >>> counted_years({2018: 1, 2024: 300, 2025: 600, 2026: 400}), counted_years({2024: 4993, 2025: 7})
    ((2024, 2026), (2024, 2024))
    """
    total = sum(per_year.values())
    counted = [y for y, n in per_year.items() if n >= FIRST_YEAR_SHARE * total]
    return min(counted), max(counted)


def trends(
    G: nx.DiGraph,
    *,
    recent_years: int = 3,
    baseline_years: int = 5,
    min_papers: int = 3,
    limit: int = 50,
) -> Trends:
    """Yearly counts of every concept, and the concepts that grow (emerging) and shrink (fading) most.

    The recent window is the last ``recent_years`` years of the corpus (at most half of the
    years it spans, from the first to the last year with :data:`FIRST_YEAR_SHARE` of its papers), the
    baseline the ``baseline_years`` years before it (none before that first year). A concept's growth is
    ``log2(((r + p_r) / R) / ((b + p_b) / B))``: ``r`` and ``b`` are its papers in the recent and
    baseline windows, ``R`` and ``B`` all the papers in them, ``p_r`` and ``p_b`` one pseudo-paper
    split between the windows by their size (:data:`PRIOR`). +1 means its share doubled.

    Parameters
    ----------
    G
        The knowledge graph (papers need a ``year`` to count).
    recent_years, baseline_years
        Sizes of the two windows, in years.
    min_papers
        Emerging concepts need this many papers in the recent window, fading ones in the baseline.
    limit
        Concepts kept in each of ``emerging`` and ``fading``.

    Returns
    -------
    Trends
        ``emerging`` by growth, highest first; ``fading`` lowest first. Ties go to the concept
        with more papers, then to the smaller node id, so the lists are reproducible.

    Examples
    --------
    >>> G = nx.DiGraph()
    >>> G.add_node("concept:new", kind="Concept", name="new", type="Method")
    >>> for i, year in enumerate(range(2015, 2025)):
    ...     for j in range(4):
    ...         G.add_node(f"paper:{year}-{j}", kind="Paper", year=year)
    ...         if year >= 2022:
    ...             G.add_edge(f"paper:{year}-{j}", "concept:new", rel="MENTIONS")
    >>> t = trends(G)
    >>> t.recent_window, t.baseline_window
    ((2022, 2024), (2017, 2021))
    >>> [(x.name, x.recent, x.baseline, x.burst) for x in t.emerging]
    [('new', 12, 0, (2022, 2024))]
    """
    per_year = papers_per_year(G)
    yearly = concept_years(G)
    first_year = {c: min(ys) for c, ys in yearly.items() if ys}
    growth = dict.fromkeys(yearly, 0.0)
    if not per_year:
        return Trends(per_year, yearly, first_year, growth, None, None, [], [])
    first, last = counted_years(per_year)
    # a corpus of few years (the default sample's 2024-2026) compares its later half with the years before
    recent_years = min(recent_years, max(1, (last - first + 1) // 2))
    recent = (last - recent_years + 1, last)
    baseline = (max(first, recent[0] - baseline_years), recent[0] - 1)
    n_recent = sum(n for y, n in per_year.items() if recent[0] <= y <= recent[1])
    n_base = sum(n for y, n in per_year.items() if baseline[0] <= y <= baseline[1])
    if not n_base:
        return Trends(per_year, yearly, first_year, growth, recent, None, [], [])
    p_r = PRIOR * n_recent / (n_recent + n_base)
    p_b = PRIOR * n_base / (n_recent + n_base)
    windows: dict[str, tuple[int, int]] = {}
    seen: dict[int, tuple[tuple[int, int], float]] = {}  # one computation per dict of counts (concepts share them)
    for c, ys in yearly.items():
        known = seen.get(id(ys))
        if known is None:
            r = sum(n for y, n in ys.items() if recent[0] <= y <= recent[1])
            b = sum(n for y, n in ys.items() if baseline[0] <= y <= baseline[1])
            known = seen[id(ys)] = ((r, b), math.log2(((r + p_r) / n_recent) / ((b + p_b) / n_base)))
        windows[c], growth[c] = known

    def trend(c: str) -> Trend:
        d = G.nodes[c]
        r, b = windows[c]
        name = str(d.get("name") or d.get("key") or c)
        burst = _latest_burst(yearly[c], per_year)
        return Trend(c, name, str(d.get("type") or ""), growth[c], r, b, burst, yearly[c])

    up = [c for c in yearly if growth[c] > 0 and windows[c][0] >= min_papers]
    up.sort(key=lambda c: (-growth[c], -windows[c][0], c))
    down = [c for c in yearly if growth[c] < 0 and windows[c][1] >= min_papers]
    down.sort(key=lambda c: (growth[c], -windows[c][1], c))
    emerging = [trend(c) for c in up[:limit]]
    fading = [trend(c) for c in down[:limit]]
    return Trends(per_year, yearly, first_year, growth, recent, baseline, emerging, fading)


def bursts(
    counts: Mapping[int, int], totals: Mapping[int, int], *, s: float = 2.0, gamma: float = 1.0
) -> list[tuple[int, int]]:
    """Years in which a concept runs at ``s`` times its usual rate: Kleinberg's two-state burst model.

    Each year ``t`` has ``totals[t]`` papers of which ``counts[t]`` mention the concept. The
    base state expects the concept's overall share ``p``, the burst state ``s * p``; entering
    the burst state costs ``gamma * ln(years)``, and the cheapest sequence of states (Viterbi)
    is returned as (first year, last year) runs of the burst state. Years without papers are skipped.

    Examples
    --------
    >>> totals = dict.fromkeys(range(2010, 2020), 10)
    >>> bursts({2010: 1, 2011: 1, 2012: 1, 2013: 1, 2016: 6, 2017: 7, 2018: 6, 2019: 1}, totals)
    [(2016, 2018)]
    """
    years = [y for y in sorted(totals) if totals[y] > 0]
    total = sum(totals[y] for y in years)
    hits = sum(counts.get(y, 0) for y in years)
    if not years or hits == 0 or hits == total:
        return []
    p0 = hits / total
    p1 = min(s * p0, 0.9999)
    enter = gamma * math.log(len(years))

    def cost(p: float, y: int) -> float:
        r, d = counts.get(y, 0), totals[y]
        return -(r * math.log(p) + (d - r) * math.log(1 - p))

    # best[i]: cheapest cost of the years so far ending in state i; back[t][i]: the state before.
    best = [cost(p0, years[0]), enter + cost(p1, years[0])]
    back: list[tuple[int, int]] = [(0, 0)]
    for y in years[1:]:
        from0 = (0, best[0]) if best[0] <= best[1] else (1, best[1])
        from1 = (0, best[0] + enter) if best[0] + enter < best[1] else (1, best[1])
        back.append((from0[0], from1[0]))
        best = [from0[1] + cost(p0, y), from1[1] + cost(p1, y)]
    state = 0 if best[0] <= best[1] else 1
    states = [state]
    for t in range(len(years) - 1, 0, -1):
        state = back[t][state]
        states.append(state)
    states.reverse()
    runs: list[tuple[int, int]] = []
    for t, st in enumerate(states):
        if st == 1 and t > 0 and states[t - 1] == 1:
            runs[-1] = (runs[-1][0], years[t])
        elif st == 1:
            runs.append((years[t], years[t]))
    return runs


def _latest_burst(counts: Mapping[int, int], totals: Mapping[int, int]) -> tuple[int, int] | None:
    found = bursts(counts, totals)
    return found[-1] if found else None


def _is_year(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def yearly_json(counts: Mapping[int, int]) -> str:
    """A concept's papers per year as the JSON text the stores hold.

    >>> yearly_json({2020: 5, 2019: 3})
    '{"2019": 3, "2020": 5}'
    """
    return json.dumps({str(y): n for y, n in sorted(counts.items())})
