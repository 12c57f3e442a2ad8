"""One type per concept, decided across all the mentions of a run.

The NER types each mention from its context, so one concept collects several types
("reinforcement learning": Problem 61, Method 39, Technique 9 on 2,000 arXiv ML abstracts).
Every mention votes for its type with its ``confidence``; a concept the gazetteer knows gets a
strong prior vote for the gazetteer's type: a known dataset or metric (curated or mined names,
see :mod:`kg.normalise.gazetteer`) is decided by the gazetteer alone, a known method, technique
or problem (Papers with Code names) by a vote worth ``PRIOR_MIN`` mentions plus ``PRIOR_SHARE``
of the mentions' total weight, which a few contrary mentions cannot outvote and a clear
majority of the run can; between Method and Technique, a named artefact or a family of them
("CNN" is the family "convolutional neural network", however its mentions are written), the
gazetteer decides alone. A named model ("GPT-4", "Qwen2.5-7B", a model family of the gazetteer
and its versions) is a Method, decided by the gazetteer alone: abstracts write models as what
experiments run "on", and the NER reads them as datasets. A long form the run defines an
acronym for is a dataset where the gazetteer knows the acronym as one and the long form not at
all ("General Language Understanding Evaluation (GLUE)"), and a Method where the acronym names a
model ("Generative Pre-trained Transformer 4 (GPT-4)"); other short names are shared too often
to say ("MAE" is a metric and a masked autoencoder, "HTC" a method and hierarchical text
classification).
A key that ends in a technique or model word (``technique_heads``, ``method_heads`` of
``config/normalise.toml``) names no problem or dataset, whatever its mentions were read as: its
Problem and Dataset votes go to Technique, as ``kg_concepts`` does for a mention that ends in
such a word ("MLLMs", keyed "multimodal large language model"); and a key of two words or more
that ends in a technique word names a family, not one artefact: its Method votes go to Technique
("LLM quantization", "quantization-aware training"). A key whose last word ends in a dataset word
(``dataset_heads``: "MT-Bench", "ToolBench", "retrieval benchmark", "German corpus") names a
dataset: all its votes go to Dataset, as do those of an edition of a series of shared tasks
(``shared_tasks``: "SemEval-2025", "SemEval-2019 Task 6", "WMT14" are benchmarks); a key that ends
in a word of ``hardware_heads`` ("NVIDIA H100 GPUs", "TPU") names hardware: all its votes go to
Hardware; a key of two words or more that ends in a task's action (``task_actions``: "AI-generated
image detection") names a task: its Dataset votes go to Problem. A key the gazetteer does not know
that ends in words of ``problem_words`` is a Problem: a property of models or a phenomenon that
research studies ("fairness", "gender bias", "AI safety", "hate speech", "code-switching"), which
the NER reads as a metric or as another term ("gender bias" was a Technique in 401 mentions on the
ACL corpus, "hate speech" in 1,213, "COVID-19" a Method in 407), unless it ends in one of
``not_problems`` ("differential privacy"); so is a field of study ("robotics", "AI ethics",
"computational linguistics"), as "computer vision" is. A key of two words or more the gazetteer
does not know that ends in a word of ``measure_words`` is a Metric: what an evaluation measures
("pass rate", "worst-group accuracy", "signal-to-noise ratio"), unless it ends in one of
``not_measures``, a setting of training or a number format ("learning rate", "mixed precision").
A number format ("FP16", "INT4", "MXFP4", "W4A16": ``number_formats`` and a bit width) is a
Technique, as "4-bit quantization" is, whatever its mentions were read as.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from functools import lru_cache
from typing import NamedTuple

from kg.config import read_settings
from kg.normalise.gazetteer import Gazetteer
from kg.normalise.keys import Normaliser
from kg.records import Extraction

#: Tie order among types: the more specific reading first.
TYPE_ORDER = ("Method", "Technique", "Problem", "Dataset", "Metric", "Hardware")
#: Types whose gazetteer entries decide alone (curated and mined names, precise).
DECISIVE = frozenset(["Dataset", "Metric", "Hardware"])
#: The two types that tell a named artefact from a family of them.
NAMING = frozenset(["Method", "Technique"])
#: Words of the key of a shared task's edition besides its numbers: "SemEval-2025 shared task".
_EDITION_WORDS = "task|tasks|subtask|shared|track|edition|competition|challenge"
PRIOR_MIN = 3.0
PRIOR_SHARE = 0.5


def decide_types(
    votes: Iterable[tuple[str, str, float]],
    *,
    gazetteer: Gazetteer | None = None,
    known: Mapping[str, str] | None = None,
    short_forms: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The type of each concept key from ``(key, type, confidence)`` votes.

    Parameters
    ----------
    votes
        One ``(concept key, type, confidence)`` per mention.
    gazetteer
        Known concepts; their type is a strong prior (see the module docstring).
    known
        Types already decided (a stored graph's concepts in an incremental run): they stay.
    short_forms
        Long-form key -> key of an acronym the run defines for it (:func:`short_forms`).

    Returns
    -------
    dict
        Concept key -> type, for every key that has a vote.

    Examples
    --------
    >>> from kg.normalise.gazetteer import load_gazetteer
    >>> votes = [("svhn", "Method", 0.5), ("svhn", "Method", 0.5), ("svhn", "Dataset", 1.0),
    ...          ("reinforcement learning", "Problem", 0.5), ("reinforcement learning", "Technique", 0.5),
    ...          ("bert", "Method", 0.5), ("bert", "Technique", 0.5)]
    >>> decide_types(votes, gazetteer=load_gazetteer())
    {'svhn': 'Dataset', 'reinforcement learning': 'Technique', 'bert': 'Method'}
    >>> decide_types([("convolutional neural network", "Method", 1.0)] * 9, gazetteer=load_gazetteer())
    {'convolutional neural network': 'Technique'}
    >>> glue = "general language understanding evaluation"
    >>> decide_types([(glue, "Method", 1.0)] * 9, gazetteer=load_gazetteer(), short_forms={glue: "glue"})
    {'general language understanding evaluation': 'Dataset'}
    >>> gpt4 = "generative pretrained transformer 4"
    >>> decide_types([(gpt4, "Dataset", 1.0)] * 9, gazetteer=load_gazetteer(), short_forms={gpt4: "gpt 4"})
    {'generative pretrained transformer 4': 'Method'}
    """
    weight: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    words = _type_words()
    for key, kind, confidence in votes:
        last = key.rpartition(" ")[2]
        if f" {key}".endswith(words.hardware):  # "NVIDIA H100 GPUs", "edge TPU"
            kind = "Hardware"
        elif words.formats.fullmatch(key):  # "FP16", "INT4", "W4A16": how a model is stored
            kind = "Technique"
        elif last.endswith(words.datasets) or words.editions.fullmatch(key):  # "MT-Bench", "SemEval-2025 Task 3"
            kind = "Dataset"
        elif last == "language" and " " in key and words.languages.issuperset(key.split()[:-1]):
            kind = "Dataset"  # "low-resource languages", "Indic languages": the material of a study
        elif kind in ("Problem", "Dataset") and last in words.heads:
            kind = "Technique"
        elif kind == "Dataset" and last in words.actions and " " in key:
            kind = "Problem"  # "AI-generated image detection": a task, whatever it is done on
        elif kind == "Method" and last in words.techniques and " " in key:
            kind = "Technique"  # "LLM quantization", "quantization-aware training": no one artefact
        weight[key][kind] += confidence
    known = known or {}
    decided = {}
    for key, by_type in weight.items():
        if key in known:
            decided[key] = known[key]
            continue
        prior, model = gazetteer.lookup(key) if gazetteer else (None, False)
        if prior is None and gazetteer and short_forms and key in short_forms:
            prior, model = gazetteer.lookup(short_forms[key])
            prior = prior if prior == "Dataset" or model else None
        if model:  # "GPT-4" is a model, whatever experiments are run "on" it
            decided[key] = "Method"
            continue
        if prior in DECISIVE:
            decided[key] = prior
            continue
        if prior is None and _ends_in(key, words.problems, words.not_problems):
            decided[key] = "Problem"
            continue
        if prior is None and " " in key and _ends_in(key, words.measures, words.not_measures):
            decided[key] = "Metric"  # "pass rate", "worst-group accuracy"
            continue
        if prior is not None:
            by_type[prior] += PRIOR_MIN + PRIOR_SHARE * sum(by_type.values())
        best = min(by_type, key=lambda t: (-by_type[t], _rank(t)))
        # Whether a known name is one artefact or a family is the gazetteer's to say: "CNNs",
        # written as a name, read as a Method span, is still the family "convolutional neural network".
        decided[key] = prior if prior in NAMING and best in NAMING else best
    return decided


