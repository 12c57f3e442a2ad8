"""Concept keys: case, hyphenation, plural and spelling variants fold into one key."""

from __future__ import annotations

import functools
import re
import tomllib
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

from kg.config import config_path
from kg.errors import ConfigError

_DASHES = re.compile(r"[\u2010-\u2015\u2212_\-]+")
_NON_WORD = re.compile(r"[^\w\s+#./&']")
_SPACES = re.compile(r"\s+")
#: LaTeX commands that only format their argument (arXiv abstracts: "\textbf{\underline{J}}oint",
#: "\textit{Adaptive Monte Carlo Tree Search}"): the key keeps the argument's letters, joined to
#: what the braces split ("Joint"). Other commands keep their name ("\alpha": "alpha").
_LATEX_FORMAT = re.compile(
    r"\\(?:text(?:bf|it|tt|sc|sf|rm|up|md|normal)?|emph|underline|uline|math(?:bf|it|rm|cal|bb|sf|tt|frak|scr)"
    r"|boldsymbol|bm|mbox|(?:text)?color\{[^{}]*\}|bf|it|sc|tt)(?![a-zA-Z])\s*"
)
_ACRONYM_PLURAL = re.compile(r"\b([A-Z][A-Za-z0-9]*[A-Z0-9])s\b")
_EDGE_PUNCT = " .,;:'\"/&"
#: Every rule shortens or respells a word: keys settle in two or three passes.
_MAX_PASSES = 8
#: How many surfaces a Normaliser remembers before it starts again (a few tens of MB).
_SURFACES = 100_000
#: An all-capital acronym ending in S, which is no plural: "RKHS", "DARTS".
_CAPS_S = re.compile(r"\b[A-Z0-9]*[A-Z][A-Z0-9]*S\b")
#: A name with a capital inside that ends in a lower-case s: "OntoNotes", "TextGraphs", "NiuTrans"
#: are names, not plurals (the run folds the few plurals, "WordNets", into the singular it has).
_NAME_S = re.compile(r"\b[A-Za-z0-9]*[a-z0-9][A-Z][A-Za-z0-9]*[a-z]s\b")
#: Ends of the stems of verbs spelt -ise everywhere ("denoise", "supervise", "promise", "comprise",
#: "advertise"): their -ising, -iser and -isation are no British spellings of -ize.
_ISE_ONLY = ("no", "v", "pr", "prom", "advert", "exerc", "cru", "bru", "franch", "chast", "gu", "desp", "merchand",
             "comprom", "ra")  # fmt: skip
#: A count of things: "2", "048" (of "2,048"), "8k"; an amount of memory: "80gb".
_COUNT = re.compile(r"\d+[kx]?")
_MEMORY = re.compile(r"\d+gb")
#: A model's size alone ("7B", "1.5B", "8x7B", "128K"): no concept.
_SIZE = re.compile(r"\d+(?:\.\d+)?(?:x\d+(?:\.\d+)?)?[kmbt]")
#: The same run of two or more words on both sides of a dash: "Indian language-Indian language
#: translation" (between two of that kind) keys as "indian language translation".
_RUN_BOTH_SIDES = re.compile(r"\b(\w+(?:\s+\w+)+)\s*[\u2010-\u2015\u2212\-]\s*\1\b")


@dataclass(frozen=True, slots=True)
class Aliases:
    """User decisions from ``config/aliases.tsv``: forced merges and forbidden ones."""

    force: dict[str, str] = field(default_factory=dict)
    forbid: frozenset[tuple[str, str]] = frozenset()


def load_aliases(path: str | Path | None = None) -> Aliases:
    """Read an alias file (``variant<TAB>concept`` or ``!variant<TAB>concept`` per line)."""
    path = Path(path) if path else config_path("aliases.tsv")
    force: dict[str, str] = {}
    forbid: set[tuple[str, str]] = set()
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
            raise ConfigError(f"{path}:{lineno}: expected 'variant<TAB>concept', got {line!r}")
        variant, concept = parts[0].strip(), parts[1].strip()
        if variant.startswith("!"):
            forbid.add((variant[1:].strip(), concept))
        else:
            force[variant] = concept
    return Aliases(force, frozenset(forbid))


