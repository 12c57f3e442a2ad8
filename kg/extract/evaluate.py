"""Score extractor output against SciERC-format gold: per type and micro P/R/F1.

kg types are compared with the SciERC labels they come from: ``Method`` and ``Technique``
against gold ``Method``, ``Problem`` against gold ``Task``. Exact match needs the same
character span; overlap match needs any shared character (each gold span matched once).

Relations are scored end to end (a predicted relation counts when both its arguments are
exactly a gold relation's spans, in SciERC's direction, with the same type) and, separately,
given the gold entities, so that what the relation patterns miss is told apart from what
the NER misses.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.extract.scierc import GoldDoc, read_scierc
from kg.records import Extraction, Mention, Paper, Relation

#: kg mention type -> SciERC label it is scored against.
GOLD_LABEL = {"Method": "Method", "Technique": "Method", "Problem": "Task", "Metric": "Metric", "Dataset": "Material"}


@dataclass
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self) -> dict[str, float | int]:
        return {
            "p": round(self.precision, 4),
            "r": round(self.recall, 4),
            "f1": round(self.f1, 4),
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
        }


@dataclass
class Scores:
    exact: dict[str, Counts] = field(default_factory=dict)
    overlap: dict[str, Counts] = field(default_factory=dict)
    #: Relation scores end to end and given the gold entities (by SciERC label, and micro).
    relations: dict[str, Counts] = field(default_factory=dict)
    relations_gold_entities: dict[str, Counts] = field(default_factory=dict)
    docs: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "docs": self.docs,
            "abstracts_per_second": round(self.docs / self.seconds, 1) if self.seconds else None,
            "exact": {k: v.as_dict() for k, v in sorted(self.exact.items())},
            "overlap": {k: v.as_dict() for k, v in sorted(self.overlap.items())},
        }
        if self.relations:
            out["relations"] = {k: v.as_dict() for k, v in sorted(self.relations.items())}
        if self.relations_gold_entities:
            out["relations_gold_entities"] = {k: v.as_dict() for k, v in sorted(self.relations_gold_entities.items())}
        return out


#: Gold labels scored, and those the micro average is over (the issue's "Method+Task").
LABELS = ("Method", "Task", "Metric", "Material")
MICRO = ("Method", "Task")


def score(
    gold: Iterable[GoldDoc],
    predicted: dict[str, list[Mention]],
    labels: tuple[str, ...] = LABELS,
    *,
    micro: tuple[str, ...] = MICRO,
) -> Scores:
    """Compare predicted mentions (by doc key) with gold spans of ``labels``; micro-average ``micro``.

    >>> from kg.extract.scierc import GoldSpan
    >>> g = GoldDoc("d", "We use BERT for parsing .", (GoldSpan(7, 11, "Method"), GoldSpan(16, 23, "Task")))
    >>> m = [Mention("BERT", "Method", 7, 11, "", "uses", "bert"), Mention("parsing .", "Problem", 16, 25, "", "", "")]
    >>> s = score([g], {"d": m})
    >>> s.exact["micro"].f1, s.overlap["micro"].f1
    (0.5, 1.0)
    """
    scores = Scores()
    for name in (*labels, "micro"):
        scores.exact[name] = Counts()
        scores.overlap[name] = Counts()
    for doc in gold:
        scores.docs += 1
        gold_spans = {(s.start, s.end, s.label) for s in doc.spans if s.label in labels}
        pred_spans = {(m.start, m.end, GOLD_LABEL.get(m.type, m.type)) for m in predicted.get(doc.doc_key, [])}
        for label in labels:
            g = {s for s in gold_spans if s[2] == label}
            p = {s for s in pred_spans if s[2] == label}
            matched_gold: set[tuple[int, int, str]] = set()
            overlap = 0
            for ps in sorted(p):
                hit = next((gs for gs in sorted(g) if gs not in matched_gold and gs[0] < ps[1] and ps[0] < gs[1]), None)
                if hit is not None:
                    matched_gold.add(hit)
                    overlap += 1
            keys = (label, "micro") if label in micro else (label,)
            for bucket, tp in ((scores.exact, len(g & p)), (scores.overlap, overlap)):
                for key in keys:
                    bucket[key].tp += tp
                    bucket[key].fp += len(p) - tp
                    bucket[key].fn += len(g) - tp
    return scores


#: kg relation type -> the SciERC label it is scored against (SciERC's direction is kg's).
GOLD_RELATION = {"USED_FOR": "USED-FOR", "PART_OF": "PART-OF", "HYPONYM_OF": "HYPONYM-OF"}
#: SciERC labels of the entities kg turns into concepts, and the kg type each becomes.
CONCEPT_LABELS = {"Method": "Method", "Task": "Problem", "Metric": "Metric", "Material": "Dataset"}


def score_relations(gold: Iterable[GoldDoc], predicted: dict[str, list[Relation]]) -> dict[str, Counts]:
    """Relation P/R/F1 by SciERC label and micro over the labels kg predicts (``GOLD_RELATION``).

    A prediction is right when its head and tail are exactly the spans of a gold relation's
    head and tail, with the same label.

    >>> import dataclasses
    >>> from kg.extract.scierc import GoldRelation, GoldSpan
    >>> bert, parsing = GoldSpan(7, 11, "Method"), GoldSpan(16, 23, "Task")
    >>> g = GoldDoc("d", "We use BERT for parsing.", (bert, parsing), (GoldRelation(bert, parsing, "USED-FOR"),))
    >>> r = Relation("USED_FOR", "bert", "parsing", "BERT", "parsing", 7, 11, 16, 23, "")
    >>> s = score_relations([g], {"d": [r, dataclasses.replace(r, type="PART_OF")]})
    >>> s["USED-FOR"].f1, s["micro"].precision
    (1.0, 0.5)
    """
    labels = tuple(GOLD_RELATION.values())
    counts = {name: Counts() for name in (*labels, "micro")}
    for doc in gold:
        g = {(r.head.start, r.head.end, r.tail.start, r.tail.end, r.label) for r in doc.relations}
        p = {
            (r.head_start, r.head_end, r.tail_start, r.tail_end, GOLD_RELATION.get(r.type, r.type))
            for r in predicted.get(doc.doc_key, [])
        }
        for label in labels:
            gl = {x for x in g if x[4] == label}
            pl = {x for x in p if x[4] == label}
            tp = len(gl & pl)
            for key in (label, "micro"):
                counts[key].tp += tp
                counts[key].fp += len(pl) - tp
                counts[key].fn += len(gl) - tp
    return counts


def gold_concept_spans(doc: Any, g: GoldDoc) -> tuple[list[Any], list[tuple[int, int]]]:
    """The gold spans kg makes concepts of (``CONCEPT_LABELS``), as spans of ``doc``, and their gold offsets.

    A span is widened to whole tokens; its ``id_`` is the lower-cased gold text.
    """
    from spacy.tokens import Span

    spans, where = [], []
    for s in g.spans:
        if s.label not in CONCEPT_LABELS:
            continue
        tok = doc.char_span(s.start, s.end, alignment_mode="expand")
        if tok is None:
            continue
        span = Span(doc, tok.start, tok.end, label=CONCEPT_LABELS[s.label])
        span.id_ = g.text[s.start : s.end].lower()
        spans.append(span)
        where.append((s.start, s.end))
    return spans, where


def relations_on_gold_entities(gold: Iterable[GoldDoc], nlp: Any) -> dict[str, list[Relation]]:
    """Run kg's relation component on the gold concept spans (``CONCEPT_LABELS``) of each doc."""
    from kg.extract.components import SPANS_KEY
    from kg.extract.pipeline import relations

    out: dict[str, list[Relation]] = {}
    for g in gold:
        doc = nlp.make_doc(g.text)
        spans, where = gold_concept_spans(doc, g)
        doc.spans[SPANS_KEY] = spans
        for name in ("sentencizer", "kg_relations"):
            doc = nlp.get_pipe(name)(doc)
        # Report the gold offsets, which token alignment may have widened.
        bounds = {(s.start, s.end): w for s, w in zip(spans, where, strict=True)}
        found = []
        for r in relations(doc):
            h = bounds[_tok(doc, r.head_start, r.head_end)]
            t = bounds[_tok(doc, r.tail_start, r.tail_end)]
            found.append(Relation(r.type, r.head, r.tail, r.head_text, r.tail_text, *h, *t, r.sentence))
        out[g.doc_key] = found
    return out


