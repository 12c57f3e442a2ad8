"""What the report says, as plain data: one context for both the HTML and the Markdown template."""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, get_args
from urllib.parse import urlsplit

import networkx as nx

import kg
from kg.analyse import Analytics, Trend, Trends
from kg.analyse.trends import counted_years
from kg.errors import KGError
from kg.link.papers import UNLINKED_TYPES
from kg.records import ConceptType

#: The types with a table of top concepts; "Concepts by type" counts every type.
TYPES = ("Method", "Technique", "Problem")
#: The pages' colours (kg.viz.html), for the report to match them.
TYPE_COLOURS = {"Method": "#1f77b4", "Technique": "#2ca02c", "Problem": "#d62728", "Dataset": "#9467bd",
                "Metric": "#ff7f0e", "Hardware": "#8c564b"}  # fmt: skip
#: Rows in each ranking table.
TOP = 10
COMMUNITIES = 12
PAIRS = 15
#: Years shown in a trend's chart, ending with the corpus's last year.
TREND_YEARS = 15


def check_links(links: Mapping[str, str] | None) -> list[tuple[str, str]]:
    """The links to the graph pages as (title, href), refused unless each is a relative path.

    The report must work offline and ask nothing of the network, so a link to another host is
    an error rather than something the page silently carries.

    >>> check_links({"The graph": "graph.html"})
    [('The graph', 'graph.html')]
    >>> check_links({"x": "https://example.org/g.html"})
    Traceback (most recent call last):
    ...
    kg.errors.KGError: report link 'x': 'https://example.org/g.html' is not a relative path (give one like graph.html)
    """
    checked = []
    for title, href in (links or {}).items():
        parts = urlsplit(href)
        if parts.scheme or parts.netloc or href.startswith("/"):
            raise KGError(f"report link {title!r}: {href!r} is not a relative path (give one like graph.html)")
        checked.append((title, href))
    return checked


@dataclass(frozen=True)
class ReportFacts:
    """What the report shows of a graph and its analytics, and nothing per node beyond it.

    The analytics hold a value for each concept and paper (rankings, communities, yearly
    counts), which :func:`kg.analyse.annotate` has copied onto the graph: a run keeps these
    facts from the analyse stage to the report instead of the analytics (61,839 ACL papers:
    205 MB less while the store is written).
    """

    #: The report's tables and counts (``build_context`` keys).
    tables: dict[str, Any]
    #: Papers per year, the windows, and the emerging and fading concepts the report lists;
    #: the per-concept maps only for those.
    trends: Trends


def report_facts(G: nx.DiGraph, analytics: Analytics) -> ReportFacts:
    """The :class:`ReportFacts` of ``G`` and its :func:`~kg.analyse.analyse`."""
    facts = _Facts(G, analytics)
    tr = analytics.trends
    emerging = [t for t in tr.emerging if facts.specific(t.node)][:TOP]
    fading = [t for t in tr.fading if facts.specific(t.node)][:TOP]
    listed = {t.node for t in emerging + fading}
    kept = replace(
        tr,
        emerging=emerging,
        fading=fading,
        yearly={},
        growth={},
        first_year={n: y for n, y in tr.first_year.items() if n in listed},
    )
    tables = {
        "corpus": facts.corpus(),
        "by_type": [facts.top_of_type(t) for t in TYPES],
        "central_concepts": facts.central_concepts(),
        "central_papers": facts.central_papers(),
        "betweenness_note": analytics.concepts.note,
        "concept_communities": facts.concept_communities(),
        "n_concept_communities": len(analytics.concept_communities.communities),
        "concepts_in_communities": len(analytics.concept_communities.membership),
        "paper_communities": facts.paper_communities(),
        "n_paper_communities": len(analytics.paper_communities.communities),
        "papers_in_communities": len(analytics.paper_communities.membership),
        "bridges": facts.bridges(),
        "pairs": facts.pairs(),
        "notes": analytics.notes,
        "seconds": analytics.seconds,
    }
    return ReportFacts(tables, kept)


