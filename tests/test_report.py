"""The report: self-contained, escaped, readable as Markdown, and clean in real headless Chromium."""

from __future__ import annotations

import re
from pathlib import Path

import networkx as nx
import pytest

from kg.analyse import analyse
from kg.errors import KGError
from kg.report import write_report
from kg.store import read_embedded
from tests.test_analyse import MT, NER, UBIQUITOUS, _graph, _paper

EVIL = "<script>window.__pwned = 'name'</script>"
EVIL_TITLE = "<img src=x onerror=\"window.__pwned='img'\"> | *bold* [link](https://evil.example)"
LINKS = {"Paper–concept graph": "graph.html", "Concept map": "concepts.html"}


@pytest.fixture(scope="module")
def evil_graph() -> nx.DiGraph:
    """Two fields over several years, with markup in a concept name, a venue and a title."""
    items = [_paper(f"mt{i}", 2016 + i, [*MT, UBIQUITOUS, (EVIL, "Method")]) for i in range(8)]
    items += [_paper(f"ner{i}", 2016 + i, [*NER, UBIQUITOUS]) for i in range(8)]
    items += [_paper(f"new{i}", 2023, [*NER, ("prompting", "Technique")]) for i in range(4)]
    G = _graph(items)
    for n, d in G.nodes(data=True):
        if n.startswith("paper:mt"):
            d["venue"] = "<b>ACL</b>"
        if n.startswith(("paper:mt", "paper:ner")):  # (the report lists the most central papers)
            d["title"] = EVIL_TITLE
    return G


def _write(G: nx.DiGraph, tmp_path: Path, run_report=None, links=LINKS):
    return write_report(G, analyse(G), run_report, tmp_path / "report.html", tmp_path / "report.md", links=links)


def test_html_is_self_contained_and_escaped(evil_graph, tmp_path):
    result = _write(evil_graph, tmp_path)
    html = result.html.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "<script" not in html and "<link" not in html
    assert "default-src 'none'" in html
    assert "&lt;script&gt;window.__pwned" in html
    assert 'onerror="window' not in html and "<b>ACL</b>" not in html
    assert result.charts == html.count("data:image/png;base64,") >= 2
    for title, href in LINKS.items():
        assert f'<a href="{href}">{title}</a>' in html


def test_report_sections(evil_graph, tmp_path):
    html = _write(evil_graph, tmp_path).html.read_text(encoding="utf-8")
    headings = ["The corpus", "Top methods, techniques and problems", "Communities", "Bridge concepts"]
    headings += ["Emerging concepts", "Fading concepts", "Methods and the problems they meet"]
    for heading in headings:
        assert f">{heading}</h2>" in html
    assert "Data quality" not in html  # no run report given
    assert "prompting" in html  # new in 2023: emerging
    assert " in 1 venue: " in html
    assert "machine translation" in html and "named entity recognition" in html


def test_markdown_escapes_markup_and_keeps_tables_whole(evil_graph, tmp_path):
    md = _write(evil_graph, tmp_path).markdown.read_text(encoding="utf-8")
    assert md.startswith("# What the graph tells: kg\n")
    assert "<script>" not in md and "<img" not in md and "&lt;script&gt;" in md
    assert "[Concept map](concepts.html)" in md
    assert " in 1 venue: " in md  # (not "1 venues")
    assert r"\*bold\*" in md and r"\[link\](https://evil.example)" in md
    # Every row of a table has as many cells as its header: escaped pipes do not split cells.
    for block in re.split(r"\n\s*\n", md):
        rows = [line for line in block.splitlines() if line.startswith("|")]
        if rows:
            widths = {len(re.findall(r"(?<!\\)\|", row)) for row in rows}
            assert len(widths) == 1, block
    # ...and a table a macro draws is a table too, not one escaped line (the trends' were)
    assert not re.search(r"^\\\|", md, re.M)
    emerging = md.split("## Emerging concepts", 1)[1].split("## Fading concepts", 1)[0]
    assert re.search(r"^\| prompting \| Technique \| 4 \| 0 \| ", emerging, re.M), emerging


