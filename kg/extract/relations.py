"""Concept-to-concept relations a sentence states: ``USED_FOR``, ``HYPONYM_OF``, ``PART_OF``.

``kg_relations`` pairs the concept spans of each sentence and reads the words between them
against the patterns of ``config/relations.toml`` ("X for Y", "Y such as X", "Y consists of
X", ...). The pipeline has no parser, so the words between two spans are all there is; the
patterns must match all of them, which keeps precision up and the cost to a few regex
matches per sentence. Found relations go to ``doc._.relations`` as ``(head, tail, type)``
indices into ``doc.spans["kg"]`` (plain ints, so a ``Doc`` still crosses process borders).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc, Span

from kg.config import config_path
from kg.extract.components import SPANS_KEY

if not Doc.has_extension("relations"):
    Doc.set_extension("relations", default=None)

#: The stand-in for another concept span between the two being paired.
ENTITY = "<e>"
_DET = r"(?: (?:a|an|the|this|these|its|their|our))?"
_LINK = r"(?:,|, and|, or|and|or)"
# A list on the far side of the pair: "such as <e> , <e> and C". (A list on the near side,
# "A and <e> for C", cost more precision than it gave recall on SciERC train.)
_AFTER = rf"(?: {ENTITY} {_LINK}{_DET})*"


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


def load_rules(path: str | Path | None = None) -> tuple[list[RelationRule], int]:
    """The rules of ``config/relations.toml`` (or ``path``), in file order, and the widest gap."""
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
    return rules, int(conf.get("max_gap", 10))


class Relations:
    """Relations between the concept spans of one sentence, from the words between them."""

    def __init__(self, *, spans_key: str = SPANS_KEY, patterns: str | Path | None = None):
        self.spans_key = spans_key
        self.rules, self.max_gap = load_rules(patterns)

    def __call__(self, doc: Doc) -> Doc:
        spans = list(doc.spans.get(self.spans_key, []))
        found: list[tuple[int, int, str]] = []
        order = sorted(range(len(spans)), key=lambda i: (spans[i].start, -spans[i].end))
        for a, i in enumerate(order):
            left = spans[i]
            for j in order[a + 1 :]:
                right = spans[j]
                if right.start - left.end > self.max_gap:
                    break
                if right.start < left.end or left.id_ == right.id_ or right.sent.start != left.sent.start:
                    continue
                words = self.between(left, right, spans)
                rel = self.match(words, left, right)
                if rel is not None:
                    head, tail = (i, j) if rel[1] else (j, i)
                    found.append((head, tail, rel[0]))
        doc._.relations = found
        return doc

    def between(self, left: Span, right: Span, spans: list[Span]) -> str:
        """The lower-cased words between two spans, other concept spans standing as ``<e>``."""
        doc = left.doc
        inner = [s for s in spans if left.end <= s.start and s.end <= right.start]
        words: list[str] = []
        i = left.end
        while i < right.start:
            covering = [s for s in inner if s.start == i]
            if covering:
                words.append(ENTITY)
                i = max(s.end for s in covering)
            else:
                words.append(doc[i].lower_)
                i += 1
        return " ".join(words)

    def match(self, words: str, left: Span, right: Span) -> tuple[str, bool] | None:
        """The relation type the words state and whether the left span is its head, if any."""
        for rule in self.rules:
            for pattern, head, tail, left_is_head in ((rule.forward, left, right, True),
                                                      (rule.backward, right, left, False)):  # fmt: skip
                if pattern and head.label_ in rule.heads and tail.label_ in rule.tails and pattern.fullmatch(words):
                    return rule.type, left_is_head
        return None


@Language.factory("kg_relations", default_config={"spans_key": SPANS_KEY})
def make_relations(nlp: Language, name: str, spans_key: str) -> Relations:
    return Relations(spans_key=spans_key)
