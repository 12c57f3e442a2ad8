"""The HTML page: self-contained, escaped, and working in real headless Chromium."""

from __future__ import annotations

import re

from kg.build import build_graph, knowledge_graph
from kg.link import cooccurrence, link_papers
from kg.records import Extraction, Mention, Paper
from kg.viz import write_html
from tests.conftest import ROOT, open_page

XSS_TITLE = "<img src=x onerror=\"window.__pwned='img'\">Attention </script><script>window.__pwned='script'</script>"


def _evil_graph():
    abstract = "We use <b>BERT</b> <script>window.__pwned = 'abstract'</script> for parsing of Korean text."
    sentence = abstract
    papers = [Paper("p1", XSS_TITLE, abstract, 2020), Paper("p2", "Plain", "Plain text about BERT models here.", 2021)]
    ext = [
        Extraction(
            "p1",
            [
                Mention("BERT", "Method", 10, 14, sentence, "uses", "bert"),
                Mention("<b>", "Technique", 7, 10, sentence, "mentions", "<b>"),
            ],
        ),
        Extraction("p2", [Mention("BERT", "Method", 17, 21, "Plain text about BERT models here.", "mentions", "bert")]),
    ]
    B = build_graph(papers, ext)
    return knowledge_graph(B, link_papers(B, max_df=1.0), cooccurrence(B))


def test_page_is_self_contained(tmp_path):
    result = write_html(_evil_graph(), tmp_path / "g.html")
    html = result.path.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "vis-network" in html or "vis.Network" in html


def test_markup_in_data_is_never_markup_in_the_page(tmp_path):
    html = write_html(_evil_graph(), tmp_path / "g.html").path.read_text(encoding="utf-8")
    assert "<script>window.__pwned" not in html
    assert 'onerror="window' not in html
    assert XSS_TITLE not in html


def test_escaped_page_shows_text_and_runs_nothing(tmp_path, browser):
    path = write_html(_evil_graph(), tmp_path / "g.html", title="<i>kg</i> & friends").path
    page, log = open_page(browser, path)
    assert page.evaluate("window.__pwned") is None
    names = page.evaluate("kgNodes.get().map(n => n.name)")
    assert XSS_TITLE in names  # the title is data, shown as text
    assert page.title() == "<i>kg</i> & friends"
    assert page.locator("#bar h1").inner_text() == "<i>kg</i> & friends"
    assert log.errors == [] and log.requests == []


def test_sample_page_renders_offline_and_search_focuses(sample_run, browser):
    out, report = sample_run
    page, log = open_page(browser, out / "graph.html")
    n_nodes, n_edges = page.evaluate("[kgNodes.length, kgEdges.length]")
    assert n_nodes == report.graph["nodes"]["Paper"] + report.graph["nodes"]["Concept"]
    assert n_edges == report.graph["edges"]["MENTIONS"]
    assert page.evaluate("kgNetwork.getPositions()['paper:acl:2016.gwc-1.15'] !== undefined")
    page.fill("#search", "BERT")
    page.click("#search-form button")
    assert page.evaluate("window.kgFocused") == "concept:bert"
    assert page.evaluate("kgNetwork.getSelectedNodes()") == ["concept:bert"]
    (ROOT / "out").mkdir(exist_ok=True)
    page.screenshot(path=str(ROOT / "out" / "screenshot-graph.png"))
    assert log.errors == [] and log.requests == []


def test_node_budget_says_what_was_left_out(tmp_path, sample_run, browser):
    from kg.store import read_embedded

    out, report = sample_run
    total = sum(report.graph["nodes"].values())
    result = write_html(read_embedded(out / "kg.lbug"), tmp_path / "small.html", max_nodes=100)
    assert (result.nodes, result.omitted_nodes) == (100, total - 100)
    page, log = open_page(browser, result.path)
    assert page.evaluate("kgNodes.length") == 100
    assert f"{total - 100} left out" in page.locator("#note").inner_text()
    assert log.errors == []
