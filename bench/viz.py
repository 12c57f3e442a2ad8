"""HTML pages of 500, 2,000 and 20,000 nodes from the real ACL corpus, and the map of a big graph.

Builds the knowledge graph of the first papers of ../shared/data/corpus until it has 20,000
nodes, then writes the paper-concept view capped at 500, at 2,000 and (the 20,000-node input
under the default budget of 2,000), every node drawn, and opens each page in headless
Chromium. "Interactive" is the time from navigation to the first full drawing, after which the
page answers a script call. Then the map (kg.viz.overview): the graph page of the 2,000-abstract
arXiv sample of ../shared/data/arxiv-ml, analysed, which opens as its communities; "open_s" is
the time to open its largest community in place and draw it. Prints one JSON line.
With --store PATH the map is that of a stored, analysed graph instead (e.g. the full ACL corpus
of pipelines/acl-full.toml), read as `kg viz graph --db PATH` reads it (kg.viz.stored): also the
store read time and the peak memory, then the same page drawn from the whole graph read into
memory, which must be byte for byte the same (KG_BENCH_WHOLE=0 skips that).
Run: .venv/bin/python bench/viz.py [--store PATH] (KG_BENCH_VIZ=map for the map alone)
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from kg.build import build_graph, knowledge_graph
from kg.extract import extract
from kg.link import cooccurrence, link_papers
from kg.read import Validator
from kg.read.formats import RawRecord
from kg.records import Paper
from kg.viz import full_view, write_html

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "data" / "corpus" / "acl-anthology-abstracts.jsonl.gz"
ARXIV = ROOT.parent / "shared" / "data" / "arxiv-ml" / "arxiv-ml-sample2k.jsonl"
REPEATS = int(os.environ.get("KG_BENCH_REPEATS", "3"))
MAX_NODES = 2000
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]  # fmt: skip


def corpus_graph(target_nodes: int):
    validator = Validator()
    papers: list[Paper] = []
    with gzip.open(CORPUS, "rt", encoding="utf-8") as fh:
        lines = itertools.islice(fh, 6000)
        for i, line in enumerate(lines, 1):
            item = validator.check(RawRecord(str(CORPUS), i, json.loads(line), line))
            if isinstance(item, Paper):
                papers.append(item)
    step = 500
    for n in range(step, len(papers) + step, step):
        chunk = papers[:n]
        B = build_graph(chunk, extract(chunk, n_process=os.cpu_count() or 1))
        if B.number_of_nodes() >= target_nodes:
            break
    G = knowledge_graph(B, link_papers(B), cooccurrence(B))
    return G, n


def arxiv_graph():
    """The analysed knowledge graph of the 2,000 arXiv abstracts (communities: the map's groups)."""
    from kg.analyse import analyse, annotate

    validator = Validator()
    with ARXIV.open(encoding="utf-8") as fh:
        items = [validator.check(RawRecord(str(ARXIV), i, json.loads(line), line)) for i, line in enumerate(fh, 1)]
    papers = [p for p in items if isinstance(p, Paper)]
    B = build_graph(papers, extract(papers, n_process=os.cpu_count() or 1))
    G = knowledge_graph(B, link_papers(B), cooccurrence(B))
    return annotate(G, analyse(G)), len(papers)


def _open(browser, path: Path) -> tuple[object, float]:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(path.as_uri(), timeout=120_000)
    page.wait_for_function("window.kgDrawnAt !== undefined && window.kgReady === true", timeout=120_000)
    drawn = page.evaluate("window.kgDrawnAt") / 1000
    t1 = time.perf_counter()
    page.evaluate("kgNodes.length")  # the main thread answers: the page is not frozen
    return page, drawn + (time.perf_counter() - t1)


def stored_page(store: Path):
    """What ``kg viz graph --db STORE`` reads for its page (kg.viz.stored): the view's kept part and how to draw it."""
    from kg.store import reader
    from kg.viz.stored import page_graph

    with reader(store) as run:
        pages = page_graph(lambda q, p: run(q, p).rows, max_nodes=MAX_NODES)
        n_papers = run("MATCH (p:Paper) RETURN count(p)", {}).rows[0][0]
    H, score, total = pages.views["graph"]
    return H, {"G": pages.G, "score": score, "total": total}, n_papers


def whole_graph_page(store: Path, page: Path, tmp: Path) -> dict[str, object]:
    """The same page drawn from the whole graph read into memory (kg.store.read_embedded): time, memory, equal?"""
    from kg.store import read_embedded

    t0 = time.perf_counter()
    G = read_embedded(store)
    read_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    result = write_html(full_view(G), tmp / "whole.html", G=G, max_nodes=MAX_NODES)
    return {
        "read_s": round(read_s, 1),
        "write_s": round(time.perf_counter() - t0, 1),
        "same_page": result.path.read_bytes() == page.read_bytes(),
        "peak_rss_mb": _peak_mb(),
    }


def _peak_mb() -> int:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def bench_map(browser, tmp: Path, store: Path | None = None) -> dict[str, object]:
    t0 = time.perf_counter()
    if store:
        H, draw, n_papers = stored_page(store)
    else:
        G, n_papers = arxiv_graph()
        H, draw = full_view(G), {"G": G}
    read_s = time.perf_counter() - t0
    writes, ready, opens = [], [], []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        result = write_html(H, tmp / "map.html", max_nodes=MAX_NODES, **draw)
        writes.append(time.perf_counter() - t0)
        page, interactive = _open(browser, result.path)
        ready.append(interactive)
        t1 = time.perf_counter()
        page.evaluate("""() => new Promise(r => {
          const big = kgNodes.get({filter: n => n.summary}).sort((a, b) => a.rank - b.rank)[0];
          kgNetwork.once('afterDrawing', () => r());
          kgNetwork.body.emitter.emit('doubleClick', {nodes: [big.id], edges: []});
        })""")
        opens.append(time.perf_counter() - t1)
        opened = page.evaluate("kgNodes.get({filter: n => !n.hidden && !n.summary}).length")
        page.close()
    figures: dict[str, object] = {
        "corpus": store.name if store else "arxiv-ml-sample2k",
        "papers": n_papers,
        "view_nodes": result.nodes + result.omitted_nodes,
        "shown_nodes": result.nodes,
        "communities": result.communities,
        "largest_community_nodes": opened,
        "html_mb": round(result.path.stat().st_size / 1e6, 2),
        "write_s": round(statistics.median(writes), 2),
        "interactive_s": round(statistics.median(ready), 2),
        "open_s": round(statistics.median(opens), 2),
    }
    if store:
        figures |= {"store_read_s": round(read_s, 1), "peak_rss_mb": _peak_mb()}
        if os.environ.get("KG_BENCH_WHOLE", "1") != "0":
            figures["whole_graph"] = whole_graph_page(store, result.path, tmp)
    return figures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", type=Path, help="the map of this stored graph (default: the 2,000 arXiv abstracts)")
    args = ap.parse_args()
    only = os.environ.get("KG_BENCH_VIZ", "")
    figures: dict[str, object] = {"bench": "viz"}
    tmp = Path(tempfile.mkdtemp(prefix="kg-bench-viz-"))
    exe = os.environ.get("KG_CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=FLAGS)
        if only != "map":
            figures.update(bench_nodes(browser, tmp))
        figures["map"] = bench_map(browser, tmp, args.store)
        print("map", figures["map"], file=sys.stderr)
        browser.close()
    shutil.rmtree(tmp)
    print(json.dumps(figures))


def bench_nodes(browser, tmp: Path) -> dict[str, object]:
    """Pages that draw every node (no map), of the ACL corpus."""
    G, n_papers = corpus_graph(20_000)
    H = full_view(G)
    cases = [("500", 500), ("2000", 2000), ("20000-capped", 2000)]
    figures: dict[str, object] = {"papers": n_papers, "input_nodes": H.number_of_nodes(),
                                  "input_edges": H.number_of_edges()}  # fmt: skip
    for name, budget in cases:
        view = H if name.startswith("20000") else H.subgraph(
            sorted(H, key=lambda n: (-H.degree(n), n))[: int(name)]).copy()  # fmt: skip
        writes, ready = [], []
        for _ in range(REPEATS):
            t0 = time.perf_counter()
            result = write_html(view, tmp / f"{name}.html", G=G, max_nodes=budget, overview_above=10**9)
            writes.append(time.perf_counter() - t0)
            page, interactive = _open(browser, result.path)
            ready.append(interactive)
            page.close()
        figures[name] = {
            "view_nodes": view.number_of_nodes(),
            "shown_nodes": result.nodes,
            "shown_edges": result.edges,
            "omitted_nodes": result.omitted_nodes,
            "html_mb": round(result.path.stat().st_size / 1e6, 2),
            "write_s": round(statistics.median(writes), 2),
            "interactive_s": round(statistics.median(ready), 2),
        }
        print(name, figures[name], file=sys.stderr)
    return figures


if __name__ == "__main__":
    main()
