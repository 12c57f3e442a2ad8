"""Which papers a link joins: of each paper's strongest links, the share to papers sharing an author keyword.

A proxy for "would a reader of this paper want that one": the keyphrase sets beside the
checkout (``shared/data/keyphrases``: www and Inspec abstracts with the keywords their authors
chose) run through the default pipeline, then each paper's ``k`` strongest links (k = 1, 5)
are checked for an author keyword in common (keywords keyed as concept keys are). The same
paper-concept graph is linked with kg's weight and with variants of the weight a shared
concept adds, all else equal (generic concepts, metrics and those in more than 10% of the
papers do not link, as in ``kg.link.link_papers``):

- ``idf``: ``log(1 + N / df)`` in the run (kg's weight until this bench chose the next);
- ``specificity`` (kg's, ``kg.link.papers.concept_weights``): the concept's ``specificity``
  (run and reference corpora pooled, 0-1);
- ``idf x specificity``, and ``idf x reference specificity`` (the reference corpora alone, a
  figure an incremental run could keep per key);
- ``specificity + topics``: kg's weight, and concepts over 10% of the papers link too where
  they are a topic of the collection (``kg.link.papers.linkable``: rare in the field);
- ``metrics link too``: that, with metrics linking papers as other concepts do (kg's until
  metrics were left out, ``kg.link.papers.UNLINKED_TYPES``); ``linked``: the share of papers
  with a link, both ways.

Each times ``sqrt(salience in p * salience in q)``. Then topical collections, as a researcher
gathers them: 40 papers on each of seven author keywords of a set (three draws), linked with
kg's weight under the 10% cap alone (``cap``) and with topics (``topics``). Prints the figures
per set, then one JSON line.
Run: .venv/bin/python bench/link_quality.py
"""

from __future__ import annotations

import json
import logging
import math
import random
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import networkx as nx
import numpy as np
import scipy.sparse as sp

from kg.link.papers import UNLINKED_TYPES, linkable
from kg.normalise import Normaliser
from kg.normalise.specificity import specificity
from kg.pipeline import load_pipeline_file, run_pipeline
from kg.store import read_embedded

ROOT = Path(__file__).resolve().parent.parent
KEYPHRASES = ROOT.parent / "shared" / "data" / "keyphrases"
MAX_DF = 0.1


def run(data: Path, folder: Path) -> nx.DiGraph:
    """The stored graph of the default pipeline on ``data`` (no pages, no analytics)."""
    out = folder / data.stem
    text = f'name = "{data.stem}"\n[[sources]]\npath = "{data}"\n[outputs]\n'
    outputs = {"store": "kg.lbug", "mentions": "m.jsonl", "rejects": "r.jsonl", "report": "r.json"}
    text += "".join(f'{k} = "{out / v}"\n' for k, v in outputs.items())
    path = folder / f"{data.stem}.toml"
    path.write_text(text, encoding="utf-8")
    run_pipeline(load_pipeline_file(path, ["analyse.enabled=false"]))
    return read_embedded(out / "kg.lbug")


#: What a shared concept adds, from its papers, the run's papers and its node (``specificity``:
#: run and reference corpora pooled; ``reference``: the reference corpora alone, fixed per key).
Weight = Callable[[int, int, dict], float]
VARIANTS: dict[str, Weight] = {
    "idf": lambda df, n, c: math.log(1 + n / df),
    "specificity": lambda df, n, c: c["specificity"],
    "idf x specificity": lambda df, n, c: math.log(1 + n / df) * c["specificity"],
    "idf x reference specificity": lambda df, n, c: math.log(1 + n / df) * c["reference"],
}


def strongest(
    G: nx.DiGraph, weight: Weight, k: int, topics: bool = False, metrics: bool = False
) -> dict[str, list[str]]:
    """Each paper's ``k`` strongest links when a shared concept adds ``weight(df, N, spec) * sqrt(s_p * s_q)``.

    Metrics link no papers, as in kg (``UNLINKED_TYPES``), unless ``metrics``.
    """
    papers = sorted(n for n, kind in G.nodes(data="kind") if kind == "Paper")
    row = {p: i for i, p in enumerate(papers)}
    mentions: dict[str, list[tuple[int, float]]] = {}
    for u, v, d in G.edges(data=True):
        if d.get("rel") == "MENTIONS" and u in row:
            mentions.setdefault(v, []).append((row[u], float(d.get("salience") or 1.0)))
    n = len(papers)
    concepts = [c for c, ps in mentions.items()
                if not G.nodes[c].get("generic") and 2 <= len(ps) <= max(2, int(MAX_DF * n))]  # fmt: skip
    if topics:
        candidates = [c for c in mentions if not G.nodes[c].get("generic")]
        ok = linkable([G.nodes[c]["key"] for c in candidates], [len(mentions[c]) for c in candidates], n,
                      max_df=MAX_DF, topic_papers=200)  # fmt: skip
        concepts = [c for c, keep in zip(candidates, ok.tolist(), strict=True) if keep]
    if not metrics:
        concepts = [c for c in concepts if G.nodes[c].get("type") not in UNLINKED_TYPES]
    rows, cols, roots = [], [], []
    for j, c in enumerate(concepts):
        for i, s in mentions[c]:
            rows.append(i)
            cols.append(j)
            roots.append(math.sqrt(s))
    S = sp.csr_matrix((roots, (rows, cols)), shape=(n, len(concepts)))
    W = sp.diags([weight(len(mentions[c]), n, G.nodes[c]) for c in concepts])
    M = (S @ W @ S.T).tocsr()
    out = {}
    for i, p in enumerate(papers):
        js, ws = M.indices[M.indptr[i] : M.indptr[i + 1]], M.data[M.indptr[i] : M.indptr[i + 1]]
        keep = js != i
        order = np.lexsort((js[keep], -ws[keep]))[:k]
        out[p] = [papers[j] for j in js[keep][order]]
    return out


