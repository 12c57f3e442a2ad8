"""spaCy components of the kg extractor.

``kg_concepts`` turns the trained NER's entities into typed concept spans in
``doc.spans["kg"]`` with the concept key as ``span.id_``; ``kg_roles`` gives each span the
role the paper gives it (``span._.role``). Both read their word lists from ``config/``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from pathlib import Path

from spacy.language import Language
from spacy.tokens import Doc, Span

from kg.config import config_path
from kg.normalise import Normaliser, find_acronyms

SPANS_KEY = "kg"
#: NER label -> kg concept type; ``Method`` spans are split into Method and Technique, and a
#: ``Material`` is a ``Dataset`` only when it names one (a corpus, a benchmark, a named resource).
LABEL_TYPES = {"Method": "Method", "Task": "Problem", "Metric": "Metric", "Material": "Dataset"}

if not Span.has_extension("role"):
    Span.set_extension("role", default="mentions")


class ConceptSpans:
    """Typed, normalised concept spans from ``doc.ents``."""

    def __init__(self, *, spans_key: str = SPANS_KEY, max_words: int = 12, normaliser: Normaliser | None = None):
        self.spans_key = spans_key
        self.max_words = max_words
        self.normaliser = normaliser or Normaliser()
        conf = tomllib.loads(config_path("normalise.toml").read_text(encoding="utf-8"))
        self.dataset_words = frozenset(conf.get("dataset_words", []))
        self.task_heads = frozenset(conf.get("task_heads", []))

    def __call__(self, doc: Doc) -> Doc:
        norm = self.normaliser
        defined: dict[str, str] = {}
        for acro in find_acronyms(doc.text):
            long_key = norm.key(acro.long)
            if not norm.is_generic(long_key):
                short = norm.resolve(acro.short, long_key)
                defined[acro.short] = short
                defined[acro.short + "s"] = short
        spans: list[Span] = []
        for ent in doc.ents:
            kind = LABEL_TYPES.get(ent.label_)
            if kind is None:
                continue
            span = self._trim(ent)
            if span is None or len(span) > self.max_words or span.text.count("(") != span.text.count(")"):
                continue
            key = defined.get(span.text) or self._defined_inside(span, defined) or self._key(span, defined)
            if norm.is_generic(key):
                continue
            if kind == "Method" and span[-1].lower_ in self.task_heads:
                kind = "Problem"
            elif kind == "Method" and not _is_named(span):
                kind = "Technique"
            if kind == "Dataset" and not (_is_named(span) or self.dataset_words & {t.lower_ for t in span}):
                continue
            out = Span(doc, span.start, span.end, label=kind)
            out.id_ = key
            spans.append(out)
        doc.spans[self.spans_key] = spans
        return doc

    def _trim(self, span: Span) -> Span | None:
        start, end = _balanced(span)
        leading = self.normaliser.leading
        while start < end and (span.doc[start].lower_ in leading or span.doc[start].is_punct):
            start += 1
        while end > start and span.doc[end - 1].is_punct and not _closes(span.doc[start:end]):
            end -= 1
        return span.doc[start:end] if end > start else None

    def _key(self, span: Span, defined: dict[str, str]) -> str:
        # An acronym the abstract defined, inside a longer mention: "NMT system".
        if any(tok.text in defined for tok in span):
            return self.normaliser.key(" ".join(defined.get(tok.text, tok.text) for tok in span))
        return self.normaliser.key(span.text)

    def _defined_inside(self, span: Span, defined: dict[str, str]) -> str | None:
        # "neural machine translation (NMT)" tagged as one span: the key of what precedes the
        # bracket, the long form or a longer name built on it ("document-level machine
        # translation (MT)", where the abstract's "MT" is "machine translation").
        text = span.text
        if text.endswith(")") and "(" in text:
            short = text[text.rindex("(") + 1 : -1].strip()
            if short not in defined:
                return None
            bracket = max(tok.i for tok in span if tok.text == "(")
            return self._key(span.doc[span.start : bracket], defined) if bracket > span.start else defined[short]
        return None


def _balanced(span: Span) -> tuple[int, int]:
    """Token bounds of ``span`` without brackets it does not close or open: "MFS) method" -> "method"."""
    start, end, opened = span.start, span.end, []
    for tok in span:
        if tok.text == "(":
            opened.append(tok.i)
        elif tok.text == ")":
            if opened:
                opened.pop()
            elif tok.i == span.end - 1:
                end = tok.i
            else:
                start, opened = tok.i + 1, []
    if opened:
        end = opened[0]
    return start, max(start, end)


def _closes(span: Span) -> bool:
    # Keep a final ")" that closes a "(" inside the span, as in "neural machine translation (NMT)".
    return span[-1].text in (")", "+") and (span[-1].text == "+" or "(" in span.text[:-1])


def _is_named(span: Span) -> bool:
    """A specific, named method: an acronym, a coined capitalised name, or a name with digits."""
    for i, tok in enumerate(span):
        text = tok.text
        if any(c.isdigit() for c in text) and any(c.isalpha() for c in text):
            return True
        if any(c.isupper() for c in text[1:]):
            return True
        if text[:1].isupper() and not (i == 0 and tok.is_sent_start):
            return True
    return False


class Roles:
    """Roles from cue words in the mention's sentence (``config/roles.toml``)."""

    def __init__(self, *, spans_key: str = SPANS_KEY, cues: str | Path | None = None):
        self.spans_key = spans_key
        path = Path(cues) if cues else config_path("roles.toml")
        conf = tomllib.loads(path.read_text(encoding="utf-8"))
        self.self_ref = [tuple(s.split()) for s in conf["self_reference"]]
        self.propose = frozenset(conf["propose_verbs"])
        self.novelty = frozenset(conf["novelty"])
        self.possessive = frozenset(conf.get("possessive", []))
        self.define_problem = frozenset(conf.get("define_problem", []))
        self.use = frozenset(conf["use_cues"])
        self.address = frozenset(conf["address_cues"])
        self.window = int(conf.get("window", 8))

    def __call__(self, doc: Doc) -> Doc:
        self.assign(doc.spans.get(self.spans_key, []))
        return doc

    def assign(self, spans: Iterable[Span]) -> None:
        """Set ``span._.role`` on each of ``spans``."""
        # Mentions share sentences: read each sentence's words once.
        sentences: dict[int, tuple[list[str], bool]] = {}
        for span in spans:
            sent = span.sent
            if sent.start not in sentences:
                sentences[sent.start] = self._sentence(sent)
            span._.role = self._role(span, sent.start, *sentences[sent.start])

    def role(self, span: Span) -> str:
        sent = span.sent
        return self._role(span, sent.start, *self._sentence(sent))

    def _sentence(self, sent: Span) -> tuple[list[str], bool]:
        words = [t.lower_ for t in sent]
        present = set(words)
        return words, any(phrase[0] in present and _contains(words, phrase) for phrase in self.self_ref)

    def _role(self, span: Span, sent_start: int, words: list[str], self_ref: bool) -> str:
        i = span.start - sent_start
        left = words[max(0, i - self.window) : i]
        if (left[-3:] and self.novelty & set(left[-3:])) or (left and left[-1] in self.possessive):
            return "proposes"
        if span.label_ != "Problem" and self_ref and self.propose & set(left) and not self.use & set(left):
            return "proposes"
        if span.label_ == "Problem" and self_ref and self.define_problem & set(left):
            return "proposes"
        if span.label_ == "Problem":
            return "addresses" if self_ref or self.address & set(left) else "mentions"
        if self.use & set(left):
            return "uses"
        return "mentions"


def _contains(words: list[str], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(tuple(words[i : i + n]) == phrase for i in range(len(words) - n + 1))


@Language.factory("kg_concepts", default_config={"spans_key": SPANS_KEY, "max_words": 12})
def make_concepts(nlp: Language, name: str, spans_key: str, max_words: int) -> ConceptSpans:
    return ConceptSpans(spans_key=spans_key, max_words=max_words)


@Language.factory("kg_roles", default_config={"spans_key": SPANS_KEY})
def make_roles(nlp: Language, name: str, spans_key: str) -> Roles:
    return Roles(spans_key=spans_key)
