"""The pages as a person sees them, in real headless Chromium: readable labels, honest colours, fitted views.

Three runs of the default pipeline file: on its sample, on the 2,000-abstract arXiv sample of
../shared (the map of communities) and on 20 abstracts (pages with little or nothing to draw).
Screenshots of the default run and of the arXiv sample go to docs/ (the README's "Pages").
"""

from __future__ import annotations

import contextlib
import itertools
import math
import re
from pathlib import Path

import networkx as nx
import pytest
from typer.testing import CliRunner

from kg.cli import app
from kg.store import query_embedded
from kg.viz import concept_map, write_html
from kg.viz.html import COMMUNITY_COLOURS
from tests.conftest import OUTPUTS, ROOT, SAMPLE, SHARED, open_page
from tests.test_viz import _evil_graph

ARXIV = SHARED / "arxiv-ml" / "arxiv-ml-sample2k.jsonl"
DOCS = ROOT / "docs"
VIEWS = ("graph", "concepts", "papers", "ego", "query")


def _run(records: Path, out: Path, cache: Path, title: str) -> Path:
    """The default pipeline file on ``records``, into ``out``."""
    from kg.pipeline import load_pipeline_file, run_pipeline

    overrides = [f'outputs.{name}="{out / file}"' for name, file in OUTPUTS.items() if name != "cache"]
    overrides += [f'outputs.cache="{cache}"', f'viz.title="{title}"']
    spec = load_pipeline_file(ROOT / "pipelines" / "sample.toml", overrides)
    spec.sources[0].path = records
    run_pipeline(spec)
    return out


def _ego_and_query(out: Path) -> Path:
    """An ego and a query page (`kg viz`) around the run's concept with the most papers."""
    db = out / "kg.lbug"
    rows = query_embedded(db, "MATCH (c:Concept) WHERE c.generic = false RETURN c.key, c.name "
                              "ORDER BY c.paper_count DESC, c.key LIMIT 1").rows  # fmt: skip
    key, name = rows[0]
    runner = CliRunner()
    ego = runner.invoke(app, ["viz", "ego", "--db", str(db), "--around", name, "-o", str(out / "ego.html")])
    assert ego.exit_code == 0, ego.output
    query = "MATCH p = (a:Paper)-[:MENTIONS]->(c:Concept {key: $k}) RETURN p"
    done = runner.invoke(app, ["viz", "query", "--db", str(db), "--query", query, "-p", f"k={key}",
                               "-o", str(out / "query.html")])  # fmt: skip
    assert done.exit_code == 0, done.output
    return out


@pytest.fixture(scope="module")
def runs(default_run, request, tmp_path_factory):
    """run -> view -> page, for the default run, the arXiv sample and a 20-abstract corpus.

    The arXiv sample's extraction (1-2 minutes) is cached in pytest's cache folder, so only the
    first session pays for it.
    """
    cache = Path(request.config.cache.mkdir("kg-pages"))
    small = tmp_path_factory.mktemp("small")
    (small / "twenty.jsonl").write_text("".join(SAMPLE.read_text(encoding="utf-8").splitlines(True)[:20]),
                                        encoding="utf-8")  # fmt: skip
    arxiv = tmp_path_factory.mktemp("arxiv")
    dirs = {
        "default": default_run[0],
        "arxiv": _run(ARXIV, arxiv, cache / "arxiv.sqlite", "kg: 2,000 arXiv ML abstracts"),
        "small": _run(small / "twenty.jsonl", small, cache / "small.sqlite", "kg: 20 abstracts"),
    }
    for d in dirs.values():
        _ego_and_query(d)
    return {run: {v: d / f"{v}.html" for v in VIEWS} for run, d in dirs.items()}


PAGES = [(run, view) for run in ("default", "arxiv", "small") for view in VIEWS]

LABELS = """() => {
  const m = document.createElement("canvas").getContext("2d");
  m.font = "12px system-ui, -apple-system, 'Segoe UI', sans-serif";
  return (window.kgLabels || []).map(b => {
    const n = kgNodes.get(b.id);
    const p = kgNetwork.getPositions([b.id])[b.id];
    const s = {below: [0, 1], above: [0, -1], right: [1, 0], left: [-1, 0]}[b.side];
    const d = kgNetwork.canvasToDOM({x: p.x + s[0] * n.size, y: p.y + s[1] * n.size});
    return {id: b.id, left: b.left, top: b.top, width: b.width, height: b.height, measured: m.measureText(b.text).width,
            side: b.side, summary: Boolean(n.summary), head: Boolean(n.head), x: d.x, y: d.y,
            hidden: Boolean(n.hidden)};
  });
}"""

