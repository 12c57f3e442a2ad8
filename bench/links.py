"""An incremental update against a rebuild: how far the paper-paper links agree.

For each sample (2,000 ACL and 2,000 arXiv ML abstracts beside the checkout), three runs of
the same pipeline (default link settings, one extraction cache): a full run on the first
1,800 records, the incremental run that adds the next 200, and a full run on all 2,000. Then
the stored ``SHARES_CONCEPTS`` links of the update and of the rebuild are compared: counts,
Jaccard of the link sets, share of papers whose ``top_k`` strongest links are the same papers.

The same comparison is made on the links alone (``links only``): the rebuild's paper-concept
graph split 1,800 + 200, linked in full then added to :class:`kg.link.index.LinkIndex`. There
the keys are the same on both sides, so what differs is what the update does not redo: the
old links keep the weights of the smaller corpus (a concept's weight, its specificity with the
run pooled in, moves with N and df)
and old papers' lists are ranked against those; it is measured for 20 to 333 papers added
too (333 on 1,667 is as many as ``update.refresh = 0.2`` allows). Prints the figures of each
sample, then one JSON line.

Run: .venv/bin/python bench/links.py [--old 1800] [--new 200] [--set link.top_k=20 ...]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import networkx as nx

from kg.link import link_papers
from kg.link.index import LinkIndex
from kg.pipeline import load_pipeline_file, run_pipeline
from kg.store import read_embedded

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = {
    "acl": ROOT.parent / "shared" / "data" / "corpus" / "acl-anthology-abstracts-sample2k.jsonl",
    "arxiv": ROOT.parent / "shared" / "data" / "arxiv-ml" / "arxiv-ml-sample2k.jsonl",
}

Links = dict[tuple[str, str], float]


def agreement(update: Links, rebuild: Links, *, top_k: int, new: set[str] | None = None) -> dict[str, object]:
    """How far two sets of paper-paper links (pair -> weight, ``u < v``) agree.

    A paper's top-k are its ``top_k`` strongest links, ties by the other paper's id: what a
    full run keeps a link for (a link stays when either end has it among its top-k).
    """
    a, b = set(update), set(rebuild)
    mine, theirs = strongest(update, top_k), strongest(rebuild, top_k)
    papers = mine.keys() | theirs.keys()
    same = [p for p in papers if mine.get(p, set()) == theirs.get(p, set())]
    out: dict[str, object] = {
        "links_update": len(a),
        "links_rebuild": len(b),
        "links_ratio": round(len(a) / max(1, len(b)), 4),
        "jaccard": round(len(a & b) / max(1, len(a | b)), 4),
        "only_update": len(a - b),
        "only_rebuild": len(b - a),
        "papers_same_top_k": round(len(same) / max(1, len(papers)), 4),
        "links_outside_top_k_update": outside(update, mine),
        "links_outside_top_k_rebuild": outside(rebuild, theirs),
        "max_links_per_paper_update": max((len(v) for v in neighbours(update).values()), default=0),
        "max_links_per_paper_rebuild": max((len(v) for v in neighbours(rebuild).values()), default=0),
    }
    # how many of its top-k a paper has that the other side has not: "a few swaps"
    swaps = sorted(len(mine.get(p, set()) - theirs.get(p, set())) for p in papers)
    out["top_k_swapped_mean"] = round(sum(swaps) / max(1, len(swaps)), 3)
    out["top_k_swapped_p99"] = swaps[int(0.99 * (len(swaps) - 1))] if swaps else 0
    # how far the weights of the links both have moved (the update keeps old weights)
    moved = sorted(abs(update[e] - rebuild[e]) / rebuild[e] for e in a & b if rebuild[e])
    out["weight_change_median"] = round(moved[len(moved) // 2], 4) if moved else 0.0
    out["weight_change_p95"] = round(moved[int(0.95 * (len(moved) - 1))], 4) if moved else 0.0
    if new is not None:
        out["new_papers_same_top_k"] = round(
            sum(mine.get(p, set()) == theirs.get(p, set()) for p in new) / max(1, len(new)), 4
        )
        old = papers - new
        out["old_papers_same_top_k"] = round(sum(p in same for p in old) / max(1, len(old)), 4)
    return out


def neighbours(links: Links) -> dict[str, list[tuple[float, str]]]:
    out: dict[str, list[tuple[float, str]]] = {}
    for (u, v), w in links.items():
        out.setdefault(u, []).append((-w, v))
        out.setdefault(v, []).append((-w, u))
    return out


def strongest(links: Links, k: int) -> dict[str, set[str]]:
    return {p: {q for _, q in sorted(ns)[:k]} for p, ns in neighbours(links).items()}


def outside(links: Links, top: dict[str, set[str]]) -> int:
    """Links that are among the top-k of neither end."""
    return sum(v not in top[u] and u not in top[v] for u, v in links)


def stored_links(G: nx.DiGraph) -> Links:
    return {
        (min(u, v), max(u, v)): float(d["weight"]) for u, v, d in G.edges(data=True) if d["rel"] == "SHARES_CONCEPTS"
    }


def _pipeline(folder: Path, name: str, data: Path, cache: Path) -> Path:
    out = folder / f"out-{name}"
    outputs = {"store": out / "kg.lbug", "mentions": out / "m.jsonl", "rejects": out / "r.jsonl",
               "report": out / "report.json", "cache": cache}  # fmt: skip
    text = f'name = "{name}"\n[[sources]]\npath = "{data}"\n[outputs]\n'
    text += "".join(f'{k} = "{v}"\n' for k, v in outputs.items())
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _paper_concepts(G: nx.DiGraph, papers: set[str] | None = None) -> nx.DiGraph:
    """The paper-concept graph of ``papers`` (all when ``None``) in a stored knowledge graph."""
    B = nx.DiGraph()
    for u, v, d in G.edges(data=True):
        if d["rel"] == "MENTIONS" and (papers is None or u in papers):
            B.add_edge(u, v, salience=d.get("salience"))
    nx.set_node_attributes(B, {n: G.nodes[n] for n in B})
    return B


def links_only(G: nx.DiGraph, old: set[str], *, top_k: int, max_df: float, min_shared: int) -> dict[str, object]:
    """The rebuild's paper-concept graph linked in full, and as ``old`` linked then the rest added."""
    settings = {"max_df": max_df, "min_shared": min_shared}
    full = link_papers(_paper_concepts(G), top_k=top_k, **settings)  # type: ignore[arg-type]
    B_old = _paper_concepts(G, old)
    P = link_papers(B_old, top_k=top_k, **settings)  # type: ignore[arg-type]
    linked = nx.DiGraph(B_old)
    nx.set_edge_attributes(linked, "MENTIONS", "rel")
    linked.add_edges_from((u, v, {**d, "rel": "SHARES_CONCEPTS"}) for u, v, d in P.edges(data=True))
    index = LinkIndex.from_graph(linked, top_k=top_k)
    new = {p for p, kind in G.nodes(data="kind") if kind == "Paper"} - old
    t0 = time.perf_counter()
    delta = index.add(_paper_concepts(G, new), **settings)  # type: ignore[arg-type]
    seconds = time.perf_counter() - t0
    updated = {(min(u, v), max(u, v)): d["weight"] for u, v, d in P.edges(data=True)}
    for u, v in delta.removed:
        del updated[min(u, v), max(u, v)]
    updated.update({(min(u, v), max(u, v)): d["weight"] for u, v, d in delta.links})
    rebuilt = {(min(u, v), max(u, v)): d["weight"] for u, v, d in full.edges(data=True)}
    same = rebuilt == stored_links(G)  # (the links a run stored, from its own paper-concept graph)
    return {**agreement(updated, rebuilt, top_k=top_k, new=new), "add_s": round(seconds, 3), "rebuild_as_stored": same}