def _tok(doc: Any, start: int, end: int) -> tuple[int, int]:
    span = doc.char_span(start, end)
    return span.start, span.end


def evaluate(
    gold_path: str | Path, *, model: str | Path | None = None, predictions: str | Path | None = None, n_process: int = 1
) -> Scores:
    """Run the extractor over the gold abstracts (or read ``predictions``) and score it."""
    from kg.extract.pipeline import extract, load_pipeline

    gold = list(read_scierc(gold_path))
    nlp = load_pipeline(model)
    t0 = time.perf_counter()
    if predictions:
        with Path(predictions).open(encoding="utf-8") as fh:
            xs = [Extraction.from_line(line, where=f"{predictions}, line {n}") for n, line in enumerate(fh, 1)
                  if line.strip()]  # fmt: skip
    else:
        xs = list(extract((Paper(g.doc_key, "", g.text) for g in gold), nlp=nlp, n_process=n_process))
    seconds = time.perf_counter() - t0
    # Gold spans index the abstract (predictions read from a file may hold title mentions too), and
    # SciERC scores the recogniser: candidate phrases follow no SciERC convention.
    result = score(gold, {x.id: [m for m in x.mentions if m.field == "abstract" and m.source == "model"] for x in xs})
    result.seconds = seconds
    result.relations = score_relations(gold, {x.id: [r for r in x.relations if r.field == "abstract"] for x in xs})
    result.relations_gold_entities = score_relations(gold, relations_on_gold_entities(gold, nlp))
    return result


