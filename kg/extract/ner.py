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
        closed = (summed + bias).max(axis=-1)  # (tokens, classes)
        begin_ok = ~last & ~next_start & ~space
        valid = np.zeros(closed.shape, dtype=bool)
        valid[:, kind == _BEGIN] = begin_ok[:, None]
        valid[:, kind == _UNIT] = ~space[:, None]
        valid[:, kind == _OUT] = True
        move = np.where(valid, closed, -np.inf).argmax(axis=1)
        move_kind, move_label = kind[move], label[move]
        go_on_ok = ~last & ~next_start  # "In" is valid (with its label)

        # Token by token over the batch, longest documents first (the active ones a prefix).
        order = np.argsort(-lengths, kind="stable")
        base = offsets[order]
        lens = lengths[order]
        n_docs = len(order)
        is_open = np.zeros(n_docs, dtype=bool)
        start = np.zeros(n_docs, dtype=np.int64)  # position in its document
        open_label = np.zeros(n_docs, dtype=np.int64)
        found: list[list[tuple[int, int, int]]] = [[] for _ in order]
        n_active = n_docs
        for t in range(int(lens[0])):
            while lens[n_active - 1] <= t:
                n_active -= 1
            tok = base[:n_active] + t
            opened = np.flatnonzero(is_open[:n_active])
            if len(opened):
                d = opened
                pair = np.stack([in_class[open_label[d]], last_class[open_label[d]]], axis=1)
                acc = cached[tok[d, None] + 1, 0, pair]
                for f in range(1, _FEATURES):
                    pos = start[d] + f - 1
                    row = np.where(pos < t, base[d] + pos + 1, 0)
                    acc = acc + cached[row[:, None], f, pair]
                scores = (acc + bias[pair]).max(axis=-1)  # (open docs, [go on, end])
                # the first of the best of the valid moves
                ties = (scores[:, 1] == scores[:, 0]) & end_first[open_label[d]]
                end = ~go_on_ok[tok[d]] | (scores[:, 1] > scores[:, 0]) | ties
                for i in d[end].tolist():
                    found[i].append((int(start[i]), t + 1, int(open_label[i])))
                is_open[d[end]] = False
            closed_docs = np.flatnonzero(~is_open[:n_active])
            if len(opened):
                closed_docs = np.setdiff1d(closed_docs, opened, assume_unique=True)
            kinds = move_kind[tok[closed_docs]]
            begins = closed_docs[kinds == _BEGIN]
            if len(begins):
                is_open[begins] = True
                start[begins] = t
                open_label[begins] = move_label[tok[begins]]
            for i in closed_docs[kinds == _UNIT].tolist():
                found[i].append((t, t + 1, int(move_label[base[i] + t])))
        for j, i in enumerate(order.tolist()):
            entities[sized[i]] = [(s, e, labels[x]) for s, e, x in found[j]]
        return entities


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
