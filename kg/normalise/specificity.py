"""How specific a term is: document frequencies in reference corpora and in the run.

The shipped table ``config/refdf.tsv.gz`` (built by :mod:`kg.normalise.refdf`) counts in how
many abstracts of two reference corpora each term key occurs: ACL Anthology abstracts from
2016 on (CC BY 4.0) and arXiv machine-learning abstracts 2024-2026 (CC0). Keys are folded as
:meth:`kg.normalise.Normaliser.surface` folds them, so a concept key looks its term up directly.

Specificity is a normalised inverse document frequency over the reference corpora with the
run's papers pooled in (as if they were more reference documents)::

    df = df_ref(key) + run_df          N = n_ref + run_docs
    specificity = log((N + 1) / (df + 1)) / log(N + 1)

It is 1 for a term no document has, 0 for one every document has, and falls as the term gets
commoner; the reference corpora outweigh a small run, while a large run in another field moves
its own common terms down.
"""

from __future__ import annotations

import gzip
import importlib
import math
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from spacy.lang.en.stop_words import STOP_WORDS

from kg.config import config_path
from kg.errors import ConfigError
from kg.normalise.keys import Normaliser, nouns_of_action

#: The shipped table, in ``config/``.
TABLE = "refdf.tsv.gz"


@dataclass(frozen=True, slots=True)
class ReferenceDF:
    """Document frequencies of term keys in named reference corpora.

    >>> ref = ReferenceDF(("a", "b"), (10, 20), {"bert": (4, 2)})
    >>> ref.df("bert"), ref.df("bert", "a"), ref.df("unseen"), ref.n_docs
    (6, 4, 0, 30)
    >>> round(ref.rate("bert", "b"), 2)
    0.1
    """

    corpora: tuple[str, ...]
    sizes: tuple[int, ...]
    counts: dict[str, tuple[int, ...]]

    @property
    def n_docs(self) -> int:
        """Documents in all reference corpora together."""
        return sum(self.sizes)

    def df(self, key: str, corpus: str | None = None) -> int:
        """Documents that have ``key``: in all corpora, or in the one named (0 when unseen)."""
        counts = self.counts.get(key)
        if counts is None:
            return 0
        return sum(counts) if corpus is None else counts[self._index(corpus)]

    def rate(self, key: str, corpus: str) -> float:
        """Share of the documents of ``corpus`` that have ``key``."""
        return self.df(key, corpus) / self.sizes[self._index(corpus)]

    def _index(self, corpus: str) -> int:
        try:
            return self.corpora.index(corpus)
        except ValueError:
            raise ConfigError(f"no reference corpus {corpus!r}; the table has {', '.join(self.corpora)}") from None


def load_reference_df(path: str | Path) -> ReferenceDF:
    """Read a table written by :mod:`kg.normalise.refdf`."""
    path = Path(path)
    sizes: dict[str, int] = {}
    counts: dict[str, tuple[int, ...]] = {}
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                parts = line.rstrip("\n").split("\t")
                if line.startswith("# docs"):
                    sizes = {name: int(n) for name, _, n in (p.partition("=") for p in parts[1:]) if name != "min_df"}
                elif line.startswith("#") or (lineno <= 3 and parts[0] == "key"):
                    continue
                else:
                    counts[parts[0]] = tuple(int(x) for x in parts[1:])
    except (OSError, ValueError, EOFError) as exc:
        raise ConfigError(f"{path}: not a reference document-frequency table ({exc})") from exc
    if not sizes:
        raise ConfigError(f"{path}: no '# docs' header naming the corpora and their sizes")
    return ReferenceDF(tuple(sizes), tuple(sizes.values()), counts)


@lru_cache(maxsize=1)
def reference_df() -> ReferenceDF:
    """The shipped reference table (read once per process)."""
    return load_reference_df(config_path(TABLE))


