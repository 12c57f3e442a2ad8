"""Concept quality: keyphrase recall of kg against YAKE, and the key figures of a corpus run.

Part 1 scores kg's concepts and YAKE's top 15 phrases (n <= 3) the same way on the two
keyphrase sets (``kg eval --keyphrases``: recall of the keywords that occur in the title or
abstract, exact and normalised, and distinct phrases per record). Part 2 reads a corpus run
(``--run``: a finished run's folder, or its ``report.json``, which names its store and mentions
file; or it runs ``pipelines/acl-full.toml`` on ``--corpus``) and prints: keys, keys that
repeat a run of words, keys ending in a function word, concepts with more than one type,
generic concepts among the 50 with most papers (and that list), and the share of paper-paper
links that rest only on generic concepts. Ends with one JSON line.
Run: .venv/bin/python bench/quality.py [--skip-corpus] [--run DIR|REPORT | --corpus PATH]

What counts (issue 12), read with the run's mentions (a run without a mentions file is refused:
without the texts, names written as one hyphenated word would count as repeats):

- A key *repeats a run of words* when two or more words occur twice in it ("english to french
  english to german": a list kept whole; "weighted pushdown automata weighted pushdown
  automata": an acronym expanded twice) without overlap, and the run has a word that is no stop
  word ("digital library of the national library of france" repeats only grammar), unless a
  mention writes the repeat inside one hyphenated word: "Sequence-to-Sequence-to-Sequence
  Autoencoder" is a name, not a doubling (``kg_concepts`` cuts spans by the same rule).
- A key *ends in a function word* when its last word is a closed-class word: a stop word of
  spaCy's list less its nouns, verbs, adjectives and numerals (``CONTENT_STOP_WORDS``: "API call",
  "proper name", "TV show" end in content words), unless a mention joins that word to the one
  before it by a hyphen: the particle of "bottom-up", "encoder-only", "trade-off" is part of a
  compound word, and cutting it would make "bottom", "encoder", "trade". The share of keys ending
  in any spaCy stop word is printed beside it (``keys_ending_in_stop_word``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
KEYPHRASES = SHARED / "keyphrases"
CORPUS = SHARED / "corpus" / "acl-anthology-abstracts.jsonl.gz"
PIPELINE = ROOT / "pipelines" / "acl-full.toml"
YAKE_TOP = 15
#: Open-class words of spaCy's stop list: nouns, verbs, adjectives and numerals.
CONTENT_STOP_WORDS = frozenset({
    "amount", "back", "bottom", "call", "empty", "front", "full", "name", "part", "side", "top", "whole",
    "serious", "show", "move", "keep", "give", "go", "get", "make", "made", "put", "say", "see", "seem",
    "seemed", "seeming", "seems", "take", "become", "became", "becomes", "becoming", "done", "used", "due",
    "last", "first", "third", "two", "three", "four", "five", "six", "eight", "nine", "ten", "eleven",
    "twelve", "fifteen", "twenty", "forty", "fifty", "sixty", "hundred",
})  # fmt: skip
_HYPHENS = "-\u2010\u2011\u2012\u2013"


def keyphrase_part(folder: Path, n_process: int) -> dict[str, object]:
    import yake

    from kg.extract import load_pipeline
    from kg.extract.evaluate import KeyphraseScores, evaluate_keyphrases, normalise_phrase, read_keyphrases

    nlp = load_pipeline()
    out: dict[str, object] = {}
    print(f"{'set':8} {'system':8} {'exact':>6} {'normal':>6} {'per rec':>7} {'per s':>6}", file=sys.stderr)
    for name in ("www", "inspec"):
        path = folder / f"{name}.jsonl"
        kg_scores = evaluate_keyphrases(path, nlp=nlp, n_process=n_process).as_dict()
        extractor = yake.KeywordExtractor(lan="en", n=3, top=YAKE_TOP)
        ys = KeyphraseScores()
        t0 = time.perf_counter()
        for r in read_keyphrases(path):
            phrases = [p for p, _ in extractor.extract_keywords(r.text)]
            ys.add(r.keywords, r.text, phrases, len({normalise_phrase(p) for p in phrases}))
        ys.seconds = time.perf_counter() - t0
        yake_scores = ys.as_dict()
        for system, s in (("kg", kg_scores), (f"yake{YAKE_TOP}", yake_scores)):
            rec = s["in_text"]
            print(f"{name:8} {system:8} {rec['exact']:6.3f} {rec['normalised']:6.3f} "  # type: ignore[index]
                  f"{s['concepts_per_record']:7.2f} {s['abstracts_per_second']:6}", file=sys.stderr)  # fmt: skip
            out[f"{name}_{system}"] = {
                "exact": rec["exact"],  # type: ignore[index]
                "normalised": rec["normalised"],  # type: ignore[index]
                "all_normalised": s["all"]["normalised"],  # type: ignore[index]
                "per_record": s["concepts_per_record"],
            }
    return out


def run_corpus(corpus: Path, n_process: int) -> Path:
    """Run the corpus pipeline on ``corpus`` into a temporary folder; return the folder."""
    tmp = Path(tempfile.mkdtemp(prefix="kg-bench-quality-"))
    outputs = {"store": "kg.lbug", "html": "graph.html", "mentions": "mentions.jsonl", "rejects": "rejects.jsonl",
               "report": "report.json", "cache": "cache/extract.sqlite"}  # fmt: skip
    args = [sys.executable, "-m", "kg", "run", str(PIPELINE), "--quiet"]
    sets = [f"outputs.{k}={tmp / v}" for k, v in outputs.items()]
    sets += [f"extract.n_process={n_process}", "analyse.enabled=false", f'sources=[{{"path": "{corpus}"}}]']
    for item in sets:
        args += ["--set", item]
    t0 = time.perf_counter()
    if subprocess.run(args, cwd=ROOT, stdout=subprocess.DEVNULL).returncode != 0:
        raise SystemExit(f"kg run failed: {args}")
    print(f"corpus run: {time.perf_counter() - t0:.0f} s into {tmp}", file=sys.stderr)
    return tmp


def run_outputs(run: Path) -> tuple[Path, Path]:
    """The store and the mentions file of a finished run: its folder (``kg.lbug``, ``mentions.jsonl``,
    or the paths its ``report.json`` names) or its report."""
    report = run if run.is_file() else run / "report.json"
    outputs = json.loads(report.read_text(encoding="utf-8")).get("outputs", {}) if report.is_file() else {}
    store = Path(outputs.get("store") or run / "kg.lbug")
    mentions = Path(outputs.get("mentions") or run / "mentions.jsonl")
    for path, what in ((store, "store"), (mentions, "mentions file")):
        if not path.exists():
            raise SystemExit(f"--run {run}: no {what} at {path} (a run's folder, or its report.json naming both)")
    return store, mentions


def corpus_part(run: Path) -> dict[str, object]:
    from spacy.lang.en.stop_words import STOP_WORDS

    from kg.store import read_embedded

    store, mentions_path = run_outputs(run)
    G = read_embedded(store)
    concepts = [n for n, d in G.nodes(data=True) if d.get("kind") == "Concept"]
    keys = [G.nodes[n]["key"] for n in concepts]
    function_words = frozenset(STOP_WORDS) - CONTENT_STOP_WORDS
    suspects = {k for k in keys if _repeats_content(k) or (k and k.split()[-1] in function_words)}
    written: dict[str, list[str]] = defaultdict(list)  # the mention texts of the suspect keys
    types: dict[str, set[str]] = defaultdict(set)
    sources: Counter[str] = Counter()
    with mentions_path.open(encoding="utf-8") as fh:
        for line in fh:
            for m in json.loads(line).get("mentions", []):
                types[m["concept"]].add(m["type"])
                sources[m.get("source", "model")] += 1
                if m["concept"] in suspects:
                    written[m["concept"]].append(m["text"])
    repeating = [k for k in keys if _repeats_content(k) and not any(_repeat_in_one_word(t) for t in written[k])]
    ending = [k for k in keys if k in suspects and k.split()[-1] in function_words
              and not any(_hyphenated_end(t, k.split()[-1]) for t in written[k])]  # fmt: skip
    has_generic = any("generic" in G.nodes[n] for n in concepts)
    by_papers = sorted(concepts, key=lambda n: (-G.nodes[n].get("paper_count", 0), n))
    top = by_papers[:50]
    shown = [n for n in by_papers if not G.nodes[n].get("generic")][:50]
    generic = {n for n in concepts if G.nodes[n].get("generic")}
    links = [(u, v, d) for u, v, d in G.edges(data=True) if d.get("rel") == "SHARES_CONCEPTS"]
    only_generic = sum(
        1 for _, _, d in links if d.get("shared") and all(f"concept:{k}" in generic for k in d["shared"])
    )
    n_keys = max(len(keys), 1)
    figures: dict[str, object] = {
        "papers": sum(1 for _, d in G.nodes(data=True) if d.get("kind") == "Paper"),
        "keys": len(keys),
        "keys_repeating_words": len(repeating),
        "keys_ending_in_function_word": round(len(ending) / n_keys, 5),
        "keys_ending_in_stop_word": round(sum(k.split()[-1] in STOP_WORDS for k in keys if k) / n_keys, 5),
        "repeating": sorted(repeating),
        "ending_in_function_word": sorted(ending),
        "concepts_with_several_types": sum(len(t) > 1 for t in types.values()),
        "mentions_by_source": dict(sources),
        "generic_flags": "present" if has_generic else "absent",
        "generic_in_top50": sum(n in generic for n in top) if has_generic else None,
        "links": len(links),
        "links_only_generic": round(only_generic / len(links), 4) if has_generic and links else None,
        "top50": [(G.nodes[n]["key"], G.nodes[n].get("paper_count", 0), bool(G.nodes[n].get("generic"))) for n in top],
        # what top lists show (generic concepts hidden), with types: to read for concepts still generic
        "top50_shown": [(G.nodes[n]["key"], G.nodes[n].get("paper_count", 0), G.nodes[n].get("type")) for n in shown],
    }
    for k, v in figures.items():
        if k in ("repeating", "ending_in_function_word"):
            print(f"{k} ({len(v)}, 30 shown): {v[:30]}", file=sys.stderr)  # type: ignore[arg-type]
        elif k not in ("top50", "top50_shown"):
            print(f"{k}: {v}", file=sys.stderr)
    print("top 50 concepts by papers (key, papers, generic): "
          + "; ".join(f"{k} {c}{' G' if g else ''}" for k, c, g in figures["top50"]), file=sys.stderr)  # type: ignore[attr-defined]  # fmt: skip
    print("top 50 shown, generic hidden (key, papers, type): "
          + "; ".join(f"{k} {c} {t}" for k, c, t in figures["top50_shown"]), file=sys.stderr)  # type: ignore[attr-defined]  # fmt: skip
    return figures


def _repeats_content(key: str) -> bool:
    """A run of two or more words, not all stop words, that occurs twice in ``key`` without overlap."""
    from spacy.lang.en.stop_words import STOP_WORDS

    words = key.split()
    for n in range(2, len(words) // 2 + 1):
        first: dict[tuple[str, ...], int] = {}
        for i in range(len(words) - n + 1):
            gram = tuple(words[i : i + n])
            if all(w in STOP_WORDS or not w.isalpha() for w in gram):
                continue
            if first.setdefault(gram, i) + n <= i:
                return True
    return False


def _repeat_in_one_word(text: str) -> bool:
    """A mention that writes a repeated run inside one hyphenated word ("Yes-Yes-Yes", "image-to-text-to-text")."""
    from kg.normalise.keys import repeats_words

    return any(repeats_words(re.sub(r"[\W_]+", " ", w.lower())) for w in text.split() if any(c in w for c in _HYPHENS))


def _hyphenated_end(text: str, word: str) -> bool:
    """A mention whose last word is ``word`` joined to the one before by a hyphen ("bottom-up")."""
    return re.search(rf"\w[{_HYPHENS}]{re.escape(word)}\W*$", text, re.IGNORECASE) is not None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-corpus", action="store_true", help="only the keyphrase part")
    ap.add_argument("--skip-keyphrases", action="store_true", help="only the corpus part")
    ap.add_argument("--run", type=Path, help="a finished run: its folder or its report.json")
    ap.add_argument("--corpus", type=Path, default=CORPUS, help="corpus to run the pipeline on")
    ap.add_argument("--keyphrases", type=Path, default=KEYPHRASES, help="folder of www.jsonl and inspec.jsonl")
    ap.add_argument("--n-process", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    figures: dict[str, object] = {"bench": "quality"}
    if not args.skip_keyphrases:
        figures["keyphrases"] = keyphrase_part(args.keyphrases, args.n_process)
    if not args.skip_corpus:
        figures["corpus"] = corpus_part(args.run or run_corpus(args.corpus, args.n_process))
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