def build_context(
    facts: ReportFacts,
    run_report: Mapping[str, Any] | None,
    *,
    links: Mapping[str, str] | None = None,
    charts: bool = True,
) -> dict[str, Any]:
    """Everything the report shows, from the :func:`report_facts` of a graph and the run report.

    With ``charts`` the corpus and trend rows carry PNG data URIs (the HTML report); every
    trend row has a text sparkline either way.
    """
    from kg.report.charts import sparkline, year_bars  # matplotlib: only for a report

    tr = facts.trends
    per_year = tr.papers_per_year
    years = range(min(per_year), max(per_year) + 1) if per_year else range(0)
    # the years the trends count (arXiv ML's 30 papers of 2018-2023 are no years of its own)
    first, last = counted_years(per_year) if per_year else (0, -1)
    shown = range(max(first, last + 1 - TREND_YEARS), last + 1)

    def trend_row(t: Trend) -> dict[str, Any]:
        chart = year_bars(t.yearly, shown, recent=tr.recent_window, burst=t.burst) if charts else None
        return {
            "name": t.name,
            "type": t.type,
            "recent": t.recent,
            "baseline": t.baseline,
            "factor": 2**t.growth,
            "burst": t.burst,
            "first_year": tr.first_year.get(t.node),
            "chart": chart,
            "spark": sparkline(t.yearly, shown),
        }

    corpus = dict(facts.tables["corpus"])
    one_year = len(years) <= 1  # no chart of one bar, no trend column, no emerging or fading concepts
    corpus["chart"] = year_bars(per_year, years, size=(7.0, 1.6), axes=True) if charts and not one_year else None
    # nor without years before the recent ones to compare with: of the first 30,000 arXiv ML
    # records, 29,970 are from 2024 and 30 from 2018-2023, too few to count (FIRST_YEAR_SHARE), as
    # are 7 of 2025 beside 4,993 ACL papers of 2024
    trendless = one_year or tr.baseline_window is None
    if one_year:
        trend_note = f"Every dated paper is from {years.start}" if per_year else "No paper has a year"
    elif trendless:
        counted, when = sum(n for y, n in per_year.items() if y in shown), years_text((shown.start, shown.stop - 1))
        trend_note = (f"{counted:,} of the {sum(per_year.values()):,} dated papers are from {when}, "
                      "too few from other years to compare with")  # fmt: skip
    else:
        trend_note = ""
    return {
        **facts.tables,
        "title": f"What the graph tells: {(run_report or {}).get('pipeline') or 'kg'}",
        "version": kg.__version__,
        "links": check_links(links),
        "corpus": corpus,
        "recent": tr.recent_window,
        "baseline": tr.baseline_window,
        "shown_years": (shown.start, shown.stop - 1) if len(shown) else None,
        "trendless": trendless,
        "trend_note": trend_note,
        "emerging": [trend_row(t) for t in tr.emerging],
        "fading": [trend_row(t) for t in tr.fading],
        "quality": _quality(run_report) if run_report else None,
    }