def specificity(key: str, *, run_df: int | None = None, run_docs: int | None = None,
                ref: ReferenceDF | None = None) -> float:  # fmt: skip
    """Specificity of a term key in [0, 1]; see the module doc for the formula.

    Parameters
    ----------
    key
        A concept key.
    run_df, run_docs
        Papers of the run that mention the concept, and papers in the run (both or neither).
    ref
        The reference table; the shipped one by default.

    Examples
    --------
    >>> ref = ReferenceDF(("a",), (99,), {"model": (99,), "bert": (9,)})
    >>> specificity("model", ref=ref), round(specificity("bert", ref=ref), 3), specificity("xyz", ref=ref)
    (0.0, 0.5, 1.0)
    >>> round(specificity("bert", run_df=90, run_docs=100, ref=ref), 3)
    0.131
    """
    ref = ref or reference_df()
    if (run_df is None) != (run_docs is None):
        raise ValueError(f"give run_df and run_docs together (got run_df={run_df}, run_docs={run_docs})")
    n = ref.n_docs + (run_docs or 0)
    df = ref.df(key) + (run_df or 0)
    return max(0.0, math.log((n + 1) / (df + 1)) / math.log(n + 1))


#: A word in this share of the reference abstracts is common (:func:`closed_up`).
COMMON_WORD = 0.01


def closed_up(key: str) -> str:
    """``key`` without its spaces, as spellings of one compound fold ("data set", "dataset"); kept as
    it is where a letter of it for a word makes a common word by chance ("multipl e", the benchmark
    MultiPL-E, is no "multiple", in 15% of the reference abstracts).

    >>> closed_up("data set"), closed_up("r cnn"), closed_up("multipl e")
    ('dataset', 'rcnn', 'multipl e')
    """
    form = key.replace(" ", "")
    if form != key and any(len(w) == 1 and w.isalpha() for w in key.split(" ")):
        ref = reference_df()
        if ref.df(form) >= COMMON_WORD * ref.n_docs:
            return key
    return form


_ACRONYM = re.compile(r"^(?=(?:[^A-Z]*[A-Z]){2})[A-Za-z0-9][A-Za-z0-9.\-]*$")


def is_acronym(form: str) -> bool:
    """ "BLEU", "DLMs", "GPT-4": one word, two capitals or more, at least half its letters ("State-of-the-Art": no)."""
    if not _ACRONYM.match(form):  # (most forms: the counts below cost more)
        return False
    return 2 * sum(c.isupper() for c in form) >= sum(c.isalpha() for c in form)


_BRACKETED = re.compile(r"\(\s*([^()\s]+)\s*\)\s*$")


def writes_acronym(form: str) -> bool:
    """Whether a mention's text names its concept by an acronym, alone or defined in brackets.

    >>> writes_acronym("PTMs"), writes_acronym("pre-trained models (PTMs)"), writes_acronym("pre-trained models")
    (True, True, False)
    """
    form = form.strip()
    bracketed = _BRACKETED.search(form)
    return is_acronym(form) or (bracketed is not None and is_acronym(bracketed.group(1)))


