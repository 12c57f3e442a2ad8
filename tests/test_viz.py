"""The HTML pages: self-contained, escaped, and working in real headless Chromium."""

from __future__ import annotations

import re
from collections import Counter

import networkx as nx
import pytest

from kg.build import build_graph, knowledge_graph
from kg.link import cooccurrence, link_papers
from kg.records import Extraction, Mention, Paper
from kg.store import read_embedded
from kg.viz import concept_map, ego_view, full_view, graph_from_rows, paper_map, write_html
from tests.conftest import ROOT, open_page

XSS_TITLE = "<img src=x onerror=\"window.__pwned='img'\">Attention </script><script>window.__pwned='script'</script>"
XSS_ABSTRACT = "We use <b>BERT</b> <script>window.__pwned = 'abstract'</script> for parsing of Korean text."


def _evil_graph():
    papers = [Paper("p1", XSS_TITLE, XSS_ABSTRACT, 2020),
              Paper("p2", "Plain BERT", "Plain text about BERT models here.", 2021)]  # fmt: skip
    ext = [
        Extraction("p1", [Mention("BERT", "Method", 10, 14, XSS_ABSTRACT, "uses", "bert"),
                          Mention("<b>", "Technique", 7, 10, XSS_ABSTRACT, "mentions", "<b>")]),
        Extraction("p2", [Mention("BERT", "Method", 6, 10, "Plain BERT", "mentions", "bert", "title"),
                          Mention("BERT", "Method", 17, 21, "Plain text about BERT models here.", "mentions",
                                  "bert")]),
    ]  # fmt: skip
    B = build_graph(papers, ext)
    return knowledge_graph(B, link_papers(B, max_df=1.0), cooccurrence(B))


@pytest.fixture(scope="module")
def sample_graph(sample_run):
    out, _ = sample_run
    return read_embedded(out / "kg.lbug")


def test_page_is_self_contained(tmp_path):
    G = _evil_graph()
    html = write_html(full_view(G), tmp_path / "g.html", G=G).path.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "vis.Network" in html


def test_markup_in_data_is_never_markup_in_the_page(tmp_path):
    G = _evil_graph()
    html = write_html(full_view(G), tmp_path / "g.html", G=G).path.read_text(encoding="utf-8")
    assert "<script>window.__pwned" not in html
    assert 'onerror="window' not in html
    assert XSS_TITLE not in html


def test_escaped_page_shows_text_and_runs_nothing(tmp_path, browser):
    G = _evil_graph()
    path = write_html(full_view(G), tmp_path / "g.html", G=G, title="<i>kg</i> & friends").path
    page, log = open_page(browser, path)
    assert page.evaluate("window.__pwned") is None
    assert XSS_TITLE in page.evaluate("kgNodes.get().map(n => n.name)")
    assert page.title() == "<i>kg</i> & friends"
    assert page.locator("#bar h1").inner_text() == "<i>kg</i> & friends"
    # the side panel shows the title and the evidence sentence as text, never as markup
    page.evaluate("kgNetwork.selectNodes(['paper:p1'])")
    page.fill("#search", "attention")
    page.click("#search-form button")
    assert page.locator("#details h2").inner_text() == XSS_TITLE.replace("\n", " ")
    edge = page.evaluate(
        "kgEdges.get().find(e => e.rel === 'MENTIONS' && e.from === 'paper:p1' && e.text === 'BERT').id"
    )
    page.evaluate(f"void kgNetwork.body.emitter.emit('click', {{nodes: [], edges: ['{edge}']}})")
    assert page.locator("#details mark").inner_text() == "BERT"
    assert "<script>window.__pwned" in page.locator("#details p").inner_text()
    assert page.evaluate("window.__pwned") is None
    assert page.locator("#details script, #details img").count() == 0
    # a mention whose evidence is the paper's title says so
    edge = page.evaluate("kgEdges.get().find(e => e.rel === 'MENTIONS' && e.from === 'paper:p2').id")
    page.evaluate(f"void kgNetwork.body.emitter.emit('click', {{nodes: [], edges: ['{edge}']}})")
    assert page.locator("#details strong").inner_text() == "Evidence (the title)"
    assert page.locator("#details p").inner_text() == "Plain BERT"
    assert log.errors == [] and log.requests == []