def test_data_quality_from_the_run_report(evil_graph, tmp_path):
    run = {
        "pipeline": "demo <x>",
        "records": {"read": 25, "kept": 20, "rejected": 5, "rejected_by_reason": {"duplicate id": 3, "too short": 2}},
        "mentions": {"total": 140, "by_type": {"Method": 50}, "by_role": {"uses": 140}},
        "stages": {"read": {"seconds": 0.5, "items": 25}},
        "seconds": 1.5,
    }
    result = _write(evil_graph, tmp_path, run_report=run)
    html = result.html.read_text(encoding="utf-8")
    assert "<title>What the graph tells: demo &lt;x&gt;</title>" in html
    assert ">Data quality</h2>" in html
    assert '<td>duplicate id</td><td class="num">3</td>' in html
    md = result.markdown.read_text(encoding="utf-8")
    assert "| rejected: duplicate id | 3 |" in md and "| read | 25 |" in md


def test_links_must_stay_local(evil_graph, tmp_path):
    for href in ("https://example.org/graph.html", "//cdn.example/x.html", "/etc/graph.html"):
        with pytest.raises(KGError, match="not a relative path"):
            _write(evil_graph, tmp_path, links={"Graph": href})


def test_report_of_a_graph_without_years_or_links(tmp_path):
    G = nx.DiGraph()
    G.add_node("paper:a", kind="Paper", id="a", title="A", year=None)
    result = _write(G, tmp_path, links=None)
    html = result.html.read_text(encoding="utf-8")
    assert result.charts == 0 and "No paper has a year: trends need papers from more than one year" in html
    assert "Graph views" not in html
    assert "papers of None" not in html + result.markdown.read_text(encoding="utf-8")


def test_a_metric_every_paper_reports_is_not_a_central_concept_nor_a_bridge(tmp_path):
    """A metric co-occurs with whatever it scores: on the arXiv ML corpus "accuracy" was the second
    most central concept of the report, "F1" the eighth on ACL's. It says how work is scored, not
    what it is about: it links no papers and the central concepts leave it out too."""
    accuracy = ("accuracy", "Metric")
    G = _graph([_paper(f"mt{i}", 2020 + i % 3, [*MT, accuracy]) for i in range(6)]
               + [_paper(f"ner{i}", 2020 + i % 3, [*NER, accuracy]) for i in range(6)])  # fmt: skip
    a = analyse(G)
    assert max(a.concepts.pagerank, key=a.concepts.pagerank.get) == "concept:accuracy"  # (the most central)
    md = _write(G, tmp_path).markdown.read_text(encoding="utf-8")
    central = md.split("## The most central concepts and papers", 1)[1].split("| paper |", 1)[0]
    assert "| machine translation |" in central and "| named entity recognition |" in central
    assert "accuracy" not in central
    # nor is it a bridge between them: half the arXiv ML report's bridges were metrics ("inference
    # time", "average accuracy", "scalability"), which reach every community they score
    assert "concept:accuracy" in {b.node for b in a.bridges}
    assert "accuracy" not in md.split("## Bridge concepts", 1)[1].split("\n## ", 1)[0]


def test_a_one_year_corpus_shows_no_trends(tmp_path):
    """One year: no chart of one bar, no "since" or "trend" column, no emerging or fading concepts."""
    G = _graph([_paper(f"p{i}", 2020, [*MT, UBIQUITOUS]) for i in range(6)])
    result = _write(G, tmp_path)
    html = result.html.read_text(encoding="utf-8")
    md = result.markdown.read_text(encoding="utf-8")
    assert result.charts == 0
    assert "Every dated paper is from 2020: trends need papers from more than one year" in html
    assert ">trend</th>" not in html and ">since</th>" not in html and 'href="#fading"' not in html
    assert "| concept | papers |\n" in md and "| trend |" not in md and "## Fading" not in md
    # nor a span of one year: 10,000 arXiv ML papers of 2026 were "from 2026 to 2026", "2026–2026"
    assert "6 papers of 2020:" in md and "6 papers of 2020:" in html and "2020–2020" not in html + md
    assert "| years | 2020 |" in md


def test_a_corpus_of_one_year_and_a_few_older_papers_shows_no_trends(tmp_path):
    """The first 30,000 arXiv ML records: 29,970 of 2024, 30 of 2018-2023, too few to be years to
    compare with. The report had shown an empty "Emerging concepts" table headed "2024–2024", and
    "since" and "trend" columns of dashes."""
    items = [_paper("old", 2019, MT)] + [_paper(f"p{i}", 2024, [*MT, UBIQUITOUS] if i % 2 else NER) for i in range(120)]
    result = _write(_graph(items), tmp_path)
    html, md = result.html.read_text(encoding="utf-8"), result.markdown.read_text(encoding="utf-8")
    note = "120 of the 121 dated papers are from 2024, too few from other years to compare with"
    assert note in html and note in md
    assert ">trend</th>" not in html and 'href="#fading"' not in html
    assert "| trend |" not in md and "## Fading" not in md
    # a community of one year's papers spans "2024", not "2024–2024 (2024)"
    assert "2024–2024" not in md and "| 2024 |" in md.split("### Paper communities", 1)[1]


