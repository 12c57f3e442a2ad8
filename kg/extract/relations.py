"""Concept-to-concept relations a sentence states: ``USED_FOR``, ``HYPONYM_OF``, ``PART_OF``.

``kg_relations`` pairs the concept spans of each sentence (at most ``max_gap`` tokens apart)
and asks a small classifier, trained on SciERC train (``python -m kg.extract.train_relations``,
shipped in ``kg/models/relations``), which of the three relations the pair is in, and which
way, or none. The pipeline has no parser, so it reads the words around the two spans: the
words between them (other concept spans there stand as ``<e>``), the spans' own first and
last words, their types, how far apart they are, and whether a pattern of
``config/relations.toml`` ("X for Y", "Y such as X", "Y consists of X", ...) matches all the
words between them. Features are hashed into a fixed-size vector; a multinomial logistic
regression scores them. Found relations go to ``doc._.relations`` as ``(head, tail, type)``
indices into ``doc.spans["kg"]`` (plain ints, so a ``Doc`` still crosses process borders).
"""

from __future__ import annotations

import itertools
import json
import re
import tomllib
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from spacy.language import Language
from spacy.tokens import Doc, Span

from kg.config import config_path, relations_model_dir
from kg.errors import ConfigError
from kg.extract.components import SPANS_KEY, SentenceBounds, lower_forms

if not Doc.has_extension("relations"):
    Doc.set_extension("relations", default=None)

#: The stand-in for another concept span between the two being paired.
ENTITY = "<e>"
_DET = r"(?: (?:a|an|the|this|these|its|their|our))?"
_LINK = r"(?:,|, and|, or|and|or)"
# A list on the far side of the pair: "such as <e> , <e> and C". (A list on the near side,
# "A and <e> for C", cost more precision than it gave recall on SciERC train.)
_AFTER = rf"(?: {ENTITY} {_LINK}{_DET})*"
#: What the classifier predicts for an ordered pair (left, right): ``TYPE>`` has the left
#: span as head, ``TYPE<`` the right one.
NONE = "none"


@dataclass(frozen=True, slots=True)
class RelationRule:
    """One relation type: patterns for each direction and the concept types it may join."""

    type: str
    forward: re.Pattern[str] | None
    backward: re.Pattern[str] | None
    heads: frozenset[str]
    tails: frozenset[str]


def _compile(patterns: list[str], free_words: int = 0) -> re.Pattern[str] | None:
    if not patterns:
        return None
    either = "|".join(f"(?:{p})" for p in patterns)
    free = rf"(?: (?!{ENTITY})\S+){{0,{free_words}}}" if free_words else _DET
    return re.compile(rf"(?:{either}){free}{_AFTER}")


def load_rules(path: str | Path | None = None) -> list[RelationRule]:
    """The rules of ``config/relations.toml`` (or ``path``), in file order."""
    conf = tomllib.loads(Path(path or config_path("relations.toml")).read_text(encoding="utf-8"))
    rules = []
    for name, table in conf.items():
        if not isinstance(table, dict):
            continue
        free = int(table.get("free_words", 0))
        rules.append(
            RelationRule(
                type=name,
                forward=_compile(table.get("forward", []), free),
                backward=_compile(table.get("backward", []), free),
                heads=frozenset(table["heads"]),
                tails=frozenset(table["tails"]),
            )
        )
    return rules


def match_rules(rules: list[RelationRule], words: str, left: Span, right: Span) -> str | None:
    """The label a rule reads in the words between the pair, as the classifier's (``TYPE>``/``TYPE<``)."""
    for rule in rules:
        for pattern, head, tail, way in ((rule.forward, left, right, ">"), (rule.backward, right, left, "<")):
            if pattern and head.label_ in rule.heads and tail.label_ in rule.tails and pattern.fullmatch(words):
                return rule.type + way
    return None