def assign_types(
    extractions: Iterable[Extraction],
    *,
    gazetteer: Gazetteer | None = None,
    known: Mapping[str, str] | None = None,
    short_forms: Mapping[str, str] | None = None,
) -> list[Extraction]:
    """The extractions with every mention typed as its concept (:func:`decide_types`); new objects.

    >>> from kg.records import Mention
    >>> ms = [Mention("ImageNet", "Method", 0, 8, "", "uses", "imagenet", confidence=0.5),
    ...       Mention("ImageNet", "Dataset", 20, 28, "", "uses", "imagenet")]
    >>> [m.type for m in assign_types([Extraction("p1", ms)])[0].mentions]
    ['Dataset', 'Dataset']
    """
    extractions = list(extractions)
    types = decide_types(
        ((m.concept, m.type, m.confidence) for x in extractions for m in x.mentions), gazetteer=gazetteer, known=known,
        short_forms=short_forms,
    )  # fmt: skip
    return list(typed(extractions, types))


def typed(extractions: Iterable[Extraction], types: Mapping[str, str]) -> Iterator[Extraction]:
    """The extractions, one at a time, with every mention typed as ``types`` says (concept key -> type)."""
    for x in extractions:
        yield replace(
            x, mentions=[m if m.type == types[m.concept] else replace(m, type=types[m.concept]) for m in x.mentions]
        )