def test_a_corpus_of_one_year_and_a_few_newer_papers_shows_no_trends(tmp_path):
    """5,000 ACL papers of 2024 (records 35,001-40,000): 4,993 of 2024 and 7 of 2025. Against the 7,
    the report's top lists had shown "transformer" (178 papers) fading "÷179" and ChatGPT growing
    "×4.6"; a year too small to count at the end of the corpus is none, as at its start."""
    items = [_paper(f"p{i}", 2024, [*MT, UBIQUITOUS] if i % 2 else NER) for i in range(120)] + [_paper("new", 2025, MT)]
    result = _write(_graph(items), tmp_path)
    html, md = result.html.read_text(encoding="utf-8"), result.markdown.read_text(encoding="utf-8")
    note = "120 of the 121 dated papers are from 2024, too few from other years to compare with"
    assert note in html and note in md
    assert ">trend</th>" not in html and 'href="#fading"' not in html
    assert "| trend |" not in md and "## Fading" not in md and "÷" not in md


def test_trend_windows_of_a_corpus_of_three_years_and_a_few_older_papers(tmp_path):
    # arXiv ML's shape: a paper of 2019 is no year of its own to compare with
    sizes = {2024: 30, 2025: 60, 2026: 40}
    items = [_paper("old", 2019, MT)]
    items += [_paper(f"p{y}-{i}", y, [*MT, UBIQUITOUS] if i % 2 else NER) for y, n in sizes.items() for i in range(n)]
    result = _write(_graph(items), tmp_path)
    assert "Share of papers in 2026 against 2024–2025," in result.markdown.read_text(encoding="utf-8")
    assert "grew most from 2024–2025\nto 2026 (" in result.html.read_text(encoding="utf-8")
    # and the sparklines span the years the trends count, not the lone paper's of 2019
    assert "| burst | 2024–2026 |" in result.markdown.read_text(encoding="utf-8")


# the bundled sample, in a real browser -----------------------------------------------------


@pytest.fixture(scope="module")
def sample_report(sample_run, tmp_path_factory):
    out, report = sample_run
    G = read_embedded(out / "kg.lbug")
    dest = tmp_path_factory.mktemp("report")
    links = {"Paper–concept graph": "graph.html"}
    return write_report(G, analyse(G), report.to_dict(), dest / "report.html", dest / "report.md", links=links)


def _open(browser, path: Path):
    """Open a local page with every non-file request blocked and logged, console errors kept, after load."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))

    def route(r):
        if r.request.url.startswith(("file://", "data:")):
            r.continue_()
        else:
            requests.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.goto(path.resolve().as_uri(), wait_until="load")
    return page, errors, requests


def test_sample_report_in_chromium(sample_report, browser):
    page, errors, requests = _open(browser, sample_report.html)
    try:
        assert page.title() == "What the graph tells: acl-sample"
        images = page.evaluate("[...document.images].map(i => [i.complete, i.naturalWidth, i.alt])")
        assert len(images) == sample_report.charts >= 5
        assert all(complete and width > 0 and alt for complete, width, alt in images)
        assert page.locator("h2").count() >= 8
        # (the name shown is the most frequent surface form that spells the key: "large language models")
        assert any(alt.lower().startswith("papers per year mentioning large language model") for *_, alt in images)
        assert page.locator("a[href='graph.html']").count() == 1
        assert errors == [] and requests == []
    finally:
        page.close()


def test_markup_in_the_data_runs_nothing_in_chromium(evil_graph, tmp_path, browser):
    page, errors, requests = _open(browser, _write(evil_graph, tmp_path).html)
    try:
        assert page.evaluate("window.__pwned") is None
        assert page.locator("body script, body img:not([src^='data:'])").count() == 0
        assert EVIL in page.locator("body").inner_text()
        assert errors == [] and requests == []
    finally:
        page.close()


def test_sample_markdown(sample_report):
    md = sample_report.markdown.read_text(encoding="utf-8")
    assert md.startswith("# What the graph tells: acl-sample")
    for heading in ("## The corpus", "## Communities", "## Emerging concepts", "## Data quality"):
        assert heading in md
    assert "| read | 300 |" in md
    assert "data:image" not in md
