"""Train the relation classifier on SciERC train and install it into the package (``make relations-model``).

    python -m kg.extract.train_relations --scierc ../shared/data/scierc

Every ordered pair of gold concept spans (SciERC's Method, Task, Metric and Material) in one
sentence is an example, labelled with its gold ``USED-FOR``/``PART-OF``/``HYPONYM-OF`` relation
and direction, or none. The regularisation, the decision threshold, the widest gap and whether
the rules of ``config/relations.toml`` are a feature are chosen by 5-fold cross-validation on
train (folds by abstract, scored as ``kg eval`` scores relations given the gold entities): the
best F1 among the settings with a precision of at least ``MIN_PRECISION``, as every relation
kept becomes an edge a reader takes at its word; then one model is fitted on all of train with
them. SciERC dev is not read.
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import optimize, sparse

from kg.config import relations_model_dir
from kg.extract.evaluate import GOLD_RELATION, gold_concept_spans, score_relations
from kg.extract.relations import (
    NONE,
    RelationModel,
    between,
    candidate_pairs,
    hash_features,
    load_rules,
    match_rules,
    pair_features,
)
from kg.extract.scierc import GoldDoc, read_scierc
from kg.records import Relation

MODEL_NAME = "kg_relations"
MODEL_VERSION = "0.2.0"
DIM = 2**18
LABELS = (NONE, *(f"{t}{d}" for t in GOLD_RELATION for d in "><"))
#: The settings cross-validation chooses from: regularisation, widest gap, the rules' part.
C_GRID = (0.03, 0.1, 0.3, 1.0, 3.0)
GAP_GRID = (10, 15, 20)
RULES_GRID = (False, True)
THRESHOLDS = tuple(round(t, 2) for t in np.arange(0.05, 0.71, 0.05))
FOLDS = 5
#: The least cross-validated precision a setting needs to be chosen.
MIN_PRECISION = 0.6


@dataclass(frozen=True, slots=True)
class Pair:
    """One candidate pair: its document, hashed features, label, gap and where its spans are."""

    doc: int
    buckets: tuple[int, ...]
    rule: str | None
    label: int
    gap: int
    left: tuple[int, int]
    right: tuple[int, int]


def make_pairs(gold: list[GoldDoc], nlp, *, max_gap: int) -> list[Pair]:
    """Candidate pairs over the gold concept spans of each doc, as ``kg_relations`` forms them."""

    rules = load_rules()
    out = []
    for n, g in enumerate(gold):
        doc = nlp.get_pipe("sentencizer")(nlp.make_doc(g.text))
        spans, where = gold_concept_spans(doc, g)
        gold_rel = {
            ((r.head.start, r.head.end), (r.tail.start, r.tail.end)): r.label
            for r in g.relations
            if r.label in GOLD_RELATION.values()
        }
        kg_type = {v: k for k, v in GOLD_RELATION.items()}
        for i, j in candidate_pairs(spans, max_gap):
            left, right = spans[i], spans[j]
            words = between(left, right, spans)
            rule = match_rules(rules, " ".join(words), left, right)
            feats = pair_features(left, right, words)
            label = NONE
            if (where[i], where[j]) in gold_rel:
                label = kg_type[gold_rel[where[i], where[j]]] + ">"
            elif (where[j], where[i]) in gold_rel:
                label = kg_type[gold_rel[where[j], where[i]]] + "<"
            buckets = tuple(hash_features(feats, DIM))
            out.append(Pair(n, buckets, rule, LABELS.index(label), right.start - left.end, where[i], where[j]))
    return out


def design(pairs: list[Pair], *, rules_as_feature: bool) -> sparse.csr_matrix:
    """The pairs' hashed features as a sparse count matrix of ``DIM`` columns."""
    rows: list[int] = []
    cols: list[int] = []
    for n, p in enumerate(pairs):
        bs = [*p.buckets, *hash_features(["rule=" + p.rule], DIM)] if rules_as_feature and p.rule else p.buckets
        rows.extend([n] * len(bs))
        cols.extend(bs)
    data = np.ones(len(rows), dtype=np.float64)
    return sparse.csr_matrix((data, (rows, cols)), shape=(len(pairs), DIM))


def fit(x: sparse.csr_matrix, y: np.ndarray, *, c: float) -> tuple[np.ndarray, np.ndarray]:
    """Multinomial logistic regression, ``c`` times the summed log loss plus half the squared weights."""
    used = np.unique(x.indices)
    xu = x[:, used].tocsr()
    k = len(LABELS)
    onehot = np.eye(k)[y]

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = theta[:-k].reshape(len(used), k), theta[-k:]
        z = xu @ w + b
        z -= z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        d = np.exp(logp) - onehot
        value = -c * float((onehot * logp).sum()) + 0.5 * float((w * w).sum())
        grad = np.concatenate([(c * (xu.T @ d) + w).ravel(), c * d.sum(axis=0)])
        return value, grad

    res = optimize.minimize(loss, np.zeros(len(used) * k + k), jac=True, method="L-BFGS-B", options={"maxiter": 500})
    weights = np.zeros((DIM, k), dtype=np.float32)
    weights[used] = res.x[:-k].reshape(len(used), k)
    return weights, res.x[-k:].astype(np.float32)


