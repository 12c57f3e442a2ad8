"""Write the report: one self-contained HTML page and its Markdown twin."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx
from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from kg.analyse import Analytics
from kg.outputs import write_text
from kg.report.context import ReportFacts, build_context, period_text, report_facts, years_text

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]|#])")


@dataclass(frozen=True, slots=True)
class ReportResult:
    html: Path | None
    markdown: Path | None
    #: Charts inlined in the HTML page.
    charts: int


def write_report(
    G: nx.DiGraph,
    analytics: Analytics,
    run_report: Mapping[str, Any] | None,
    html_path: str | Path | None,
    md_path: str | Path | None,
    *,
    links: Mapping[str, str] | None = None,
) -> ReportResult:
    """Write what the graph tells a researcher as one HTML page and one Markdown file.

    The HTML page is self-contained: CSS inline, charts as inline PNG (matplotlib, Agg), no
    script, a Content-Security-Policy that forbids any request, and every text from the data
    escaped (Jinja2 autoescape). The Markdown file says the same with text sparklines instead
    of charts, every value escaped for Markdown.

    Parameters
    ----------
    G
        The knowledge graph.
    analytics
        :func:`kg.analyse.analyse` of ``G``.
    run_report
        The run report (``RunReport.to_dict()`` or ``report.json``) for the data-quality
        section and the title, or None to leave that section out.
    html_path, md_path
        Where to write the two files (folders are created); None leaves that file out.
    links
        Title -> path of graph pages to link to, relative to the report (``{"Concept map":
        "concepts.html"}``); a :class:`~kg.errors.KGError` if one is not a relative path.

    Examples
    --------
    >>> import tempfile
    >>> from kg.analyse import analyse
    >>> G = nx.DiGraph()
    >>> G.add_node("paper:a", kind="Paper", title="A", year=2020, venue="<ACL>")
    >>> out = Path(tempfile.mkdtemp())
    >>> r = write_report(G, analyse(G), None, out / "report.html", out / "report.md", links={"Graph": "graph.html"})
    >>> r.charts, "<td>&lt;ACL&gt;</td>" in r.html.read_text(), "| &lt;ACL&gt; | 1 |" in r.markdown.read_text()
    (0, True, True)
    """
    return render_report(report_facts(G, analytics), run_report, html_path, md_path, links=links)


def render_report(
    facts: ReportFacts,
    run_report: Mapping[str, Any] | None,
    html_path: str | Path | None,
    md_path: str | Path | None,
    *,
    links: Mapping[str, str] | None = None,
) -> ReportResult:
    """:func:`write_report` from the :func:`~kg.report.context.report_facts` of a graph, kept since its analysis."""
    context = build_context(facts, run_report, links=links)
    html_path = Path(html_path) if html_path else None
    md_path = Path(md_path) if md_path else None
    charts = 0
    if html_path:
        page = _html_env().get_template("report.html.j2").render(**context)
        write_text(html_path, page)
        charts = page.count('src="data:image/png;base64,')
    if md_path:
        write_text(md_path, _markdown_env().get_template("report.md.j2").render(**context))
    return ReportResult(html=html_path, markdown=md_path, charts=charts)


def _filters(env: Environment) -> Environment:
    env.filters.update(
        n=_number, pct=lambda x: f"{x:.0%}", factor=_factor, arrow=_arrow, years=years_text, period=period_text
    )
    return env


def _html_env() -> Environment:
    loader = PackageLoader("kg.report", "templates")
    return _filters(
        Environment(loader=loader, autoescape=True, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    )


def _markdown_env() -> Environment:
    # No autoescape (this is not HTML): ``finalize`` escapes every value for Markdown instead.
    loader = PackageLoader("kg.report", "templates")
    return _filters(
        Environment(loader=loader, undefined=StrictUndefined, finalize=_markdown_text, keep_trailing_newline=True)
    )


def _markdown_text(value: Any) -> str:
    """Any value as Markdown text on one line: markup shown as text, table pipes and emphasis marks escaped.

    >>> _markdown_text("<b>a|b</b> *c*")
    '&lt;b&gt;a\\\\|b&lt;/b&gt; \\\\*c\\\\*'
    >>> _markdown_text("a title\\r\\nread from CSV\\rcells")
    'a title read from CSV cells'
    """
    if isinstance(value, Markup):  # a table a macro drew of values escaped already (``|safe``)
        return str(value)
    text = "" if value is None else str(value)
    return _MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(" ".join(text.splitlines()), quote=False))


def _number(x: Any) -> str:
    if isinstance(x, float) and not x.is_integer():
        return f"{x:,.1f}"
    return f"{int(x):,}" if isinstance(x, int | float) else str(x)


def _factor(x: float) -> str:
    # A share multiplied by x: ×3.2 when growing, ÷3.2 when shrinking.
    growing = x >= 1
    x = x if growing else 1 / x
    return ("×" if growing else "÷") + (f"{x:.0f}" if x >= 10 else f"{x:.1f}")


def _arrow(growth: float) -> str:
    if growth >= 0.5:
        return f"▲ {_factor(2**growth)}"
    if growth <= -0.5:
        return f"▼ {_factor(2**growth)}"
    return "–"
