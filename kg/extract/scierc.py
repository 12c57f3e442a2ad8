"""Read SciERC gold annotations and turn them into spaCy training data.

SciERC (Luan et al., 2018) stores each abstract as pre-tokenised sentences, with entity
spans as inclusive document-level token indices.  kg works on raw text, so each abstract is
re-assembled as plain text (:func:`detokenize`) and every gold span becomes a character
span of that text.  Training and scoring both use this text, so the model sees the tokenisation it
will meet at run time.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from kg.errors import InputError

#: SciERC entity label -> label the concept model is trained with.
TRAIN_LABELS = {"Method": "Method", "Task": "Task", "Metric": "Metric", "Material": "Material"}


@dataclass(frozen=True, slots=True)
class GoldSpan:
    start: int
    end: int
    label: str


@dataclass(frozen=True, slots=True)
class GoldRelation:
    """A gold relation between two gold spans, in SciERC's direction: ``head`` is ``label`` ``tail``."""

    head: GoldSpan
    tail: GoldSpan
    label: str


@dataclass(frozen=True, slots=True)
class GoldDoc:
    doc_key: str
    text: str
    spans: tuple[GoldSpan, ...]
    relations: tuple[GoldRelation, ...] = ()


def read_scierc(path: str | Path) -> Iterator[GoldDoc]:
    """Yield the abstracts of a SciERC-format JSON Lines file with character-offset spans."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"SciERC file not found: {path}")
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
                yield _gold_doc(raw)
            except (ValueError, KeyError, IndexError, TypeError) as exc:
                raise InputError(f"{path}:{lineno}: not a SciERC record ({exc})") from exc


#: SciERC keeps Penn Treebank escapes; abstracts kg meets have the characters.
_PTB = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}", "``": '"', "''": '"'}
_NO_SPACE_BEFORE = {",", ".", ")", "]", "}", ":", ";", "?", "!", "%", "'s", "n't", "'re", "'ve", "'ll", "'d"}
_NO_SPACE_AFTER = {"(", "[", "{"}


def detokenize(tokens: list[str]) -> tuple[str, list[int]]:
    """Plain text for SciERC tokens, and each token's start offset in it.

    >>> detokenize(["neural", "MT", "-LRB-", "NMT", "-RRB-", "works", "."])
    ('neural MT (NMT) works.', [0, 7, 10, 11, 14, 16, 21])
    """
    text, starts = "", []
    prev = None
    for tok in tokens:
        tok = _PTB.get(tok, tok)
        if prev is not None and tok not in _NO_SPACE_BEFORE and prev not in _NO_SPACE_AFTER:
            text += " "
        starts.append(len(text))
        text += tok
        prev = tok
    return text, starts


def _gold_doc(raw: dict) -> GoldDoc:
    tokens = [tok for sentence in raw["sentences"] for tok in sentence]
    text, starts = detokenize(tokens)
    tokens = [_PTB.get(t, t) for t in tokens]
    labels = {(first, last): label for sentence_spans in raw["ner"] for first, last, label in sentence_spans}

    def span(first: int, last: int) -> GoldSpan:
        return GoldSpan(starts[first], starts[last] + len(tokens[last]), labels.get((first, last), ""))

    spans = {GoldSpan(starts[a], starts[b] + len(tokens[b]), label) for ss in raw["ner"] for a, b, label in ss}
    relations = {
        GoldRelation(span(h0, h1), span(t0, t1), label)
        for sentence_relations in raw.get("relations", [])
        for h0, h1, t0, t1, label in sentence_relations
    }
    return GoldDoc(
        str(raw.get("doc_key", "")),
        text,
        tuple(sorted(spans, key=_order)),
        tuple(sorted(relations, key=lambda r: (_order(r.head), _order(r.tail), r.label))),
    )


def _order(span: GoldSpan) -> tuple[int, int, str]:
    return (span.start, span.end, span.label)


def to_docbin(src: str | Path, dest: str | Path, *, labels: dict[str, str] = TRAIN_LABELS) -> int:
    """Write a SciERC file as a spaCy ``DocBin`` for ``spacy train``; returns the entity count.

    Nested gold spans cannot all be ``doc.ents``: the longest span of a nested group wins.
    """
    import spacy
    from spacy.tokens import DocBin
    from spacy.util import filter_spans

    from kg.extract.pipeline import split_glued_brackets

    nlp = spacy.blank("en")
    split_glued_brackets(nlp)
    db = DocBin()
    n = 0
    for gold in read_scierc(src):
        doc = nlp.make_doc(gold.text)
        ents = []
        for span in gold.spans:
            if span.label not in labels:
                continue
            ent = doc.char_span(span.start, span.end, label=labels[span.label], alignment_mode="expand")
            if ent is not None:
                ents.append(ent)
        doc.ents = filter_spans(ents)
        n += len(doc.ents)
        db.add(doc)
    Path(dest).parent.mkdir(parents=True, exist_ok=True)
    db.to_disk(dest)
    return n
