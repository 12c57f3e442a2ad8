"""Extraction throughput on the 2,000-abstract ACL sample, titles included, against a tokenizer-only pass.

Also the share of one process's extraction time that each of kg's own components takes.
Prints per-run figures, then one JSON line with the medians. Run: .venv/bin/python bench/extract.py
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path

import spacy
from spacy.tokens import Doc

from kg.extract import extract, load_pipeline
from kg.extract.pipeline import TITLE_SEPARATOR, paper_doc
from kg.read import read_records
from kg.records import Paper

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT.parent / "shared" / "data" / "corpus" / "acl-anthology-abstracts-sample2k.jsonl"
REPEATS = int(os.environ.get("KG_BENCH_REPEATS", "3"))


def main() -> None:
    papers = [p for p in read_records(SAMPLE) if isinstance(p, Paper)]
    n_process = os.cpu_count() or 1
    nlp = load_pipeline()
    tokenizer_only = spacy.blank("en")
    # what the model reads: the title, then the abstract (kg.extract.pipeline.paper_doc)
    texts = [f"{p.title}{TITLE_SEPARATOR}{p.abstract}" if p.title.strip() else p.abstract for p in papers]
    runs = []
    for i in range(REPEATS):
        t0 = time.perf_counter()
        for _ in tokenizer_only.pipe(texts, batch_size=256):
            pass
        base = time.perf_counter() - t0
        t0 = time.perf_counter()
        n = sum(1 for _ in extract(papers, nlp=nlp, n_process=n_process, batch_size=64))
        secs = time.perf_counter() - t0
        runs.append({"extract_per_s": n / secs, "tokenizer_per_s": len(papers) / base})
        print(
            f"run {i + 1}: extract {n / secs:.0f} abstracts/s ({n_process} processes), "
            f"tokenizer only {len(papers) / base:.0f}/s",
            file=sys.stderr,
        )
    shares = component_shares(nlp, [paper_doc(nlp, p.title, p.abstract) for p in papers])
    print("share of extraction time: " + ", ".join(f"{k} {v:.2%}" for k, v in shares.items()), file=sys.stderr)
    extract_med = statistics.median(r["extract_per_s"] for r in runs)
    tok_med = statistics.median(r["tokenizer_per_s"] for r in runs)
    figures = {
        "bench": "extract",
        "abstracts": len(papers),
        "titles": sum(1 for p in papers if p.title.strip()),
        "n_process": n_process,
        "extract_abstracts_per_s": round(extract_med, 1),
        "tokenizer_abstracts_per_s": round(tok_med, 1),
        "ratio_to_tokenizer": round(extract_med / tok_med, 4),
        "component_share": {k: round(v, 4) for k, v in shares.items()},
        "peak_memory_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "repeats": REPEATS,
    }
    print(json.dumps(figures))


def component_shares(nlp: spacy.Language, docs: list[Doc]) -> dict[str, float]:
    """Seconds in each kg_* component over the whole single-process pipeline's seconds."""
    own = [name for name in nlp.pipe_names if name.startswith("kg_")]
    spent = dict.fromkeys(own, 0.0)
    t0 = time.perf_counter()
    with nlp.select_pipes(disable=own):
        for doc in nlp.pipe(docs, batch_size=64):
            for name in own:
                t = time.perf_counter()
                doc = nlp.get_pipe(name)(doc)
                spent[name] += time.perf_counter() - t
    total = time.perf_counter() - t0
    return {name: s / total for name, s in spent.items()}


if __name__ == "__main__":
    main()