class Normaliser:
    """Turns mention text into concept keys.

    >>> n = Normaliser()
    >>> n.key("Neural Machine Translation")
    'neural machine translation'
    >>> n.key("the pre-trained language models")
    'pretrained language model'
    >>> n.key("Tokenisation strategies")
    'tokenization strategy'
    >>> n.key("NMT")  # forced by config/aliases.tsv
    'neural machine translation'
    """

    def __init__(
        self,
        *,
        settings: str | Path | None = None,
        aliases: str | Path | Aliases | None = None,
        stoplist: str | Path | None = None,
    ) -> None:
        path = Path(settings) if settings else config_path("normalise.toml")
        try:
            conf = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML ({exc})") from exc
        self.leading = frozenset(conf.get("leading_words", []))
        self.function = frozenset(conf.get("function_words", []))
        self.naming = frozenset(conf.get("naming_words", []))
        self.naming_kept = frozenset(tuple(p.split()) for p in conf.get("naming_kept", []))
        self.framing = frozenset(conf.get("framing_words", []))
        self.verbs = frozenset(conf.get("finite_verbs", []))
        self.organisations = frozenset(conf.get("organisations", []))
        self.languages = frozenset(conf.get("languages", []))
        self.plurals: dict[str, str] = dict(conf.get("plurals", {}))
        self.generic_heads = frozenset(conf.get("generic_heads", []))
        self.metric_heads = frozenset(conf.get("metric_heads", []))
        self.metric_ends = frozenset(conf.get("metric_ends", []))
        #: Names of processors, each after a space (" gpu"), and their last words ("gpu", "unit").
        self.hardware_heads = tuple(f" {h}" for h in conf.get("hardware_heads", []))
        self._hardware_last = frozenset(h.rpartition(" ")[2] for h in self.hardware_heads)
        self.hardware_modifiers = frozenset(conf.get("hardware_modifiers", []))
        self.process_heads = frozenset(conf.get("process_heads", []))
        self.class_heads = tuple(conf.get("class_heads", []))
        self.inverted = tuple(conf.get("inverted_prepositions", []))
        self.process_endings = tuple(conf.get("process_endings", []))
        self.process_only_heads = frozenset(conf.get("process_only_heads", []))
        self.head_names = tuple(f" {p}" for p in conf.get("head_names", []))
        self.head_synonyms: dict[str, str] = dict(conf.get("head_synonyms", {}))
        self.gerund_heads = frozenset(conf.get("gerund_heads", []))
        self.gerund_nouns: dict[str, str] = dict(conf.get("gerund_nouns", {}))
        self.verbal_gerunds = frozenset(conf.get("verbal_gerunds", []))
        self.invariant = frozenset(conf.get("invariant", []))
        #: A word that ends in one of these is no plural either: "wikinews", "astrophysics", "winobias".
        self._invariant_ends = tuple(w for w in self.invariant if len(w) >= 4)
        self.spelling: dict[str, str] = dict(conf.get("spelling", {}))
        self.aliases = aliases if isinstance(aliases, Aliases) else load_aliases(aliases)
        #: Keys an alias names a concept by ("bleu", "large language model").
        self._alias_targets = frozenset(self.aliases.force.values())
        stop_path = Path(stoplist) if stoplist else config_path("stoplist.txt")
        self.stop = frozenset(
            ln.strip()
            for ln in stop_path.read_text(encoding="utf-8").splitlines()
            if ln.strip() and not ln.startswith("#")
        )
        #: Surfaces already made: a corpus writes the same few hundred thousand mentions over and
        #: over ("large language models" in one paper of four). Cleared when it holds _SURFACES.
        self._surfaces: dict[str, str] = {}

    def surface(self, text: str) -> str:
        r"""The key of ``text`` before aliases: folded case, dashes, plurals and spelling.

        A key is its own surface (``surface(surface(x)) == surface(x)``), except where
        :func:`keeps_final_s`: the all-capital acronyms ending in S ("RKHS", "DARTS") and the
        names with a capital inside ("OntoNotes") keep their s only while their capitals show
        that it is not a plural. LaTeX that only formats leaves no word:

        >>> Normaliser().surface(r"\textbf{\underline{J}}oint \textit{Monte Carlo} tree search")
        'joint monte carlo tree search'
        """
        made = self._surfaces.get(text)
        if made is None:
            if len(self._surfaces) >= _SURFACES:
                self._surfaces.clear()
            made = self._surfaces[text] = self._surface(text)
        return made

    def _surface(self, text: str) -> str:
        # (a typographic apostrophe is the apostrophe: "Alzheimer’s disease" had been "alzheimer s disease")
        text = unaccented(unicodedata.normalize("NFKC", text).replace("\u2019", "'"))
        if "\\" in text:
            text = _LATEX_FORMAT.sub("", text).replace("{", "").replace("}", "")
        caps = {m.lower() for m in (*_CAPS_S.findall(text), *_NAME_S.findall(text))}
        # "LLMs", "GPUs": the plural of an acronym, which the lower-case rules would miss.
        text = _ACRONYM_PLURAL.sub(r"\1", text).lower()
        text = _RUN_BOTH_SIDES.sub(r"\1", text)
        text = _DASHES.sub(" ", text)
        text = _NON_WORD.sub(" ", text)
        words = _SPACES.sub(" ", text).strip(_EDGE_PUNCT).split()
        words = _join_pretrain(words)
        # Each rule may expose another's word ("the models of" -> "models" -> "model"): repeat
        # until nothing changes, so that a key is its own key.
        for _ in range(_MAX_PASSES):
            before = words
            words = [self._spell(w) for w in self._trim(words)]
            if words and words[-1] not in caps and not keeps_plural(words):
                words[-1] = self._spell(self._singular(words[-1]))
            if words == before:
                break
        return " ".join(words)

    def _trim(self, words: list[str]) -> list[str]:
        """``words`` without edge punctuation, leading determiners, naming and framing words, and
        trailing function words."""
        start, end = 0, len(words)
        while end - start > 1 and (
            words[start] in self.leading
            or words[start] in self.framing
            or (words[start] in self.naming and tuple(words[start : start + 2]) not in self.naming_kept)
            or not words[start].strip(_EDGE_PUNCT)
        ):
            start += 1
        while end - start > 1 and (words[end - 1] in self.function or not words[end - 1].strip(_EDGE_PUNCT)):
            end -= 1
        hardware = end > start and words[end - 1] in self._hardware_last  # (a join only for these)
        if hardware and f" {' '.join(words[start:end])}".endswith(self.hardware_heads):
            # "2 048 nvidia h800 gpu", "multiple high end gpu": how many and what sort, not which
            while end - start > 1 and (words[start] in self.hardware_modifiers or _COUNT.fullmatch(words[start])):
                start += 1
            words = [w for w in words[start:end] if not _MEMORY.fullmatch(w)]  # "a100 80gb gpu"
            start, end = 0, len(words)
        out = words[start:end]
        if out:
            out[0] = out[0].lstrip(_EDGE_PUNCT) or out[0]
            out[-1] = out[-1].rstrip(_EDGE_PUNCT) or out[-1]
        return out

    def key(self, text: str) -> str:
        """The concept key of ``text``: :meth:`surface`, then any forced alias."""
        surface = self.surface(text)
        return self.aliases.force.get(surface, surface)

    def resolve(self, short: str, long_key: str) -> str:
        """Key of an acronym defined in the text as ``long_key``, unless an alias forbids it or names
        the concept by the short form itself (``bilingual evaluation understudy -> bleu``: no
        abstract's spelling of the long form, "Bilin-gual ...", keys BLEU apart).

        >>> Normaliser().resolve("BLEU", "bilin gual evaluation understudy")
        'bleu'
        """
        short_key = self.surface(short)
        if (short_key, long_key) in self.aliases.forbid or short_key in self._alias_targets:
            return self.key(short)
        return self.aliases.force.get(long_key, long_key)

    def is_generic(self, key: str) -> bool:
        """True for keys that are not concepts: empty, a letter ("R", "Δ": a variable, the letter of an
        item or a formula), stop-listed, only stop and function words ("and",
        "into"), a framing word alone ("enhancing", "leveraging"), a natural language, the material of a
        study ("Bulgarian" had been a Technique of 51 ACL papers, "English language" a Dataset of 27
        arXiv ML papers), a size ("7b", "8x7b": the default
        sample had "7B" from "models from 7B to 32B parameters" as a Dataset), or a size of a kind of
        model ("7B LLMs", "7B-parameter models": the "7B" of "7B and 70B LLMs" had been a concept of 2
        papers of the default sample, named "7B").

        >>> n = Normaliser()
        >>> n.is_generic("7b large language model"), n.is_generic("7b parameter model"), n.is_generic("mistral 7b")
        (True, True, False)
        >>> n.is_generic("bulgarian"), n.is_generic("english language"), n.is_generic("bulgarian hate speech")
        (True, True, False)
        >>> n.is_generic("r"), n.is_generic("t5")
        (True, False)
        """
        words = key.split()
        return (
            not words
            or len(key) < 2
            or key in self.stop
            or key in self.framing
            or key in self.languages
            or (len(words) == 2 and words[1] == "language" and words[0] in self.languages)
            or all(w in self.stop or w in self.function for w in words)
            or not any(c.isalpha() for c in key)
            or _SIZE.fullmatch(key) is not None
            or (_SIZE.fullmatch(words[0]) is not None and self._a_kind_of_model(words[1:]))
        )

    def _a_kind_of_model(self, words: list[str]) -> bool:
        """ "large language model", "parameter model", "model": what a size is the size of."""
        rest = " ".join(words[1:] if words[:1] == ["parameter"] else words)
        return rest in self.class_heads or rest in self.generic_heads or rest == "language model"

    def nouns_of(self, gerund: str) -> list[str]:
        """The nouns that may name the doing of ``gerund`` before an object, the likeliest first
        (``gerund_nouns``, ``verbal_gerunds``; only a noun some key has is ever taken).

        >>> n = Normaliser()
        >>> n.nouns_of("detecting")[:1], n.nouns_of("learning")[:1], n.nouns_of("synthesizing")[:1]
        (['detection'], ['learning'], ['synthesis'])
        >>> "quantification" in n.nouns_of("quantifying"), "alignment" in n.nouns_of("aligning")
        (True, True)
        >>> "reasoning" in n.nouns_of("reasoning"), n.nouns_of("thing"), n.nouns_of("model")
        (False, [], [])
        """
        nouns = list(nouns_of_action(gerund))
        if not nouns:
            return []
        if gerund in self.gerund_nouns:
            nouns.insert(0, self.gerund_nouns[gerund])
        return [gerund, *nouns] if gerund in self.verbal_gerunds else nouns

    def _spell(self, word: str) -> str:
        if word in self.spelling:
            return self.spelling[word]
        for british, american in (
            ("isation", "ization"),
            ("isations", "izations"),
            ("ising", "izing"),
            ("iser", "izer"),
        ):
            if word.endswith(british) and len(word) > len(british) + 2:
                stem = word[: -len(british)]
                return word if stem.endswith(_ISE_ONLY) else stem + american
        return word

    def singular(self, word: str) -> str:
        """``word`` as a key writes its last word: "approaches" -> "approach", "studies" -> "study"."""
        return self._spell(self._singular(word))

    def _singular(self, word: str) -> str:
        if word in self.plurals:
            return self.plurals[word]
        if len(word) <= 3 or not word.endswith("s") or not word.isalpha():
            return word
        if word.endswith(("ness", *self._invariant_ends)):
            return word
        if word.endswith("ies") and len(word) > 4:
            return word[:-3] + "y"
        if word.endswith(("sses", "ches", "shes", "xes")):
            return word[:-2]
        # "analyses", "hypotheses", "biases": plurals of words that end in -s themselves
        if word.endswith(("yses", "theses")):
            return word[:-2] + "is"
        if word.endswith("es") and word[:-2] in self.invariant:
            return word[:-2]
        if word.endswith(("ss", "us", "is")):
            return word
        return word[:-1]