COLOURS = """() => {
  const legend = new Set([...document.querySelectorAll('.legend span.dot')]
    .map(s => s.getAttribute('style').split('background:')[1].trim().toLowerCase()));
  const wrong = [];
  kgNodes.forEach(n => {
    const drawn = kgNetwork.body.nodes[n.id].options.color.background.toLowerCase();
    if (drawn !== n.colour.toLowerCase() || !legend.has(drawn)) { wrong.push([n.id, drawn, n.colour]); }
  });
  return wrong;
}"""

REDRAW = "new Promise(r => { kgNetwork.once('afterDrawing', () => r()); kgNetwork.redraw(); })"


def _labels_do_not_overlap(page) -> int:
    """Check the labels drawn now: each under its node (a community's circle, or the concept that names
    a community where it lies: beside it), as wide as its text, none over another."""
    page.evaluate(REDRAW)
    boxes = page.evaluate(LABELS)
    for b in boxes:
        assert not b["hidden"]
        assert b["width"] >= b["measured"]
        assert b["side"] == "below" or b["summary"] or b["head"], b
        x, y = b["left"] + b["width"] / 2, b["top"] + b["height"] / 2  # the box's centre, beside the anchor
        if b["side"] in ("below", "above"):  # a circle's label may slide along the window's edge
            centred = abs(x - b["x"]) < 1 or (b["summary"] and b["left"] <= b["x"] <= b["left"] + b["width"])
            assert centred and (b["top"] >= b["y"] - 0.5 if b["side"] == "below" else y < b["y"])
        else:
            assert abs(y - b["y"]) < 1 and (b["left"] >= b["x"] if b["side"] == "right" else x < b["x"])
    for a, b in itertools.combinations(boxes, 2):
        across = min(a["left"] + a["width"], b["left"] + b["width"]) - max(a["left"], b["left"])
        down = min(a["top"] + a["height"], b["top"] + b["height"]) - max(a["top"], b["top"])
        assert across <= 0.5 or down <= 0.5, (a, b)
    return len(boxes)


def _at_zooms(page) -> list[int]:
    """The labels at the fitted zoom and closer in, each time checked: how many were drawn."""
    base = page.evaluate("kgNetwork.getScale()")
    drawn = []
    for factor in (1, 2, 4, 8):
        page.evaluate(f"kgNetwork.moveTo({{scale: {base * factor}, animation: false}})")
        drawn.append(_labels_do_not_overlap(page))
    page.evaluate("kgFit()")
    return drawn


def _options(page) -> list[str]:
    return (
        page.locator("#community-filter option").all_inner_texts() if page.locator("#community-filter").count() else []
    )


@pytest.mark.parametrize(("run", "view"), PAGES)
def test_labels_do_not_overlap_at_any_zoom(runs, browser, run, view):
    page, log = open_page(browser, runs[run][view])
    nodes = page.evaluate("kgNodes.length")
    if not nodes:
        assert page.locator("#empty").inner_text().startswith("Nothing to draw")
        return
    drawn = _at_zooms(page)
    assert drawn[0] > 0 and max(drawn) >= drawn[0]
    if page.evaluate("kgNodes.get({filter: n => n.summary}).length"):  # a map: also with a community opened
        page.select_option("#community-filter", index=1)
        assert _at_zooms(page)[0] > 0
    assert log.errors == [] and log.requests == []


