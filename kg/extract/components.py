"""spaCy components of the kg extractor.

``kg_concepts`` turns the trained NER's entities into typed concept spans in
``doc.spans["kg"]`` with the concept key as ``span.id_``; ``kg_roles`` gives each span the
role the paper gives it (``span._.role``). Both read their word lists from ``config/``.
"""

from __future__ import annotations

import functools
import re
import tomllib
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from spacy.attrs import LOWER, SENT_START, SPACY
from spacy.lang.en.stop_words import STOP_WORDS
from spacy.language import Language
from spacy.tokens import Doc, Span, Token

from kg.config import config_path, read_settings
from kg.normalise import Normaliser, find_acronyms
from kg.normalise.acronyms import singular
from kg.normalise.gazetteer import load_gazetteer
from kg.normalise.keys import doubled_word, repeats_words, undoubled

SPANS_KEY = "kg"
_WORD_PARTS = re.compile(r"[^\W_]+")
#: Words that open a verb's object: a lone "-ing" word before one is a verb ("highlighting the need").
_OBJECT_STARTS = frozenset(["the", "a", "an", "its", "their", "our", "his", "her", "this", "these", "those", "such",
                            "each", "every", "any", "some"])  # fmt: skip


#: "-ing" verbs of a sentence's comment and the preposition that opens their complement: "...,
#: calling for a more nuanced understanding" ("calling" had been a Problem of 19 of 30,000 arXiv
#: ML papers), "leading to", "resulting in"; "tool calling" is a concept.
_VERB_PREPOSITIONS = {"calling": "for", "leading": "to", "resulting": "in", "relying": "on", "paving": "the"}


def verb_with_object(word: str, after: str) -> bool:
    """Whether the lower-case ``word``, followed by ``after``, is an "-ing" verb taking its object.

    >>> verb_with_object("highlighting", "the"), verb_with_object("highlighting", "techniques")
    (True, False)
    >>> verb_with_object("calling", "for"), verb_with_object("clustering", "for")
    (True, False)
    """
    if not (word.isalpha() and word.endswith("ing")):
        return False
    return after in _OBJECT_STARTS or _VERB_PREPOSITIONS.get(word) == after


#: Lower-case forms of words remembered at most (then forgotten all at once).
_LOWER_FORMS = 200_000
#: ``doc.user_data`` key of the counts of the key rules that fired in a document.
RULES = "kg_rules"
#: ``doc.user_data`` key of the (start, end) tokens of each conjunct of a coordination whose concepts are
#: mentioned over the whole coordination: a conjunct's own words are no candidate phrase (``kg_phrases``).
CONJUNCTS = "kg_conjuncts"
#: NER label -> kg concept type; ``Method`` spans are split into Method and Technique, and a
#: ``Material`` is a ``Dataset`` only when it names one (a corpus, a benchmark, a named resource).
LABEL_TYPES = {"Method": "Method", "Task": "Problem", "Metric": "Metric", "Material": "Dataset"}

#: How much a span's own words carry its type (``span._.confidence``, see ``Mention.confidence``):
#: a head-word cue ("... task", "... dataset", "... learning", "... model") is its own evidence;
#: otherwise the type rests on the NER's reading of the context alone. spaCy's transition-based
#: NER keeps no action scores (its greedy parse runs in C and drops them; stepping it from Python to
#: keep them costs far more than the 3% of throughput a confidence may take), so this is the
#: confidence we have.
CUE_CONFIDENCE = 1.0
CONTEXT_CONFIDENCE = 0.5

if not Span.has_extension("role"):
    Span.set_extension("role", default="mentions")
if not Span.has_extension("confidence"):
    Span.set_extension("confidence", default=1.0)


#: The possessive ending, as its own token: "NVIDIA's" is "NVIDIA" + "'s".
_POSSESSIVE = frozenset(["'s", "\u2019s"])
#: A number of dimensions, which names no artefact: "3D representations", "2D encoder".
_DIMENSIONS = re.compile(r"[1-9]D")
#: Words that say how near a value is ("of up to 0.85", "of about 3%", "of at least 90%").
_ABOUT = frozenset(["up", "to", "about", "around", "over", "nearly", "approximately", "almost", "roughly", "only",
                    "just", "at", "least", "most", "under", "below", "above"])  # fmt: skip
#: A year, which numbers no value ("Q3 of 2025"), as a citation writes it too ("(Miller, 2018)", "2020a").
_YEAR = re.compile(r"(?:1[89]|20)\d\d[a-z]?")
#: A count or a factor written before what it counts: "33", "2,875", "4.4×", "2×2" (not "4-bit", "3D").
_COUNT = re.compile(r"\d[\d,.]*(?:[×x]\d*)?")
#: A number grouped in thousands: "1,474" of "a 1,474-pair corpus" counts what follows its hyphen.
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+")
#: Words a number before them makes a name of: "4 bit quantization", "2 hop reasoning".
_NUMBERED = frozenset(["bit", "bits", "d", "hop", "shot", "way", "layer", "layers", "k"])
#: A web address or the markup of one, which no concept holds.
_WEB_ADDRESS = re.compile(r"://|\bwww\.|\bhref\b", re.IGNORECASE)