@dataclass(frozen=True, slots=True)
class GenericTerms:
    """Which concepts are generic: made only of general academic words (``config/generic.toml``).

    >>> g = GenericTerms(frozenset({"computational", "cost", "downstream", "task"}))
    >>> g.is_generic("computational cost"), g.is_generic("downstream task"), g.is_generic("task")
    (True, True, True)
    >>> g.is_generic("knowledge distillation"), g.is_generic("computational cost", forms=["CC"])
    (False, False)

    A word in capitals is no acronym ("COST" of a title in capitals):

    >>> g.is_generic("cost", forms=["COST"])
    True
    """

    #: General academic words, folded as keys fold them, that are common in every reference corpus.
    words: frozenset[str]
    #: Keys that are never generic (gazetteer entries).
    known: frozenset[str] = frozenset()
    #: Acronyms that abbreviate general phrases, lower-cased ("sota"): they do not make a concept specific.
    general_acronyms: frozenset[str] = frozenset()
    #: Head words that say what kind of artefact a phrase names ("framework", "method", "model").
    kind_heads: frozenset[str] = frozenset()
    #: Second parts of compound adjectives that name a property ("-based", "-free", "-driven").
    property_words: frozenset[str] = frozenset()
    #: Every listed modifier ("large", "real", "high"), common in the reference corpora or not.
    modifiers: frozenset[str] = frozenset()
    #: Prefixes written as words that make a compound adjective ("multi-agent", "non-linear").
    prefix_words: frozenset[str] = frozenset()
    #: Adjectives of the field ("neural", "large", "pretrained").
    adjectives: frozenset[str] = frozenset()
    #: Those and the ends of compound adjectives ("end-to-end", "zero-shot"): no name ends in one.
    adjective_ends: frozenset[str] = frozenset()
    #: Names of the whole field ("machine learning", "deep learning"), places ("India"), what any
    #: paper of the field does ("human evaluation"), organisations ("GitHub"), kinds of paper
    #: ("survey"), phrases of prose ("lens", "vice versa") and adjectives alone ("autoregressive"):
    #: generic however written.
    fields: frozenset[str] = frozenset()
    #: Adjectives that name nothing alone ("autoregressive", "multimodal", "clinical"; in ``fields`` too):
    #: a key that ends in one qualifies what was cut from it.
    adjectives_alone: frozenset[str] = frozenset()
    #: Ends of compound adjectives that qualify and name nothing ("end", "specific"; "-based" and the
    #: others of ``property_words`` count too): a concept named by such a compound is an adjective alone.
    compound_ends: frozenset[str] = frozenset()
    #: Nouns of adverbial phrases ("manner", "fashion"): a key ending in one says how, not what.
    adverbial_heads: frozenset[str] = frozenset()
    #: Heads that say how work is organised ("framework", "approach"): with an adjective alone before
    #: them, generic.
    vague_heads: frozenset[str] = frozenset()
    #: Endings of adjectives ("-al", "-ic", "-ive"): "hierarchical", "probabilistic", "generative".
    adjective_suffixes: tuple[str, ...] = ()
    #: A one-word concept is generic when fewer of the run's papers have it as a concept than this
    #: share of those expected to have its word at all (:meth:`rarely_a_term`)...
    min_termhood: float = 0.0
    #: ... where the run is expected to have its word in this many papers at least.
    termhood_support: float = math.inf
    #: A name (one word with a capital) that this many of its papers introduce at least...
    reuse_min: float = math.inf
    #: ... and this share of them, is a name each gives its own thing (:meth:`reused_name`).
    reuse_share: float = 1.0
    #: The names of the whole field alone (``fields`` of the config): followed by general words only,
    #: a key names nothing more ("machine learning models", "AI solutions").
    field_names: frozenset[str] = frozenset()
    #: Words in -ly that are no adverbs ("early", "anomaly", "supply"): :meth:`adverb_phrase`.
    not_adverbs: frozenset[str] = frozenset()
    #: Classes of models named in several words ("large language model"), of which a licence or a
    #: purpose (``class_properties``) names no kind: "open-source LLMs", "general-purpose VLMs".
    kind_classes: frozenset[str] = frozenset()
    #: Those second parts of compound adjectives ("source", "weight", "purpose"; not "based" or "aware":
    #: "diffusion-based LMs", "speech-aware LLMs" are kinds).
    class_properties: frozenset[str] = frozenset()
    #: A key that is one of ``numbered_parts`` and labels only ("subtask b", "task 1a", "task7"):
    #: see :meth:`is_generic`. Matches nothing when there are none.
    numbered: re.Pattern[str] = re.compile("(?!)")
    #: A key that names an edition of one of ``campaigns`` alone ("semeval 2024", "ntcir 18"):
    #: see :meth:`is_generic`. Matches nothing when there are none.
    event: re.Pattern[str] = re.compile("(?!)")

    def is_generic(self, key: str, forms: Iterable[str] = ()) -> bool:
        """True when every word of ``key`` is general and no form of it is an acronym or a known name.

        >>> g = GenericTerms(frozenset({"state", "art"}), general_acronyms=frozenset({"sota"}))
        >>> g.is_generic("state of the art", forms=["state-of-the-art", "SOTA", "SotA", "SOTAs"])
        True

        A kind of artefact named by a property only is generic too:

        >>> g = GenericTerms(frozenset(), kind_heads=frozenset({"framework"}), property_words=frozenset({"free"}))
        >>> g.is_generic("training free framework"), g.is_generic("free framework")
        (True, False)

        The names of the whole field are generic whatever their words, acronym or gazetteer name:

        >>> GenericTerms(frozenset(), fields=frozenset({"deep learning"})).is_generic("deep learning", forms=["DL"])
        True

        A verb's -ing form alone is as general as the noun of its action: a coordination cuts it from
        its object ("detecting and mitigating hallucinations": "detecting", 296 arXiv ML papers).

        >>> g = GenericTerms(frozenset({"detection", "optimization"}))
        >>> g.is_generic("detecting"), g.is_generic("optimizing"), g.is_generic("clustering")
        (True, True, False)

        So is a compound adjective alone, written as one (its name, the first of ``forms``), which
        qualifies a concept but names none; "at the sentence level" names a level:

        >>> g = GenericTerms(frozenset(), compound_ends=frozenset({"end", "level"}))
        >>> g.is_generic("end to end", ["end-to-end"]), g.is_generic("sentence level", ["sentence level"])
        (True, False)
        """
        if key in self.fields or self.numbered.fullmatch(key) or self.event.fullmatch(key):
            return True  # "subtask b", "sub task 2": a label of a part of a shared task; "semeval 2024"
        words = key.split()
        if not words or key in self.known:
            return False
        if len(words) > 1 and self.adjective_phrase(words):
            return True  # "large-scale multimodal", "real-world clinical"
        if self.adverb_phrase(words):
            return True  # "fully automated", "differentially private"
        if len(words) > 1 and words[-1] in self.adverbial_heads:
            return True  # "end-to-end manner", "self-supervised fashion"
        forms = list(forms)  # (read more than once below)
        name = forms[0] if forms else ""
        if len(words) > 1 and self._compound_adjective(name, words[-1]):
            return True
        if len(words) > 1 and words[-1] in self.vague_heads and self._qualifier(words[:-1], name):
            return True  # "hierarchical framework", "end-to-end framework", "two-stage pipeline"
        general = self.general_acronyms
        # (a word in capitals is no acronym: "CLASSIFIER" of a title in capitals, ACL's 1960s-80s)
        shouted = (key, f"{key}s")
        if any(is_acronym(f) and f.lower() not in general and f[:-1].lower() not in general
               and f.lower() not in shouted for f in forms):  # fmt: skip
            return False
        if len(words) > 2 and any(key.startswith(f"{f} ") and self._general(key[len(f) + 1 :].split())
                                  for f in self.field_names):  # fmt: skip
            return True  # "machine learning models", "artificial intelligence solutions", "AI development"
        if self._kind_by_property(words):
            return True  # "training-free framework", "LLM-based framework", "open-source LLMs"
        if len(words) == 1 and any(noun in self.words for noun in nouns_of_action(key)):
            return True  # "detecting" (of "detecting and mitigating hallucinations"), as "detection" is
        return self._general(words)

    def _kind_by_property(self, words: list[str]) -> bool:
        """Whether ``words`` (of a key) end in a kind of artefact, one of ``kind_heads``, after the second
        part of a compound adjective, one of ``property_words`` ("training free framework"), or in one
        of ``kind_classes`` after one of ``class_properties`` ("open source large language model"). On
        10,000 arXiv ML papers of 2026, "general-purpose LLMs" had been the only concept 323 paper links
        shared, "open-weight LLMs" 160.

        >>> g = GenericTerms(frozenset(), kind_heads=frozenset({"model"}),
        ...                  property_words=frozenset({"source", "based"}), kind_classes=frozenset({"language model"}),
        ...                  class_properties=frozenset({"source"}))
        >>> g._kind_by_property("open source model".split()), g._kind_by_property("open source language model".split())
        (True, True)
        >>> g._kind_by_property("source model".split()), g._kind_by_property("diffusion based language model".split())
        (False, False)
        """
        for i in range(1, len(words) - 1):
            kind = words[i + 1 :]
            if len(kind) == 1 and kind[0] in self.kind_heads and words[i] in self.property_words:
                return True
            if words[i] in self.class_properties and " ".join(kind) in self.kind_classes:
                return True
        return False

    def _general(self, words: list[str]) -> bool:
        """Whether ``words`` are general words (or stop words), one of them at least a general word; two
        words that close up into a general word are that word ("data set" is "dataset": a concept of 27
        of 5,000 ACL papers that "dataset" alone, generic, did not flag, and a word a PDF split,
        "evaluat ion").

        >>> g = GenericTerms(frozenset({"dataset", "data", "large"}))
        >>> [g._general(key.split()) for key in ("large data set", "data set", "parallel data set")]
        [True, True, False]
        """
        closed: list[str] = []
        for w in words:
            if closed and closed[-1] + w in self.words:
                closed[-1] += w
            else:
                closed.append(w)
        return all(w in self.words or w in STOP_WORDS for w in closed) and any(w in self.words for w in closed)

    def rarely_a_term(self, key: str, forms: Iterable[str], *, run_df: int, run_docs: int,
                      ref: ReferenceDF | None = None) -> bool:  # fmt: skip
        """Whether a one-word concept is a common word that the run seldom makes a concept of alone.

        The word's share of the reference abstracts (``ref``, pooled) says in how many of the run's
        ``run_docs`` papers it is expected at all; a research concept is a concept in a good part of
        them ("hallucination": 485 of the 4,007 arXiv ML abstracts with the word, 12%), a common word
        in few: "human" in 224 of 27,293 (0.8%), from "human models", "Humans" and "human
        strategies" cut down to it. Concepts named by an acronym (the first of ``forms``) and
        gazetteer names never are ("PRISM", "BERT").

        >>> ref = ReferenceDF(("a",), (1000,), {"human": (200,), "hallucination": (30,)})
        >>> g = GenericTerms(frozenset(), min_termhood=0.02, termhood_support=20)
        >>> g.rarely_a_term("human", ["humans"], run_df=3, run_docs=1000, ref=ref)  # 3 of 200 expected
        True
        >>> g.rarely_a_term("hallucination", ["hallucinations"], run_df=3, run_docs=1000, ref=ref)
        False
        >>> g.rarely_a_term("human", ["humans"], run_df=1, run_docs=50, ref=ref)  # 10 expected: too few to tell
        False
        >>> g.rarely_a_term("human", ["HUMAN"], run_df=3, run_docs=1000, ref=ref)
        False
        >>> g.rarely_a_term("human", ["human", "HUMAN", "human (HT)"], run_df=3, run_docs=1000, ref=ref)
        True
        """
        name = next(iter(forms), "")  # (its name, not any alias: "HUMAN" of a title in capitals)
        if " " in key or key in self.known or writes_acronym(name):
            return False
        ref = ref or reference_df()
        expected = run_docs * ref.df(key) / ref.n_docs
        return expected >= self.termhood_support and run_df < self.min_termhood * expected

    def reused_name(self, name: str, *, introduced: int, papers: int) -> bool:
        """Whether ``name`` is one that many papers each give their own thing.

        ``introduced`` of the concept's ``papers`` open their title with it, as the name of their own
        work ("PRISM: Efficient Long-Range Reasoning..."). A name that many of its papers introduce
        names no one thing: on the arXiv ML corpus 67 of the 116 papers with PRISM do (a model
        checker, a benchmark, a clinical model...), and they were all linked through it.

        >>> g = GenericTerms(frozenset(), reuse_min=3, reuse_share=0.25)
        >>> g.reused_name("PRISM", introduced=67, papers=116), g.reused_name("CLIP", introduced=2, papers=1351)
        (True, False)
        >>> g.reused_name("large language model", introduced=900, papers=1000)  # no name
        False
        """
        name = name.strip()
        if " " in name or name.islower():
            return False
        return introduced >= self.reuse_min and introduced >= self.reuse_share * papers

    def adjective_phrase(self, words: list[str]) -> bool:
        """Whether ``words`` (of a key) are adjectives only, the last one an adjective alone: what they
        qualified was cut away ("large-scale multimodal datasets" -> "large scale multimodal", 107
        arXiv ML papers; "medical multimodal", "visual autoregressive", "unified multi-modal").
        A prefix joins the word after it.

        >>> g = GenericTerms(frozenset(), modifiers=frozenset({"large", "scale", "real", "world", "unified"}),
        ...                  adjectives_alone=frozenset({"multimodal", "clinical", "open"}),
        ...                  prefix_words=frozenset({"multi"}))
        >>> g.adjective_phrase("large scale multimodal".split()), g.adjective_phrase("unified multi modal".split())
        (True, True)
        >>> g.adjective_phrase("open world".split()), g.adjective_phrase("real world traffic".split())
        (False, False)
        """
        joined: list[str] = []
        for w in words:
            if joined and joined[-1] in self.prefix_words:
                joined[-1] += w
            else:
                joined.append(w)
        *before, last = joined
        qualifiers = self.modifiers | self.adjectives | self.adjectives_alone
        return last in self.adjectives_alone and all(w in qualifiers for w in before)

    def adverb_phrase(self, words: list[str]) -> bool:
        """Whether ``words`` (of a key) are an adverb in -ly and the adjective or participle it
        qualifies: what they qualified was cut away, or a head the keys strip had named ("fully
        automated pipelines" -> "fully automated", a Technique of 19 of 10,000 arXiv ML papers).

        >>> g = GenericTerms(frozenset(), adjective_suffixes=("ic", "ate"), not_adverbs=frozenset({"early"}))
        >>> g.adverb_phrase(["fully", "automatic"]), g.adverb_phrase(["differentially", "private"])
        (True, True)
        >>> g.adverb_phrase(["early", "stopping"]), g.adverb_phrase(["anomaly", "detection"])
        (False, False)
        """
        if len(words) != 2:
            return False
        adverb, word = words
        if len(adverb) < 5 or not adverb.endswith("ly") or adverb in self.not_adverbs:
            return False
        if word in self.modifiers or word in self.adjectives or word in self.adjectives_alone:
            return True
        return word.endswith((*self.adjective_suffixes, *_PARTICIPLE_ENDINGS))

    def _qualifier(self, rest: list[str], name: str) -> bool:
        """Whether ``rest``, the words before a key's head, are one adjective ("hierarchical"), an
        adverb and its adjective ("fully automated") or, in the ``name`` (its first word), one
        compound adjective ("end-to-end", "two-stage")."""
        if len(rest) == 1:
            word = rest[0]
            if word in self.modifiers or word in self.adjectives:
                return True
            return len(word) > 5 and word.endswith(self.adjective_suffixes)
        if self.adverb_phrase(rest):
            return True
        first = name.strip().split(" ")[0].lower()
        return first.count("-") == len(rest) - 1 and self._compound_adjective(first, rest[-1])

    def _compound_adjective(self, name: str, last: str) -> bool:
        """ "end-to-end", "domain-specific", "rule-based": one hyphenated word, ending in the key's last
        word, which ends compound adjectives."""
        ends = last in self.compound_ends or last in self.property_words
        return ends and " " not in name.strip() and name.lower().endswith(f"-{last}")