@pytest.mark.parametrize(("run", "view"), PAGES)
def test_every_node_keeps_its_legend_colour_when_filters_are_undone(runs, browser, run, view):
    page, log = open_page(browser, runs[run][view])
    assert page.evaluate(COLOURS) == []
    shown = page.evaluate("kgNodes.get({filter: n => !n.hidden}).map(n => n.id)")
    for box in page.locator(".type-filter").all():
        box.uncheck()
        box.check()
    if page.locator("#year-min").count():
        lo, hi = (int(page.locator(s).get_attribute("value") or 0) for s in ("#year-min", "#year-max"))
        page.locator("#year-min").fill(str(hi))
        page.locator("#year-max").fill(str(hi))
        page.locator("#year-min").fill(str(lo))
        page.locator("#year-max").fill(str(hi))
    for i in range(1, min(len(_options(page)), 4)):
        page.select_option("#community-filter", index=i)
    if _options(page):
        page.select_option("#community-filter", "")
    summary = page.evaluate("kgNodes.get({filter: n => n.summary}).map(n => n.id)")
    if summary:  # open one community of the map in place, then go back
        page.evaluate(f"void kgNetwork.body.emitter.emit('doubleClick', {{nodes: ['{summary[0]}'], edges: []}})")
        assert page.locator("#back").is_visible()
        page.click("#back")
    assert page.evaluate("kgNodes.get({filter: n => !n.hidden}).map(n => n.id)") == shown
    assert page.evaluate(COLOURS) == []
    assert log.errors == []


@pytest.mark.parametrize(("run", "view"), PAGES)
def test_views_are_fitted_named_and_say_what_they_show(runs, browser, run, view):
    page, log = open_page(browser, runs[run][view])
    if not page.evaluate("kgNodes.length"):
        assert "Nothing to draw" in page.locator("#empty").inner_text()
        assert page.locator("#search").count() == 0
        return
    fit = page.evaluate("""() => {
      const ids = kgNodes.getIds({filter: n => !n.hidden}), pos = kgNetwork.getPositions(ids);
      const c = kgNetwork.canvas.frame.canvas, W = c.clientWidth, H = c.clientHeight;
      const d = ids.map(id => kgNetwork.canvasToDOM(pos[id]));
      const xs = d.map(p => p.x), ys = d.map(p => p.y);
      return {inside: d.every(p => p.x >= 0 && p.x <= W && p.y >= 0 && p.y <= H),
              width: (Math.max(...xs) - Math.min(...xs)) / W, height: (Math.max(...ys) - Math.min(...ys)) / H,
              scale: kgNetwork.getScale()};
    }""")
    assert fit["inside"]
    assert max(fit["width"], fit["height"]) > 0.5 or fit["scale"] == pytest.approx(1.7 * 0.88), fit
    for text in _options(page)[1:]:  # named communities, never "1: "
        assert re.fullmatch(r"\d+: \S.*", text), text
    title = page.title()
    if view == "ego":
        assert title.startswith("kg: ego view around ") and len(title) > len("kg: ego view around ")
    if view == "query":
        assert title.startswith("kg: query view of MATCH p = ") and "(k=" in title
    years = {y for y in page.evaluate("kgNodes.get().map(n => n.year)") if isinstance(y, int)}
    assert page.locator("#year-min").count() == (1 if len(years) > 1 else 0)
    assert log.errors == []


@pytest.mark.parametrize("run", ["default", "arxiv"])
def test_every_circle_of_a_map_is_named_on_it(runs, browser, run):
    """A map shows each community's name beside its circle, not on hover only (the default page's
    fifth community had none: its name would have covered its neighbour's under the circles)."""
    page, log = open_page(browser, runs[run]["graph"])
    summary = page.evaluate("kgNodes.get({filter: n => n.summary}).map(n => n.id)")
    assert len(summary) >= 5
    assert _labels_do_not_overlap(page) == len(summary)
    assert log.errors == []


#: What the page draws, read from the live vis-network: each node's dot on screen and each label's
#: text as drawn (its width measured in the page in the labels' font, its height the font's size,
#: centred where the page draws it) with the node it names.
DRAWN = """() => {
  const m = document.createElement("canvas").getContext("2d"), size = 12;
  m.font = size + "px system-ui, -apple-system, 'Segoe UI', sans-serif";
  const scale = kgNetwork.getScale(), shown = kgNodes.get({filter: n => !n.hidden});
  const pos = kgNetwork.getPositions(shown.map(n => n.id));
  const dots = {};
  shown.forEach(n => { const d = kgNetwork.canvasToDOM(pos[n.id]);
    dots[n.id] = {id: n.id, community: n.community, summary: Boolean(n.summary), x: d.x, y: d.y, r: n.size * scale}; });
  const labels = (window.kgLabels || []).map(b => {
    const w = m.measureText(b.text).width, cx = b.left + b.width / 2, cy = b.top + b.height / 2;
    return {id: b.id, text: b.text, side: b.side, left: cx - w / 2, top: cy - size / 2, width: w, height: size};
  });
  return {dots: Object.values(dots), labels: labels};
}"""