def unaccented(text: str) -> str:
    """``text`` with its Latin letters unaccented, as authors write a name either way ("Fréchet" and
    "Frechet", "Rényi" and "Renyi"); letters of other scripts keep their marks (a kana's voicing
    mark makes another word).

    >>> unaccented("Fréchet, naïve, Erdős, Łukasiewicz, ガウス")
    'Frechet, naive, Erdos, Łukasiewicz, ガウス'
    """
    return text if text.isascii() else "".join(map(_unaccented_letter, text))


@functools.cache
def _unaccented_letter(char: str) -> str:
    parts = unicodedata.normalize("NFD", char)
    base, marks = parts[0], parts[1:]
    return base if marks and base.isascii() and all(unicodedata.combining(m) for m in marks) else char


def nouns_of_action(word: str) -> tuple[str, ...]:
    """The nouns that may name the action of a verb's -ing form, made by their endings: "detecting" ->
    "detection", "optimizing" -> "optimization", "classifying" -> "classification", "deploying" ->
    "deployment" (a caller keeps those that are words it knows).

    >>> nouns_of_action("detecting")[0], "classification" in nouns_of_action("classifying"), nouns_of_action("thing")
    ('detection', True, ())
    """
    if not word.endswith("ing") or len(word) < 6:
        return ()
    stem = word[:-3]
    nouns = (f"{stem}ion", f"{stem}ation", f"{stem}ment", f"{stem}ement")
    return (*nouns, f"{stem[:-1]}ication") if stem.endswith("y") else nouns