VIEWS = {
    "graph": lambda G: full_view(G),
    "concepts": lambda G: concept_map(G),
    "papers": lambda G: paper_map(G),
    "ego": lambda G: ego_view(G, "large language model", depth=1),
}


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_each_view_renders_offline(view, sample_graph, browser, tmp_path):
    H = VIEWS[view](sample_graph)
    path = write_html(H, tmp_path / f"{view}.html", G=sample_graph, title=f"kg: {view}", max_nodes=10_000,
                      colour_by="community" if view in ("concepts", "papers") else "type",
                      overview_above=10**6).path  # every node drawn  # fmt: skip
    page, log = open_page(browser, path)
    assert page.evaluate("[kgNodes.length, kgEdges.length]") == [H.number_of_nodes(), H.number_of_edges()]
    assert page.evaluate("Object.keys(kgNetwork.getPositions()).length") == H.number_of_nodes()
    (ROOT / "out").mkdir(exist_ok=True)
    page.screenshot(path=str(ROOT / "out" / f"screenshot-{view}.png"))
    assert log.errors == [] and log.requests == []


def test_query_view_from_paths(sample_run, sample_graph, browser, tmp_path):
    from kg.store import query_embedded

    out, _ = sample_run
    rows = query_embedded(
        out / "kg.lbug",
        "MATCH p = (a:Paper)-[:MENTIONS]->(c:Concept {key: $k}) RETURN p",
        {"k": "large language model"},
    ).rows
    H = graph_from_rows(rows, sample_graph)
    papers = sample_graph.nodes["concept:large language model"]["paper_count"]
    assert (H.number_of_nodes(), H.number_of_edges()) == (papers + 1, papers)
    path = write_html(H, tmp_path / "query.html", G=sample_graph, title="kg: query").path
    page, log = open_page(browser, path)
    assert page.evaluate("[kgNodes.length, kgEdges.length]") == [papers + 1, papers]
    page.screenshot(path=str(ROOT / "out" / "screenshot-query.png"))
    assert log.errors == [] and log.requests == []


def test_search_type_filter_and_year_slider(sample_graph, browser, tmp_path):
    H = full_view(sample_graph)
    path = write_html(H, tmp_path / "g.html", G=sample_graph, max_nodes=10_000, overview_above=10**6).path
    page, log = open_page(browser, path)
    page.fill("#search", "BERT")
    page.click("#search-form button")
    assert page.evaluate("window.kgFocused") == "concept:bert"
    assert page.evaluate("kgNetwork.getSelectedNodes()") == ["concept:bert"]
    assert page.locator("#details h2").inner_text() == "BERT"

    techniques = sum(1 for _, d in H.nodes(data=True) if d.get("type") == "Technique")
    page.uncheck(".type-filter[value=Technique]")
    assert page.evaluate("kgNodes.get({filter: n => !n.hidden}).length") == H.number_of_nodes() - techniques
    assert page.evaluate("kgNodes.get({filter: n => !n.hidden && n.kind === 'Technique'}).length") == 0
    page.check(".type-filter[value=Technique]")
    assert page.evaluate("kgNodes.get({filter: n => !n.hidden}).length") == H.number_of_nodes()

    def first_year(n, d):
        if d["kind"] == "Paper":
            return d["year"]
        return min(sample_graph.nodes[p]["year"] for p in sample_graph.predecessors(n) if p.startswith("paper:"))

    expected = sum(1 for n, d in H.nodes(data=True) if first_year(n, d) >= 2024)
    page.locator("#year-min").fill("2024")
    assert page.evaluate("window.kgVisible") == expected
    assert page.evaluate("kgNodes.get({filter: n => !n.hidden && n.year < 2024}).length") == 0
    page.locator("#year-min").fill("2016")
    assert page.evaluate("window.kgVisible") == H.number_of_nodes()
    assert log.errors == []