def short_forms(acronyms: Mapping[str, str], gazetteer: Gazetteer, norm: Normaliser | None = None) -> dict[str, str]:
    """Long-form key -> the key of its acronym, for the acronyms (short form -> long-form key) the gazetteer knows.

    >>> from kg.normalise.gazetteer import load_gazetteer
    >>> short_forms({"GLUE": "general language understanding evaluation", "XYZ": "x y z"}, load_gazetteer())
    {'general language understanding evaluation': 'glue'}
    """
    norm = norm or Normaliser()
    out: dict[str, str] = {}
    for short, long in sorted(acronyms.items()):
        if long not in out and gazetteer.type_of(key := norm.key(short)) is not None:
            out[long] = key
    return out


class _TypeWords(NamedTuple):
    """The word lists of ``config/normalise.toml`` that type a concept by its key."""

    #: Key spellings of ``technique_heads`` and ``method_heads`` ("model", "learning", "llm").
    heads: frozenset[str]
    #: ``dataset_heads``: endings of a last word that name a dataset ("bench", "corpus").
    datasets: tuple[str, ...]
    #: ``hardware_heads``: last words that name hardware, each after a space (" gpu").
    hardware: tuple[str, ...]
    #: Key spellings of ``technique_heads`` alone.
    techniques: frozenset[str]
    #: Key spellings of ``problem_words`` and ``not_problems``, each after a space.
    problems: tuple[str, ...]
    not_problems: tuple[str, ...]
    #: What the key of an edition of one of ``shared_tasks`` matches ("semeval 2019 task 6", "wmt14").
    editions: re.Pattern[str]
    #: Key spellings of ``task_actions`` ("detection", "segmentation").
    actions: frozenset[str]
    #: What the key of a number format matches (``number_formats``: "fp16", "int4", "w4a16").
    formats: re.Pattern[str]
    #: Key spellings of ``measure_words`` and ``not_measures``, each after a space.
    measures: tuple[str, ...]
    not_measures: tuple[str, ...]
    #: ``language_kinds`` and ``languages``: the words before "language" in a key that names languages
    #: studied ("low resource language", "indic language").
    languages: frozenset[str]


def technique_and_method_heads() -> frozenset[str]:
    """The key spellings of ``technique_heads`` and ``method_heads`` (``config/normalise.toml``:
    "learning", "attention", "model", "network"): a key that ends in one names a technique or a model."""
    return _type_words().heads


@lru_cache(maxsize=1)
def _type_words() -> _TypeWords:
    """:class:`_TypeWords` from ``config/normalise.toml``, read once."""
    conf = read_settings("normalise.toml")
    norm = Normaliser()
    techniques = frozenset(norm.surface(w) for w in conf.get("technique_heads", []))
    heads = techniques | {norm.surface(w) for w in conf.get("method_heads", [])}
    problems = tuple(f" {norm.surface(w)}" for w in conf.get("problem_words", []))
    not_problems = tuple(f" {norm.surface(w)}" for w in conf.get("not_problems", []))
    prefixes = "|".join(re.escape(p) for p in conf.get("number_formats", [])) or "(?!)"
    formats = re.compile(rf"(?:{prefixes}) ?\d+|w\d+ ?a\d+(?: ?kv\d+)?")
    measures = tuple(f" {norm.surface(w)}" for w in conf.get("measure_words", []))
    not_measures = tuple(f" {norm.surface(w)}" for w in conf.get("not_measures", []))
    series = "|".join(re.escape(w) for w in conf.get("shared_tasks", [])) or "(?!)"
    # (an edition's number, with a letter or a venue before it or not: "wmt14", "task 6", "acl2022")
    editions = re.compile(rf"(?:{series})(?:\d[\w.]*)?(?: (?:[a-z]*\d[\w.]*|{_EDITION_WORDS}))*")
    datasets = tuple(conf.get("dataset_heads", []))
    actions = frozenset(norm.surface(w) for w in conf.get("task_actions", []))
    languages = frozenset(norm.surface(w) for w in [*conf.get("language_kinds", []), *conf.get("languages", [])])
    return _TypeWords(heads, datasets, norm.hardware_heads, techniques, problems, not_problems, editions, actions,
                      formats, measures, not_measures, languages)  # fmt: skip


def _ends_in(key: str, words: tuple[str, ...], not_words: tuple[str, ...]) -> bool:
    """Whether ``key`` ends in one of ``words`` but not of ``not_words`` (each after a space): what
    research studies ("gender bias" and "online hate speech" yes, "inductive bias" no), or what an
    evaluation measures ("pass rate" yes, "learning rate" no)."""
    end = f" {key}"
    return end.endswith(words) and not end.endswith(not_words)


def _rank(kind: str) -> int:
    return TYPE_ORDER.index(kind) if kind in TYPE_ORDER else len(TYPE_ORDER)