def _drawn(page, size: tuple[int, int]) -> tuple[list[dict], list[dict]]:
    """The dots and the labels drawn in a window of ``size``, the drawing fitted to it."""
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.evaluate("kgNetwork.setSize('100%', '100%'); kgFit()")
    page.evaluate(REDRAW)
    drawn = page.evaluate(DRAWN)
    return drawn["dots"], drawn["labels"]


def _overlapping(labels: list[dict]) -> list[tuple[str, str]]:
    """The pairs of labels whose texts overlap by more than half a pixel (the page's positions are
    fractional pixels, and a text's white halo, 1.5 px wide, may touch the text beside it)."""
    pairs = []
    for a, b in itertools.combinations(labels, 2):
        across = min(a["left"] + a["width"], b["left"] + b["width"]) - max(a["left"], b["left"])
        down = min(a["top"] + a["height"], b["top"] + b["height"]) - max(a["top"], b["top"])
        if across > 0.5 and down > 0.5:
            pairs.append((a["text"], b["text"]))
    return pairs


def _over_circles(labels: list[dict], circles: list[dict]) -> list[tuple[str, str]]:
    """(label, circle): the labels whose text covers the circle of another node by more than half a pixel."""
    pairs = []
    for label in labels:
        for c in circles:
            x = min(max(c["x"], label["left"]), label["left"] + label["width"])
            y = min(max(c["y"], label["top"]), label["top"] + label["height"])
            if c["id"] != label["id"] and math.dist((x, y), (c["x"], c["y"])) < c["r"] - 0.5:
                pairs.append((label["text"], c["id"]))
    return pairs


@pytest.mark.parametrize(("run", "view"), [("arxiv", "concepts"), ("default", "concepts"), ("default", "papers")])
def test_a_page_of_several_communities_draws_each_in_a_place_of_its_own_and_names_it(runs, browser, run, view):
    """The arXiv sample's concepts page (743 concepts, 12 communities) was one hairball with the
    communities mixed in it: each community is together, apart from the others, and named where it
    lies by one of its concepts, the labels clear of one another."""
    page, log = open_page(browser, runs[run][view])
    for size in ((1200, 760), (1400, 900)):  # the README's pictures and the tests' window
        dots, labels = _drawn(page, size)
        assert _overlapping(labels) == []
        members: dict[int, list[dict]] = {}
        for d in dots:
            if d["community"] is not None and d["community"] < len(COMMUNITY_COLOURS):
                members.setdefault(d["community"], []).append(d)
        big = {k: m for k, m in members.items() if len(m) >= 10}
        assert len(big) >= 5
        near = [math.dist((a["x"], a["y"]), (b["x"], b["y"])) for m in big.values()
                for a, b in itertools.combinations(m, 2)]  # fmt: skip
        far = [math.dist((a["x"], a["y"]), (b["x"], b["y"])) for k, j in itertools.combinations(big, 2)
               for a in big[k] for b in big[j]]  # fmt: skip
        ratio = (sum(near) / len(near)) / (sum(far) / len(far))
        assert ratio < 0.4, ratio  # a community's concepts together: under 0.4 of the way to another's
        named = {d["community"] for d in dots if d["id"] in {lb["id"] for lb in labels}}
        assert set(big) <= named, sorted(set(big) - named)
    assert log.errors == []


TOPICS = ["speculative decoding", "knowledge distillation", "mixture of experts", "retrieval-augmented generation",
          "low-rank adaptation", "vision-language models", "reinforcement learning from human feedback",
          "diffusion models", "graph neural networks", "federated learning", "machine translation",
          "3D Gaussian Splatting"]  # fmt: skip