def test_paper_edge_lists_shared_concepts(sample_graph, browser, tmp_path):
    H = paper_map(sample_graph)
    u, v, d = max(H.edges(data=True), key=lambda e: (e[2]["weight"], e[0], e[1]))
    path = write_html(H, tmp_path / "p.html", G=sample_graph, colour_by="community").path
    page, _ = open_page(browser, path)
    edge = page.evaluate(
        f"kgEdges.get().find(e => (e.from === '{u}' && e.to === '{v}') || (e.from === '{v}' && e.to === '{u}')).id"
    )
    page.evaluate(f"void kgNetwork.body.emitter.emit('click', {{nodes: [], edges: ['{edge}']}})")
    shown = page.locator("#details li").all_inner_texts()
    assert shown == [sample_graph.nodes[f"concept:{k}"]["name"] for k in d["shared"]]


def test_node_budget_keeps_the_most_important_and_says_so(tmp_path, sample_graph, browser):
    H = full_view(sample_graph)
    result = write_html(H, tmp_path / "small.html", G=sample_graph, max_nodes=100)
    assert (result.nodes, result.omitted_nodes) == (100, H.number_of_nodes() - 100)
    page, log = open_page(browser, result.path)
    assert page.evaluate("kgNodes.length") == 100
    assert "concept:large language model" in page.evaluate("kgNodes.getIds()")
    assert f"{H.number_of_nodes() - 100} left out" in page.locator("#note").inner_text()
    assert log.errors == []


def test_ego_view_resolves_names_and_depth(sample_graph):
    one = ego_view(sample_graph, "BERT", depth=1)
    two = ego_view(sample_graph, "bert", depth=2)
    assert one.graph["centre"] == "concept:bert" and set(one) < set(two)
    assert all(nx.shortest_path_length(one, "concept:bert", n) <= 1 for n in one)
    from kg.errors import KGError

    with pytest.raises(KGError, match="no paper or concept 'nonexistent thing'"):
        ego_view(sample_graph, "nonexistent thing")