def candidate_pairs(spans: list[Span], max_gap: int, sentences: list[int] | None = None) -> Iterator[tuple[int, int]]:
    """Index pairs (left, right) of spans in one sentence, apart by at most ``max_gap`` tokens.

    ``sentences``: where each span's sentence starts (``span.sent.start``, read if not given).
    """
    if sentences is None:
        sentences = [s.sent.start for s in spans]
    order = sorted(range(len(spans)), key=lambda i: (spans[i].start, -spans[i].end))
    for a, i in enumerate(order):
        left = spans[i]
        for j in order[a + 1 :]:
            right = spans[j]
            if right.start - left.end > max_gap:
                break
            if right.start < left.end or left.id_ == right.id_ or sentences[i] != sentences[j]:
                continue
            yield i, j


def between(left: Span, right: Span, spans: list[Span]) -> list[str]:
    """The lower-cased words between two spans, other concept spans standing as ``<e>``."""
    lower = lower_forms(left.doc)
    inner = [s for s in spans if left.end <= s.start and s.end <= right.start]
    words: list[str] = []
    i = left.end
    while i < right.start:
        covering = [s for s in inner if s.start == i]
        if covering:
            words.append(ENTITY)
            i = max(s.end for s in covering)
        else:
            words.append(lower[i])
            i += 1
    return words


#: kg types as the classifier sees them: a Technique is a Method that is not named.
_KIND = {"Technique": "Method"}


def pair_features(
    left: Span, right: Span, words: list[str], rule: str | None = None, sentence: tuple[int, int] | None = None
) -> list[str]:
    """The features of an ordered pair of spans in one sentence, as strings to hash.

    ``sentence``: the first and end token of the pair's sentence (``left.sent``'s, read if not given).

    >>> import spacy
    >>> nlp = spacy.blank("en")
    >>> _ = nlp.add_pipe("sentencizer")
    >>> doc = nlp("We use BERT for parsing.")
    >>> f = pair_features(doc[2:3], doc[4:5], ["for"], "USED_FOR>")
    >>> "bs=for" in f and "rule=USED_FOR>" in f
    True
    """
    lower = lower_forms(left.doc)  # (``token.lower_`` makes a Token)
    first_token, end_token = sentence or (left.sent.start, left.sent.end)
    lt, rt = _KIND.get(left.label_, left.label_), _KIND.get(right.label_, right.label_)
    types = f"{lt}>{rt}"
    gap = len(words)
    first, last = (words[0], words[-1]) if words else ("", "")
    feats = [
        "bias",
        f"t={types}",
        f"gap={gap if gap <= 5 else '6-10' if gap <= 10 else '11+'}",
        f"ne={min(words.count(ENTITY), 3)}",
        f"bf={first}",
        f"bl={last}",
        f"t={types}|bf={first}",
        f"t={types}|bl={last}",
        f"lf={lower[left.start]}",
        f"ll={lower[left.end - 1]}",
        f"rf={lower[right.start]}",
        f"rl={lower[right.end - 1]}",
        f"lr={lower[left.end - 1]}|{lower[right.end - 1]}",
        f"pre={lower[left.start - 1] if left.start > first_token else '<s>'}",
        f"post={lower[right.end] if right.end < end_token else '</s>'}",
    ]
    if gap <= 4:
        feats.append("bs=" + " ".join(words))
        feats.append(f"t={types}|bs=" + " ".join(words))
    feats.extend("bw=" + w for w in set(words))
    padded = ["<", *words, ">"]
    feats.extend(f"bb={a} {b}" for a, b in itertools.pairwise(padded))
    if rule is not None:
        feats.append("rule=" + rule)
    return feats


def hash_features(feats: list[str], dim: int) -> list[int]:
    """Bucket of each feature: crc32, stable across processes and machines (``hash`` is not)."""
    return [zlib.crc32(f.encode()) & (dim - 1) for f in feats]