def predicted(gold: list[GoldDoc], pairs: list[Pair], labels: Iterable[str]) -> dict[str, list[Relation]]:
    """The relations a labelling of ``pairs`` states, by doc key, with the gold offsets."""
    out: dict[str, list[Relation]] = {g.doc_key: [] for g in gold}
    for p, label in zip(pairs, labels, strict=True):
        if label == NONE:
            continue
        head, tail = (p.left, p.right) if label.endswith(">") else (p.right, p.left)
        out[gold[p.doc].doc_key].append(Relation(label[:-1], "", "", "", "", *head, *tail, ""))
    return out


def cross_validate(gold: list[GoldDoc], pairs: list[Pair]) -> list[dict]:
    """Scores (given gold entities) of every setting of the grids and ``THRESHOLDS`` over the folds."""
    fold_of = np.arange(len(gold)) % FOLDS
    results = []
    for c, max_gap, as_feature in itertools.product(C_GRID, GAP_GRID, RULES_GRID):
        kept = [p for p in pairs if p.gap <= max_gap]
        x = design(kept, rules_as_feature=as_feature)
        y = np.array([p.label for p in kept])
        fold = fold_of[[p.doc for p in kept]]
        probs = np.zeros((len(kept), len(LABELS)))
        for f in range(FOLDS):
            weights, bias = fit(x[fold != f], y[fold != f], c=c)
            rows = np.flatnonzero(fold == f)
            probs[rows] = _model(weights, bias).scores([[int(b) for b in x[r].indices] for r in rows])
        for t, decide in itertools.product(THRESHOLDS, RULES_GRID):
            setting = {"c": c, "max_gap": max_gap, "rules_as_feature": as_feature, "rules_decide": decide}
            labels = _model(threshold=t, **setting).decide(probs, [p.rule for p in kept])
            counts = score_relations(gold, predicted(gold, kept, labels))
            results.append({**setting, "threshold": t, **{k: v.as_dict() for k, v in counts.items()}})
    return results


def rules_alone(gold: list[GoldDoc], pairs: list[Pair]) -> dict:
    """What the rules of ``config/relations.toml`` score by themselves, for comparison."""
    counts = score_relations(gold, predicted(gold, pairs, [p.rule or NONE for p in pairs]))
    return {k: v.as_dict() for k, v in counts.items()}


def _model(
    weights: np.ndarray | None = None, bias: np.ndarray | None = None, *, threshold: float = 0.5, c: float = 0.0,
    max_gap: int = 0, rules_as_feature: bool = False, rules_decide: bool = False, meta: dict | None = None,
) -> RelationModel:  # fmt: skip
    k = len(LABELS)
    return RelationModel(
        LABELS, np.zeros((1, k)) if weights is None else weights, np.zeros(k) if bias is None else bias,
        threshold, max_gap, rules_as_feature, rules_decide, {"c": c, **(meta or {})},
    )  # fmt: skip


def blank_pipeline():
    """A tokenizer and sentencizer as the shipped pipeline's (no model: the pairs come from gold)."""
    import spacy

    from kg.extract.pipeline import split_glued_brackets

    nlp = spacy.blank("en")
    split_glued_brackets(nlp)
    nlp.add_pipe("sentencizer")
    return nlp


def train(scierc: Path, *, dest: Path | None = None) -> dict:
    """Choose settings by cross-validation on train, fit on all of train, install at ``dest``."""
    nlp = blank_pipeline()
    gold = list(read_scierc(scierc / "train.json"))
    pairs = make_pairs(gold, nlp, max_gap=max(GAP_GRID))
    results = cross_validate(gold, pairs)
    # A graph states each relation as a fact: the best F1 among settings precise enough for that.
    precise = [r for r in results if r["micro"]["p"] >= MIN_PRECISION] or results
    best = max(precise, key=lambda r: r["micro"]["f1"])
    setting = {k: best[k] for k in ("c", "max_gap", "rules_as_feature", "rules_decide", "threshold")}
    kept = [p for p in pairs if p.gap <= best["max_gap"]]
    x = design(kept, rules_as_feature=best["rules_as_feature"])
    weights, bias = fit(x, np.array([p.label for p in kept]), c=best["c"])
    by_setting = [{k: r[k] for k in (*setting, "micro")} for r in results if r["threshold"] == best["threshold"]]
    # Precision against recall at the chosen setting, for whoever wants fewer, surer relations.
    by_threshold = [
        {"threshold": r["threshold"], "micro": r["micro"]}
        for r in results
        if all(r[k] == best[k] for k in setting if k != "threshold")
    ]
    meta = {
        "name": MODEL_NAME,
        "version": MODEL_VERSION,
        "trained_on": "SciERC train",
        "cross_validation": {"folds": FOLDS, "best": best, "rules_alone": rules_alone(gold, kept),
                             "by_setting_at_best_threshold": by_setting, "by_threshold": by_threshold},
    }  # fmt: skip
    _model(weights, bias, **setting, meta=meta).save(dest or relations_model_dir())
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scierc", type=Path, default=Path("../shared/data/scierc"), help="SciERC folder")
    args = parser.parse_args()
    best = train(args.scierc)
    print(json.dumps(best))
    print(f"model installed at {relations_model_dir()}")


if __name__ == "__main__":
    main()