#: Endings of participles and adjectives that an adverb in -ly qualifies: "fully automated", "cognitively
#: demanding", "socially intelligent", "differentially private", "statistically optimal".
_PARTICIPLE_ENDINGS = ("ed", "ing", "ent", "ant", "ate", "al", "ful", "less")


def load_generic(path: str | Path | None = None, *, ref: ReferenceDF | None = None,
                 known: Iterable[str] = ()) -> GenericTerms:  # fmt: skip
    """Read the general academic words of ``config/generic.toml``, keeping those common in ``ref``."""
    path = Path(path) if path else config_path("generic.toml")
    try:
        conf = tomllib.loads(path.read_text(encoding="utf-8"))
        min_rate = float(conf.get("min_rate", 0.0))
        listed = [str(w) for w in [*conf.get("heads", []), *conf.get("modifiers", [])]]
        acronyms = frozenset(str(a).lower() for a in conf.get("general_acronyms", []))
        adjectives = [str(w) for w in conf.get("adjectives", [])]
        adjective_ends = [str(w) for w in conf.get("adjective_ends", [])]
        kinds = [str(w) for w in conf.get("kind_heads", [])]
        classes = [str(w) for w in conf.get("kind_classes", [])]
        class_properties = [str(w) for w in conf.get("class_properties", [])]
        properties = [str(w) for w in conf.get("property_words", [])]
        modifiers = [str(w) for w in conf.get("modifiers", [])]
        prefixes = [str(w) for w in conf.get("prefix_words", [])]
        whole = ("fields", "places", "practices", "organisations", "genres", "idioms", "adjectives_alone")
        field_names = [str(w) for w in conf.get("fields", [])]
        fields = [str(w) for name in whole for w in conf.get(name, [])]
        alone = [str(w) for w in conf.get("adjectives_alone", [])]
        compound_ends = [str(w) for w in conf.get("compound_ends", [])]
        adverbial = [str(w) for w in conf.get("adverbial_heads", [])]
        vague = [str(w) for w in conf.get("vague_heads", [])]
        suffixes = tuple(str(w) for w in conf.get("adjective_suffixes", []))
        min_termhood = float(conf.get("min_termhood", 0.0))
        support = float(conf.get("termhood_support", math.inf))
        reuse_min = float(conf.get("reuse_min", math.inf))
        reuse_share = float(conf.get("reuse_share", 1.0))
        not_adverbs = frozenset(str(w) for w in conf.get("not_adverbs", []))
        parts = [str(w) for w in conf.get("numbered_parts", [])]
        campaigns = [str(w) for w in conf.get("campaigns", [])]
    except (tomllib.TOMLDecodeError, TypeError, ValueError) as exc:
        raise ConfigError(
            f"{path}: expected min_rate and lists of words heads, modifiers, general_acronyms, kind_heads"
            f", kind_classes, class_properties, property_words, prefix_words, adjectives, adjective_ends, fields,"
            f" places, practices, organisations, genres, idioms, adjectives_alone, compound_ends, adverbial_heads,"
            f" vague_heads, adjective_suffixes, not_adverbs, numbered_parts and campaigns, and numbers min_termhood,"
            f" termhood_support, reuse_min and reuse_share ({exc})"
        ) from exc
    ref = ref or reference_df()
    norm = Normaliser()
    folded = {norm.surface(w) for w in listed} | {norm._spell(w) for w in listed}
    common = {w for w in folded if all(ref.rate(w, c) >= min_rate for c in ref.corpora)}
    return GenericTerms(frozenset(common), frozenset(known), acronyms, frozenset(norm.surface(w) for w in kinds),
                        frozenset(norm.surface(w) for w in properties),
                        frozenset(norm.surface(w) for w in modifiers),
                        frozenset(norm.surface(w) for w in prefixes),
                        frozenset(norm.surface(w) for w in adjectives),
                        frozenset(norm.surface(w) for w in [*adjectives, *adjective_ends]),
                        frozenset(norm.surface(w) for w in fields),
                        frozenset(norm.surface(w) for w in alone),
                        frozenset(norm.surface(w) for w in compound_ends),
                        frozenset(norm.surface(w) for w in adverbial),
                        frozenset(norm.surface(w) for w in vague), suffixes, min_termhood, support,
                        reuse_min, reuse_share,
                        field_names=frozenset(norm.surface(w) for w in field_names),
                        not_adverbs=not_adverbs,
                        kind_classes=frozenset(norm.surface(c) for c in classes),
                        class_properties=frozenset(norm.surface(w) for w in class_properties),
                        numbered=_numbered(norm.surface(w) for w in parts),
                        event=_event(norm.surface(w) for w in campaigns))  # fmt: skip


