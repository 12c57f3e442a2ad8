"""Known ML/NLP concepts and their kg types, a prior for typing concepts.

``config/gazetteer.tsv`` (``term<TAB>type<TAB>source``) is built by ``make gazetteer``
(:mod:`kg.normalise.gazetteer_build`) from:

- **Papers with Code** methods (2022 dump, 1,924 methods with their short names) and tasks
  (2025 archive), CC BY-SA 4.0, via ``shared/data/gazetteer``. A method is a ``Method`` when its
  name is coined (a digit or a capital inside a word: "ResNet", "BERT", "1-bit Adam") or when
  arXiv ML abstracts write it capitalised more often than in lower case mid-sentence ("Adam",
  "Transformer"); otherwise it is a ``Technique`` ("knowledge distillation", "dropout", "batch
  normalization"). An acronym takes its long form's type. A task is a ``Problem``, or a
  ``Technique`` when it ends in a paradigm word ("few-shot learning", "data augmentation"); tasks
  with no linked dataset, one word ("Classification", "Articles"), more than six words, a name that
  is the truncated prefix of another ("1 Image, 2*2 Stitchi") or not starting with a letter are
  left out.
- **Datasets**: a short curated list, plus names mined from arXiv ML (CC0) and ACL Anthology
  abstracts with the pattern "<the|on|of|...> X dataset|benchmark|corpus|treebank" where X is a
  capitalised or digit-bearing name, kept when 8 or more abstracts name it, less a stop list of
  languages, field and task acronyms and data sources ("English", "NLP", "QA", "Twitter").
- **Metrics**: a curated list (BLEU, ROUGE, F1, accuracy, perplexity, ...).
- **Techniques** PwC lacks or files as tasks: a curated list of model families and learning
  paradigms ("large language model", "convolutional neural network", "meta-learning").
- **Named model families** (source ``curated-family``): GPT, Llama, Qwen, Claude, Gemini,
  Stable Diffusion, ... Each is a ``Method``, and so is a key that is a family name followed by
  version words only ("gpt 4o mini", "qwen2.5 7b instruct", "claude 3.5 sonnet").

Rows are stored as surface terms; their keys are computed at load time with the run's
:class:`~kg.normalise.Normaliser`, so the gazetteer follows any change to concept keys. When two
terms share a key the earlier row wins (curated datasets, metrics and
techniques, mined datasets, methods, tasks).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from kg.config import config_path
from kg.errors import ConfigError
from kg.normalise.keys import Normaliser
from kg.normalise.specificity import closed_up

#: The kg concept types a gazetteer row may carry.
TYPES = frozenset(["Method", "Technique", "Problem", "Dataset", "Metric", "Hardware"])
#: The source of a named model family's row: its versions are Methods too.
FAMILY = "curated-family"
#: A word that names a version, size or variant of a model family: "4o", "3.5", "7b", "r1",
#: "v2", "instruct", "mini", "sonnet".
VERSION_WORD = re.compile(
    r"[a-z]?\d[\w.]*|v\d[\w.]*|mini|nano|turbo|pro|flash|ultra|max|plus|instruct|chat|base|lite|coder|code|"
    r"vl|vision|omni|sonnet|opus|haiku|preview|it|hf|zero|large|small|medium|xl|xxl|math|distill"
)

#: A word that names a version, a split or a variant of a benchmark: "SWE-bench Verified", "GPQA
#: Diamond", "Spider 2.0", "AIME 2025", "LiveCodeBench v6".
DATASET_VARIANT = re.compile(r"\d[\w.]*|v\d[\w.]*|verified|lite|hard|pro|plus|mini|full|diamond|extended")


#: A row that names its acronym after its long form: "Optical Character Recognition (OCR)" (Papers
#: with Code's name of the task) is known by its long form too, which abstracts write alone.
_NAMED_BY_ACRONYM = re.compile(r"(.+?)\s*\(([A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*)\)")


@dataclass(frozen=True, slots=True)
class Gazetteer:
    """Concept key -> kg type of known concepts.

    >>> g = load_gazetteer()
    >>> g.type_of("imagenet"), g.type_of("bleu"), g.type_of("knowledge distillation")
    ('Dataset', 'Metric', 'Technique')
    >>> g.type_of("object detection"), g.type_of("resnet"), g.type_of("our model")
    ('Problem', 'Method', None)
    >>> g.type_of("gpt 4o mini"), g.type_of("qwen2.5 7b instruct"), g.type_of("claude 3.5 sonnet")
    ('Method', 'Method', 'Method')
    >>> g.type_of("llama guard"), g.type_of("gpt 4 outputs")
    (None, None)

    So is a known dataset followed by variant words only a Dataset ("SWE-bench Verified" had been a
    Method of 16 of 10,000 arXiv ML papers of 2026):

    >>> g.type_of("swe bench verified"), g.type_of("aime 2025"), g.type_of("swe bench agent")
    ('Dataset', 'Dataset', None)

    A known name of several words is known closed up too, as a run may key it ("Video-MME", "VideoMME"),
    as compounds fold (:func:`kg.normalise.specificity.closed_up`: "MultiPL-E" is no "multiple"):

    >>> g.type_of("video mme"), g.type_of("videomme"), g.type_of("multipl e"), g.type_of("multiple")
    ('Dataset', 'Dataset', 'Dataset', None)

    ... and so is one a run keys with a space more ("multi layer perceptron"):

    >>> g.type_of("multi layer perceptron"), g.type_of("multilayer perceptron"), g.type_of("auto encoder")
    ('Technique', 'Technique', 'Technique')
    """

    types: dict[str, str]
    families: frozenset[str] = frozenset()
    #: Known keys of two words or more with their spaces removed -> their type ("videomme").
    _closed: dict[str, str] = field(init=False, repr=False, compare=False)
    #: The known datasets' keys.
    _datasets: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        closed = {c: t for k, t in sorted(self.types.items()) if " " in k and " " not in (c := closed_up(k))}
        object.__setattr__(self, "_closed", closed)
        object.__setattr__(self, "_datasets", self.keys_of("Dataset"))

    @property
    def keys(self) -> frozenset[str]:
        """Every known concept key."""
        return frozenset(self.types)

    @property
    def names(self) -> frozenset[str]:
        """The keys of known datasets and model families: names of one thing, which key their
        concept themselves ("coco", "mmlu", "chatgpt"; see :func:`kg.normalise.run.run_tables`)."""
        return self.keys_of("Dataset") | self.families

    def keys_of(self, type_: str) -> frozenset[str]:
        """The known concept keys of one kg type ("Metric")."""
        return frozenset(k for k, t in self.types.items() if t == type_)

    def type_of(self, key: str) -> str | None:
        """The kg type of concept ``key``, or None when the gazetteer does not know it."""
        return self.lookup(key)[0]

    def names_model(self, key: str) -> bool:
        """Whether ``key`` names a model of a family the gazetteer knows: the family or a version."""
        return self.lookup(key)[1]

    def lookup(self, key: str) -> tuple[str | None, bool]:
        """:meth:`type_of` and :meth:`names_model` of ``key`` at once, its version words read once.

        >>> load_gazetteer().lookup("qwen2.5 7b instruct"), load_gazetteer().lookup("imagenet")
        (('Method', True), ('Dataset', False))
        """
        versioned = bool(self.families) and self._versioned(key)
        kind = self.types.get(key)
        if kind is None and " " not in key:  # a run that writes "VideoMME" more than "Video-MME"
            kind = self._closed.get(key)
        elif kind is None:  # ... or "multi-layer perceptron" more than "multilayer perceptron"
            closed = closed_up(key)
            kind = self._closed.get(closed) or self.types.get(closed)
        if kind is None and versioned:
            kind = "Method"
        elif kind is None and " " in key and self._variant(key):
            kind = "Dataset"
        return kind, key in self.families or versioned

    def _variant(self, key: str) -> bool:
        """Whether ``key`` is a known dataset's name, then variant words ("swe bench verified")."""
        return _name_then(key.split(), self._datasets, DATASET_VARIANT) is True

    def _versioned(self, key: str) -> bool:
        """Whether ``key`` is a model family's name, then version words ("gpt 4o mini", "llama2 7b")."""
        words = key.split()
        if (named := _name_then(words, self.families, VERSION_WORD)) is not None:
            return named
        first = words[0] if words else ""
        # a version glued to the name: "qwen2.5", "llama3", "gpt4o"
        for i in range(1, len(first)):
            if first[:i] in self.families and VERSION_WORD.fullmatch(first[i:]) and first[i].isdigit():
                return all(VERSION_WORD.fullmatch(w) for w in words[1:])
        return False


