"""``kg_ner``: spaCy's entity recogniser, its greedy decoding done a whole batch at a time.

spaCy's ``ner`` walks each document through its transition system in C, but the wheels are
built with Cython 3, which wraps every read of the parser state (``StateC::B_``, called by each
move's validity check, for every move at every token) in two acquisitions and releases of the
GIL. On kg's abstracts half of the recogniser's time went to taking and releasing that lock
(py-spy: ``pthread_mutex_lock`` under ``Unit_is_valid`` and ``Begin_is_valid``).

:class:`BatchedEntityRecognizer` is spaCy's ``EntityRecognizer`` with the same model, moves and
weights; only its greedy decoding is done here, with numpy, and gives the same entities: the
same features (the next token and the first five of an open entity, padding where there are
none), summed in the same order in float32, the same bias and maxout, the same valid moves, the
first of the best. A state with no open entity depends on its token alone, so its move is read
for all tokens at once; the model is then only asked, token by token over the batch, for the
documents in the middle of an entity, and only for its two moves (go on, or end here). Where
the model or the documents are not the kind this covers (an upper layer, a beam, entities
already set on a document), spaCy's own decoding runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from spacy.attrs import IS_SPACE, SENT_START
from spacy.language import Language
from spacy.pipeline import EntityRecognizer
from spacy.pipeline._parser_internals.transition_system import TransitionSystem
from spacy.pipeline.ner import DEFAULT_NER_MODEL
from spacy.tokens import Doc, Span
from spacy.util import minibatch
from thinc.api import Model

#: Kinds of move, by the prefix of their class name ("B-Method"); "O" is _OUT.
_BEGIN, _IN, _LAST, _UNIT, _OUT, _NONE = range(6)
_KINDS = {"B": _BEGIN, "I": _IN, "L": _LAST, "U": _UNIT}
#: Tokens of an open entity a state reads besides the next one ("extra_state_tokens").
_FEATURES = 6


@dataclass
class Decoded:
    """Entities found in a batch: ``(start, end, label)`` per document."""

    entities: list[list[tuple[int, int, str]]]


class BatchedEntityRecognizer(EntityRecognizer):
    """An ``EntityRecognizer`` that decodes a batch of documents with numpy (see the module)."""

    def pipe(self, docs: Iterable[Doc], *, batch_size: int = 256) -> Iterator[Doc]:
        # spaCy's pipe sorts each batch by length and decodes it in quarters; here the whole
        # batch is one array, so it is decoded at once.
        error_handler = self.get_error_handler()
        for batch in minibatch(docs, size=batch_size):
            batch = list(batch)
            try:
                self.set_annotations(batch, self.predict(batch))
                yield from batch
            except Exception as e:
                error_handler(self.name, self, batch, e)

    def predict(self, docs: Doc | list[Doc]) -> Any:
        if isinstance(docs, Doc):
            docs = [docs]
        if not self._decodable(docs):
            return super().predict(docs)
        return Decoded(self._decode(docs))

    def set_annotations(self, docs: list[Doc], predicted: Any) -> None:
        if not isinstance(predicted, Decoded):
            super().set_annotations(docs, predicted)
            return
        for doc, entities in zip(docs, predicted.entities, strict=True):
            # as BiluoPushDown.set_annotations: the entities, every other token outside one
            doc.set_ents([Span(doc, s, e, label=label) for s, e, label in entities], default="outside")

    def _decodable(self, docs: list[Doc]) -> bool:
        model = self.model
        if (
            self.cfg.get("beam_width", 1) != 1
            or model.attrs.get("has_upper")
            or model.attrs.get("unseen_classes")
            or not isinstance(self.moves, type(self).TransitionSystem)
        ):
            return False
        lower = model.layers[1]
        if lower.get_dim("nF") != _FEATURES or lower.get_dim("nP") < 2:
            return False
        # entities set before the recogniser constrain its moves (spaCy's "preset" entities)
        return not any(len(doc) and doc.has_annotation("ENT_IOB") for doc in docs)

    def _moves(self) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray, np.ndarray]:
        """Per class: its kind and its label's number (-1: "O", and "U-", spaCy's move that
        only a preset blocked token takes); the labels; per label: its I and L classes."""
        names = [self.moves.get_class_name(i) for i in range(self.moves.n_moves)]
        labels = sorted({n[2:] for n in names if n[2:]})
        kind = np.array([_OUT if n == "O" else _KINDS.get(n[:1], _NONE) if n[2:] else _NONE for n in names])
        label = np.array([labels.index(n[2:]) if n[2:] else -1 for n in names])
        in_class = np.array([names.index(f"I-{x}") for x in labels])
        last_class = np.array([names.index(f"L-{x}") for x in labels])
        return kind, label, labels, in_class, last_class

    def _decode(self, docs: list[Doc]) -> list[list[tuple[int, int, str]]]:
        entities: list[list[tuple[int, int, str]]] = [[] for _ in docs]
        sized = [i for i, doc in enumerate(docs) if len(doc)]
        if not sized:
            return entities
        model = self.model
        tokvecs = model.layers[0].predict([docs[i] for i in sized])
        lower = model.layers[1]
        # (tokens + 1, features, classes, pieces): row 0 is the padding of each feature
        cached = lower.predict(tokvecs)
        bias = lower.get_param("b")
        kind, label, labels, in_class, last_class = self._moves()
        # ending an entity wins a tie where its move comes first (spaCy takes the first of the best)
        end_first = last_class < in_class
        lengths = np.array([len(docs[i]) for i in sized])
        offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        n_tokens = int(lengths.sum())
        # per token: whitespace, the next token opens a sentence, the last token of its doc
        attrs = np.concatenate([docs[i].to_array([IS_SPACE, SENT_START]) for i in sized]).astype(np.int64)
        space = attrs[:, 0] == 1
        last = np.zeros(n_tokens, dtype=bool)
        last[offsets + lengths - 1] = True
        next_start = np.zeros(n_tokens, dtype=bool)
        next_start[:-1] = attrs[1:, 1] == 1
        next_start &= ~last

        # No open entity: the state reads its token and padding; its move depends on the token alone.
        summed = cached[1:, 0]
        for f in range(1, _FEATURES):
            summed = summed + cached[0, f]
        closed = _maxout(summed + bias)  # (tokens, classes)
        begin_ok = ~last & ~next_start & ~space
        valid = np.zeros(closed.shape, dtype=bool)
        valid[:, kind == _BEGIN] = begin_ok[:, None]
        valid[:, kind == _UNIT] = ~space[:, None]
        valid[:, kind == _OUT] = True
        move = np.where(valid, closed, -np.inf).argmax(axis=1)
        move_kind, move_label = kind[move], label[move]
        go_on_ok = ~last & ~next_start  # "In" is valid (with its label)

        # A document with no open entity goes straight to its next token whose move opens one
        # (B or U); one inside an entity reads one token at a time. Each round moves every
        # document on by one of these steps.
        opens = np.flatnonzero((move_kind == _BEGIN) | (move_kind == _UNIT))
        ends = offsets + lengths
        doc_end = np.repeat(ends, lengths)
        next_open = np.append(opens, n_tokens)[np.searchsorted(opens, np.arange(n_tokens))]
        next_open = np.minimum(next_open, doc_end)
        pos = offsets.copy()  # the next token each document reads
        is_open = np.zeros(len(sized), dtype=bool)
        start = np.zeros(len(sized), dtype=np.int64)
        open_label = np.zeros(len(sized), dtype=np.int64)
        found: list[np.ndarray] = []  # (document, start, end, label) rows, as tokens of the batch
        active = np.flatnonzero(pos < ends)
        while len(active):
            inside = active[is_open[active]]
            outside = active[~is_open[active]]
            if len(inside):
                t = pos[inside]
                pair = np.stack([in_class[open_label[inside]], last_class[open_label[inside]]], axis=1)
                acc = cached[t[:, None] + 1, 0, pair]
                for f in range(1, _FEATURES):
                    at = start[inside] + f - 1
                    acc = acc + cached[np.where(at < t, at + 1, 0)[:, None], f, pair]
                scores = _maxout(acc + bias[pair])  # (documents, [go on, end])
                # the first of the best of the valid moves
                ties = (scores[:, 1] == scores[:, 0]) & end_first[open_label[inside]]
                end = ~go_on_ok[t] | (scores[:, 1] > scores[:, 0]) | ties
                done = inside[end]
                found.append(np.stack([done, start[done], t[end] + 1, open_label[done]], axis=1))
                is_open[done] = False
                pos[inside] += 1
            if len(outside):
                at = next_open[pos[outside]]
                moving = at < ends[outside]
                pos[outside[~moving]] = ends[outside[~moving]]
                docs_on, at = outside[moving], at[moving]
                unit = move_kind[at] == _UNIT
                found.append(np.stack([docs_on[unit], at[unit], at[unit] + 1, move_label[at[unit]]], axis=1))
                began = docs_on[~unit]
                is_open[began] = True
                start[began] = at[~unit]
                open_label[began] = move_label[at[~unit]]
                pos[docs_on] = at + 1
            active = active[pos[active] < ends[active]]
        rows = np.concatenate(found) if found else np.zeros((0, 4), dtype=np.int64)
        rows = rows[np.lexsort((rows[:, 1], rows[:, 0]))]
        for d, s, e, x in rows.tolist():
            entities[sized[d]].append((s - int(offsets[d]), e - int(offsets[d]), labels[x]))
        return entities


def _maxout(x: np.ndarray) -> np.ndarray:
    """The largest of the pieces (the last axis): ``x.max(axis=-1)``, which is slow on an axis of two."""
    out = x[..., 0]
    for p in range(1, x.shape[-1]):
        out = np.maximum(out, x[..., p])
    return out


@Language.factory(
    "kg_ner",
    assigns=["doc.ents", "token.ent_iob", "token.ent_type"],
    # as spaCy's "ner"; a trained model's config gives every value
    default_config={
        "moves": None,
        "update_with_oracle_cut_size": 100,
        "model": DEFAULT_NER_MODEL,
        "incorrect_spans_key": None,
        "scorer": {"@scorers": "spacy.ner_scorer.v1"},
    },
    default_score_weights={"ents_f": 1.0, "ents_p": 0.0, "ents_r": 0.0, "ents_per_type": None},
)
def make_batched_ner(
    nlp: Language,
    name: str,
    model: Model,
    moves: TransitionSystem | None,
    update_with_oracle_cut_size: int,
    incorrect_spans_key: str | None,
    scorer: Callable | None,
) -> BatchedEntityRecognizer:
    return BatchedEntityRecognizer(
        nlp.vocab,
        model,
        name=name,
        moves=moves,
        update_with_oracle_cut_size=update_with_oracle_cut_size,
        incorrect_spans_key=incorrect_spans_key,
        scorer=scorer,
    )