#: A label: a number, with a letter after it or not, a letter, a roman numeral ("2", "1a", "b", "iii").
_LABEL = r"(?:\d+[a-z]?|[a-z]|[ivx]{1,4})"


def _numbered(parts: Iterable[str]) -> re.Pattern[str]:
    """What matches a key made of a part ("task", written "sub" before it or not, a plural s after
    it or not) and labels only, glued to it or not: "subtask b", "sub task 2", "subtasks 1a and 1b",
    "task7". ``(?!)`` (nothing) without parts.

    >>> p = _numbered(["task", "track"])
    >>> [bool(p.fullmatch(k)) for k in ("subtask b", "sub task 2", "task7", "tasks 1a and 1b", "task", "task vector")]
    [True, True, True, True, False, False]
    """
    names = "|".join(sorted(map(re.escape, parts)))
    if not names:
        return re.compile("(?!)")
    return re.compile(rf"(?:sub ?)?(?:{names})s? ?{_LABEL}(?:,? (?:and |or )?{_LABEL})*")


#: Conferences that hold a campaign's edition ("DravidianLangTech@RANLP 2023", "LT-EDI-ACL2022").
_VENUES = "acl|naacl|eacl|aacl|emnlp|coling|lrec|ranlp|ijcnlp"
#: What may follow an edition and still name it alone ("SemEval-2024 shared task", "... competition").
_EVENT_WORDS = "shared tasks?|tasks?|competitions?|editions?|workshops?|challenges?|campaigns?|labs?|evaluations?"