@pytest.mark.parametrize(
    ("view", "draw", "colour", "cap"), [("graph", full_view, "type", 300), ("concepts", concept_map, "community", 30)]
)
def test_a_page_read_from_the_store_equals_one_drawn_from_the_whole_graph(sample_run, sample_graph, tmp_path, view,
                                                                           draw, colour, cap):  # fmt: skip
    """``kg viz`` reads only what a capped page shows (kg.viz.stored): the page is the same."""
    from typer.testing import CliRunner

    from kg.cli import app

    out, _ = sample_run
    page = tmp_path / f"{view}-store.html"
    args = ["viz", view, "--db", str(out / "kg.lbug"), "-o", str(page), "--max-nodes", str(cap)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "left out" in result.output and "(0 left out)" not in result.output
    whole = write_html(draw(sample_graph), tmp_path / "whole.html", G=sample_graph, title=f"kg: {view} view",
                       colour_by=colour, max_nodes=cap)  # fmt: skip
    assert page.read_text(encoding="utf-8") == whole.path.read_text(encoding="utf-8")


def test_a_map_whose_kept_nodes_are_all_concepts_says_its_circles_are_communities_of_papers(sample_graph, tmp_path):
    """The arXiv ML page keeps its 2,000 most important nodes, all concepts, and opens as the map of
    the whole view's communities of papers; its note said "each circle is a community of concepts
    (size: its concepts ...)"."""
    from kg.viz.overview import map_of_view

    H = full_view(sample_graph)
    concepts = sorted((n for n, d in H.nodes(data=True) if d["kind"] != "Paper"), key=lambda n: (-H.degree(n), n))
    S = H.subgraph(concepts[:300]).copy()
    S.graph["map"] = map_of_view(H)
    score = {n: float(H.degree(n)) for n in S}
    result = write_html(S, tmp_path / "page.html", G=sample_graph, max_nodes=300, score=score,
                        total=H.number_of_nodes(), overview_above=100)  # fmt: skip
    assert result.communities > 1
    note = re.search(r'<p id="map-note">(.*?)</p>', result.path.read_text(encoding="utf-8")).group(1)
    assert "each circle is a community of papers with their concepts (size: its papers" in note


def test_a_map_of_a_view_too_big_to_draw_is_the_map_of_the_whole_view(sample_run, sample_graph, tmp_path, browser):
    """A page that keeps 300 of the view's nodes and opens as a map maps all the view's papers and concepts
    (not only the kept ones), whether drawn from the whole graph or read from the store (kg.viz.stored)."""
    from kg.store import reader
    from kg.viz.overview import coarsen, paper_groups
    from kg.viz.stored import page_graph

    out, _ = sample_run
    H = full_view(sample_graph)
    cap, above = 300, 100
    assert H.number_of_nodes() > cap > above
    pages = [write_html(H, tmp_path / "whole.html", G=sample_graph, max_nodes=cap, overview_above=above)]
    with reader(out / "kg.lbug") as run:
        read = page_graph(lambda q, p: run(q, p).rows, max_nodes=cap)
    S, score, total = read.views["graph"]
    pages.append(write_html(S, tmp_path / "stored.html", G=read.G, max_nodes=cap, score=score, total=total,
                            overview_above=above))  # fmt: skip
    # what the map should say: the communities of the whole view, each concept in its papers' commonest
    groups = coarsen(H, paper_groups(H))
    papers = Counter(k for n, k in groups.items() if H.nodes[n]["kind"] == "Paper")
    sizes = Counter(groups.values())
    names = H.graph["communities"]["Paper"]
    maps = []
    for result in pages:
        assert (result.nodes, result.omitted_nodes) == (cap, H.number_of_nodes() - cap)
        page, log = open_page(browser, result.path)
        summary = page.evaluate("kgNodes.get({filter: n => n.summary}).map(n => [n.community, n.name, n.title])")
        kept = page.evaluate("kgNodes.get({filter: n => !n.summary}).map(n => n.id)")
        assert page.locator("#map-note").inner_text().startswith(f"{H.number_of_nodes()} nodes are too many")
        assert {k for k, *_ in summary} - {None} == {groups[n] for n in kept} - {-1}
        for k, name, title in summary:
            k = -1 if k is None else k
            assert name == (names[k] if k >= 0 else "small communities, or none")
            assert title == f"{name}\n{papers[k]} papers, {sizes[k] - papers[k]} concepts · double-click: open"
        # the largest community opens in place: its kept papers and concepts drawn, the others still circles
        biggest = max((k for k, *_ in summary if k is not None), key=lambda k: (papers[k], -k))
        page.evaluate(f"void kgNetwork.body.emitter.emit('doubleClick', {{nodes: ['community:{biggest}'], edges: []}})")
        opened = page.evaluate("kgNodes.get({filter: n => !n.hidden && !n.summary}).map(n => n.id)")
        assert sorted(opened) == sorted(n for n in kept if groups[n] == biggest) and opened
        assert page.evaluate("kgNodes.get({filter: n => n.summary && !n.hidden}).length") == len(summary) - 1
        assert log.errors == [] and log.requests == []
        maps.append(sorted(summary, key=str))
        page.close()
    assert len(maps[0]) > 5 and maps[0] == maps[1]
    assert pages[0].path.read_text(encoding="utf-8") == pages[1].path.read_text(encoding="utf-8")


def test_concept_panel_lists_what_abstracts_state(sample_graph, browser, tmp_path):
    n = "concept:large language model"
    used_for = sorted(sample_graph.nodes[v]["name"] for v, e in sample_graph.succ[n].items() if e["rel"] == "USED_FOR")
    assert used_for
    path = write_html(full_view(sample_graph), tmp_path / "g.html", G=sample_graph, max_nodes=10_000).path
    page, log = open_page(browser, path)
    page.fill("#search", "large language model")
    page.click("#search-form button")
    assert page.evaluate("window.kgFocused") == n
    shown = page.locator("#details li").all_inner_texts()
    assert [s.removeprefix("used for ") for s in shown if s.startswith("used for ")] == used_for
    assert log.errors == []


def test_stated_relations_are_drawn_head_to_tail_around_a_concept(sample_graph, browser, tmp_path):
    E = ego_view(sample_graph, "large language model")
    path = write_html(E, tmp_path / "ego.html", G=sample_graph).path
    page, log = open_page(browser, path)
    drawn = page.evaluate("kgEdges.get().filter(e => e.rel === 'USED_FOR').map(e => [e.from, e.to])")
    stated = {(u, v) for u, v, d in sample_graph.edges(data=True) if d["rel"] == "USED_FOR" and u in E and v in E}
    # A view draws one line per pair: a pair stated both ways (in different papers) shows one of them.
    assert stated and {tuple(e) for e in drawn} <= stated and len(drawn) == len({frozenset(e) for e in stated})
    assert log.errors == []


def test_the_runs_page_of_the_top_nodes_is_the_page_of_the_whole_view(sample_graph, tmp_path):
    """A run draws its graph page from the top nodes only (full_view_top, never the whole view in
    memory); capped and opened as a map, it is byte for byte the page of the whole view."""
    from kg.viz.views import full_view_top

    cap, above = 300, 100
    whole = write_html(full_view(sample_graph), tmp_path / "whole.html", G=sample_graph, max_nodes=cap,
                       overview_above=above)  # fmt: skip
    H, score, total = full_view_top(sample_graph, cap)
    top = write_html(H, tmp_path / "top.html", G=sample_graph, max_nodes=cap, score=score, total=total,
                     overview_above=above)  # fmt: skip
    assert "map of" in whole.path.read_text(encoding="utf-8")
    assert top.path.read_text(encoding="utf-8") == whole.path.read_text(encoding="utf-8")


def test_a_stored_page_names_communities_as_the_full_counts_do():
    """A stored page reads each concept's name only where two papers of a community mention it, or
    where no concept is mentioned twice in the community: the names are those of all the counts."""
    from kg.analyse import name_paper_communities
    from kg.viz.stored import _paper_labels

    rows = [(k, f"concept:{key}", n) for k, key, n in [
        (0, "parsing", 3), (0, "treebank", 2), (0, "lexicon", 1), (0, "tagging", 1), (1, "bert", 1), (1, "speech", 1),
        (1, "asr", 1), (2, "tagging", 2), (2, "parsing", 1)]]  # fmt: skip
    sizes = {0: 3, 1: 2, 2: 2}
    concepts = nx.DiGraph()
    for key in {r[1].removeprefix("concept:") for r in rows}:
        concepts.add_node(f"concept:{key}", key=key, name=key.upper(), generic=key == "bert", type="Method")
    asked: list[list[str]] = []

    def run(query: str, params: dict[str, list[str]]) -> list[list[object]]:
        asked.append(params["keys"])
        return [[k, k.upper(), k == "bert", "Method"] for k in params["keys"]]

    counts: dict[int, dict[str, int]] = {}
    for k, c, n in rows:
        counts.setdefault(k, {})[c] = n
    full = {c.number: c.label for c in name_paper_communities(counts, sizes, concepts)}
    assert _paper_labels(run, sizes, rows) == full
    assert full[1] == "ASR, SPEECH"  # no concept twice: named by its concepts once mentioned
    assert asked == [["asr", "bert", "parsing", "speech", "tagging", "treebank"]]  # not "lexicon"