def _communities(members: int = 40) -> nx.Graph:
    """A concepts view of 12 communities, each a concept with a long name (the community's first)
    linked to the others of its community, which are linked in a chain, and to 3 other communities."""
    H = nx.Graph()
    size = len(TOPICS)
    for c, topic in enumerate(TOPICS):
        name = f"{topic} for large language models"
        ids = [f"concept:{c}-{i}" for i in range(members)]
        for i, n in enumerate(ids):
            H.add_node(n, kind="Concept", type="Method", key=n, community=c, paper_count=3,
                       name=name if i == 0 else f"{name} part {i}")  # fmt: skip
        H.add_edges_from(((ids[0], n) for n in ids[1:]), rel="CO_OCCURS", weight=2)
        H.add_edges_from(itertools.pairwise(ids[1:]), rel="CO_OCCURS", weight=1)
        for d in (1, 2, 5):
            H.add_edge(ids[(7 * c + d) % members], f"concept:{(c + d) % size}-{(5 * c + 3 * d) % members}",
                       rel="CO_OCCURS", weight=1)  # fmt: skip
    names = {c: f"{t} for large language models, {t} for large language models part 1" for c, t in enumerate(TOPICS)}
    H.graph["communities"] = {"Concept": names}
    return H


def test_each_community_is_named_where_its_first_label_under_it_would_be_covered(tmp_path, browser):
    """Twelve communities whose names are long, in a window of the README's width and smaller: under
    its first concept, a community's name covers another's (3 of 12 had none at 1,000 x 620, drawn
    under it only): it goes above, right or left of it, where it is whole in the window."""
    H = _communities()
    page, log = open_page(browser, write_html(H, tmp_path / "c.html", G=nx.DiGraph(H), colour_by="community").path)
    for size in ((1000, 620), (1200, 760), (1400, 900)):
        dots, labels = _drawn(page, size)
        assert _overlapping(labels) == []
        named = {d["community"] for d in dots if d["id"] in {lb["id"] for lb in labels}}
        assert named == set(range(len(TOPICS))), (size, sorted(set(range(len(TOPICS))) - named))
    assert _at_zooms(page)[0] >= len(TOPICS)  # and none over another, nor cut, closer in
    assert log.errors == []


@pytest.mark.parametrize(("run", "view"), [("arxiv", "graph"), ("arxiv", "papers"), ("default", "graph")])
def test_a_maps_labels_cover_no_other_circle(runs, browser, run, view):
    """The arXiv sample's map had "multimodal large language models" drawn over the circle of
    "foundation models", and "generative AI, GPT-4" over that of "natural language processing"."""
    page, log = open_page(browser, runs[run][view])
    for size in ((1200, 760), (1400, 900)):
        dots, labels = _drawn(page, size)
        circles = [d for d in dots if d["summary"]]
        assert len(circles) >= 5 and {lb["id"] for lb in labels} == {c["id"] for c in circles}
        assert _overlapping(labels) == []
        assert _over_circles(labels, circles) == []
    assert log.errors == []


def test_a_circle_at_the_edge_of_the_window_is_named_below_it(runs, browser):
    """The README's picture of the default page (1,000 px wide) showed a community at the left
    edge with no name: below or above it, its name would have been cut by the edge, and at its
    right it covered another. A name below a circle at the edge slides into the window."""
    page, log = open_page(browser, runs["default"]["graph"])
    page.set_viewport_size({"width": 1000, "height": 620})
    page.evaluate("kgNetwork.stopSimulation(); kgNetwork.setOptions({physics: false})")
    summary = page.evaluate("kgNodes.get({filter: n => n.summary}).sort((a, b) => a.rank - b.rank).map(n => n.id)")
    a, b = summary[0], summary[1]  # the two largest, with the longest names; the others out of the way
    page.evaluate(f"kgNodes.update(kgNodes.get({{filter: n => n.summary && n.id !== '{a}' && n.id !== '{b}'}})"
                  ".map(n => ({id: n.id, hidden: true})))")  # fmt: skip
    W, H = page.evaluate("[kgNetwork.canvas.frame.canvas.clientWidth, kgNetwork.canvas.frame.canvas.clientHeight]")
    for node, x in ((a, "r + 2"), (b, f"{W} - r - 2")):
        page.evaluate(f"""(() => {{ const r = kgNodes.get('{node}').size * kgNetwork.getScale();
            const p = kgNetwork.DOMtoCanvas({{x: {x}, y: {H / 2}}}); kgNetwork.moveNode('{node}', p.x, p.y); }})()""")
    assert _labels_do_not_overlap(page) == 2
    assert [box["side"] for box in page.evaluate(LABELS)] == ["below", "below"]
    assert log.errors == []


