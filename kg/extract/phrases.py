"""``kg_phrases``: scored candidate phrases as a second concept source.

The recogniser finds a few concepts per abstract; the phrases authors say their papers are
about are often not among them, or only inside a longer mention ("trust management" in
"reputation-based trust management framework"). This component adds the best candidate
phrases: runs of words between function words and punctuation within a sentence, and their
n-grams of up to ``max_words`` words, scored by a linear model over cheap features
(``config/phrases.toml``). A candidate never crosses the edge of a recogniser's span; it lies
inside one only with ``inside_concepts``, and never repeats a concept already found. It runs
after ``kg_relations``, so the relation classifier sees the recogniser's spans only, and
appends its spans to ``doc.spans["kg"]`` with ``span._.source == "phrase"``.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
from spacy.attrs import ORTH, SENT_START, SPACY
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.vocab import Vocab

from kg.config import config_path, read_settings
from kg.errors import ConfigError
from kg.extract.components import (
    CLOSING_BRACKETS,
    CONJUNCTS,
    CONTEXT_CONFIDENCE,
    CUE_CONFIDENCE,
    SPANS_KEY,
    Roles,
    a_time,
    cited_names,
    doc_text,
    family_acronyms,
    team_tokens,
    verb_with_object,
)
from kg.normalise import Normaliser
from kg.normalise.gazetteer import load_gazetteer
from kg.normalise.keys import keeps_plural, unaccented, written_as_name
from kg.normalise.specificity import generic_terms, reference_df

if not Span.has_extension("source"):
    Span.set_extension("source", default="model")

#: The features a candidate is scored on, in the order of its feature vector.
FEATURES = (
    "bias",
    "one_word",
    "three_words",
    "four_words",
    "frequency",
    "first_position",
    "in_first_sentence",
    "capitals",
    "capitalised",
    "whole_run",
    "ends_run",
    "generic_head",
    "adjective_end",
    "head_frequency",
    "word_frequency",
    "rarest_word_frequency",
    "concept_words",
    "in_reference",
    "specificity",
    "word_specificity",
    "cohesion",
    "verbal_start",
    "inside_concept",
)
#: Below this reference document frequency a phrase is too rare to tell a fragment by.
_MIN_DF = 20
#: Endings of words that rarely end a noun phrase (adjectives, participles, adverbs).
_ADJECTIVE_ENDINGS = ("al", "ive", "ous", "ed", "ble", "ful", "ic", "ly")
#: Endings of words that rarely start a keyphrase (participles, adverbs).
_VERBAL_ENDINGS = ("ing", "ly", "ed")
#: Phrases whose reference document frequency is remembered at most (then forgotten all at once).
_PHRASE_DFS = 200_000
#: Words remembered at most (then forgotten all at once): a corpus's vocabulary grows without end.
_LEXEMES = 200_000
#: A word of a name: two letters in a row, not Greek ("tuning"), or a letter, then a digit ("T5",
#: "G2M"). A key without one is a formula or a size ("1-δ", "Eτ" of LaTeX's ``$1-\delta$`` and
#: ``$\mathbb{E}\tau$``; "m x", "8K-128K"), not a name.
_NAME_WORD = re.compile(r"[^\W\d_\u0370-\u03ff]{2}|\b[a-z]\w*\d")
#: Endings of nominalisations, whose phrases name what is done: a Problem.
_PROBLEM_ENDINGS = ("tion", "sion", "ment", "ysis")


#: Single letters that a phrase reads as a variable, not a word ("a" is a function word).
_VARIABLES = frozenset("bcdefghijklmnopqrstuvwxyz")


class _Word(NamedTuple):
    """A word as :meth:`Phrases.candidates` reads it, the same for each of its tokens."""

    lower: str
    text: str
    number: bool  # like a number
    skip: bool  # a space, punctuation or a number: no word of a phrase
    alpha: bool
    word: bool  # letters, digits and its own hyphens: "GPT-3", not "Russia).We"
    lowercase: bool
    titlecase: bool


@dataclass
class Candidates:
    """The distinct candidate phrases of a document: words, where each occurs, features by row."""

    words: list[tuple[str, ...]]
    occurrences: list[list[tuple[int, int]]]
    features: np.ndarray
    #: The document's tokens as written.
    tokens: list[str]
    #: Whether each token is followed by whitespace ("GSM8K" is two tokens, one word).
    spaces: list[bool]

    def __len__(self) -> int:
        return len(self.words)

    def text(self, i: int) -> str:
        """Phrase ``i`` as its first occurrence writes it: the case a key needs ("GPUs" is the
        plural of "GPU", "gpus" a word like "corpus")."""
        start, end = self.occurrences[i][0]
        return "".join(t + " " * s for t, s in zip(self.tokens[start:end], self.spaces[start:end], strict=True)).strip()


class Phrases:
    """Add the best-scored candidate phrases, up to ``max_concepts`` distinct concepts per doc."""

    def __init__(self, *, spans_key: str = SPANS_KEY, settings: str | Path | None = None):
        path = Path(settings) if settings else config_path("phrases.toml")
        try:
            conf = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML ({exc})") from exc
        self.spans_key = spans_key
        self.max_concepts = int(conf.get("max_concepts", 15))
        self.max_words = int(conf.get("max_words", 4))
        self.inside_concepts = bool(conf.get("inside_concepts", False))
        self.numbered_heads = frozenset(str(w) for w in conf.get("numbered_heads", []))
        self.min_score = float(conf.get("min_score", -math.inf))
        #: A candidate is no phrase where the word beside it makes the longer term that the
        #: reference corpora hold it in this share of their abstracts at least.
        self.fragment_share = float(conf.get("fragment_share", math.inf))
        weights = conf.get("weights", {})
        unknown = set(weights) - set(FEATURES)
        if unknown:
            raise ConfigError(f"{path}: unknown phrase features {sorted(unknown)} (known: {', '.join(FEATURES)})")
        self.weights = [float(weights.get(name, 0.0)) for name in FEATURES]
        self.normaliser = Normaliser()
        # a phrase ends at a verb as at a function word: "survey offers" (config/normalise.toml)
        self.function = frozenset(conf.get("words", {}).get("function", [])) | self.normaliser.verbs
        self.adjectives = generic_terms().adjectives  # config/generic.toml
        normalise = read_settings("normalise.toml")
        self.task_heads = frozenset(normalise.get("task_heads", []))
        self.technique_heads = frozenset(normalise.get("technique_heads", []))
        #: Acronyms of families ("ai", "llms"), which name no one artefact however written.
        self.families = family_acronyms(normalise)
        self.roles = Roles(spans_key=spans_key)
        self.gazetteer = load_gazetteer()
        #: Known two-word concepts ("language model"): a candidate that ends in the first word of
        #: one, right before its second, cuts a name in two (see ``_features``).
        self.compounds = frozenset(tuple(k.split()) for k in self.gazetteer.keys if k.count(" ") == 1)
        ref = reference_df()
        self.reference = {k: sum(v) for k, v in ref.counts.items()}
        self._docs = ref.n_docs + 1
        # Across documents: words met so far, with their reference figures and singulars.
        self._word_stats: dict[str, tuple[float, float]] = {}
        self._singulars: dict[str, str] = {}
        self._lexemes: dict[int, _Word] = {}
        self._dfs: dict[tuple[str, ...], int] = {}

    def __call__(self, doc: Doc) -> Doc:
        if not doc.has_annotation("SENT_START"):
            # Candidates and roles are read within sentences: without them, add nothing.
            return doc
        spans = list(doc.spans.get(self.spans_key, []))
        added = []
        cands = self.candidates(doc)
        for i, key in self.select(cands, {s.id_ for s in spans}, known=_known_keys(spans)):
            known = self.gazetteer.type_of(key)
            label = known or self._type(key, cands.text(i))
            for start, end in cands.occurrences[i]:
                if a_time(doc, start, end):  # "at inference time": when, not what
                    continue
                span = Span(doc, start, end, label=label)
                span.id_ = key
                ext = span._
                ext.source = "phrase"
                # a type read from the key's words alone votes as weakly as one read from context
                ext.confidence = CUE_CONFIDENCE if known else CONTEXT_CONFIDENCE
                added.append(span)
        self.roles.assign(added)
        doc.spans[self.spans_key] = spans + sorted(added, key=lambda s: (s.start, s.end))
        return doc

    def candidates(self, doc: Doc) -> Candidates:
        """Every candidate phrase of ``doc``, with its features, unscored (one pass over the tokens)."""
        n = len(doc)
        # Tokens of the recogniser's spans, and the tokens where one starts or ends: a candidate
        # never crosses a span's edge, and lies inside one only with ``inside_concepts``.
        taken = bytearray(n)
        edge = bytearray(n + 1)
        # A span's whole text is never a candidate: it is already a concept, and a second span
        # on the same characters would share its extension attributes (role, source). Nor is a
        # conjunct's, whose concept is mentioned over its coordination ("Patronizing" of
        # "Patronizing and Condescending Language Detection").
        whole = set(doc.user_data.get(CONJUNCTS, ()))
        for s in doc.spans.get(self.spans_key, []):
            taken[s.start : s.end] = b"\x01" * (s.end - s.start)
            edge[s.start] = edge[s.end] = 1
            whole.add((s.start, s.end))
        blocked = bytearray(n) if self.inside_concepts else taken
        # "Abu Farha" of "Abu Farha et al.", the team of "YNU-HPCC at SemEval-2024 Task 7": no words of a phrase
        cited, team = cited_names(doc), team_tokens(doc)
        function = self.function
        # A token's text and word shape are its lexeme's: read once per distinct word, from the
        # token table in one call (no Token object per token).
        table = doc.to_array([ORTH, SENT_START, SPACY]).tolist()
        lexemes = self._lexemes
        info = []
        for orth, _, _ in table:
            lex = lexemes.get(orth)
            info.append(lex if lex is not None else self._lexeme(doc.vocab, orth))
        lowers = [x.lower for x in info]
        cased = [x.text for x in info]
        spaces = [bool(row[2]) for row in table]
        # Per token: mixed or upper case ("BERT", "word2Vec"), and capitalised inside a sentence.
        caps = bytearray(n)
        title = bytearray(n)
        runs: list[list[tuple[int, int]]] = []
        words: list[tuple[int, int]] = []
        first_end = n
        join = False
        numbered = self.numbered_heads
        label = bytearray(n)  # the number of a numbered head in a run
        for i in range(n):
            lower, _, number, skip, _, word, lowercase, titlecase = info[i]
            start = table[i][1] == 1
            if (start or edge[i]) and i:
                if start:
                    first_end = min(first_end, i)
                join = False
                if words:
                    runs.append(words)
                    words = []
            if i >= 2 and cased[i - 1] == "-" and cased[i - 2] in CLOSING_BRACKETS and not any(spaces[i - 2 : i]):
                # "based" of "(LLM)-based agents", "driven" of "(DRL)-driven control": the end of a word
                # whose first part is in brackets, no phrase's first word ("driven control")
                join = False
                if words:
                    runs.append(words)
                    words = []
                continue
            if i and info[i - 1].number and not spaces[i - 1] and info[i].alpha and not (words and words[-1][1] == i):
                # "K" of "128K tokens", "M" of "1M tokens" (the tokenizer splits the number off): a unit
                # of the number, no word of a phrase ("K tokens" had been one of 4 papers of the sample)
                join = False
                if words:
                    runs.append(words)
                    words = []
                continue
            if (
                number and len(words) > 1 and words[-1][1] == i and spaces[i - 1] and lowers[i - 1] in numbered
                and not blocked[i] and not join
            ):  # fmt: skip
                # "SemEval-2024 Task 5": a task of an edition is named with its number
                words.append((i, i + 1))
                label[i] = 1
                continue
            hyphen_next = not spaces[i] and i + 1 < n and cased[i + 1] == "-"
            if join and lower in function and not blocked[i] and hyphen_next:
                # ... and so do the function words inside such a word: "mixture-of-experts".
                words[-1] = (words[-1][0], i + 1)
                continue
            if (
                (lower in function or number) and not join and not blocked[i] and hyphen_next
                and not spaces[i + 1] and i + 2 < n and info[i + 2].alpha and not blocked[i + 2]
                and not edge[i + 1] and not edge[i + 2]
            ):  # fmt: skip
                # A function word or a number glued to the next word by a hyphen opens a word:
                # "in-context learning", "on-policy", "all-reduce", "4-bit quantization" (not
                # "context learning", "policy", "bit quantization"), and a run, as the function
                # word or number alone would have ended the one before.
                if words:
                    runs.append(words)
                words = [(i, i + 1)]
                continue
            if lower in _VARIABLES and cased[i] == lower and not join and not hyphen_next:
                # a variable: "size n", "k clusters", "step t" (69 phrase mentions of 10,000 arXiv ML
                # abstracts of 2025); not the letter of a word, "k-means", "t-SNE", "top-k"
                if words:
                    runs.append(words)
                    words = []
                continue
            if blocked[i] or skip or lower in function or cited[i] or team[i]:
                # A hyphen glued on both sides joins two words into one: "multi-service".
                join = (
                    lower == "-" and bool(words) and words[-1][1] == i
                    and not spaces[i - 1] and not spaces[i] and not edge[i + 1]
                )  # fmt: skip
                if not join and words:
                    runs.append(words)
                    words = []
                continue
            # A word has a letter and no punctuation but its own hyphens: "GPT-3", not "Russia).We".
            if not word:
                join = False
                if words:
                    runs.append(words)
                    words = []
                continue
            if not start and not lowercase:
                caps[i] = not titlecase
                title[i] = titlecase
            if join:
                words[-1] = (words[-1][0], i + 1)
            else:
                words.append((i, i + 1))
            join = False
        if words:
            runs.append(words)
        concept_words = {lowers[i] for i in range(n) if taken[i]}
        return self._features(lowers, cased, spaces, caps, title, runs, first_end, taken, concept_words, whole, label)

    def _features(
        self,
        lowers: list[str],
        cased: list[str],
        spaces: list[bool],
        caps: bytearray,
        title: bytearray,
        runs: list[list[tuple[int, int]]],
        first_end: int,
        taken: bytearray,
        concept_words: set[str],
        whole: set[tuple[int, int]],
        label: bytearray,
    ) -> Candidates:
        counts: dict[str, int] = {}
        heads: dict[str, int] = {}
        found: dict[tuple[str, ...], list[int]] = {}
        if len(self._dfs) >= _PHRASE_DFS:
            self._dfs.clear()
        dfs_of = self._dfs  # reference document frequencies looked up so far
        where: dict[tuple[str, ...], list[tuple[int, int]]] = {}
        max_words = self.max_words
        adjectives = self.adjectives
        compounds, known = self.compounds, self.gazetteer.types
        for run in runs:
            for s, e in run:
                for w in lowers[s:e]:
                    counts[w] = counts.get(w, 0) + 1
                heads[lowers[e - 1]] = heads.get(lowers[e - 1], 0) + 1
            last = len(run)
            # words glued to the next one, as a tokenizer splits one word: "D2T" is "D2" and "T",
            # "GSM8K" "GSM8" and "K"; a phrase neither starts nor ends inside such a word
            glued = [run[k][1] == run[k + 1][0] and not spaces[run[k][1] - 1] for k in range(last - 1)]
            for a in range(last):
                if a and glued[a - 1]:
                    continue  # "T generation" of "D2T generation"
                for b in range(a + 1, min(a + max_words, last) + 1):
                    if b < last and glued[b - 1]:
                        continue  # "D2" of "D2T"
                    start, end = run[a][0], run[b - 1][1]
                    if end - run[b - 1][0] == 1 and lowers[end - 1] in adjectives:
                        continue  # "Mixture-of-Experts Large" of "... Large Language Models": an adjective ends no name
                    if (
                        b < last and end - run[b - 1][0] == 1 and run[b][1] - run[b][0] == 1
                        and (lowers[end - 1], self._singular(lowers[end])) in compounds
                        and " ".join(lowers[start:end]) not in known
                    ):  # fmt: skip
                        continue  # "Mixture-of-Experts Language" of "... Language Model": it cuts "language model"
                    if taken[start] and (start, end) in whole:
                        continue
                    if (label[end - 1] and b - a < 3) or (b < last and label[run[b][0]]):
                        continue  # "Task 5" alone is a label, "SemEval-2024 Task" of "... Task 5" a cut one
                    if end - start == 1 and end < len(lowers) and verb_with_object(lowers[start], lowers[end]):
                        continue
                    key = tuple(lowers[start:end])
                    if b - a < max_words and self._fragment(lowers, key, start, end, run, a, b, dfs_of):
                        continue  # "entity recognition" of "named entity recognition"
                    f = found.get(key)
                    if f is None:
                        # count, first token, whole run, ends run, capitals, capitalised, words, inside
                        f = found[key] = [0, start, 0, 0, 0, 0, b - a, 0]
                        where[key] = []
                    f[0] += 1
                    f[2] += a == 0 and b == last
                    f[3] += b == last
                    f[4] |= 1 in caps[start:end]
                    f[5] |= 1 in title[start:end]
                    f[7] += taken[start]
                    where[key].append((start, end))
        keys = list(found)
        if not keys:
            return Candidates([], [], np.zeros((0, len(FEATURES))), cased, spaces)
        # Per distinct word (a last row pads shorter phrases): log
        # frequency here, reference specificity and log df, in a concept, and as a phrase's
        # head: log frequency as a head, stop-listed, adjective ending; as a first word: verbal.
        index = {w: j for j, w in enumerate(counts)}
        stop = self.normaliser.stop
        rows = []
        for w, c in counts.items():
            spec, log_df = self._word_stats.get(w) or self._reference_word(w)
            rows.append((math.log1p(c), spec, log_df, w in concept_words, math.log1p(heads.get(w, 0)), w in stop,
                         w.endswith(_ADJECTIVE_ENDINGS), w.endswith(_VERBAL_ENDINGS)))  # fmt: skip
        words = np.array(rows, dtype=float)
        pad = len(rows)
        ids = []
        dfs = []
        for key in keys:
            dfs.append(self._df(key, dfs_of))
            ids.append([index[w] for w in key if w != "-"])
        # Hyphenated words are several tokens: pad to the longest phrase's tokens.
        n_words = np.fromiter(map(len, ids), dtype=np.intp, count=len(ids))
        ix = np.full((len(ids), int(n_words.max())), pad)
        ix[np.arange(ix.shape[1]) < n_words[:, None]] = [w for x in ids for w in x]  # row by row, in order
        heads_ix = ix[np.arange(len(keys)), n_words - 1]
        per = np.vstack([words, np.full((1, words.shape[1]), np.inf)])[ix]  # (phrases, max_words, stats)
        real = ix != pad
        per_sum = np.where(real[:, :, None], per, 0.0).sum(axis=1) / n_words[:, None]
        per_min = per.min(axis=1)
        agg = np.array([found[k] for k in keys], dtype=float)
        count, size = agg[:, 0], agg[:, 6]
        df = np.array(dfs, dtype=float)
        log_docs = math.log(self._docs)
        features = np.column_stack([
            np.ones(len(keys)),
            size == 1,
            size == 3,
            size >= 4,
            np.log1p(count),
            agg[:, 1] / max(len(lowers), 1),
            agg[:, 1] < first_end,
            agg[:, 4],
            agg[:, 5],
            agg[:, 2] / count,
            agg[:, 3] / count,
            words[heads_ix, 5],
            words[heads_ix, 6],
            words[heads_ix, 4],
            per_sum[:, 0],
            per_min[:, 0],
            per_sum[:, 3],
            df > 0,
            np.log(self._docs / (df + 1)) / log_docs,
            per_min[:, 1],
            # How often the words, where they occur, occur as this phrase (reference corpora).
            np.where(size > 1, np.log1p(df) - per_min[:, 2], 0.0),
            words[ix[:, 0], 7],
            agg[:, 7] / count,
        ]).astype(float)  # fmt: skip
        return Candidates(keys, [where[k] for k in keys], features, cased, spaces)

    def _fragment(
        self, lowers: list[str], words: tuple[str, ...], start: int, end: int, run: list[tuple[int, int]],
        a: int, b: int, dfs_of: dict[tuple[str, ...], int],
    ) -> bool:  # fmt: skip
        """Whether ``words``, tokens ``start:end`` (words ``a:b`` of ``run``), are a fragment of a longer term
        here: the word before or after them in the run makes a term that holds them in at least
        ``fragment_share`` of the reference abstracts that have them ("language processing" in
        "natural language processing", "speech detection" in "hate speech detection")."""
        if math.isinf(self.fragment_share):
            return False
        df = dfs_of.get(words)
        if df is None:
            df = self._df(words, dfs_of)
        if df < _MIN_DF:
            return False
        least = self.fragment_share * df
        if a > 0 and self._df(tuple(lowers[run[a - 1][0] : end]), dfs_of) >= least:
            return True
        return b < len(run) and self._df(tuple(lowers[start : run[b][1]]), dfs_of) >= least

    def _df(self, words: tuple[str, ...], seen: dict[tuple[str, ...], int]) -> int:
        """Reference document frequency of a phrase, folded as the table is (``Normaliser.surface``),
        cheaply: dashes become spaces, the last word singular (but "mixture of experts"); ``seen``
        keeps those already looked up."""
        df = seen.get(words)
        if df is None:
            ws = [w for w in words if w != "-"]
            if ws and not keeps_plural(ws):
                ws[-1] = self._singular(ws[-1])
            df = seen[words] = self.reference.get(unaccented(" ".join(ws)), 0) if ws else 0
        return df

    def _specificity(self, df: int) -> float:
        # As kg.normalise.specificity, over the reference corpora alone.
        return math.log(self._docs / (df + 1)) / math.log(self._docs)

    def _singular(self, word: str) -> str:
        single = self._singulars.get(word)
        if single is None:
            single = self._singulars[word] = self.normaliser._singular(word)
        return single

    def _reference_word(self, word: str) -> tuple[float, float]:
        df = self.reference.get(unaccented(self._singular(word)), 0)
        stats = self._word_stats[word] = (self._specificity(df), math.log1p(df))
        return stats

    def _lexeme(self, vocab: Vocab, orth: int) -> _Word:
        """What :meth:`candidates` reads of a word (remembered)."""
        lex = vocab[orth]
        lower = lex.lower_
        # (not one left hanging on its hyphen, "short-" of "short- and long-term": half a word)
        word = lex.is_alpha or (
            any(c.isalpha() for c in lower) and all(c.isalnum() or c in "-+#" for c in lower) and lower[-1] != "-"
        )
        if len(self._lexemes) >= _LEXEMES:
            self._lexemes.clear()
        info = self._lexemes[orth] = _Word(
            lower, lex.orth_, lex.like_num, lex.is_space or lex.is_punct or lex.like_num, lex.is_alpha, word,
            lex.is_lower, lex.is_title,
        )  # fmt: skip
        return info

    def select(
        self, candidates: Candidates, concepts: set[str], *, known: dict[str, str] | None = None
    ) -> list[tuple[int, str]]:
        """The best candidates (their indexes) and keys: as many as keep ``max_concepts`` distinct concepts.

        Candidates scoring below ``min_score`` (a logit) are never kept; a candidate is skipped
        when its key is generic, already a concept, or starts or ends with a function word.
        ``known`` maps lower-cased texts to the keys the recogniser's spans gave them (an
        acronym the abstract defines keys as its long form).
        """
        budget = self.max_concepts - len(concepts)
        if budget <= 0 or not len(candidates):
            return []
        scores = candidates.features @ np.asarray(self.weights)
        # Best first; ties go to the earlier phrase, so that the choice is deterministic.
        order = sorted(range(len(candidates)), key=lambda i: (-scores[i], candidates.occurrences[i][0]))
        chosen: list[tuple[int, str]] = []
        seen = set(concepts)
        function = self.function
        for i in order:
            if len(chosen) >= budget or scores[i] < self.min_score:
                break
            text = " ".join(candidates.words[i]).replace(" - ", "-")
            key = known.get(text) if known else None
            key = key or self.normaliser.key(candidates.text(i))
            words = key.split()
            # The key's words can differ from the candidate's: "amounts" is keyed "amount".
            glued = candidates.words[i][1:2] == ("-",)  # "in-context learning" opens with "in"
            if (
                key in seen
                or not _NAME_WORD.search(key)
                or self.normaliser.is_generic(key)  # (and a letter: "B = f(A)", "(b)")
                or (words[0] in function and not glued)
                or words[-1] in function
            ):
                continue
            seen.add(key)
            chosen.append((i, key))
        return chosen

    def _type(self, key: str, text: str = "") -> str:
        # From the key and how the phrase is written, so that a phrase has one type in every
        # paper: a task head or a nominalisation names what is done (a Problem), a name (its last
        # word with a digit or a capital inside: "GPT-4", "DeepSeek-R1") one artefact (a Method,
        # as the recogniser's named spans, but not the acronym of a family: "agentic AI", "video
        # LLMs"), anything else a Technique; so do the heads of families of techniques,
        # nominalisations or not ("quantization", "distillation").
        head = key.rsplit(" ", 1)[-1]
        if head in self.technique_heads:
            return "Technique"
        if head in self.task_heads or head.endswith(_PROBLEM_ENDINGS):
            return "Problem"
        last = text.rsplit(" ", 1)[-1]
        if last.lower() in self.families:
            return "Technique"
        return "Method" if written_as_name(last) else "Technique"


def _known_keys(spans: list[Span]) -> dict[str, str]:
    """Lower-cased text -> key of the recogniser's spans, and of each part of one with a part in
    brackets: the acronym of "long form (ACRONYM)", the name of "NAME (Long Form)"."""
    known: dict[str, str] = {}
    if not spans:
        return known
    full = doc_text(spans[0].doc)  # (``span.text`` makes a Token of each word)
    for s in spans:
        text = full[s.start_char : s.end_char].lower()
        known[text] = s.id_
        if text.endswith(")") and "(" in text:
            known[text[text.rindex("(") + 1 : -1].strip()] = s.id_
            known.setdefault(text[: text.rindex("(")].strip(), s.id_)
    return known


@Language.factory("kg_phrases", default_config={"spans_key": SPANS_KEY})
def make_phrases(nlp: Language, name: str, spans_key: str) -> Phrases:
    return Phrases(spans_key=spans_key)