@dataclass(frozen=True)
class RelationModel:
    """Weights of the pair classifier and how to decide: one row of ``weights`` per bucket.

    ``rules_as_feature``: a rule's match is a feature; ``rules_decide``: where a rule matches,
    its label is taken whatever the classifier says.
    """

    labels: tuple[str, ...]
    weights: np.ndarray
    bias: np.ndarray
    threshold: float
    max_gap: int
    rules_as_feature: bool
    rules_decide: bool
    meta: dict

    @property
    def dim(self) -> int:
        return int(self.weights.shape[0])

    def scores(self, buckets: list[list[int]]) -> np.ndarray:
        """Class probabilities, one row per pair of hashed features."""
        if not buckets:
            return np.zeros((0, len(self.labels)))
        flat = np.fromiter((b for bs in buckets for b in bs), dtype=np.int64)
        starts = np.cumsum([0, *(len(bs) for bs in buckets[:-1])])
        z = np.add.reduceat(self.weights[flat], starts, axis=0) + self.bias
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(axis=1, keepdims=True)

    def decide(self, probs: np.ndarray, rules: list[str | None]) -> list[str]:
        """The label of each pair: the likeliest relation if it reaches ``threshold``, else none.

        ``rules`` is what the rules read in each pair (``None`` where none matches).
        """
        none = self.labels.index(NONE)
        rel = probs.copy()
        rel[:, none] = -1.0
        best = rel.argmax(axis=1)
        labels = [self.labels[k] if rel[n, k] >= self.threshold else NONE for n, k in enumerate(best)]
        if self.rules_decide:
            labels = [rule or label for label, rule in zip(labels, rules, strict=True)]
        return labels

    def save(self, folder: str | Path) -> None:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        rows = np.flatnonzero(np.abs(self.weights).sum(axis=1))
        np.savez_compressed(
            folder / "weights.npz", rows=rows.astype(np.int32), weights=self.weights[rows].astype(np.float16),
            bias=self.bias.astype(np.float32),
        )  # fmt: skip
        meta = {**self.meta, "labels": list(self.labels), "dim": self.dim, "threshold": self.threshold,
                "max_gap": self.max_gap, "rules_as_feature": self.rules_as_feature,
                "rules_decide": self.rules_decide}  # fmt: skip
        (folder / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, folder: str | Path | None = None) -> RelationModel:
        folder = Path(folder) if folder else relations_model_dir()
        if not (folder / "weights.npz").is_file():
            raise ConfigError(f"no relation model at {folder} (run `make relations-model`)")
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        with np.load(folder / "weights.npz") as z:
            weights = np.zeros((meta["dim"], len(meta["labels"])), dtype=np.float32)
            weights[z["rows"]] = z["weights"]
            bias = z["bias"]
        return cls(
            labels=tuple(meta["labels"]),
            weights=weights,
            bias=bias,
            threshold=float(meta["threshold"]),
            max_gap=int(meta["max_gap"]),
            rules_as_feature=bool(meta["rules_as_feature"]),
            rules_decide=bool(meta["rules_decide"]),
            meta=meta,
        )


class Relations:
    """Relations between the concept spans of one sentence, from a classifier of span pairs."""

    def __init__(self, *, spans_key: str = SPANS_KEY, model: RelationModel | str | Path | None = None):
        self.spans_key = spans_key
        self.model = model if isinstance(model, RelationModel) else RelationModel.load(model)
        self.rules = load_rules() if self.model.rules_as_feature or self.model.rules_decide else []

    def __call__(self, doc: Doc) -> Doc:
        spans = list(doc.spans.get(self.spans_key, []))
        bounds = SentenceBounds(doc)
        sentences = [bounds.of(s) for s in spans]
        pairs = list(candidate_pairs(spans, self.model.max_gap, [s[0] for s in sentences]))
        buckets, rules = [], []
        for i, j in pairs:
            left, right = spans[i], spans[j]
            words = between(left, right, spans)
            rule = match_rules(self.rules, " ".join(words), left, right) if self.rules else None
            feats = pair_features(left, right, words, rule if self.model.rules_as_feature else None, sentences[i])
            buckets.append(hash_features(feats, self.model.dim))
            rules.append(rule)
        found: list[tuple[int, int, str]] = []
        for (i, j), label in zip(pairs, self.model.decide(self.model.scores(buckets), rules), strict=True):
            if label != NONE:
                head, tail = (i, j) if label.endswith(">") else (j, i)
                found.append((head, tail, label[:-1]))
        doc._.relations = found
        return doc


@Language.factory("kg_relations", default_config={"spans_key": SPANS_KEY, "model": None})
def make_relations(nlp: Language, name: str, spans_key: str, model: str | None) -> Relations:
    return Relations(spans_key=spans_key, model=model)
