"""Fit the weights of ``kg_phrases`` on keyphrase-annotated abstracts, with cross-validation.

A development tool, not part of a run: the keyphrase data stays where it is and only the
fitted weights go into ``config/phrases.toml``. Each distinct candidate phrase of a record is
one example, positive when its normalised words are one of the record's keywords; the model is
an L2-regularised logistic regression (Newton steps). Records are split into folds; for each
fold the weights are fitted on the others and the held-out records are scored as ``kg eval
--keyphrases`` scores them, at the configured ``max_concepts``.

    python -m kg.extract.fit_phrases www.jsonl inspec.jsonl --balance --min-score -100 -4 -3

prints one JSON line per setting (mean and sd over folds of each file's recall and concepts
per record), then the weights fitted on every record, as ``[weights]`` for the config.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kg.extract.evaluate import KeyphraseRecord, KeyphraseScores, normalise_phrase, read_keyphrases
from kg.extract.phrases import FEATURES, Candidates, Phrases, _known_keys


@dataclass
class Example:
    """One record ready for fitting: its candidates, labels, and the recogniser's concepts."""

    record: KeyphraseRecord
    source: str
    candidates: Candidates
    labels: list[int]
    concepts: set[str]
    mention_texts: list[str]
    known: dict[str, str]


def examples(paths: Sequence[str | Path], *, batch_size: int = 64) -> list[Example]:
    """Run the pipeline without ``kg_phrases`` on every record and collect its candidates."""
    from kg.extract.pipeline import load_pipeline

    nlp = load_pipeline()
    phrases = nlp.get_pipe("kg_phrases")
    assert isinstance(phrases, Phrases)
    out = []
    for path in paths:
        records = read_keyphrases(path)
        texts = ((r.text, r) for r in records)
        with nlp.select_pipes(disable=["kg_phrases"]):
            for doc, r in nlp.pipe(texts, as_tuples=True, batch_size=batch_size):
                gold = {normalise_phrase(k) for k in r.keywords}
                cands = phrases.candidates(doc)
                labels = [int(normalise_phrase(" ".join(w)) in gold) for w in cands.words]
                spans = doc.spans.get(phrases.spans_key, [])
                keys, said = {s.id_ for s in spans}, [s.text for s in spans]
                out.append(Example(r, Path(path).name, cands, labels, keys, said, _known_keys(list(spans))))
    return out


def fit(
    xs: np.ndarray, ys: np.ndarray, *, weights: np.ndarray | None = None, l2: float = 1.0, steps: int = 25
) -> np.ndarray:
    """Weights of an L2-regularised logistic regression (the bias, column 0, unpenalised).

    >>> xs = np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    >>> w = fit(xs, np.array([0, 1, 0, 1]), l2=1.0)
    >>> bool(w[1] > 0)
    True
    """
    sw = np.ones(len(ys)) if weights is None else weights
    w = np.zeros(xs.shape[1])
    penalty = np.full(xs.shape[1], l2)
    penalty[0] = 1e-6
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(xs @ w)))
        grad = xs.T @ (sw * (p - ys)) + penalty * w
        hess = (xs * (sw * p * (1 - p))[:, None]).T @ xs + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-6:
            break
    return w


def score(exs: Sequence[Example], phrases: Phrases) -> KeyphraseScores:
    """Keyphrase recall of the recogniser's concepts plus the phrases ``phrases`` selects."""
    s = KeyphraseScores()
    for ex in exs:
        chosen = phrases.select(ex.candidates, ex.concepts, known=ex.known)
        texts = [" ".join(ex.candidates.words[i]).replace(" - ", "-") for i, _ in chosen]
        keys = ex.concepts | {k for _, k in chosen}
        s.add(ex.record.keywords, ex.record.text, [*ex.mention_texts, *texts, *keys], len(keys))
    return s


def cross_validate(
    exs: list[Example], phrases: Phrases, *, folds: int = 5, l2: float = 1.0, balance: bool = False
) -> list[dict[str, object]]:
    """Per fold and per source file: held-out recall with weights fitted on the other folds."""

    def fold(ex: Example) -> int:
        return int(hashlib.sha1(ex.record.id.encode()).hexdigest(), 16) % folds

    results = []
    for k in range(folds):
        train = [e for e in exs if fold(e) != k]
        xs, ys, sw = _matrix(train, balance=balance)
        phrases.weights = list(fit(xs, ys, weights=sw, l2=l2))
        row: dict[str, object] = {"fold": k}
        for source in sorted({e.source for e in exs}):
            row[source] = score([e for e in exs if fold(e) == k and e.source == source], phrases).as_dict()
        results.append(row)
    return results


def _matrix(exs: Sequence[Example], *, balance: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, labels and example weights; ``balance`` gives each source file the same weight."""
    xs = np.vstack([e.candidates.features for e in exs])
    ys = np.array([y for e in exs for y in e.labels], dtype=float)
    per_source: dict[str, int] = {}
    for e in exs:
        per_source[e.source] = per_source.get(e.source, 0) + len(e.candidates.words)
    share = {k: len(ys) / (len(per_source) * v) if balance else 1.0 for k, v in per_source.items()}
    sw = np.array([share[e.source] for e in exs for _ in e.candidates.words])
    return xs, ys, sw


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", help="keyphrase JSONL files (id, title, abstract, keywords)")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--l2", type=float, default=1.0)
    ap.add_argument("--balance", action="store_true", help="weigh each file's candidates equally in the fit")
    ap.add_argument("--max-concepts", type=int, nargs="*", help="budgets to compare (default: the configured one)")
    ap.add_argument("--min-score", type=float, nargs="*", help="score floors (logits) to compare (default: configured)")
    args = ap.parse_args(argv)
    exs = examples(args.files)
    phrases = Phrases()
    settings = [
        (b, m) for b in args.max_concepts or [phrases.max_concepts] for m in args.min_score or [phrases.min_score]
    ]
    for budget, floor in settings:
        phrases.max_concepts, phrases.min_score = budget, floor
        rows = cross_validate(exs, phrases, folds=args.folds, l2=args.l2, balance=args.balance)
        summary: dict[str, object] = {
            "max_concepts": budget,
            "min_score": floor,
            "l2": args.l2,
            "balance": args.balance,
        }
        for source in sorted({e.source for e in exs}):
            per = [r[source] for r in rows]
            for name, get in (
                ("normalised", lambda d: d["in_text"]["normalised"]),
                ("exact", lambda d: d["in_text"]["exact"]),
                ("concepts", lambda d: d["concepts_per_record"]),
            ):
                values = [get(d) for d in per]
                summary[f"{source}:{name}"] = [round(statistics.mean(values), 4), round(statistics.stdev(values), 4)]
        print(json.dumps(summary))
    xs, ys, sw = _matrix(exs, balance=args.balance)
    weights = fit(xs, ys, weights=sw, l2=args.l2)
    print("[weights]")
    for name, value in zip(FEATURES, weights, strict=True):
        print(f"{name} = {value:.3f}")


if __name__ == "__main__":
    main()