def role_accuracy(gold_path: str | Path, abstracts: dict[str, str], *, nlp: Any = None) -> tuple[float, int]:
    """Share of hand-checked mentions whose role kg gets right, and how many were checked.

    Each gold line gives a paper id, the mention's offsets and type, and the right ``role``;
    the mention is given to kg's own components as the NER would, so only the role rules are
    scored.
    """
    import json

    from kg.extract.pipeline import load_pipeline, mentions

    nlp = nlp or load_pipeline()
    label = {"Problem": "Task", "Method": "Method", "Technique": "Method"}
    right = total = 0
    with Path(gold_path).open(encoding="utf-8") as fh:
        for line in fh:
            g = json.loads(line)
            doc = nlp.make_doc(abstracts[g["id"]])
            doc.ents = [doc.char_span(g["start"], g["end"], label=label[g["type"]], alignment_mode="expand")]
            for name in ("sentencizer", "kg_concepts", "kg_roles"):
                doc = nlp.get_pipe(name)(doc)
            found = [m for m in mentions(doc) if m.start <= g["start"] < m.end or g["start"] <= m.start < g["end"]]
            total += 1
            right += bool(found) and found[0].role == g["role"]
    return (right / total if total else 0.0), total


def normalise_phrase(text: str) -> str:
    """The form keyphrases and concepts are compared in: one definition for kg and for peers.

    Lowercase, every character that is not a letter or digit becomes a space, whitespace is
    collapsed, and a plural final "s" is dropped from each word of four letters or more
    ("-ies" becomes "-y"; "ss", "us" and "is" stay: "class", "corpus", "analysis").

    >>> normalise_phrase("Graph Neural-Networks (GNNs)")
    'graph neural network gnn'
    >>> normalise_phrase("  corpus analysis; classes ")
    'corpus analysis classe'
    """
    chars = [c if c.isalnum() else " " for c in text.lower()]
    return " ".join(_singular(w) for w in "".join(chars).split())