def _by_added(G: nx.DiGraph, lines: list[str], link: Any) -> dict[int, dict[str, object]]:
    """The links alone, for the last 20 ... 333 records added (333 of 2,000: update.refresh = 0.2)."""
    ids = [f"paper:{json.loads(line)['id']}" for line in lines]
    papers = {p for p, kind in G.nodes(data="kind") if kind == "Paper"}
    out = {}
    for n in (20, 50, 100, 200, 333):
        found = links_only(G, papers - set(ids[-n:]), top_k=link.top_k, max_df=link.max_df, min_shared=link.min_shared)
        out[n] = {k: found[k] for k in ("links_ratio", "jaccard", "papers_same_top_k", "top_k_swapped_mean",
                                        "weight_change_median", "links_outside_top_k_update")}  # fmt: skip
    return out


def measure(sample: Path, *, n_old: int, n_new: int, sets: list[str]) -> dict[str, object]:
    """Full run on the first ``n_old`` records, update with the next ``n_new``, rebuild on all; compared."""
    lines = sample.read_text(encoding="utf-8").splitlines(keepends=True)[: n_old + n_new]
    with tempfile.TemporaryDirectory(prefix="kg-bench-links-") as tmp:
        folder = Path(tmp)
        data, cache = folder / "grown.jsonl", folder / "cache.sqlite"
        sets = ["update.incremental=true", "update.refresh=1", "analyse.enabled=false", *sets]
        grown = _pipeline(folder, "grown", data, cache)
        data.write_text("".join(lines[:n_old]), encoding="utf-8")
        run_pipeline(load_pipeline_file(grown, sets))
        data.write_text("".join(lines), encoding="utf-8")
        second = run_pipeline(load_pipeline_file(grown, sets))
        assert second.update["mode"] == "incremental", second.update
        fresh = run_pipeline(load_pipeline_file(_pipeline(folder, "fresh", data, cache), sets))
        link = load_pipeline_file(grown, sets).link
        G, F = read_embedded(folder / "out-grown" / "kg.lbug"), read_embedded(folder / "out-fresh" / "kg.lbug")
    added = {f"paper:{json.loads(line)['id']}" for line in lines[n_old:]}
    old = {p for p, kind in F.nodes(data="kind") if kind == "Paper"} - added
    return {
        "papers": fresh.records["kept"], "added": second.update["papers_added"], "top_k": link.top_k,
        "max_df": link.max_df, "stored_keys_behind": second.normalise.get("stored_keys_behind"),
        "pipeline": agreement(stored_links(G), stored_links(F), top_k=link.top_k, new=added & set(F)),
        "links only": links_only(F, old, top_k=link.top_k, max_df=link.max_df, min_shared=link.min_shared),
        "links only, by papers added": _by_added(F, lines, link),
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=int, default=1800)
    parser.add_argument("--new", type=int, default=200)
    parser.add_argument("--set", action="append", default=[], help="pipeline setting, as kg run --set")
    parser.add_argument("--sample", action="append", choices=sorted(SAMPLES), help="default: both")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    figures = {}
    for name in args.sample or sorted(SAMPLES):
        figures[name] = measure(SAMPLES[name], n_old=args.old, n_new=args.new, sets=args.set)
        print(json.dumps({name: figures[name]}, indent=1), file=sys.stderr)
    print(json.dumps({"bench": "links", **figures}))


if __name__ == "__main__":
    main()