def keeps_final_s(text: str) -> bool:
    """True when ``text`` holds a word whose final s is kept only while it is written so: an
    acronym in capitals ("RKHS") or a name with a capital inside ("OntoNotes"). Their keys are no
    keys of themselves: in lower case, the s reads as a plural.

    >>> keeps_final_s("RKHS"), keeps_final_s("OntoNotes"), keeps_final_s("LLMs"), keeps_final_s("notes")
    (True, True, False, False)

    Read unaccented, as keys are: "aAés" is keyed "aaes", as "aAes" is.

    >>> keeps_final_s("aAés")
    True
    """
    text = unaccented(text)
    return bool(_CAPS_S.search(text) or _NAME_S.search(text))


def keeps_plural(words: Sequence[str]) -> bool:
    """True when the last word is the object of "of", whose number is part of the name.

    "mixture of experts", "bag of words", "chain of thoughts" name one thing with many parts;
    the head is the word before "of" ("mixture"). A plural elsewhere is made singular.

    >>> keeps_plural("mixture of experts".split()), keeps_plural("expert models".split())
    (True, False)
    """
    return len(words) > 2 and words[-2] == "of"


def written_as_name(text: str) -> bool:
    """ "BERT", "ResNet", "GPT-2", "word2vec": a capital after the first letter, or a digit beside letters.

    >>> written_as_name("DeepSeek-R1"), written_as_name("Transformer"), written_as_name("4")
    (True, False, False)
    """
    return any(c.isupper() for c in text[1:]) or (any(c.isdigit() for c in text) and any(c.isalpha() for c in text))