def test_a_corpus_too_big_to_draw_opens_as_a_map_of_named_communities(runs, browser):
    page, log = open_page(browser, runs["arxiv"]["graph"])
    summary = page.evaluate("kgNodes.get({filter: n => n.summary})")
    assert len(summary) >= 5 and all(not n["hidden"] for n in summary)
    assert page.evaluate("kgNodes.get({filter: n => !n.summary && !n.hidden}).length") == 0
    drawn = {b["id"] for b in page.evaluate("kgLabels")}
    biggest = min(summary, key=lambda n: n["rank"])
    assert biggest["id"] in drawn and biggest["name"] not in ("", "unnamed")
    assert "community" in page.locator("#map-note").inner_text()
    # opened in place: its papers and concepts drawn where it stood, the others still circles
    page.evaluate(f"void kgNetwork.body.emitter.emit('doubleClick', {{nodes: ['{biggest['id']}'], edges: []}})")
    members = page.evaluate("kgNodes.get({filter: n => !n.hidden && !n.summary}).map(n => n.community)")
    assert members and set(members) == {biggest["community"]}
    assert page.evaluate(f"kgNodes.get('{biggest['id']}').hidden") is True
    assert page.evaluate("kgNodes.get({filter: n => n.summary && !n.hidden}).length") == len(summary) - 1
    page.click("#back")
    assert page.evaluate("kgNodes.get({filter: n => !n.hidden}).length") == len(summary)
    # a search finds a node inside a closed community, and opens it
    name = page.evaluate("kgNodes.get({filter: n => !n.summary && n.kind === 'Paper'})[0].name")
    page.fill("#search", name)
    page.click("#search-form button")
    assert page.evaluate("kgNodes.get(window.kgFocused).hidden") is False
    assert log.errors == []


@pytest.mark.parametrize("run", ["default", "arxiv"])
def test_an_opened_community_names_its_concepts_first(runs, browser, run):
    """Opened, a community shows the concepts it is named by: the default page's "knowledge
    distillation, student models, teacher model" had labelled 14 paper titles and "layer role",
    "creation time", but none of those three, crowded out at its centre by its papers."""
    page, log = open_page(browser, runs[run]["graph"])
    summary = page.evaluate("kgNodes.get({filter: n => n.summary}).sort((a, b) => a.rank - b.rank)")
    for community in summary[:3]:
        page.select_option("#community-filter", value=str(community["community"]))
        page.evaluate(REDRAW)
        names = community["name"].split(", ")
        drawn = page.evaluate("kgLabels.map(b => kgNodes.get(b.id).name)")
        assert names[0] in drawn, (names, drawn)
        # at the fitted zoom its concepts are labelled before its papers
        kinds = page.evaluate("kgLabels.map(b => kgNodes.get(b.id).kind)")
        assert "Paper" not in kinds[:3], (drawn, kinds)
    assert log.errors == []


def test_the_panel_stays_under_the_bar_when_the_window_narrows(runs, browser):
    """The bar wraps to more lines in a narrower window: the legend's first line stays in sight."""
    page, log = open_page(browser, runs["default"]["graph"])
    for width in (1400, 1000, 700):
        page.set_viewport_size({"width": width, "height": 700})
        page.evaluate(REDRAW)
        # the page moves the panel down in the frame after the bar wraps (a ResizeObserver): wait for it
        under = (
            "() => { const b = document.querySelector('#bar').getBoundingClientRect(); "
            "return document.querySelector('#panel').getBoundingClientRect().top >= b.bottom - 0.5; }"
        )
        with contextlib.suppress(Exception):  # playwright's TimeoutError: the assertion below says where
            page.wait_for_function(under, timeout=2000)
        bar, panel = (page.locator(s).bounding_box() for s in ("#bar", "#panel"))
        assert panel["y"] >= bar["y"] + bar["height"] - 0.5, (width, bar, panel)
    assert log.errors == []