class _Facts:
    """The tables of the report, each from the graph and its analytics."""

    def __init__(self, G: nx.DiGraph, analytics: Analytics) -> None:
        self.G = G
        self.a = analytics
        self.papers = {n: d for n, d in G.nodes(data=True) if d.get("kind") == "Paper"}
        self.concepts = {n: d for n, d in G.nodes(data=True) if d.get("kind") == "Concept"}
        self.concept_labels = {c.number: c.label for c in analytics.concept_communities.communities}
        self.paper_labels = {c.number: c.label for c in analytics.paper_communities.communities}

    def name(self, n: str) -> str:
        d = self.G.nodes[n]
        return str(d.get("name") or d.get("title") or d.get("key") or n)

    def type(self, n: str) -> str:
        return str(self.concepts.get(n, {}).get("type") or "")

    def specific(self, n: str) -> bool:
        """False for generic concepts ("computational cost"), which no table of the report lists."""
        return not self.concepts.get(n, {}).get("generic")

    def _central(self, n: str) -> bool:
        """What the central concepts and the bridges list: specific concepts, not metrics (a metric
        co-occurs with whatever it scores, so it is central to and reaches every community)."""
        return self.specific(n) and self.type(n) not in UNLINKED_TYPES

    def corpus(self) -> dict[str, Any]:
        per_year = self.a.trends.papers_per_year
        venues = Counter(str(d["venue"]) for d in self.papers.values() if d.get("venue"))
        rels = Counter(rel for *_, rel in self.G.edges(data="rel"))
        types = Counter(d.get("type") for d in self.concepts.values())
        return {
            "papers": len(self.papers),
            "dated": sum(per_year.values()),
            "first_year": min(per_year) if per_year else None,
            "last_year": max(per_year) if per_year else None,
            "venues": len(venues),
            "top_venues": venues.most_common(TOP),
            "concepts": len(self.concepts),
            "by_type": [(t, types.get(t, 0), TYPE_COLOURS[t]) for t in get_args(ConceptType)],
            "mentions": rels.get("MENTIONS", 0),
            "paper_links": rels.get("SHARES_CONCEPTS", 0),
            "concept_links": rels.get("CO_OCCURS", 0),
        }

    def top_of_type(self, t: str) -> dict[str, Any]:
        count = {
            n: int(d.get("paper_count") or 0)
            for n, d in self.concepts.items()
            if d.get("type") == t and not d.get("generic")
        }
        ranked = heapq.nsmallest(TOP, count, key=lambda n: (-count[n], n))
        trends = self.a.trends
        rows = [
            {
                "name": self.name(n),
                "papers": count[n],
                "first_year": trends.first_year.get(n),
                "growth": trends.growth.get(n, 0.0),
            }
            for n in ranked
        ]
        return {"type": t, "colour": TYPE_COLOURS[t], "rows": rows}

    def central_concepts(self) -> list[dict[str, Any]]:
        """The concepts of most PageRank that are specific and link papers: a metric co-occurs with
        whatever it scores ("accuracy" had been the arXiv ML corpus's second)."""
        rank, cc = self.a.concepts, self.a.concept_communities
        scale = len(rank.pagerank)
        return [
            {
                "name": self.name(n),
                "type": self.type(n),
                "pagerank": rank.pagerank[n] * scale,
                "degree": rank.degree.get(n, 0),
                "betweenness": rank.betweenness.get(n),
                "community": self.concept_labels.get(cc.of(n), ""),
            }
            for n in heapq.nsmallest(TOP, filter(self._central, rank.pagerank), key=lambda n: (-rank.pagerank[n], n))
        ]

    def central_papers(self) -> list[dict[str, Any]]:
        rank, pc = self.a.papers, self.a.paper_communities
        scale = len(rank.pagerank)
        linked = [n for n in rank.pagerank if rank.degree.get(n, 0) > 0]
        return [
            {
                "title": self.name(n),
                "year": self.papers[n].get("year"),
                "venue": self.papers[n].get("venue") or "",
                "pagerank": rank.pagerank[n] * scale,
                "degree": rank.degree[n],
                "community": self.paper_labels.get(pc.of(n), ""),
            }
            for n in heapq.nsmallest(TOP, linked, key=lambda n: (-rank.pagerank[n], n))
        ]

    def concept_communities(self) -> list[dict[str, Any]]:
        pagerank = self.a.concepts.pagerank
        members = _members(self.a.concept_communities.membership)
        return [
            {
                "number": c.number,
                "label": c.label,
                "size": c.size,
                "members": [
                    self.name(n)
                    for n in heapq.nsmallest(
                        8, filter(self.specific, members[c.number]), key=lambda n: (-pagerank.get(n, 0.0), n)
                    )
                ],
            }
            for c in self.a.concept_communities.communities[:COMMUNITIES]
        ]

    def paper_communities(self) -> list[dict[str, Any]]:
        members = _members(self.a.paper_communities.membership)
        rows = []
        for c in self.a.paper_communities.communities[:COMMUNITIES]:
            years = sorted(y for n in members[c.number] if isinstance(y := self.papers[n].get("year"), int))
            venues = Counter(str(v) for n in members[c.number] if (v := self.papers[n].get("venue")))
            rows.append(
                {
                    "number": c.number,
                    "label": c.label,
                    "size": c.size,
                    "years": (years[0], years[len(years) // 2], years[-1]) if years else None,
                    "venue": venues.most_common(1)[0][0] if venues else "",
                }
            )
        return rows

    def bridges(self) -> list[dict[str, Any]]:
        return [
            {
                "name": b.name,
                "type": self.type(b.node),
                "score": b.score,
                "strength": b.strength,
                "hub": b.hub,
                "reach": [self.concept_labels.get(k, str(k)) for k in b.communities[:4]],
                "more": max(0, len(b.communities) - 4),
            }
            for b in [b for b in self.a.bridges if self._central(b.node)][:TOP]
        ]

    def pairs(self) -> list[dict[str, Any]]:
        return [
            {
                "method": self.name(p.method),
                "method_type": self.type(p.method),
                "problem": self.name(p.problem),
                "papers": p.papers,
                "share": p.papers / max(int(self.concepts.get(p.problem, {}).get("paper_count") or 0), 1),
            }
            for p in [p for p in self.a.pairs if self.specific(p.method) and self.specific(p.problem)][:PAIRS]
        ]


def _members(membership: Mapping[str, int]) -> dict[int, list[str]]:
    members: dict[int, list[str]] = defaultdict(list)
    for n, k in membership.items():
        members[k].append(n)
    return members


def _quality(report: Mapping[str, Any]) -> dict[str, Any]:
    records = report.get("records") or {}
    mentions = report.get("mentions") or {}
    stages = report.get("stages") or {}
    return {
        "read": records.get("read"),
        "kept": records.get("kept"),
        "rejected": records.get("rejected"),
        "by_reason": sorted((records.get("rejected_by_reason") or {}).items(), key=lambda kv: (-kv[1], kv[0])),
        "mentions": mentions.get("total"),
        "mentions_by_type": sorted((mentions.get("by_type") or {}).items()),
        "mentions_by_role": sorted((mentions.get("by_role") or {}).items()),
        "cache": report.get("cache") or {},
        "stages": [
            (k, v.get("seconds"), v.get("items"), v.get("peak_rss_mb"))
            for k, v in stages.items()
            if isinstance(v, Mapping)
        ],
        "seconds": report.get("seconds"),
        "peak_memory_mb": report.get("peak_memory_mb"),
        "versions": report.get("versions") or {},
    }


def years_text(span: tuple[int, int]) -> str:
    """ "2024–2025", or "2026" for one year (the report's ``years`` filter)."""
    return str(span[0]) if span[0] == span[1] else f"{span[0]}–{span[1]}"


def period_text(span: tuple[int, int]) -> str:
    """ "from 2024 to 2026", or "of 2026" for one year (the report's ``period`` filter: "10,000 papers of 2026")."""
    return f"of {span[0]}" if span[0] == span[1] else f"from {span[0]} to {span[1]}"