def doubled_word(key: str) -> str:
    """The first word of ``key`` that follows itself, or "": "drug" of "drug drug interaction".

    >>> doubled_word("drug drug interaction"), doubled_word("vision language action model model")
    ('drug', 'model')
    """
    return next((a for a, b in pairwise(key.split()) if a == b), "")


def undoubled(key: str, word: str | None = None) -> str:
    """``key`` with a word that follows itself written once (only ``word``, if given).

    >>> undoubled("large language model model"), undoubled("drug drug model model", "model")
    ('large language model', 'drug drug model')
    """
    words = key.split()
    return " ".join(w for i, w in enumerate(words) if not i or w != words[i - 1] or (word is not None and w != word))


def repeats_words(key: str) -> bool:
    """True when a run of two or more words occurs twice in ``key``.

    An acronym expanded inside a mention that already spells it out repeats its long form:
    "question-answering dataset SQuAD" would key as "question answering dataset stanford question
    answering dataset".

    >>> repeats_words("neural network neural network"), repeats_words("neural network training")
    (True, False)
    """
    words = key.split()
    for n in range(2, len(words) // 2 + 1):
        seen = set()
        for i in range(len(words) - n + 1):
            gram = tuple(words[i : i + n])
            if gram in seen:
                return True
            seen.add(gram)
    return False


def _join_pretrain(words: list[str]) -> list[str]:
    """ "pre train", "pre-trained" (dashes are spaces by now) -> "pretrain", "pretrained"."""
    out: list[str] = []
    for w in words:
        if out and out[-1] == "pre" and w.startswith("train"):
            out[-1] = "pre" + w
        else:
            out.append(w)
    return out