def _name_then(words: list[str], names: frozenset[str], qualifier: re.Pattern[str]) -> bool | None:
    """Whether ``words`` are a name of ``names`` (its longest, of up to three words) then words that
    ``qualifier`` matches, one at least; None when they open with no such name."""
    for n in range(min(3, len(words)), 0, -1):
        if " ".join(words[:n]) in names:
            rest = words[n:]
            return bool(rest) and all(qualifier.fullmatch(w) for w in rest)
    return None


def load_gazetteer(path: str | Path | None = None) -> Gazetteer:
    """Read a gazetteer file (default ``config/gazetteer.tsv``); cached per path."""
    return _load(str(Path(path) if path else config_path("gazetteer.tsv")))


@lru_cache(maxsize=4)
def _load(path: str) -> Gazetteer:
    norm = Normaliser()
    types: dict[str, str] = {}
    families: set[str] = set()
    long_forms: dict[str, str] = {}
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    for lineno, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#") or line.startswith("term\t"):
            continue
        parts = line.split("\t")
        if len(parts) != 3 or parts[1] not in TYPES:
            raise ConfigError(f"{path}:{lineno}: expected 'term<TAB>type<TAB>source' with a kg type, got {line!r}")
        key = norm.key(parts[0])
        if key and not norm.is_generic(key):
            types.setdefault(key, parts[1])
            if parts[2] == FAMILY:
                families.add(key)
        if named := _NAMED_BY_ACRONYM.fullmatch(parts[0]):
            long_forms.setdefault(norm.key(named[1]), parts[1])
    for key, kind in long_forms.items():
        if key and not norm.is_generic(key):
            types.setdefault(key, kind)  # (a row of its own wins)
    return Gazetteer(types, frozenset(families))