def _event(campaigns: Iterable[str]) -> re.Pattern[str]:
    """What matches the key of an edition of one of ``campaigns`` named alone: the campaign, a
    venue, a year or number ("semeval 2024", "semeval'24", "lt edi acl2022", "ntcir 18"), and a word
    such as "shared task" after them or not. ``(?!)`` (nothing) without campaigns.

    >>> p = _event(["semeval", "lt edi"])
    >>> [bool(p.fullmatch(k)) for k in ("semeval", "semeval 2024", "semeval'24 shared task", "lt edi acl2022",
    ...                                 "semeval 2024 task", "semeval 2024 task 8", "semeval 2014 dataset")]
    [True, True, True, True, True, False, False]
    """
    names = "|".join(sorted(map(re.escape, campaigns)))
    if not names:
        return re.compile("(?!)")
    return re.compile(rf"(?:{names})(?: ?(?:{_VENUES})?[ ']?\d+)?(?: (?:{_EVENT_WORDS}))?")


@lru_cache(maxsize=1)
def generic_terms() -> GenericTerms:
    """The shipped criterion, with the gazetteer's keys as known names when kg has a gazetteer."""
    return load_generic(known=_gazetteer_keys())


def _gazetteer_keys() -> frozenset[str]:
    # The gazetteer is optional: kg without one simply knows no names.
    try:
        module = importlib.import_module("kg.normalise.gazetteer")
    except ImportError:
        return frozenset()
    return frozenset(module.load_gazetteer().keys)