class ConceptSpans:
    """Typed, normalised concept spans from ``doc.ents``.

    Each entity is trimmed (determiners, punctuation, function words and finite verbs at either
    edge, a leading "named"/"called"), split at a coordination ("CIFAR-10 and ImageNet": two
    spans), and keyed: an acronym the abstract defines takes its long form's key, and a defined
    acronym in brackets after its long form adds nothing ("natural language processing (NLP)
    tasks" -> "natural language processing task"). How often each rule fired is in ``doc.user_data[RULES]``.
    """

    def __init__(self, *, spans_key: str = SPANS_KEY, max_words: int = 12, normaliser: Normaliser | None = None):
        self.spans_key = spans_key
        self.max_words = max_words
        self.normaliser = normaliser or Normaliser()
        conf = read_settings("normalise.toml")
        self.dataset_words = frozenset(conf.get("dataset_words", []))
        self.task_heads = frozenset(conf.get("task_heads", []))
        self.task_actions = frozenset(conf.get("task_actions", []))
        self.fixed_coordinations = tuple(conf.get("fixed_coordinations", []))
        self.coordination_blockers = frozenset(conf.get("coordination_blockers", []))
        self.technique_heads = frozenset(conf.get("technique_heads", []))
        self.method_heads = frozenset(conf.get("method_heads", []))
        self.family_acronyms = family_acronyms(conf)

    def __call__(self, doc: Doc) -> Doc:
        norm = self.normaliser
        defined: dict[str, str] = {}
        long_forms: dict[int, int] = {}  # where each defined long form starts -> where it ends
        full = doc_text(doc)  # a span's text is cut from it (``span.text`` makes a Token of each word)
        for acro in find_acronyms(full):
            long_key = norm.key(acro.long)
            if not norm.is_generic(long_key):
                short = norm.resolve(acro.short, long_key)
                # "LLMs" defined serves "LLM" as well, and "LLM" serves "LLMs"
                one = singular(acro.short)
                defined[one] = defined[one + "s"] = short
                long_forms[acro.long_start] = acro.long_end
        rules: Counter[str] = Counter()
        spans: list[Span] = []
        covered = 0  # the end of a long form completed below: what the NER found inside it is in it
        for ent in doc.ents:
            label = LABEL_TYPES.get(ent.label_)
            if label is None or ent.start_char < covered:
                continue
            span = self._trim(ent, rules)
            if span is not None:
                span = self._whole_word_end(_whole_word_start(span, spans[-1].end if spans else 0, rules), rules)
                # what the NER found in the rest of the word ("play nature" of "plug-and-play nature") is in it
                covered = max(covered, span.end_char if span.end > ent.end else 0)
                span = _after_bracketed(span, rules)
            if span is not None and span.end_char < long_forms.get(span.start_char, 0):
                # the start of a long form is the long form: "Bidirectional Encoder Representations"
                # of "Bidirectional Encoder Representations from Transformers (BERT)"
                whole = doc.char_span(span.start_char, long_forms[span.start_char], alignment_mode="expand")
                if whole is not None:
                    rules["long form completed"] += 1
                    covered = whole.end_char
                    span = self._trim(whole, rules)  # "large language model’s (LLM)": its possessive goes
            elif span is not None and (begun := _long_form_before(span, long_forms)) is not None:
                # ... and so is the end of one that its short form follows: "artificial intelligence
                # (XAI) methods" of "explainable artificial intelligence (XAI) methods"
                whole = doc.char_span(begun, span.end_char, alignment_mode="expand")
                if whole is not None and (not spans or spans[-1].end_char <= begun):
                    rules["long form completed"] += 1
                    span = self._trim(whole, rules)
            if span is not None:
                span = self._before_value(span, rules)
            if span is None or len(span) > self.max_words:
                continue
            if a_time(doc, span.start, span.end):
                rules["a time, not a concept"] += 1
                continue
            if a_citation(doc, span.start, span.end):
                rules["cited authors"] += 1
                continue
            for part in self._without_team(doc, span, full, rules):
                for piece in self._at_verbs(part, rules):
                    spans += self._concepts(piece, label, full, defined, rules)
        doc.spans[self.spans_key] = spans
        doc.user_data[RULES] = dict(rules)
        return doc

    def _without_team(self, doc: Doc, span: Span, full: str, rules: Counter[str]) -> list[Span]:
        """The parts of ``span`` on either side of the name of the team the title says took part in
        a shared task (:func:`team_tokens`), each trimmed: "YNU-HPCC retrieval system" is a
        retrieval system, "SemEval 2019 Task 6 as CN-HIT-MI.T team" the task. A name the gazetteer
        knows as a concept stays whole ("Mistral 7B")."""
        team = team_tokens(doc)
        if not any(team[span.start : span.end]):
            return [span]
        if load_gazetteer().type_of(self.normaliser.key(full[span.start_char : span.end_char])) is not None:
            return [span]
        rules["a team, not a concept"] += 1
        parts, start = [], span.start
        for i in range(span.start, span.end + 1):
            if i == span.end or team[i]:
                if i > start and (part := self._trim(doc[start:i], rules)) is not None:
                    parts.append(part)
                start = i + 1
        return parts

    def _type(self, kind: str, tokens: Sequence[Token], key: str) -> tuple[str, float] | None:
        """The type of a mention the NER labelled ``kind``, from its head word, with its confidence.

        ``None``: not a concept.
        """
        # "large language models (LLMs)": the head word and the naming are those before the bracket.
        bare = _before_bracket(tokens)
        head = bare[-1].lower_
        cue = False
        if kind == "Method" and head in self.task_heads:
            kind, cue = "Problem", True
        elif kind in ("Problem", "Dataset") and head in self.technique_heads | self.method_heads:
            # "reinforcement learning" read as a Task from its context, "large language models"
            # as a Task, "a ResNet-50 model" as a Material: their own words say otherwise.
            kind, cue = "Method", True
        elif kind == "Dataset" and len(bare) > 1 and head in self.task_actions:
            # "machine-generated text detection", "French language modeling" read as a Material
            # (17 of 2,000 ACL and arXiv ML abstracts): a task, not the data it is done on
            kind, cue = "Problem", True
        elif kind == "Problem":
            cue = head in self.task_heads
        if kind == "Method" and not _is_named(bare, self.family_acronyms):
            kind = "Technique"
        if kind == "Dataset":
            cue = bool(self.dataset_words & {t.lower_ for t in tokens})
            if not (cue or _is_named(tokens)):
                return None
        return kind, CUE_CONFIDENCE if cue else CONTEXT_CONFIDENCE

    def _concepts(self, span: Span, label: str, full: str, defined: dict[str, str], rules: Counter[str]) -> list[Span]:
        """The typed, keyed concept spans of one trimmed mention labelled ``label`` (``full``: the Doc's text)."""
        text = full[span.start_char : span.end_char]
        if text.count("(") != text.count(")"):
            return []
        if _WEB_ADDRESS.search(text):  # "href{https://youtu.be/...} footnote Live Link": markup
            rules["web address"] += 1
            return []
        if self._verb_with_object(span):
            rules["verb with its object"] += 1
            return []
        if _runs_on_through_to(span):
            rules["runs on through to"] += 1
            return []
        found = []
        parts = list(self._unrepeated(self._conjuncts(span, rules), rules))
        for part, tokens in parts:
            key = defined.get(full[part.start_char : part.end_char]) if len(tokens) == len(part) else None
            key = key or self._key(tokens, defined, rules)
            if self.normaliser.is_generic(key):
                if len(key) < 2:  # "R", "N", "Δ": counted, as they had been concepts of dozens of papers
                    rules["one letter"] += 1
                continue
            typed = self._type(label, tokens, key)
            if typed is None:
                continue
            out = Span(span.doc, part.start, part.end, label=typed[0])
            out.id_ = key
            out._.confidence = typed[1]
            found.append(out)
        if len(found) > 1 and any(tokens[-1].i >= part.end for part, tokens in parts):
            # A conjunct that shares a word of another ("supervised" of "supervised and unsupervised
            # learning") is named by the whole coordination only, and so is each concept it names:
            # one mention of each, over the coordination (SciERC marks it so, as one span).
            rules["coordination shared"] += 1
            span.doc.user_data.setdefault(CONJUNCTS, []).extend((s.start, s.end) for s in found)
            found = [_over(span, s) for s in found]
        return found

    def _at_verbs(self, span: Span, rules: Counter[str]) -> list[Span]:
        """``span``, or the mentions on either side of a finite verb inside it (``finite_verbs``), each
        trimmed: the recogniser glued a sentence's subject to its object. "AMS-KV reduces KV cache
        usage" is AMS-KV and the KV cache usage, "Inverse Entropic Optimal Transport Solves
        Semi-supervised Learning" (a title, read in sentence case) two concepts (rule ``cut at a
        verb``). A verb written with a capital is a word of a name: "Alternative Uses Test".
        So are the two sides of a colon or a spaced dash outside brackets (rule ``cut at a colon``):
        "SAD-Flower: Flow Matching" is SAD-Flower and flow matching; the recogniser had read 1 in
        40 titles of 10,000 arXiv ML papers of 2025 so ("KV-CAR: KV Cache Compression").
        """
        doc = span.doc
        lower, space = lower_forms(doc), spaced(doc)  # (read once: no Token per word)
        depth = 0
        for i in range(span.start, span.end - 1):
            depth += lower[i].count("(") - lower[i].count(")")
            separates = lower[i] in _SEPARATORS and space[i] and (lower[i] == ":" or space[i - 1])
            if separates and not depth and i > span.start:
                rules["cut at a colon"] += 1
                sides = (self._trim(doc[span.start : i], rules), self._trim(doc[i + 1 : span.end], rules))
                return [piece for side in sides if side is not None for piece in self._at_verbs(side, rules)]
        for tok in span[1:-1]:
            if tok.is_lower and tok.lower_ in self.normaliser.verbs and tok.whitespace_ and doc[tok.i - 1].whitespace_:
                rules["cut at a verb"] += 1
                sides = (self._trim(doc[span.start : tok.i], rules), self._trim(doc[tok.i + 1 : span.end], rules))
                return [piece for side in sides if side is not None for piece in self._at_verbs(side, rules)]
        return [span]

    def _before_value(self, span: Span, rules: Counter[str]) -> Span | None:
        """``span`` up to the "of" that gives a measure its value, trimmed: the recogniser took in the
        result, "ROC-AUC of 0.983", "learning rate of 0.0001" (150 mentions of 10,000 arXiv ML papers
        of 2025-2026, each a concept of its own; rule ``value cut``). A number that names a thing
        ("Generation of 3D Objects"), a year ("Q3 of 2025") and a count in words ("detection of two
        types of text reuse") are no value."""
        doc, lower = span.doc, lower_forms(span.doc)  # (the cached lower-case forms: no Token per word)
        for of in range(span.start + 1, span.end):
            if lower[of] != "of":
                continue
            at = of + 1
            while at < len(doc) and lower[at] in _ABOUT:  # "F1 of up to 0.85", "of about 3%"
                at += 1
            value = doc[at] if at < len(doc) and (at > of + 1 or at < span.end) else None
            if value is not None and value.text[0].isdigit() and value.like_num and not _YEAR.fullmatch(value.text):
                rules["value cut"] += 1
                return self._trim(doc[span.start : of], rules)
        return span

    def _whole_word_end(self, span: Span, rules: Counter[str]) -> Span:
        """``span`` to the end of the hyphenated word whose function word it ends in: the NER stops
        there, "plug-and" of "plug-and-play" (keyed "plug"), "state-of" of "state-of-the-art"."""
        doc, end = span.doc, span.end
        lower, space = lower_forms(doc), spaced(doc)
        while (
            end + 1 < len(doc) and lower[end - 1] in self.normaliser.function and not space[end - 1]
            and lower[end] in _HYPHENS and not space[end] and any(c.isalnum() for c in lower[end + 1])
        ):  # fmt: skip
            end += 2
        if end == span.end:
            return span
        rules["hyphenated word completed"] += 1
        return doc[span.start : end]

    def _verb_with_object(self, span: Span) -> bool:
        """A lone "-ing" word followed by its object ("..., highlighting the need for"): a verb, not a concept.

        In SciERC train and dev, 1 of 241 such words is a gold entity ("parsing the Wall Street Journal").
        """
        word = span.doc[span.start]
        if len(span) != 1 or not word.is_lower or span.end >= len(span.doc):
            return False
        return verb_with_object(word.lower_, span.doc[span.end].lower_)

    def _trim(self, span: Span, rules: Counter[str]) -> Span | None:
        start, end = _balanced(span)
        doc, norm = span.doc, self.normaliser
        while start < end:
            tok = doc[start]
            if tok.lower_ in norm.leading or tok.is_punct or tok.is_space or tok.lower_ in _POSSESSIVE:
                start += 1  # (a possessive ending opens a span cut from its possessor: "'s accuracy")
            elif (counted := _counted(doc, start, end)) > start:
                rules["count trimmed"] += 1  # "33 models", "2,875 editing tasks", "a 1,474-pair corpus"
                start = counted
            # "in" of "in-context learning" is no function word: only a word standing alone is
            elif not tok.whitespace_ or end - start == 1:
                break
            elif tok.lower_ in norm.naming and (tok.lower_, doc[start + 1].lower_) not in norm.naming_kept:
                rules["naming word"] += 1
                start += 1
            elif tok.lower_ in norm.framing:  # "Accelerating LLM Inference": LLM inference
                rules["framing word"] += 1
                start += 1
            elif tok.lower_ in norm.function:
                rules["function word trimmed"] += 1
                start += 1
            elif tok.lower_ in norm.verbs:  # "mitigates catastrophic forgetting"
                rules["verb trimmed"] += 1
                start += 1
            else:
                break
        while end > start:
            tok = doc[end - 1]
            # (the space between the title and the abstract: "... Federated Learning\n\n", 16 of
            # 1,000 arXiv ML titles, had left the title without its last concept)
            if (tok.is_punct and not _closes(doc[start:end])) or tok.is_space:
                end -= 1
            elif end - start > 1 and tok.lower_ in norm.function and doc[end - 2].whitespace_:
                rules["function word trimmed"] += 1
                end -= 1
            elif end - start > 1 and tok.lower_ in norm.verbs and doc[end - 2].whitespace_:
                rules["verb trimmed"] += 1  # "Speculative decoding accelerates"
                end -= 1
            else:
                break
        # A possessor that opens the span is no part of the concept: "NVIDIA's Triton server",
        # "MoE's multi-expert architecture", "Google's Gemini Pro"; an eponym is ("Word Mover's
        # Distance", "Zipf's law").
        for tok in doc[start + 1 : end - 1]:
            if (
                tok.lower_ in _POSSESSIVE
                and not doc[start : tok.i].text.count(" ")
                and (not _eponym(owner := doc[tok.i - 1]) or owner.lower_ in norm.organisations)
            ):
                rules["possessor cut"] += 1
                start = tok.i + 1
                break
        if end - start > 1 and doc[end - 1].lower_ in _POSSESSIVE:  # "QuIP's": QuIP
            end -= 1
        return doc[start:end] if end > start else None

    def _conjuncts(self, span: Span, rules: Counter[str]) -> list[tuple[Span, list[Token]]]:
        """The concepts a coordination names, each as (its span, the tokens of its key).

        "CIFAR-10 and ImageNet" -> "CIFAR-10", "ImageNet"; single words before a longer last
        conjunct share its head: "supervised and unsupervised learning" -> ("supervised",
        supervised learning), ("unsupervised learning", the same). Names with "and" in them
        ("research and development") and coordinations under a preposition ("trade-off between
        accuracy and efficiency") stay whole.
        """
        whole = [(span, list(span))]
        doc = span.doc
        cuts = [
            tok.i
            for tok in span[1:-1]
            if tok.lower_ in ("and", "or") and tok.whitespace_ and doc[tok.i - 1].whitespace_
        ]
        # "BLEU, METEOR and ROUGE": the commas before the last conjunction cut too; without a
        # conjunction, commas and semicolons list the concepts ("bag-of-words, bag-of-characters")
        cuts += [t.i for t in doc[span.start : cuts[-1] if cuts else span.end - 1] if t.text in (",", ";")]
        if not cuts:
            return whole
        text = span.text
        if "(" in text or any(f in text.lower() for f in self.fixed_coordinations):
            return whole
        parts, begin = [], span.start
        for cut in sorted(set(cuts)):
            parts.append(doc[begin:cut])
            begin = cut + 1
        parts.append(doc[begin : span.end])
        parts = [p for p in (self._trim(p, Counter()) for p in parts if len(p)) if p is not None]
        if len(parts) < 2 or any(not any(c.isalpha() for c in p.text) for p in parts):
            return whole
        # A preposition standing alone may govern the whole coordination ("trade-off between
        # accuracy and efficiency"), unless every conjunct has its own ("identification of proper
        # nouns, identification of collocations"); one inside a hyphenated word ("English-to-German")
        # governs nothing.
        blocked = [any(t.lower_ in self.coordination_blockers and _alone(t) for t in p) for p in parts]
        if any(blocked) and not all(blocked):
            return whole
        rules["coordination split"] += len(parts) - 1
        last_words = _words(parts[-1])
        if (hanging := self._hanging(parts, last_words[0])) is not None:
            rules["hanging hyphen completed"] += len(parts) - 1
            return [*((p, [*p, *hanging]) for p in parts[:-1]), (parts[-1], list(parts[-1]))]
        # a head opens with no function word: "a pseudo-document and encodes the full
        # pseudo-document" shares none; a gerund names a task of its own ("forecasting and anomaly
        # detection") unless the last conjunct opens with one too ("detecting and mitigating
        # hallucinations", "Patronizing and Condescending Language Detection")
        gerunds = last_words[0][-1].lower_.endswith("ing")
        shared = (
            len(last_words) >= 2
            and last_words[1][0].lower_ not in self.normaliser.function
            and all(len(_words(p)) == 1 and (gerunds or not p[-1].lower_.endswith("ing")) for p in parts[:-1])
        )
        if not shared:
            return [(p, list(p)) for p in parts]
        head = list(doc[last_words[1].start : parts[-1].end])
        # "R-CNN and Faster R-CNN networks": the head is "networks", not "R-CNN networks"; and
        # "Chain-of-Thought and Contrastive Chain-of-Thought" leaves the first one whole
        after = list(doc[last_words[2].start : parts[-1].end]) if len(last_words) > 2 else []
        return [
            *((p, [*p, *(after if p.text.lower() == last_words[1].text.lower() else head)]) for p in parts[:-1]),
            (parts[-1], list(parts[-1])),
        ]

    @staticmethod
    def _hanging(parts: list[Span], first_word: Span) -> list[Token] | None:
        """The tokens that complete the first parts of a coordination, each left hanging on its hyphen:
        what follows the first hyphen of the last part's first word, and the rest of that part.
        "pre- and post-processing methods": "processing methods" ("pre-processing methods");
        "on- and off-policy RL": "policy RL". ``None`` unless every part before the last hangs."""
        doc = parts[0].doc
        hangs = all(
            (len(p[-1]) > 1 and p[-1].text.endswith(_HYPHENS) and p[-1].whitespace_)  # "pre-" one token
            or (p.end < len(doc) and doc[p.end].text in _HYPHENS and not p[-1].whitespace_ and doc[p.end].whitespace_)
            for p in parts[:-1]
        )
        hyphen = next((t.i for t in first_word[1:-1] if t.text in _HYPHENS), None)
        return list(doc[hyphen + 1 : parts[-1].end]) if hangs and hyphen is not None else None

    def _unrepeated(
        self, parts: list[tuple[Span, list[Token]]], rules: Counter[str]
    ) -> Iterable[tuple[Span, list[Token]]]:
        """Each part, cut after the first of two occurrences of a run of words with a content word.

        The NER glues neighbours into one span: "Opinion Mining Opinion mining", "large-scale
        industrial document analysis document analysis", "Statistical Machine Translation to
        Neural Machine Translation". A cut falls between words: a run repeated inside one
        hyphenated word is a name ("Sequence-to-Sequence-to-Sequence"), and a repeat of function
        words is grammar ("clinical description of the findings of the radiologist").
        """
        for part, tokens in parts:
            while len(tokens) == len(part) and (cut := self._repeat_cut(part)) is not None:
                head, rest = self._piece(part.doc[part.start : cut]), self._piece(part.doc[cut : part.end])
                if head is None or rest is None:
                    break
                rules["repeat split"] += 1
                yield head, list(head)
                part, tokens = rest, list(rest)
            yield part, tokens

    def _piece(self, span: Span) -> Span | None:
        """``span`` trimmed, without a bracket the cut left open or closed ("(CNN) based ..." -> "based ...")."""
        trimmed = self._trim(span, Counter())
        if trimmed is None:
            return None
        start, end = _balanced(trimmed)
        return self._trim(span.doc[start:end], Counter()) if end > start else None

    def _repeat_cut(self, span: Span) -> int | None:
        """The token where ``span`` is cut (see :meth:`_unrepeated`), or None."""
        norm = self.normaliser
        # (word part, start and end token of the whitespace word it is in): "GPT-4-generated" is
        # three parts of one word, in one token or several
        parts: list[tuple[str, int, int]] = []
        lower, space = lower_forms(span.doc), spaced(span.doc)
        begin, last = span.start, span.end - 1
        for i in range(span.start, span.end):
            if space[i] or i == last:  # the end of a whitespace word (:func:`_words`)
                parts += [(norm._singular(w), begin, i + 1) for t in range(begin, i + 1)
                          for w in _WORD_PARTS.findall(lower[t])]  # fmt: skip
                begin = i + 1
        forms = [f for f, _, _ in parts]
        for n in range(2, len(forms) // 2 + 1):
            first: dict[tuple[str, ...], int] = {}
            for i in range(len(forms) - n + 1):
                gram = tuple(forms[i : i + n])
                if all(g in norm.function or g in norm.stop or not g.isalpha() for g in gram):
                    continue
                j = first.setdefault(gram, i)
                if j + n <= i and parts[j + n - 1][2] <= parts[i][1]:
                    return parts[j + n - 1][2]
        return None

    def _key(self, tokens: Sequence[Token], defined: dict[str, str], rules: Counter[str]) -> str:
        """The key of ``tokens``, with the acronyms the abstract defined read as their long forms.

        A defined acronym in brackets adds nothing to the key: what precedes it is its long
        form or a longer name built on it ("document-level machine translation (MT)"). Nor does
        any other aside in brackets after the first word: "sequence-to-sequence (seq2seq)
        models" are sequence-to-sequence models.
        """
        kept: list[Token] = []
        lead = ""  # the key of a long form before its acronym, when the acronym names it
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            close = i + 2
            if tok.text == "(" and close < len(tokens) and tokens[close].text == ")" and tokens[i + 1].text in defined:
                if kept and close < len(tokens) - 1:  # "natural language processing (NLP) tasks"
                    rules["acronym in brackets"] += 1
                long_key = defined[tokens[i + 1].text]
                cut = self.normaliser.key(_text(kept))
                if close == len(tokens) - 1 and (not kept or f" {long_key}".endswith(f" {cut}")):
                    # "Human Feedback (RLHF)", cut from "reinforcement learning from human feedback
                    # (RLHF)", is the concept its acronym names
                    return long_key
                if cut == long_key and not lead:
                    # the concept as its definition keys it: "Generative Pre-trained Transformer
                    # (GPT) models" are GPT models, a name an alias keeps (config/aliases.tsv)
                    lead, kept = f"{long_key} ", []
                i = close + 1
                continue
            if tok.text == "(" and kept and (shut := _closing(tokens, i)) is not None:
                rules["aside in brackets dropped"] += 1
                i = shut + 1
                continue
            kept.append(tok)
            i += 1
        # An acronym the abstract defined, inside a longer mention: "NMT system".
        read = _text(kept, defined)
        key = self.normaliser.key(lead + read)
        if repeats_words(key) and (words := _text(kept)) != read:
            # the mention spells the long form out already: "GLUE language understanding", "LR-Drop
            # layer-wise regularizes" of "Layer-wise Regularized Dropout (LR-Drop)"
            plain = self.normaliser.key(words)
            if not repeats_words(plain):
                rules["acronym left (long form in the mention)"] += 1
                return plain
        if (twice := doubled_word(key)) and self._doubled_by_long_form(twice, kept, read, lead, defined):
            rules["doubled word dropped"] += 1
            key = undoubled(key, twice)
        return key

    def _doubled_by_long_form(
        self, twice: str, kept: list[Token], read: str, lead: str, defined: dict[str, str]
    ) -> bool:
        """Whether ``twice``, a word a mention's key has twice in a row, is a long form's last word
        before the same word of the mention (``read``: its text with the long forms): "VLA models",
        VLA defined as the vision-language-action model (config/aliases.tsv), "CNN networks", as the
        run's rule drops it; not a long form's own ("DDI prediction", drug-drug interaction), nor a word
        before a long form ("label biases in ICL", in-context learning)."""
        words = _text(kept)
        return (
            bool(lead or read != words)
            and not doubled_word(self.normaliser.key(words))
            and any(long.rpartition(" ")[2] == twice for long in (lead.strip(), *defined.values()))
            and not any(doubled_word(long) == twice for long in defined.values())
        )


def _runs_on_through_to(span: Span) -> bool:
    """A span with a "to" of its own before a lower-case word: one that runs on into a verb's argument.

    "RNN-T to sequence-to-sequence tasks" (of "extends conventional RNN-T to ..."), "BPE
    vocabulary, leading to performance improvements", "BERT-gen to adapt": most of the 382 such
    mentions of the ACL corpus. A pair of names keeps its "to" ("Natural Language to SQL"), as
    does a hyphenated word ("sequence-to-sequence") or a bracket ("(up to 7B parameters)"). In
    SciERC train and dev, 3 of 6,409 gold spans have a "to" of their own.
    """
    depth = 0
    for i, tok in enumerate(span[:-1]):
        depth += tok.text.count("(") - tok.text.count(")")
        alone = i > 0 and tok.whitespace_ and span[i - 1].whitespace_
        if tok.lower_ == "to" and alone and depth == 0 and span[i + 1].is_lower:
            return True
    return False


def _long_form_before(span: Span, long_forms: dict[int, int]) -> int | None:
    """Where the defined long form starts that ``span`` starts inside and runs to the end of, if one does.

    >>> import spacy
    >>> _long_form_before(spacy.blank("en")("explainable artificial intelligence (XAI) methods")[1:], {0: 35})
    0
    """
    return next((s for s, e in long_forms.items() if s < span.start_char < e <= span.end_char), None)


def _eponym(tok: Token) -> bool:
    """A word written as a person's name: "Zipf", "Mover"; not "NVIDIA", "MoE", "document"."""
    return tok.is_alpha and tok.text[0].isupper() and tok.text[1:].islower()


#: The hyphens that join the parts of one word ("in-context", "Bi-LSTM").
_HYPHENS = ("-", "\u2010", "\u2011")


def _whole_word_start(span: Span, taken: int, rules: Counter[str]) -> Span:
    """``span`` from the start of the hyphenated word it starts inside: "low-[precision]" is
    "low-precision", "Bi-[LSTM]" "Bi-LSTM" (no token before ``taken``, the last mention's end)."""
    doc, start = span.doc, span.start
    while (
        start >= 2 + taken
        and doc[start - 1].text in _HYPHENS and not doc[start - 1].whitespace_ and not doc[start - 2].whitespace_
        and any(c.isalnum() for c in doc[start - 2].text)
    ):  # fmt: skip
        start -= 2
    if start == span.start:
        return span
    rules["hyphenated word completed"] += 1
    return doc[start : span.end]


def family_acronyms(conf: Mapping[str, Any]) -> frozenset[str]:
    """The acronyms of families of ``family_acronyms`` (of ``config/normalise.toml``, read as ``conf``) in
    lower case, each with its plural too: "llm", "llms", "ai", "ais"."""
    families = {a.lower() for a in conf.get("family_acronyms", [])}
    return frozenset(families | {f"{a}s" for a in families})


@functools.lru_cache(maxsize=1)
def _team_title() -> re.Pattern[str]:
    """What a title naming a team and the shared task it took part in matches (see :func:`team_of`)."""
    conf = read_settings("normalise.toml")
    # "lt edi" is written "LT-EDI", "bangla language processing" is not written so in a title
    series = "|".join(sorted(re.escape(s).replace(r"\ ", r"[- ]?") for s in conf.get("shared_tasks", [])))
    # (a series, a shared task, a numbered task or track, an edition's task: "SIGHAN-2024 dimABSA Task")
    events = rf"\b(?:{series})(?![a-z])|shared[- ]tasks?|\btask ?\d|\btrack ?\d|[a-z]-?\d+\b[^:]*\btasks?\b"
    return re.compile(rf"(?P<team>[^\s:@][^:@]{{0,59}})(?:\s+at\s+|\s*@\s*)(?:the\s+)?#?(?=[^:]*?(?:{events}))", re.I)


def team_of(title: str) -> str | None:
    """The team a title names as taking part in a shared task, or None: "YNU-HPCC" of "YNU-HPCC at
    SemEval-2024 Task 7: ...", "KEC AI DSNLP" of "KEC AI DSNLP@LT-EDI-2024: ...". A team is no
    concept of its paper (whatever its name), as an author is not.

    >>> team_of("YNU-HPCC at SemEval-2024 Task 7: Instruction Fine-tuning"), team_of("KEC AI DSNLP@LT-EDI-2024: Caste")
    ('YNU-HPCC', 'KEC AI DSNLP')
    >>> team_of("JSI and WüNLP at the DIALECT-COPA Shared Task: Transfer"), team_of("HU at SIGHAN-2024 dimABSA Task:")
    ('JSI and WüNLP', 'HU')
    >>> team_of("BERT at Work: Probing Models"), team_of("Meta-Learning at Task Level"), team_of("GPT-4 at 2 Tasks")
    (None, None, None)
    >>> team_of("Diffusion at Scale for Image Editing"), team_of("Speed at TREC-COVID")
    (None, 'Speed')
    >>> team_of("CoLi at UdS at SemEval-2020 Task 12: Offensive Tweet Detection")
    'CoLi at UdS'
    >>> team_of("The NITS-CNLP System for the Unsupervised MT Task at WMT 2020")
    """
    found = _team_title().match(title)
    if found is None:
        return None
    team = found.group("team").rstrip()
    # a name of a few words, not what a paper presents there ("The NITS-CNLP System for the Unsupervised
    # MT Task at WMT 2020", "Findings of the Quality Estimation Shared Task at WMT 2024", "ELITR
    # Non-Native Speech Translation at IWSLT 2020", "Stanford’s Graph-based Neural Dependency Parser")
    return team if len(team.split()) <= 6 and not _NOT_TEAM.search(team) else None


def team_tokens(doc: Doc) -> bytearray:
    """1 for each token of ``doc`` that names the team its title says took part in a shared task
    (:func:`team_of`): in the title, and where the abstract writes the name as the title does, or
    without "Team" ("Team AT at SemEval-2024 Task 8: ..." and "AT uses ..."); read once per Doc.
    A team is no concept of its paper, and no word of a candidate phrase.

    >>> import spacy
    >>> from kg.extract.pipeline import paper_doc
    >>> doc = paper_doc(spacy.blank("en"), "Team AT at SemEval-2024 Task 8: Detection", "AT wins, at last.")
    >>> [t.text for t, named in zip(doc, team_tokens(doc)) if named]
    ['Team', 'AT', 'AT']
    """
    found = doc.user_data.get(_TEAMS)
    if found is not None:
        return found
    found = bytearray(len(doc))
    title = doc._.title if Doc.has_extension("title") else None
    team = team_of(title) if title else None
    if team:
        text = doc_text(doc)
        places = [(0, len(team))]  # the title's (sentence-cased: found by place, not by spelling)
        for name in {team, _TEAM_WORD.sub("", team)}:
            places += [(m.start(), m.end()) for m in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", text)]
        for start, end in places:
            span = doc.char_span(start, end, alignment_mode="expand")
            if span is not None:
                found[span.start : span.end] = b"\x01" * len(span)
    doc.user_data[_TEAMS] = found
    return found


_TEAMS = "kg_team_tokens"
#: "Team " before a team's name.
_TEAM_WORD = re.compile(r"^team\s+", re.I)
#: Words that say a title's opening is no team's name.
_NOT_TEAM = re.compile(
    r"\b(?:the|of|for|in|on|with|to|from|by|using|via|systems?|submissions?|approach(?:es)?|models?|findings"
    r"|parsers?|detectors?|\w+(?:tion|sion)s?)\b|['’]s\b|\?",
    re.I,
)


#: Brackets that close a word's first part: "(LLM)-based".
CLOSING_BRACKETS = frozenset([")", "]"])


def _after_bracketed(span: Span | None, rules: Counter[str]) -> Span | None:
    """``span`` without a first word that ends a word begun in brackets: "based design" of "BIM
    (Building Information Modeling)-based design" is a design (rule ``bracketed word's end cut``).

    >>> from spacy.vocab import Vocab
    >>> words = ["BIM", "(", "Modeling", ")", "-", "based", "design"]
    >>> doc = Doc(Vocab(), words=words, spaces=[True, False, False, False, False, True, False])
    >>> [_after_bracketed(span, Counter()) for span in (doc[5:7], doc[5:6], doc[0:1])]
    [design, None, BIM]
    """
    if span is None:
        return None
    doc, start = span.doc, span.start
    if start < 2 or doc[start - 1].text not in _HYPHENS or doc[start - 2].text not in CLOSING_BRACKETS:
        return span
    if doc[start - 1].whitespace_ or doc[start - 2].whitespace_:
        return span
    rules["bracketed word's end cut"] += 1
    return doc[start + 1 : span.end] if len(span) > 1 else None


def _closing(tokens: Sequence[Token], i: int) -> int | None:
    """The index of the ")" that closes the "(" at ``i`` around at least one token, with no bracket between."""
    for j in range(i + 1, len(tokens)):
        if tokens[j].text in "()":
            return j if tokens[j].text == ")" and j > i + 1 else None
    return None


def _text(tokens: Sequence[Token], defined: Mapping[str, str] | None = None) -> str:
    """The text of ``tokens`` (a defined acronym as its long form), a space between tokens that are
    not neighbours: a shared head after a comma ("CNN" of "CNN, RNN and LSTM models") is a word.

    A name of several parts defined as a whole ("KG-RAG (Knowledge Graph-Retrieval Augmented
    Generation) pipeline") is read whole, before its parts.
    """
    out = []
    whole = -1  # the last token of a name of several parts just read whole
    for at, (tok, nxt) in enumerate(zip(tokens, [*tokens[1:], None], strict=True)):
        if at > whole:
            if defined and not tok.whitespace_ and (name := _whole_name(tokens, at, defined)) is not None:
                whole, long_form = name
                out.append(long_form)
            else:
                out.append(defined.get(tok.text, tok.text) if defined else tok.text)
        if nxt is not None and at >= whole:
            out.append(tok.whitespace_ if nxt.i == tok.i + 1 else " ")
    return "".join(out)


def _whole_name(tokens: Sequence[Token], at: int, defined: Mapping[str, str]) -> tuple[int, str] | None:
    """The index of the last token of the word that starts at ``at``, and its long form, if the word
    is a name of several parts that ``defined`` holds ("KG-RAG": "KG", "-", "RAG")."""
    end = at
    while end + 1 < len(tokens) and not tokens[end].whitespace_ and tokens[end + 1].i == tokens[end].i + 1:
        end += 1
    if end == at or (at > 0 and not tokens[at - 1].whitespace_ and tokens[at - 1].i == tokens[at].i - 1):
        return None
    long_form = defined.get("".join(t.text for t in tokens[at : end + 1]))
    return None if long_form is None else (end, long_form)


def _alone(tok: Token) -> bool:
    """A word standing alone, not part of a hyphenated one ("to" of "English-to-German")."""
    doc = tok.doc
    joined_before = tok.i > 0 and not doc[tok.i - 1].whitespace_ and doc[tok.i - 1].text in _HYPHENS
    joined_after = not tok.whitespace_ and doc[tok.i + 1 : tok.i + 2].text in _HYPHENS
    return not (joined_before or joined_after or tok.text in _HYPHENS)


def _words(span: Span) -> list[Span]:
    """The whitespace-separated words of ``span``: "semi-supervised learning" is two."""
    words, start = [], span.start
    for tok in span:
        if tok.whitespace_ or tok.i == span.end - 1:
            words.append(span.doc[start : tok.i + 1])
            start = tok.i + 1
    return words


def _counted(doc: Doc, start: int, end: int) -> int:
    """Where a span of tokens ``start:end`` starts without the count it opens with ("33 models", "4.4×
    speedup", "1,474-pair corpus"), or ``start`` when it opens with none, or is no more than one: a
    number glued to the next word ("4-bit", "2-hop") or before a word it makes a name of ("4 bit")
    is part of the name."""
    tok = doc[start]
    text = tok.text
    if not text[:1].isdigit() or not _COUNT.fullmatch(text):
        return start
    if tok.whitespace_:
        after = start + 1
        return after if after < end and doc[after].lower_ not in _NUMBERED else start
    after = start + 3  # "1,474-pair": the count, its hyphen and what it counts
    if _THOUSANDS.fullmatch(text) and after < end and doc[start + 1].text == "-" and doc[start + 2].is_alpha:
        return after
    return start


def _over(span: Span, concept: Span) -> Span:
    """``concept`` (its type, key and confidence) over the words of ``span``."""
    out = Span(span.doc, span.start, span.end, label=concept.label_)
    out.id_ = concept.id_
    out._.confidence = concept._.confidence
    return out


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


def _before_bracket(tokens: Sequence[Token]) -> Sequence[Token]:
    """``tokens`` without a final bracketed part: "large language models (LLMs)" -> "large language models"."""
    if tokens[-1].text == ")":
        opening = [i for i, tok in enumerate(tokens) if tok.text == "("]
        if opening and opening[-1] > 0:
            return tokens[: opening[-1]]
    return tokens


def _closes(span: Span) -> bool:
    # Keep a final ")" that closes a "(" inside the span, as in "neural machine translation (NMT)".
    return span[-1].text in (")", "+") and (span[-1].text == "+" or "(" in span.text[:-1])


def _is_named(tokens: Sequence[Token], families: frozenset[str] = frozenset()) -> bool:
    """A specific, named method: an acronym, a coined capitalised name, or a name with digits; not
    the acronym of a family (``families``, lower case: "LLMs" in "LLM agents"), nor a number of
    dimensions ("3D representations")."""
    for i, tok in enumerate(tokens):
        text = tok.text
        if tok.lower_ in families or _DIMENSIONS.fullmatch(text):
            continue
        if any(c.isdigit() for c in text) and any(c.isalpha() for c in text):
            return True
        if any(c.isupper() for c in text[1:]):
            return True
        if text[:1].isupper() and not (i == 0 and tok.is_sent_start):
            return True
    return False


class SentenceBounds:
    """The sentences of an annotated ``Doc`` as ``span.sent`` finds them, from its token table
    read once: the sentence a span starts in runs to the next sentence's start."""

    def __init__(self, doc: Doc) -> None:
        self.doc = doc
        first = doc.to_array(SENT_START).tolist()
        self.starts = [i for i, s in enumerate(first) if s == 1 or i == 0]

    def of(self, span: Span) -> tuple[int, int]:
        """First and end token of ``span.sent``."""
        k = bisect_right(self.starts, span.start)
        return self.starts[k - 1], self.starts[k] if k < len(self.starts) else len(self.doc)


#: What several components read of a Doc's tokens, kept in its ``user_data`` once read
#: (:func:`doc_text`, :func:`lower_forms`, :func:`spaced`): a Doc's tokens do not change once made.
#: (Its sentences may, until the sentencizer has run: :class:`SentenceBounds` are read afresh.)
_TEXT, _LOWER, _SPACED = "kg_text", "kg_lower", "kg_spaced"
#: Lower-case forms by string hash, shared by the Docs of a process (a corpus's words recur).
_LOWER_STRINGS: dict[int, str] = {}


def doc_text(doc: Doc) -> str:
    """``doc.text``, made once (it joins every token's text: 45 µs an abstract, read three times).

    >>> import spacy
    >>> doc = spacy.blank("en")("We use BERT.")
    >>> doc_text(doc), doc_text(doc) is doc_text(doc)
    ('We use BERT.', True)
    """
    text = doc.user_data.get(_TEXT)
    if text is None:
        text = doc.user_data[_TEXT] = doc.text
    return text


def known_text(doc: Doc, text: str) -> Doc:
    """``doc``, made from ``text``, with :func:`doc_text` known without joining its tokens again
    (spaCy's tokenizer keeps every character: ``doc.text == text``)."""
    doc.user_data[_TEXT] = text
    return doc


def a_time(doc: Doc, start: int, end: int) -> bool:
    """Whether tokens ``start:end`` of ``doc`` say when something happens, not what: a time after "at" or
    "during" ("at inference time", "during training time"; 76 of the 109 "inference time" mentions of
    10,000 arXiv ML abstracts of 2026, a concept of 124 papers). "Reduction in inference time" is a
    measure and stays.

    >>> import spacy
    >>> doc = spacy.blank("en")("Guided at inference time, it cuts inference time and test-time compute.")
    >>> a_time(doc, 2, 4), a_time(doc, 7, 9)
    (True, False)
    """
    lower = lower_forms(doc)
    return start > 0 and lower[end - 1] == "time" and end - start > 1 and lower[start - 1] in _WHEN


#: What separates a name from what it is ("SAD-Flower: Flow Matching", "scientific computing – AUTO").
_SEPARATORS = frozenset([":", "\u2013", "\u2014", "-"])
#: Words before a time that say when ("at inference time").
_WHEN = frozenset(["at", "during"])


def a_citation(doc: Doc, start: int, end: int) -> bool:
    """Whether tokens ``start:end`` of ``doc`` are all names of the authors a citation names
    (:func:`cited_names`), not a concept.

    >>> import spacy
    >>> doc = spacy.blank("en")("As Abu Farha et al. show (Miller, 2018), Transformer (2017) helps.")
    >>> a_citation(doc, 1, 3), a_citation(doc, 8, 9), a_citation(doc, 13, 14)
    (True, True, False)
    """
    cited = cited_names(doc)
    return end > start and all(cited[start:end])


def cited_names(doc: Doc) -> bytearray:
    """1 for each token of ``doc`` that names an author of a citation: before "et al." ("Abu Farha et
    al. (2022)", "Bengio et al."), or in brackets before a year ("(Miller, 2018)", "(Kingma and Ba,
    2014; Habash, 2010)"); read once per Doc. On 15,000 held-out ACL and arXiv ML abstracts 97
    mentions had been such names, "Bengio" and "Abu Farha" Techniques. "Transformer (2017)" names
    no author.

    >>> import spacy
    >>> list(cited_names(spacy.blank("en")("As van Heuven et al. and (Kingma and Ba, 2014) show.")))
    [0, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0]
    """
    found = doc.user_data.get(_CITED)
    if found is not None:
        return found
    lower = lower_forms(doc)
    found = bytearray(len(doc))
    for i in range(1, len(doc) - 1):
        et_al = lower[i] == "et" and lower[i + 1] in ("al", "al.")
        dated = lower[i] == "," and _YEAR.fullmatch(lower[i + 1]) is not None
        if not (et_al or dated):
            continue
        j = i  # (a Token only for the few words before a citation's "et al." or year)
        while j > 0 and (_name_word(doc[j - 1].text) or (dated and lower[j - 1] in ("and", "&") and j < i)):
            j -= 1
        named = any(doc[k].text[:1].isupper() for k in range(j, i))
        if named and (et_al or (j > 0 and lower[j - 1] in ("(", ";"))):
            found[j:i] = b"\x01" * (i - j)
    doc.user_data[_CITED] = found
    return found


def _name_word(text: str) -> bool:
    """A word of a person's name: "Farha", "McCoy", "Sánchez", or a particle ("van", "de", "al"); not
    a sentence's first word ("As", "The")."""
    return text in _NAME_PARTICLES or (
        text.isalpha() and text[0].isupper() and not text.isupper() and text.lower() not in STOP_WORDS
    )


_CITED = "kg_cited_names"
#: Lower-case words inside names: "van Heuven", "de Marneffe", "Abu al Haija".
_NAME_PARTICLES = frozenset(["van", "von", "der", "den", "de", "da", "das", "dos", "du", "del", "della", "di", "la",
                             "le", "al", "el", "bin", "ibn"])  # fmt: skip


def lower_forms(doc: Doc) -> list[str]:
    """The lower-case form of each token of ``doc``, read once (``token.lower_`` makes a Token).

    >>> import spacy
    >>> lower_forms(spacy.blank("en")("We use BERT."))
    ['we', 'use', 'bert', '.']
    """
    made = doc.user_data.get(_LOWER)
    if made is None:
        strings, known = doc.vocab.strings, _LOWER_STRINGS
        if len(known) >= _LOWER_FORMS:
            known.clear()
        made = []
        for h in doc.to_array(LOWER).tolist():
            w = known.get(h)
            if w is None:
                w = known[h] = strings[h]
            made.append(w)
        doc.user_data[_LOWER] = made
    return made


def spaced(doc: Doc) -> list[int]:
    """Per token of ``doc``, 1 if whitespace follows it (``token.whitespace_``), read once."""
    made = doc.user_data.get(_SPACED)
    if made is None:
        made = doc.user_data[_SPACED] = doc.to_array(SPACY).tolist()
    return made


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
        self.without = frozenset(conf.get("without", []))

    def __call__(self, doc: Doc) -> Doc:
        self.assign(doc.spans.get(self.spans_key, []))
        return doc

    def assign(self, spans: Iterable[Span]) -> None:
        """Set ``span._.role`` on each of ``spans`` (of one document)."""
        spans = list(spans)
        if not spans:
            return
        doc = spans[0].doc
        words = lower_forms(doc)
        bounds = SentenceBounds(doc)
        # Mentions share sentences: read each sentence's words once.
        sentences: dict[int, tuple[list[str], bool]] = {}
        for span in spans:
            begin, end = bounds.of(span)
            if begin not in sentences:
                sentences[begin] = self._sentence(words[begin:end])
            span._.role = self._role(span, begin, *sentences[begin])

    def _sentence(self, words: list[str]) -> tuple[list[str], bool]:
        present = set(words)
        return words, any(phrase[0] in present and _contains(words, phrase) for phrase in self.self_ref)

    def _role(self, span: Span, sent_start: int, words: list[str], self_ref: bool) -> str:
        if _names_the_paper(span):
            return "proposes"
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
        if self.without & set(left[-3:]):  # "without (any additional) retraining": not used
            return "mentions"
        if self.use & set(left):
            return "uses"
        return "mentions"


def _names_the_paper(span: Span) -> bool:
    """A name that opens the paper's title before a colon is the paper's own: "PRISM: Efficient
    Long-Range Reasoning With Short-Context LLMs", "Mamba: Linear-Time Sequence Modeling". One word
    with a capital: "Federated Learning: Challenges and Opportunities" names a field."""
    doc = span.doc
    if span.start != 0 or span.end >= len(doc) or doc[span.end].text != ":":
        return False
    if not (Doc.has_extension("title") and doc._.title):
        return False  # ("Background: ..." opens an abstract)
    return " " not in span.text and span.text != span.text.lower()


def _contains(words: list[str], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    return any(tuple(words[i : i + n]) == phrase for i in range(len(words) - n + 1))


@Language.factory("kg_concepts", default_config={"spans_key": SPANS_KEY, "max_words": 12})
def make_concepts(nlp: Language, name: str, spans_key: str, max_words: int) -> ConceptSpans:
    return ConceptSpans(spans_key=spans_key, max_words=max_words)


@Language.factory("kg_roles", default_config={"spans_key": SPANS_KEY})
def make_roles(nlp: Language, name: str, spans_key: str) -> Roles:
    return Roles(spans_key=spans_key)