def test_a_click_selects_the_node_drawn_on_top(runs, browser):
    page, log = open_page(browser, runs["default"]["query"])
    first, last = page.evaluate("[kgNodes.getIds()[0], kgNodes.getIds()[kgNodes.length - 1]]")
    # the first node (drawn under the others) is moved onto the last one and selected: drawn on top
    page.evaluate(f"""() => {{ const p = kgNetwork.getPositions(['{last}'])['{last}'];
      kgNetwork.moveNode('{first}', p.x, p.y); kgNetwork.selectNodes(['{first}']); kgNetwork.redraw(); }}""")
    at = page.evaluate(f"kgNetwork.canvasToDOM(kgNetwork.getPositions(['{last}'])['{last}'])")
    box = page.locator("#graph canvas").bounding_box()
    page.mouse.click(box["x"] + at["x"], box["y"] + at["y"])
    assert page.evaluate("kgNetwork.getSelectedNodes()") == [first]
    assert log.errors == []


def test_unfreeze_keeps_the_drawing_on_screen(runs, browser):
    page, log = open_page(browser, runs["default"]["concepts"])
    page.click("#freeze")
    page.wait_for_timeout(4000)
    inside = page.evaluate("""() => {
      const ids = kgNodes.getIds({filter: n => !n.hidden}), pos = kgNetwork.getPositions(ids);
      const c = kgNetwork.canvas.frame.canvas;
      return ids.filter(id => { const d = kgNetwork.canvasToDOM(pos[id]);
        return d.x >= 0 && d.x <= c.clientWidth && d.y >= 0 && d.y <= c.clientHeight; }).length / ids.length;
    }""")
    page.click("#freeze")
    assert inside > 0.9
    _labels_do_not_overlap(page)
    assert log.errors == []


def test_an_empty_page_says_why(tmp_path, browser):
    G = _evil_graph()
    H = concept_map(G)
    assert H.number_of_nodes() == 0
    page, log = open_page(browser, write_html(H, tmp_path / "c.html", G=G, colour_by="community").path)
    assert "No two research concepts are mentioned together in enough papers" in page.locator("#empty").inner_text()
    assert log.errors == []


def test_one_year_gives_no_year_slider(tmp_path, browser):
    G = _evil_graph()
    for _, d in G.nodes(data=True):
        if d.get("kind") == "Paper":
            d["year"] = 2020
    from kg.viz import full_view

    page, log = open_page(browser, write_html(full_view(G), tmp_path / "g.html", G=G).path)
    assert page.locator("#year-min").count() == 0
    assert log.errors == []


def _screenshot(page, path: Path) -> None:
    """A PNG of the page in 256 colours, the pages' own among them: a few times smaller, true to the legend."""
    from io import BytesIO

    from PIL import Image

    from kg.viz.html import COMMUNITY_COLOURS, FADED, OTHER, TYPE_COLOURS

    own = [bytes.fromhex(c[1:]) for c in dict.fromkeys([*TYPE_COLOURS.values(), *COMMUNITY_COLOURS, OTHER, FADED])]
    image = Image.open(BytesIO(page.screenshot())).convert("RGB")
    rest = image.quantize(colors=256 - len(own), method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    palette = Image.new("P", (1, 1))
    palette.putpalette(b"".join(own) + bytes(rest.getpalette()[: 3 * (256 - len(own))]))
    image.quantize(palette=palette, dither=Image.Dither.NONE).save(path, optimize=True)


@pytest.mark.parametrize("run", ["default", "arxiv"])
def test_screenshots_for_the_readme(runs, browser, run):
    """docs/pages-RUN-VIEW.png: what the README's "Pages" shows (look at them after a change)."""
    DOCS.mkdir(exist_ok=True)
    for view in VIEWS:
        page, log = open_page(browser, runs[run][view])
        page.set_viewport_size({"width": 1200, "height": 760})
        page.evaluate("kgNetwork.setSize('100%', '100%'); kgFit()")  # fitted to the new size
        page.evaluate(REDRAW)
        _screenshot(page, DOCS / f"pages-{run}-{view}.png")
        if view == "graph" and page.evaluate("kgNodes.get({filter: n => n.summary}).length"):
            page.select_option("#community-filter", index=1)
            page.evaluate(REDRAW)
            _screenshot(page, DOCS / f"pages-{run}-graph-community.png")
        assert log.errors == []
        page.close()