def precision(links: dict[str, list[str]], keywords: dict[str, set[str]]) -> float:
    """Mean over papers with links and keywords: the share of their links to a paper sharing a keyword."""
    shares = [sum(1 for q in qs if keywords[p] & keywords.get(q, set())) / len(qs)
              for p, qs in links.items() if qs and keywords.get(p)]  # fmt: skip
    return round(statistics.mean(shares), 4)


#: Author keywords of the topical collections: seven subjects of each set.
TOPICS = {"www": ["semantic web", "xml", "web services", "rdf", "social networks", "pagerank", "web search"],
          "inspec": ["medical image processing", "neural nets", "control system synthesis", "academic libraries",
                     "gender issues", "matrix algebra", "internet"]}  # fmt: skip


def topical(name: str, records: list[dict], folder: Path, norm: Normaliser) -> dict[str, float]:
    """Median over three draws of 40 papers per keyword of ``TOPICS[name]``: cap and topics, @1 and @5."""
    runs: dict[str, list[float]] = {}
    for seed in (1, 2, 3):
        rng, chosen = random.Random(seed), []
        for topic in TOPICS[name]:
            pool = [r for r in records if topic in {k.lower() for k in r.get("keywords", [])} and r not in chosen]
            chosen += rng.sample(pool, min(40, len(pool)))
        path = folder / f"{name}-topical-{seed}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in chosen), encoding="utf-8")
        keywords = {f"paper:{r['id']}": {norm.key(w) for w in r.get("keywords", []) if w.strip()} for r in chosen}
        G = run(path, folder)
        for _, d in G.nodes(data=True):
            if d.get("kind") == "Concept":
                d["specificity"] = float(d.get("specificity") or 0.0)
        for label, topics in (("cap", False), ("topics", True)):
            for k in (1, 5):
                runs.setdefault(f"{label} @{k}", []).append(
                    precision(strongest(G, VARIANTS["specificity"], k, topics), keywords)
                )
    print(f"{name} topical: " + ", ".join(f"{key} {v}" for key, v in runs.items()), file=sys.stderr)
    return {key: statistics.median(v) for key, v in runs.items()}


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    norm = Normaliser()
    figures: dict[str, object] = {"bench": "link_quality"}
    with tempfile.TemporaryDirectory(prefix="kg-bench-link-quality-") as tmp:
        for name in ("www", "inspec"):
            data = KEYPHRASES / f"{name}.jsonl"
            records = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines()]
            keywords = {f"paper:{r['id']}": {norm.key(w) for w in r.get("keywords", []) if w.strip()} for r in records}
            G = run(data, Path(tmp))
            for _, d in G.nodes(data=True):
                if d.get("kind") == "Concept":
                    d["specificity"] = float(d.get("specificity") or 0.0)
                    d["reference"] = specificity(d["key"])
            result = {f"{v} @{k}": precision(strongest(G, f, k), keywords) for v, f in VARIANTS.items() for k in (1, 5)}
            for k in (1, 5):
                result[f"specificity + topics @{k}"] = precision(
                    strongest(G, VARIANTS["specificity"], k, True), keywords
                )
                result[f"metrics link too @{k}"] = precision(
                    strongest(G, VARIANTS["specificity"], k, True, metrics=True), keywords
                )
            for label, metrics in (("", False), (", metrics link too", True)):  # share of papers with a link
                links = strongest(G, VARIANTS["specificity"], 1, True, metrics)
                result[f"linked{label}"] = round(sum(bool(q) for q in links.values()) / len(links), 4)
            print(f"{name}: " + ", ".join(f"{key} {value:.3f}" for key, value in result.items()), file=sys.stderr)
            figures[name] = result
            figures[f"{name} topical"] = topical(name, records, Path(tmp), norm)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