def _singular(word: str) -> str:
    if len(word) >= 5 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) >= 4 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@dataclass(frozen=True)
class KeyphraseRecord:
    """One record of a keyphrase file: its text (title, then abstract) and the given keywords."""

    id: str
    title: str
    abstract: str
    keywords: tuple[str, ...]

    @property
    def text(self) -> str:
        return f"{self.title}\n{self.abstract}" if self.title else self.abstract


def read_keyphrases(path: str | Path) -> list[KeyphraseRecord]:
    """Records of a keyphrase JSONL file (``id``, ``title``, ``abstract``, ``keywords``)."""
    import json

    from kg.errors import InputError

    out = []
    with Path(path).open(encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            d = json.loads(line)
            if "keywords" not in d or "abstract" not in d:
                raise InputError(f"{path}:{n}: a keyphrase record needs 'abstract' and 'keywords' (has {sorted(d)})")
            out.append(KeyphraseRecord(str(d["id"]), d.get("title") or "", d["abstract"], tuple(d["keywords"])))
    return out


@dataclass
class KeyphraseScores:
    """Recall of given keyphrases by the phrases a system returns, per record summed."""

    records: int = 0
    #: (found exact, found normalised, keywords) over keywords in the text and over all keywords.
    in_text: list[int] = field(default_factory=lambda: [0, 0, 0])
    all: list[int] = field(default_factory=lambda: [0, 0, 0])
    concepts: int = 0
    seconds: float = 0.0

    def add(self, keywords: Iterable[str], text: str, phrases: Iterable[str], concepts: int) -> None:
        """Score one record: ``phrases`` are everything the system returned (texts and keys)."""
        exact = {p.lower() for p in phrases}
        normal = {normalise_phrase(p) for p in exact}
        padded = f" {normalise_phrase(text)} "
        self.records += 1
        self.concepts += concepts
        for kw in dict.fromkeys(k.strip() for k in keywords if k.strip()):
            hit = (kw.lower() in exact, normalise_phrase(kw) in normal)
            buckets = (self.all, self.in_text) if f" {normalise_phrase(kw)} " in padded else (self.all,)
            for b in buckets:
                b[0] += hit[0]
                b[1] += hit[1]
                b[2] += 1

    def as_dict(self) -> dict[str, object]:
        def recall(c: list[int]) -> dict[str, float | int]:
            return {"exact": round(c[0] / c[2], 4) if c[2] else 0.0,
                    "normalised": round(c[1] / c[2], 4) if c[2] else 0.0, "keywords": c[2]}  # fmt: skip

        return {
            "records": self.records,
            "abstracts_per_second": round(self.records / self.seconds, 1) if self.seconds else None,
            "concepts_per_record": round(self.concepts / self.records, 2) if self.records else 0.0,
            "in_text": recall(self.in_text),
            "all": recall(self.all),
        }


def evaluate_keyphrases(
    path: str | Path, *, model: str | Path | None = None, n_process: int = 1, nlp: Any = None
) -> KeyphraseScores:
    """Recall of each record's keywords by kg's concepts (mention texts and concept keys).

    Every mention counts, whatever its source (the recogniser's or a candidate phrase); the
    title is read as the first line of the text. ``concepts`` counts distinct concept keys.
    """
    from kg.extract.pipeline import extract, load_pipeline

    records = read_keyphrases(path)
    nlp = nlp or load_pipeline(model)
    t0 = time.perf_counter()
    xs = list(extract((Paper(r.id, "", r.text) for r in records), nlp=nlp, n_process=n_process))
    result = KeyphraseScores(seconds=time.perf_counter() - t0)
    for r, x in zip(records, xs, strict=True):
        keys = {m.concept for m in x.mentions}
        result.add(r.keywords, r.text, [*(m.text for m in x.mentions), *keys], len(keys))
    return result
