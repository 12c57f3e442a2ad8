"""Keys across a run: what one abstract cannot decide alone.

Eight rules, each a table built from the whole run and applied with dict lookups:

- acronyms: a definition in any abstract serves every abstract that uses the short form bare
  ("PPO" alone gets the key "proximal policy optimization" defined elsewhere); an abstract's own
  definition always wins for it. Of several long forms, the most frequent is taken, one whose
  initials spell the short form counting double (then the first in sort order), if two
  abstracts define it so, or the short form is written without a definition in at most
  :data:`NAME_SHARE` abstracts: one abstract's long form is its author's choice, not the
  run's. Many papers write a short form that no two define alike when it is a name each gives
  its own thing: on the arXiv ML corpus one abstract's "Concept-based Unsupervised Domain
  Adaptation (CUDA)" had keyed the CUDA of 172 others, a "visual large language model (vLLM)"
  the serving engine of 122, and one of eleven long forms of PRISM the PRISM of 117 papers, all
  linked through it (LiDAR, defined alike by 30 abstracts, still serves its 888). A known
  metric ("COMET") is defined for the run only as a metric (``metric_ends``): one paper's
  "COMmonsEnse Transformers (COMET)" does not rename the metric of every other. A known name of
  a dataset or model ("COCO", "MMLU", "ChatGPT") keys its concept itself, and is defined for the
  run only as itself. In the abstracts that define it, a long form that two abstracts, and one
  in 20 of those using the name, define it by is keyed by the name ("Massive Multitask
  Language Understanding (MMLU)" -> "mmlu": 16 arXiv ML abstracts, against 243 mentions of
  MMLU); a rarer one keeps its key (two abstracts' "Constrained Online Convex Optimization
  (COCO)" had keyed the COCO of 216 papers; they are not renamed either). Written out
  elsewhere, a long form is itself ("medical question answering" is a task, as well as what
  four abstracts define MedQA by). A long form that writes a short form the run agrees on
  (:attr:`RunTables.agreed`) is keyed with it spelled out, and so are the mentions keyed by it:
  "Explainable AI (XAI)" is explainable artificial intelligence (:attr:`RunTables.spelled_out`).
- compounds: keys equal once their spaces are removed are one concept ("data set", "dataset",
  "data-set"); the key is the most frequent form, then the closed one. A letter glued on that
  makes a common word does not fold ("multipl e", MultiPL-E, is no "multiple").
- numbers that a name decides: a key whose last word keeps its plural ("chain of thoughts",
  the object of "of"; "WordNets", a name ending in s) and the same key without the s are one
  concept, keyed as the run writes it more often ("chain of thought", "mixture of experts",
  "wordnet"; "OntoNotes", which no abstract writes without its s, stays "ontonotes").
- "X based Y": "X Y" where X is a name of the run (as for generic heads, below) and "X Y" is a
  concept of it ("MoE-based LLMs" are MoE LLMs; "aspect-based sentiment analysis" stays).
- "X of Y": "Y X" where that is a concept of the run at least as frequent
  (``inverted_prepositions``): "inference of LLMs" is LLM inference; "mixture of experts" and
  "chain of thought" stay (a few "thought chains" do not turn the ACL corpus's hundreds).
- "Xing Y": "Y" and the noun of "Xing" (``gerund_nouns``, ``verbal_gerunds``) where that is a known
  concept or one of the run written more often: "detecting anomalies" is anomaly detection,
  "learning representations" representation learning; "learning rate" and "reasoning models" stay.
- generic heads: "X model", "X framework"... (``generic_heads`` in ``config/normalise.toml``)
  become "X" when "X" is a concept of the run or of ``known``, and "X" is not one common word:
  a one-word "X" (however the run spells it: "auto regressive" is "autoregressive") must be
  written as a name by more than half of its mentions ("BERT model" -> "bert";
  "language model" stays, and "generative models" too, though a title in capitals writes
  "GENERATIVE") or name a process that the head names a way of doing ("quantization methods",
  "pruning strategy" -> "quantization", "pruning"; "reasoning models" stay), a two-word "X"
  that opens with a general modifier must be a known name ("large-scale datasets" stay, "deep
  learning model" -> "deep learning"), a one-word "X" written as a name but alone less than half
  as often as with the head is a modifier ("massive datasets" stay), and so is an "X" that is a
  preposition and its noun or ends in a participle ("out-of-distribution datasets",
  "human-annotated datasets" stay), or an "X" that ends in a
  property word ("training-free", "LLM-based") or opens with a prefix ("multi-agent") is no
  name, and a key that ends in a known name with that head keeps it ("mixture of experts large
  language model": "language model"), or in a name of ``head_names`` ("human language technology").
  "X technology" and "X application" are X so ("AI technologies", "LLM applications"; "clinical
  applications" stay). A head of ``process_only_heads`` goes only after a process that the run
  writes alone at least half as often: "reasoning process", "decision-making processes", "the
  post-training phase", "the fine-tuning stage" -> "reasoning", "decision making", "post-training",
  "fine-tuning"; "Gaussian process", "business process", "warmup phase" stay.
  A head of ``head_synonyms`` becomes the head it means where the run writes the key so:
  "synthetic datasets", "the inference stage", "KV caching" are synthetic data, the inference
  phase, the KV cache; "Waymo Open Dataset" stays (rule ``head of the same meaning``). So is a
  phase of doing named by the doing (``gerund_heads``): "the decode phase", "the prefill stage"
  are the decoding and prefilling phases where the run writes those.
  A known metric loses a head of ``metric_heads`` too: "BLEU points", "ROUGE metric", "accuracy
  scores" are BLEU, ROUGE and accuracy (``metrics``: the gazetteer's Metric keys).
- model classes: "X large language model" (``class_heads``) is "X" where "X" is a name of two
  words or more of the run ("MoE LLMs" and "fine-tuning LLMs" are mixture of experts and
  fine-tuning; "multimodal LLMs" stay).

The tables (:class:`RunTables`) are kept by incremental runs, so that new papers get the keys the
stored ones got.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Set
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import Any

from kg.config import read_settings
from kg.normalise.acronyms import Acronym, find_acronyms, initials, letters, singular
from kg.normalise.keys import Normaliser, doubled_word, repeats_words, undoubled, written_as_name
from kg.normalise.specificity import closed_up, generic_terms
from kg.normalise.types import technique_and_method_heads
from kg.records import Extraction, Mention, Paper, coordinated

_WORD = re.compile(r"\w+")
#: A long form stands for a known name when two abstracts at least, and one in this many mentions
#: of the name, define it by it: on the arXiv ML corpus 16 abstracts against MMLU's 243 mentions
#: and 23 against GQA's 37 do; 2 against COCO's 175 ("Constrained Online Convex Optimization") and
#: against ChatGPT's 1,465 do not.
NAME_SHARE = 20
#: A run agrees on what a short form stands for where this share of its definitions give one long form.
AGREED = 0.8
#: The name a title opens with, before a colon or a dash: "PRISM: Robust VLM Alignment", "RAD - ...".
_TITLE_NAME = re.compile(r"\s*([A-Za-z][\w.+-]*?)\s*(?::|\s[-–—]\s)")
#: An aside in brackets, which a key leaves out ("synthetic (TRIP-PD)" is keyed "synthetic").
_ASIDE = re.compile(r"\s*\([^()]*\)")
#: A word that may be an acronym: two capitals at least ("PPO", "LLMs", "BiLSTM").
_ACRONYM = re.compile(r"\b(?=\w*[A-Z]\w*[A-Z])\w+\b")
#: Rule names, as counted in the run report.
ACRONYM, SPELLED, NAME, COMPOUND, NUMBER, BASED, INVERTED, OBJECT, HEAD, SYNONYM, CLASS, SELF_RELATION, DOUBLED = (
    "acronym from the run",
    "acronym in a long form spelled out",
    "long form of a known name",
    "compound folded",
    "number of a name folded",
    "based dropped",
    "of inverted",
    "object of a gerund turned",
    "generic head stripped",
    "head of the same meaning",
    "model class stripped",
    "relation within one concept dropped",
    "doubled word dropped",
)


@dataclass(frozen=True)
class RunTables:
    """What the run-wide rules count, and what they decide from it.

    ``definitions``: short form -> key of a long form -> abstracts that define it so; ``users``:
    short form -> abstracts that write it without defining it (a short form defined or used bare);
    ``counts``: mentions of each key after the acronym rule; ``named``: the one-word keys that
    most of their mentions write as a name ("BERT", "ResNet", "GPT-2"); ``bare``: the short forms some
    mention uses in an abstract that does not define them; ``names``: key of a long form -> key of
    a known name that abstracts define by it -> how many. Incremental runs keep them, to give
    new papers the keys a full run would and to tell when the new papers change old ones.
    """

    definitions: dict[str, dict[str, int]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    named: frozenset[str] = frozenset()
    bare: frozenset[str] = frozenset()
    names: dict[str, dict[str, int]] = field(default_factory=dict)
    users: dict[str, int] = field(default_factory=dict)
    #: The acronyms each paper of the run defines (short form -> key), while the run lasts.
    defined: dict[str, dict[str, str]] | None = field(default=None, compare=False, repr=False)
    #: Key of a long form -> the same with the short forms it writes spelled out, where the run
    #: agrees on theirs ("explainable ai" of "Explainable AI (XAI)" -> "explainable artificial
    #: intelligence"), while the run lasts.
    spelled_out: dict[str, str] = field(default_factory=dict, compare=False, repr=False)
    #: Tables these were merged from, and the keys merged in since: their ``closed`` serves this one's.
    grown_from: tuple[RunTables, frozenset[str]] | None = field(default=None, compare=False, repr=False)

    @cached_property
    def acronyms(self) -> dict[str, str]:
        """Short form -> key of its long form: the most frequent, one spelled by its initials counting
        double, where the run agrees on it (see the module doc).

        One abstract's initials do not outvote the run: "GAT" is what 88 arXiv abstracts define,
        "graph attention network", not one's "gated attention transformer"; but "proximal policy
        optimization" beats a "policy optimization" as frequent. Eleven abstracts that each give
        PRISM a long form of its own, and 117 that write PRISM bare, leave it a name. Nor does one
        abstract's long form of a short form of two letters, which names too many things: on 10,000
        arXiv ML abstracts of 2025 one "expected utility (EU)" had keyed the EU of 19 others, "talking
        face (TF)" 15, "cognitive distortion (CD)" 12; the field's families ("AI", "RL": ``family_acronyms``
        of ``config/normalise.toml``) are what they name. An acronym of everyday language
        (``everyday_acronyms``) stands for what everyday language means by it, whoever defines it
        otherwise: two abstracts' "Universal Reinforcement Learning (URL)" had keyed the URLs of 7
        others, two "Scanning transmission electron microscopy (STEM)" the STEM of 7.
        """
        families, everyday = _acronym_lists()
        table = {}
        for short, longs in self.definitions.items():
            want = letters(short)
            if want in everyday:
                continue
            best = min(longs, key=lambda k: (-longs[k] * (1 + (want in initials(k))), k))
            if longs[best] >= 2 or ((len(want) > 2 or want in families) and self.users.get(short, 0) <= NAME_SHARE):
                table[short] = best
        return table

    @cached_property
    def agreed(self) -> frozenset[str]:
        """The short forms whose long form (:attr:`acronyms`) two abstracts at least, and :data:`AGREED` of
        those that define the short form, give, spelled alike or nearly (:func:`_alike`: "multi layer
        perceptron" for "multilayer perceptron", "differentially private" for "differential privacy").

        On the arXiv ML corpus LoRA (677 of 727), MoE and KV (0.97, 0.98) are agreed; SD (speculative
        decoding 56, stable diffusion 53 of 160), VI (variational inference 15 of 33) and MS (multiple
        sclerosis 15, multispectral 12 of 47) are not.
        """
        agreed = set()
        for short, long in self.acronyms.items():
            longs = self.definitions[short]
            alike = sum(n for k, n in longs.items() if _alike(k, long))
            if alike >= 2 and alike >= AGREED * sum(longs.values()):
                agreed.add(short)
        return frozenset(agreed)

    @cached_property
    def renamed(self) -> dict[str, str]:
        """Key of a long form -> the known name it stands for in the abstracts that define the name
        by it: one that two abstracts at least, and one in :data:`NAME_SHARE` of the mentions of the
        name, define by it (the most such, then the first). One abstract's "Voice Interactive
        Surgical Agent (VISA)" is its own."""
        table = {}
        for long, named in self.names.items():
            name = min(named, key=lambda k: (-named[k], k))
            if named[name] >= 2 and named[name] * NAME_SHARE >= self.counts.get(name, 0):
                table[long] = name
        return table

    @cached_property
    def closed(self) -> dict[str, str]:
        """Form (:meth:`form`) -> key: the most frequent key, then the closed one, then the first in sort order.

        Merged tables start from the choices of the tables they were merged from and weigh only
        the keys merged in: a key that was not chosen, and is not counted again, still loses (an
        incremental run's new papers on a stored run's 1.18 million keys: 1.9 s spared). A key
        that a new name gives another form is weighed again, unless it was chosen for its old one.
        """
        keys: Iterable[str] = self.counts
        chosen: dict[str, str] = {}
        if self.grown_from is not None:
            base, merged = self.grown_from
            moved = {k for k in self.named - base.named if k in self.counts and base.form(k) != self.form(k)}
            if not any(base.closed.get(base.form(k)) == k for k in moved):
                chosen, keys = dict(base.closed), merged | moved
        for key in keys:
            n, form = self.counts[key], self.form(key)
            best = chosen.get(form)
            if best is None or (-n, key.count(" "), key) < (-self.counts[best], best.count(" "), best):
                chosen[form] = key
        return chosen

    def form(self, key: str) -> str:
        """What tells a concept from the other spellings of it: ``key`` without its spaces, and
        without the plural s of a last word that keeps one (see :func:`number_form`)."""
        return number_form(key, self.named)

    @cached_property
    def concepts(self) -> frozenset[str]:
        """Every key of the run after the acronym and compound rules."""
        return frozenset(self.closed.values())

    def merged(self, other: RunTables) -> RunTables:
        """The tables of both runs' papers."""
        counts = dict(self.counts)
        for key, n in other.counts.items():
            counts[key] = counts.get(key, 0) + n
        # (past these tables to the ones they were merged from: these would live on with all their counts)
        base, merged = (self, frozenset()) if self.grown_from is None or "closed" in self.__dict__ else self.grown_from
        # only where few keys are merged in (an update's new papers), not a whole run's on no counts
        few = len(merged) + len(other.counts) < len(base.counts)
        grown_from = (base, merged.union(other.counts)) if few else None
        return RunTables(
            _summed(self.definitions, other.definitions),
            counts,
            self.named | other.named,
            self.bare | other.bare,
            _summed(self.names, other.names),
            dict(Counter(self.users) + Counter(other.users)),
            grown_from=grown_from,
        )

    def moved_by(
        self,
        grown: RunTables,
        heads: frozenset[str],
        inverted: Iterable[str] = (),
        synonyms: Mapping[str, str] | None = None,
        gerund_heads: Iterable[str] = (),
        nouns: Callable[[str], list[str]] | None = None,
    ) -> list[str]:
        """How ``grown`` (these tables with more papers) would key this run's papers otherwise.

        >>> old = RunTables(counts={"data set": 2}, bare=frozenset({"GCN"}))
        >>> new = old.merged(RunTables({"GCN": {"graph convolutional network": 1}}, {"dataset": 3}))
        >>> old.moved_by(new, frozenset())
        ["the acronym GCN, used bare, is defined now: 'graph convolutional network'", "'data set' is now 'dataset'"]
        >>> RunTables(counts={"evaluation of translation": 1}).moved_by(
        ...     RunTables(counts={"evaluation of translation": 1, "translation evaluation": 1}), frozenset(), ["of"])
        ["'translation evaluation' is a concept now: 'evaluation of translation' may be read as it"]
        >>> old = RunTables({"PRISM": {"prompt refinement": 1}}, users={"PRISM": 20})
        >>> old.moved_by(old.merged(RunTables(users={"PRISM": 1})), frozenset())
        ['the acronym PRISM is a name now: too many papers use it for one definition']
        >>> grown = RunTables(counts={"synthetic dataset": 1, "synthetic data": 1})
        >>> RunTables(counts={"synthetic dataset": 1}).moved_by(grown, frozenset(), synonyms={"dataset": "data"})
        ["'synthetic data' is a concept now: 'synthetic dataset' may be read as it"]
        >>> grown = RunTables(counts={"decode phase": 1, "decoding phase": 1})
        >>> RunTables(counts={"decode phase": 1}).moved_by(grown, frozenset(), gerund_heads={"phase"})
        ["'decoding phase' is a concept now: 'decode phase' may be read as it"]
        >>> grown = RunTables(counts={"detecting anomaly": 1, "anomaly detection": 2})
        >>> RunTables(counts={"detecting anomaly": 1}).moved_by(grown, frozenset(), nouns=Normaliser().nouns_of)
        ["'anomaly detection' is a concept now: 'detecting anomaly' may be read as it"]
        """
        moved = []
        for short, key in sorted(grown.acronyms.items()):
            if short in self.acronyms and self.acronyms[short] != key:
                moved.append(f"the acronym {short} now stands for {key!r}, not {self.acronyms[short]!r}")
            elif short not in self.acronyms and short in self.bare:
                moved.append(f"the acronym {short}, used bare, is defined now: {key!r}")
        for short in sorted(self.acronyms.keys() - grown.acronyms.keys()):
            moved.append(f"the acronym {short} is a name now: too many papers use it for one definition")
        old = self.closed
        folded = sorted((old[form], key) for form, key in grown.closed.items() if old.get(form, key) != key)
        moved += [f"{was!r} is now {key!r}" for was, key in folded]
        turned = {}  # a key another rule may read a stored key as -> the stored key
        for key in old.values():
            for prep in inverted:
                before, sep, after = key.partition(f" {prep} ")
                if sep and before and after:
                    turned[f"{after} {before}"] = key
            doing, _, rest = key.partition(" ")
            if rest and nouns is not None:  # "detecting anomaly": "anomaly detection"
                turned.update((f"{rest} {noun}", key) for noun in nouns(doing))
            before, _, head = key.rpartition(" ")
            if head in gerund_heads:  # "decode phase": "decoding phase"
                lead, _, word = before.rpartition(" ")
                turned.update((f"{lead} {doing} {head}".lstrip(), key) for doing in gerunds(word))
        for rest in sorted((grown.concepts - self.concepts) | (grown.named - self.named)):
            if rest in turned:
                moved.append(f"{rest!r} is a concept now: {turned[rest]!r} may be read as it")
            for head in sorted(heads):
                if (stored := old.get(self.form(f"{rest}{head}"))) is not None:
                    moved.append(f"{rest!r} is a concept now: {stored!r} may lose its head word")
            for head, same in sorted((synonyms or {}).items()):
                if rest.endswith(f" {same}") and (stored := old.get(self.form(f"{rest[: -len(same)]}{head}"))):
                    moved.append(f"{rest!r} is a concept now: {stored!r} may be read as it")
        return moved

    def to_dict(self) -> dict[str, Any]:
        """The tables as JSON values: the sets as sorted lists, the dicts as they are (written with
        ``sort_keys``, :func:`kg.pipeline.incremental.save`: sorted copies of 1.18 million arXiv ML
        keys' counts took 0.9 s more)."""
        return {"definitions": self.definitions, "counts": self.counts, "named": sorted(self.named),
                "bare": sorted(self.bare), "names": self.names, "users": self.users}  # fmt: skip

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunTables:
        # (tables saved before ``users`` share every definition, as the run that saved them did)
        return cls(data["definitions"], data["counts"], frozenset(data["named"]), frozenset(data["bare"]),
                   data["names"], data.get("users", {}))  # fmt: skip


def _summed(a: dict[str, dict[str, int]], b: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """Two tables of counts by two keys, added up (new dicts)."""
    out = {x: dict(d) for x, d in a.items()}
    for x, d in b.items():
        mine = out.setdefault(x, {})
        for y, n in d.items():
            mine[y] = mine.get(y, 0) + n
    return out


def normalise_run(
    papers: Iterable[Paper],
    extractions: list[Extraction],
    *,
    normaliser: Normaliser | None = None,
    known: frozenset[str] = frozenset(),
    metrics: frozenset[str] = frozenset(),
    names: frozenset[str] = frozenset(),
    datasets: frozenset[str] = frozenset(),
    tables: RunTables | None = None,
    stored: RunTables | None = None,
) -> tuple[list[Extraction], Counter[str]]:
    """Re-key the mentions and relations of a run with the run-wide rules.

    Returns new extractions (the inputs are left alone) and how often each rule fired, the
    per-paper rules of :class:`~kg.records.Extraction` included. ``tables`` are those of
    :func:`run_tables` for these papers (given ``metrics``, ``names`` and ``datasets``), built here if not
    given. Papers added to a stored run take its decisions where it made them (``stored``: its
    tables, which ``tables`` include).

    >>> ps = [Paper("1", "", "We train proximal policy optimization (PPO) agents."), Paper("2", "", "PPO fails.")]
    >>> def x(pid, text, start, key):
    ...     return Extraction(pid, [Mention(text, "Method", start, start + len(text), "", "uses", key)])
    >>> xs = [x("1", "proximal policy optimization (PPO)", 9, "proximal policy optimization"), x("2", "PPO", 0, "ppo")]
    >>> out, rules = normalise_run(ps, xs)
    >>> out[1].mentions[0].concept, dict(rules)
    ('proximal policy optimization', {'acronym from the run': 1})
    """
    norm = normaliser or Normaliser()
    papers = list(papers)
    tables = tables or run_tables(papers, extractions, normaliser=norm, metrics=metrics, names=names, datasets=datasets)
    rules: Counter[str] = Counter()
    out = list(rekeyed(papers, extractions, rules, normaliser=norm, known=known, metrics=metrics, tables=tables,
                       stored=stored))  # fmt: skip
    return out, Counter(dict(sorted(rules.items())))


def rekeyed(
    papers: Iterable[Paper],
    extractions: Iterable[Extraction],
    rules: Counter[str],
    *,
    tables: RunTables,
    normaliser: Normaliser | None = None,
    known: frozenset[str] = frozenset(),
    metrics: frozenset[str] = frozenset(),
    stored: RunTables | None = None,
) -> Iterator[Extraction]:
    """:func:`normalise_run`'s extractions one at a time, as they are read; ``rules`` counts the rules fired."""
    norm = normaliser or Normaliser()
    defined = tables.defined if tables.defined is not None else _defined_by_paper(list(papers), norm)[0]
    rekey = _Rekey(norm, tables, known, stored or RunTables(), metrics)
    for x in extractions:
        rules.update(x.rules)
        own = defined.get(x.id, {})
        # (a coordination is the mention of several concepts: its offsets and its concept)
        by_span: dict[tuple[str, int, int, str], str] = {}
        mentions = []
        for m, spelt in zip(x.mentions, _spelled(x.mentions, norm), strict=True):
            key = rekey(spelt, own, rules)
            by_span[m.field, m.start, m.end, m.concept] = key
            mentions.append(m if key == m.concept else replace(m, concept=key))
        relations = []
        for r in x.relations:
            head = by_span.get((r.field, r.head_start, r.head_end, r.head)) or rekey.key(rekey.spelled_out(r.head))
            tail = by_span.get((r.field, r.tail_start, r.tail_end, r.tail)) or rekey.key(rekey.spelled_out(r.tail))
            if head == tail:  # "data set USED_FOR dataset": one concept now
                rules[SELF_RELATION] += 1
                continue
            relations.append(r if (head, tail) == (r.head, r.tail) else replace(r, head=head, tail=tail))
        yield Extraction(x.id, mentions, relations, x.rules)


def run_tables(
    papers: Iterable[Paper],
    extractions: Iterable[Extraction],
    *,
    normaliser: Normaliser | None = None,
    prior: RunTables | None = None,
    metrics: frozenset[str] = frozenset(),
    names: frozenset[str] = frozenset(),
    datasets: frozenset[str] = frozenset(),
) -> RunTables:
    """The run-wide tables of ``papers``, added to those of a ``prior`` run's papers.

    ``metrics`` are the keys of known metrics (the gazetteer's): the run defines one only as a
    metric, a known one or a long form that ends in a word of ``metric_ends``. ``names`` are the
    keys of known datasets and models (:attr:`~kg.normalise.gazetteer.Gazetteer.names`): the run
    defines none of them, but counts their long forms in ``names`` (see :attr:`RunTables.renamed`),
    except a long form of a technique or a model for a known dataset (``datasets``): "Grouped Query
    Attention (GQA)" is no long form of the visual question answering dataset GQA, and stays the
    abstract's own (on 10,000 arXiv ML abstracts of 2025 four had defined GQA so, and their KV-cache
    papers had shared the dataset GQA with four on visual question answering).

    >>> ps = [Paper(str(i), "", text) for i, text in enumerate(["dataset", "data set", "data-set"])]
    >>> xs = [Extraction(p.id, [Mention(p.abstract, "Dataset", 0, 8, "", "uses", "data set")]) for p in ps[1:]]
    >>> xs.append(Extraction("0", [Mention("dataset", "Dataset", 0, 7, "", "uses", "dataset")]))
    >>> sorted(run_tables(ps, xs).concepts)
    ['data set']
    """
    norm = normaliser or Normaliser()
    papers = list(papers)
    defined, inner = _defined_by_paper(papers, norm)
    written: Counter[str] = Counter()  # short form -> papers that write it without defining it
    titled: set[tuple[str, str]] = set()  # (paper, a short form it defines and its title opens with)
    for p in papers:
        own = defined.get(p.id, {})
        if own and (opening := _TITLE_NAME.match(p.title)) and (short := singular(opening.group(1))) in own:
            titled.add((p.id, short))
        written.update({s for w in _short_forms(f"{p.title}\n{p.abstract}") if (s := singular(w)) not in own})

    def counted() -> tuple[RunTables, dict[str, dict[str, int]], dict[str, Counter[str]]]:
        """The run's acronym tables (with ``prior``'s), from the definitions of ``defined`` as they stand."""
        definitions, named_by = _counted(defined, norm, metrics, names, titled, datasets)
        tables = RunTables(definitions, users={s: written[s] for s in definitions if written[s]})
        return (prior.merged(tables) if prior else tables), definitions, named_by

    tables, definitions, named_by = counted()
    # A long form that writes a short form the run agrees on ("Explainable AI (XAI)"), or one an alias
    # decides ("multimodal LLMs (MLLMs)"), is keyed with it spelled out, as a paper writing "explainable
    # AI" alone is (and its mentions with it below)
    agreed = (
        _aliased(norm)
        | {s: tables.acronyms[s] for s in tables.agreed}
        | ({s: prior.acronyms[s] for s in prior.agreed} if prior else {})
    )
    spelled_out: dict[str, str] = {}
    for pid, found in inner.items():
        own = dict(_definitions(found, norm, agreed))
        spelled_out.update((key, own[s]) for s, key in defined[pid].items() if own.get(s, key) != key)
        defined[pid] = own
    if spelled_out:
        tables, definitions, named_by = counted()
    acronyms = tables.acronyms | prior.acronyms if prior else tables.acronyms  # the stored papers' long forms stay
    spelled = Spelled(spelled_out)
    counts: Counter[str] = Counter()
    # one-word keys: their mentions, and those written as a name
    alone: Counter[str] = Counter()
    as_name: Counter[str] = Counter()
    bare: set[str] = set()
    for x in extractions:
        own = defined.get(x.id, {})
        for m in _spelled(x.mentions, norm):
            key = spelled(_expand_acronyms(m, acronyms, own, norm) or m.concept)
            counts[key] += 1
            if " " not in key:
                alone[key] += 1
                as_name[key] += written_as_name(_ASIDE.sub("", m.text))  # not "synthetic (TRIP-PD)"
            bare.update(s for w in _short_forms(m.text) if (s := singular(w)) not in own)
    # A name is written as one by most of its mentions ("BERT"); a word a few write in capitals
    # (a title in capitals, "GENERATIVE"; half of them: "VISion" and "Vision") stays a word.
    named = frozenset(key for key, n in as_name.items() if 2 * n > alone[key])
    names_of = {long: dict(d) for long, d in named_by.items()}
    users = {s: written[s] for s in bare if s not in definitions and written[s]}
    tables = tables.merged(RunTables({}, dict(counts), named, frozenset(bare), names_of, users))
    return replace(tables, defined=defined, spelled_out=spelled_out)


#: Words that open a phrase which qualifies a noun, not names a thing: "out-of-distribution".
_PREPOSITIONS = frozenset(["in", "out", "on", "off", "under", "over", "within", "without", "across", "between",
                           "among", "through", "via", "by", "for", "from", "to", "with", "of", "at",
                           "into"])  # fmt: skip


class _Rekey:
    """The run-wide rules as lookups: a mention's key, or a bare key's (a relation's end)."""

    def __init__(
        self, norm: Normaliser, tables: RunTables, known: frozenset[str], stored: RunTables,
        metrics: frozenset[str] = frozenset(),
    ) -> None:  # fmt: skip
        self.norm, self.known, self.metrics = norm, known, metrics
        # An alias decides for its short form ("llm"), inside longer mentions too: "LLM inference"
        aliased = _aliased(norm)
        self.acronyms = tables.acronyms | stored.acronyms | aliased
        #: Short forms whose long form serves inside a name of several parts too ("LoRA" of "MoE-LoRA").
        self.curated = frozenset(aliased) | tables.agreed | stored.agreed
        #: Words a long form has twice in a row ("drug" of "drug drug interaction").
        self.doubled = frozenset(doubled_word(long) for long in self.acronyms.values()) - {""}
        self.closed = tables.closed | stored.closed
        self.renamed = tables.renamed | stored.renamed
        self.spelled_out = Spelled(tables.spelled_out)
        self._named = tables.named | stored.named
        #: The one-word keys of the run ("autoregressive"), whichever spelling it keys them by.
        self.words = frozenset(k for k in (*tables.counts, *stored.counts) if " " not in k)
        self.named = frozenset(self.closed[self._form(k)] for k in tables.named)
        self.general = generic_terms()
        self.targets = frozenset(self.closed.values()) | {self.closed.get(self._form(k), k) for k in known}
        self.counts = tables.counts  # (a stored run's included)
        #: The rules after the acronyms', in the order they apply, each with the name the report counts it by.
        self._steps = ((COMPOUND, self._closed), (NUMBER, self._number), (BASED, self._unbased),
                       (INVERTED, self._inverted), (OBJECT, self._object_first), (HEAD, self._strip_head),
                       (SYNONYM, self._synonym),
                       (CLASS, self._strip_class))  # fmt: skip

    def __call__(self, m: Mention, own: dict[str, str], rules: Counter[str]) -> str:
        expanded = _expand_acronyms(m, self.acronyms, own, self.norm, self.curated, self.known)
        if expanded and expanded != m.concept:
            rules[ACRONYM] += 1
        if (spelled := self.spelled_out(expanded or m.concept)) != (expanded or m.concept):
            rules[SPELLED] += 1
            expanded = spelled
        key = self.key(expanded or m.concept, rules)
        if expanded and (doubled := doubled_word(key)) and doubled not in self.doubled and not doubled_word(m.concept):
            # a long form's last word before the same word: "CNN networks", "CAD designs", "LoRA-based
            # adaptation" (42 arXiv ML mentions keyed "low rank adaptation adaptation"); not the
            # long form's own ("DDI", drug-drug interaction)
            rules[DOUBLED] += 1
            key = undoubled(key)
        if key in self.renamed and key in own.values():  # the abstract defines a known name by it
            rules[NAME] += 1
            return self.renamed[key]
        return key

    def key(self, key: str, rules: Counter[str] | None = None) -> str:
        """``key`` through the rules that follow the acronyms', in order, counting in ``rules`` each that changed it."""
        for rule, step in self._steps:
            changed = step(key)
            if rules is not None and changed != key:
                rules[rule] += 1
            key = changed
        return key

    def _form(self, key: str) -> str:
        return number_form(key, self._named)

    def _closed(self, key: str) -> str:
        """The run's spelling of a compound: "auto regressive" -> "autoregressive"."""
        spelt = self.closed.get(self._form(key), key)
        return spelt if spelt.replace(" ", "") == key.replace(" ", "") else key

    def _number(self, key: str) -> str:
        """The run's number of a name's last word: "chain of thoughts" -> "chain of thought"."""
        return self.closed.get(self._form(key), key)

    def _strip_head(self, key: str) -> str:
        rest, _, head = key.rpartition(" ")
        if not rest or key in self.known or f" {key}".endswith(self.norm.head_names):
            return key
        if f"{rest.rpartition(' ')[2]} {head}" in self.known:
            return key  # "mixture of experts large language model" ends in the name "language model"
        rest, one_word = self._fold(rest)
        if head in self.norm.metric_heads:  # "bleu point" -> "bleu"; "macro averaged f1 score" -> "macro f1"
            metric = self.norm.aliases.force.get(rest, rest)
            return metric if metric in self.metrics else key
        if head in self.norm.process_only_heads:
            # "reasoning process" is reasoning, "data annotation process" where the run hardly writes
            # "data annotation" is not
            if not rest.endswith(self.norm.process_endings) or 2 * self._count(rest) < self._count(key):
                return key
        elif head not in self.norm.generic_heads:
            return key
        return rest if self._names(rest, one_word, head, key) else key

    def _synonym(self, key: str) -> str:
        """ "X dataset" is "X data" where the run writes "X data" (``head_synonyms``): "synthetic
        datasets" are synthetic data; "Waymo Open Dataset" stays. A phase of doing is named by the
        doing (``gerund_heads``): "the decode phase" is the decoding phase where the run writes that."""
        rest, _, head = key.rpartition(" ")
        if not rest:
            return key
        if head in self.norm.gerund_heads:
            before, _, word = rest.rpartition(" ")
            for doing in gerunds(word):
                for then in (head, self.norm.head_synonyms.get(head)):
                    other = self._closed(f"{before} {doing} {then}".lstrip())
                    if then and other.endswith(f" {then}") and self._count(other):
                        # the doing's phase, or the doing itself where the run writes it so
                        return self._strip_head(self._synonym(other))
        if (same := self.norm.head_synonyms.get(head)) is None:
            return key
        other = self._closed(f"{rest} {same}")  # (not where the run closes it up: "meta data" is no metadata)
        # ("the fine-tuning stage" is the fine-tuning phase, and that fine-tuning, as "fine-tuning phase" is)
        return self._strip_head(other) if other.endswith(f" {same}") and self._count(other) else key

    def _strip_class(self, key: str) -> str:
        """ "X large language model" is X where X is a name of two words or more of the run ("mixture
        of experts large language model" -> "mixture of experts"); "multimodal large language model"
        stays."""
        for head in self.norm.class_heads:
            if key.endswith(f" {head}"):
                rest, one_word = self._fold(key[: -len(head) - 1])
                return rest if not one_word and self._names(rest, one_word) else key
        return key

    def _inverted(self, key: str) -> str:
        """ "X of Y" is "Y X" where that is a concept of the run at least as frequent: "inference of large
        language model" -> "large language model inference"; "mixture of experts" and "chain of thought"
        (a few "thought chains" in the run) stay."""
        for prep in self.norm.inverted:
            before, sep, after = key.partition(f" {prep} ")
            if sep and before and after:
                turned, _ = self._fold(f"{after} {before}")
                if turned in self.targets and not self.norm.is_generic(turned) and self._more(turned, key):
                    return turned
                return key
        return key

    def _object_first(self, key: str) -> str:
        """ "Xing Y" is "Y" and the noun of "Xing" (:meth:`~kg.normalise.keys.Normaliser.nouns_of`) where
        that is a known concept or one the run writes more often: "detecting anomaly" -> "anomaly
        detection", "learning representation" -> "representation learning"; "learning rate" and
        "reasoning model" stay."""
        doing, _, rest = key.partition(" ")
        if not rest or not doing.endswith("ing") or key in self.known:
            return key
        for noun in self.norm.nouns_of(doing):
            turned, _ = self._fold(f"{rest} {noun}")
            if (
                turned in self.targets
                and not self.norm.is_generic(turned)
                and (turned in self.known or self._count(turned) > self._count(key))
            ):
                return turned
        return key

    def _more(self, key: str, than: str) -> bool:
        """Whether the run has ``key`` (or the gazetteer knows it) at least as often as ``than``, in its spelling."""
        return key in self.known or self._count(key) >= self._count(than)

    def _count(self, key: str) -> int:
        """The run's mentions of ``key``, in its spelling."""
        return self.counts.get(self._closed(key), 0)

    def _fold(self, rest: str) -> tuple[str, bool]:
        """``rest`` (the start of a key) in the run's spelling, and whether it is one word however the
        run spells it: "auto regressive" of "auto-regressive" is "autoregressive"."""
        closed = rest.replace(" ", "")
        return self.closed.get(self._form(rest), rest), " " not in rest or closed in self.words

    def _names(self, rest: str, one_word: bool, head: str = "", key: str = "") -> bool:
        """Whether ``rest`` (folded by :meth:`_fold`) is a name of the run, which ``head`` (a generic
        head, or "based") of ``key`` adds nothing to."""
        if rest not in self.targets or self.norm.is_generic(rest):
            return False
        if one_word and rest not in self.known and not self._process(rest, head):
            if rest not in self.named:
                return False  # "language model" is no "language"
            if key and 2 * self.counts.get(rest, 0) < self._count(key):
                # written as a name, but mostly as the modifier of this head: "massive datasets" (99
                # mentions in arXiv ML, against 12 of "massive", a few of them the dataset MASSIVE)
                return False
        words = rest.split()
        # A preposition and its noun qualify: "out-of-distribution datasets", "on-device models" (but
        # an "on-policy self-distillation method" is on-policy self-distillation).
        qualifier = words[0] in _PREPOSITIONS and len(words) - (words[:2] == ["out", "of"]) <= 2
        return rest in self.known or not (
            (len(words) <= 2 and words[0] in self.general.modifiers)  # "large-scale datasets": no "large scale"
            or qualifier
            or (len(words) > 1 and words[-1].endswith("ed"))  # "human-annotated datasets": a participle
            or words[-1] in self.general.property_words  # "training-free framework": no "training free"
            or words[-1] in self.general.adjective_ends  # "end-to-end models": no "end to end"
            or words[-1] in self.general.adjectives_alone  # "visual autoregressive models", "contrastive methods"
            # "multi-agent systems": no "multi agent"; "multi-perspective": no "multi"
            or (len(words) <= 2 and words[0] in self.general.prefix_words)
        )

    def _unbased(self, key: str) -> str:
        """ "X based Y" is "X Y" where X is a name of the run and "X Y" one of its concepts: "MoE-based
        LLMs" are MoE LLMs, "BERT-based models" BERT models; "aspect-based sentiment analysis" stays."""
        before, sep, after = key.partition(" based ")
        if not sep or not before:
            return key
        plain, _ = self._fold(f"{before} {after}")
        return plain if plain in self.targets and self._names(*self._fold(before)) else key

    def _process(self, word: str, head: str) -> bool:
        """``word`` names a process that ``head`` names a way of doing: "quantization method"."""
        ways = head in self.norm.process_heads or head in self.norm.process_only_heads
        return ways and word.endswith(self.norm.process_endings)


def gerunds(word: str) -> list[str]:
    """The "-ing" forms ``word`` may have, if it is a verb's stem: "decode" -> "decoding", "prefill" ->
    "prefilling", "plan" -> "planning" (and "planing": only a form the run writes is taken).

    >>> gerunds("decode"), gerunds("plan"), gerunds("decoding"), gerunds("3d")
    (['decoding'], ['planing', 'planning'], [], [])
    """
    if len(word) < 3 or not word.isalpha() or word.endswith("ing"):
        return []
    if word.endswith("e") and not word.endswith("ee"):
        return [f"{word[:-1]}ing"]
    forms = [f"{word}ing"]
    if word[-1] not in "aeiouwxy" and word[-2] in "aeiou" and word[-3] not in "aeiou":
        forms.append(f"{word}{word[-1]}ing")
    return forms


def number_form(key: str, named: frozenset[str] = frozenset()) -> str:
    """``key`` without its spaces, and without the s of a last word whose number the name
    decides: the object of "of", or a one-word key of ``named`` (written as a name).

    >>> number_form("chain of thoughts"), number_form("wordnets", frozenset({"wordnets"})), number_form("word nets")
    ('chainofthought', 'wordnet', 'wordnets')

    A key with a letter for a word keeps its spaces where its letters make a common word
    (:func:`kg.normalise.specificity.closed_up`): "multipl e" (MultiPL-E) is no "multiple".

    >>> number_form("multipl e"), number_form("r cnn")
    ('multipl e', 'rcnn')
    """
    form = closed_up(key)
    if " " in form:
        return form  # "MultiPL-E" is no "multiple": a letter glued on makes a word by chance
    words = key.split(" ")
    number = (len(words) > 2 and words[-2] == "of") or (len(words) == 1 and key in named)
    if number and form.endswith("s") and not form.endswith(("ss", "us", "is")):
        return form[:-1]
    return form


def _definitions(
    found: Iterable[Acronym], norm: Normaliser, spelled: dict[str, str] | None = None
) -> Iterable[tuple[str, str]]:
    """(short form, key of its long form) of each acronym definition ``found`` (:func:`find_acronyms`), as
    ``kg_concepts`` reads them; the short forms of ``spelled`` (short form -> key of its long form)
    written in a long form spelled out.

    >>> found = find_acronyms("Explainable AI (XAI) helps.")
    >>> list(_definitions(found, Normaliser(), {"AI": "artificial intelligence"}))
    [('XAI', 'explainable artificial intelligence')]
    """
    for a in found:
        long_key = norm.key(a.long)
        if spelled:
            out = norm.key(_ACRONYM.sub(lambda w: spelled.get(singular(w.group()), w.group()), a.long))
            if not repeats_words(out) and not doubled_word(out):  # (not "student teacher network network")
                long_key = out
        if not norm.is_generic(long_key):
            yield singular(a.short), norm.resolve(a.short, long_key)


def _defined_by_paper(
    papers: list[Paper], norm: Normaliser
) -> tuple[dict[str, dict[str, str]], dict[str, list[Acronym]]]:
    """The acronyms each paper defines itself, in its title or its abstract: short form -> key; and the
    definitions of the papers with a long form that writes a short form ("Explainable AI (XAI)")."""
    defined: dict[str, dict[str, str]] = {}
    inner: dict[str, list[Acronym]] = {}
    for p in papers:
        text = f"{p.title}\n\n{p.abstract}"
        if "(" in text:
            found = find_acronyms(text)
            defined[p.id] = dict(_definitions(found, norm))
            if any(_ACRONYM.search(a.long) for a in found):
                inner[p.id] = found
    return defined, inner


def _counted(
    defined: dict[str, dict[str, str]],
    norm: Normaliser,
    metrics: frozenset[str],
    names: frozenset[str],
    titled: Set[tuple[str, str]] = frozenset(),
    datasets: frozenset[str] = frozenset(),
) -> tuple[dict[str, dict[str, int]], dict[str, Counter[str]]]:
    """The run's definitions (short form -> key of a long form -> papers), and its long forms of known
    names (key -> known name -> papers), from each paper's own (:func:`_defined_by_paper`).

    A short form a paper's title opens with ("PRISM: Robust VLM Alignment with ...", of ``titled``:
    (paper, short form)) names that paper's own work, and its long form nobody else's: it is not
    counted (10,000 arXiv ML abstracts of 2025: RAD, RATE, AIM, PRISM, CRISP, each defined by the
    paper it names, written bare by 6, 6, 7, 7 and 2 others for other things)."""
    definitions: defaultdict[str, Counter[str]] = defaultdict(Counter)
    named_by: defaultdict[str, Counter[str]] = defaultdict(Counter)  # long form -> known names it defines
    for pid, own in defined.items():
        for short, key in own.items():
            if (pid, short) in titled:
                continue
            # an alias decides for its short form ("LLM"), and one that forbids a definition
            # keys the short form as itself: nothing to share
            short_key, last = norm.key(short), key.rpartition(" ")[2]
            if _looks_like_acronym(short) and key != short_key and short_key == norm.surface(short):
                if short_key in metrics and key not in metrics and last not in norm.metric_ends:
                    continue  # "COMmonsEnse Transformers (COMET)" is no name for the metric COMET
                if short_key in names:
                    if short_key not in datasets or last not in technique_and_method_heads():
                        named_by[key][short_key] += 1  # (not "grouped query attention" for GQA)
                    continue
                definitions[short][key] += 1
    return {s: dict(d) for s, d in definitions.items()}, named_by


@lru_cache(maxsize=1)
def _acronym_lists() -> tuple[frozenset[str], frozenset[str]]:
    """The letters of ``family_acronyms`` and of ``everyday_acronyms`` (``config/normalise.toml``), read once."""
    conf = read_settings("normalise.toml")
    families, everyday = (frozenset(map(letters, conf.get(n, []))) for n in ("family_acronyms", "everyday_acronyms"))
    return families, everyday


def _aliased(norm: Normaliser) -> dict[str, str]:
    """Short form -> key, for each alias that decides for its short form ("LLM" -> "large language
    model"; each with a capital, as a defined one has: what has none is never looked up)."""
    return {v.upper(): k for v, k in norm.aliases.force.items() if v.isalpha() and v.upper() != v.lower()}


def _alike(long: str, other: str) -> bool:
    """Two long forms spelled alike or nearly: as one compound ("multilayer perceptron", "multi layer
    perceptron"), or with the same first four letters of each word ("differentially private")."""
    return number_form(long) == number_form(other) or [w[:4] for w in long.split()] == [w[:4] for w in other.split()]


def _short_forms(text: str) -> Iterator[str]:
    """The words of ``text`` that may be acronyms ("PPO", "LLMs"), and the names of several parts that
    are no words ("ROUGE-L", "VQ-VAE"; :func:`_expand_acronyms` looks them up whole).

    >>> list(_short_forms("ROUGE-L and BLEU on VQ-VAE-based state-of-the-art models"))
    ['ROUGE', 'BLEU', 'VQ', 'VAE', 'ROUGE-L', 'VQ-VAE']
    """
    if text.islower():  # no capital: most mentions ("reinforcement learning"), and no regular expression's scan
        return
    yield from _ACRONYM.findall(text)
    for word in _JOINED.findall(text):  # (a regular expression's scan: a corpus has 30 million words)
        if (name := _name_in(word)) and _looks_like_acronym(name):
            yield name


def _name_in(word: str) -> str:
    """The name of several parts that are no words (:func:`_name_part`) that ``word`` starts with, or "".

    >>> [_name_in(w) for w in ["VQ-VAE", "VQ-VAE-based", "MC/DC", "LLM-based", "Non-IID", "AI-Generated"]]
    ['VQ-VAE', 'VQ-VAE', 'MC/DC', '', '', '']
    """
    parts = re.split(r"[-/]", word)
    while len(parts) > 1 and not _name_part(parts[-1]):
        parts.pop()  # "-based"
    if len(parts) > 1 and all(map(_name_part, parts)):
        return word[: sum(map(len, parts)) + len(parts) - 1]
    return ""


def _looks_like_acronym(short: str) -> bool:
    """ "PPO", "BiLSTM", "DARTS": two capitals or more, and at least half the letters; not "English"."""
    caps = sum(c.isupper() for c in short)
    return caps >= 2 and 2 * caps >= sum(c.isalpha() for c in short)


#: A word that may hold acronyms: one part, or a name of several joined by hyphens or slashes ("VQ-VAE").
_COMPOUND = re.compile(r"\w+(?:[-/]\w+)*")
#: A part of a name that numbers it: "4" of "GPT-4", "v3" of "Inception-v3".
_NUMBER_PART = re.compile(r"(?:^|[-/])v?\d+(?:$|[-/])")
#: Parts joined by hyphens or slashes, with a capital: "ROUGE-L", "VQ-VAE-based" (not "fine-tuning").
_JOINED = re.compile(r"\b(?=[\w/-]*[A-Z])\w+(?:[-/]\w+)+")
#: A Roman numeral of two letters or more: "II", "IV", "XII".
_ROMAN = re.compile(r"(?=[IVX]{2})X{0,3}(?:IX|IV|V?I{0,3})")
#: Words a number follows: "grade IV", "Phase II", "BCI Competition IV".
_NUMBERED = frozenset(["grade", "stage", "phase", "type", "class", "level", "part", "chapter", "volume", "track",
                       "task", "tier", "round", "season", "competition", "version", "edition", "series"])  # fmt: skip


def _name_part(part: str) -> bool:
    """A part of a name that is no word: capitals inside or alone, or a number ("ReID", "COCO", "16", "D";
    not "Bench" or "based")."""
    return part.isupper() or any(c.isupper() or c.isdigit() for c in part[1:]) or part.isdigit()


def _numeral(text: str, start: int) -> bool:
    """Whether the Roman numeral at ``start`` of ``text`` numbers what precedes it: "SEED IV", "BCI
    Competition IV", "grade IV" (not "with IV", "IV regression").

    >>> [_numeral(t, t.index("IV")) for t in ["SEED IV", "grade IV", "with IV", "IV regression"]]
    [True, True, False, False]
    """
    before = text[:start].split()[-1:] or [""]
    return before[0].lower() in _NUMBERED or (before[0].isupper() and before[0].isalpha())


class Spelled:
    """A key with the long form it opens with spelled out (:attr:`RunTables.spelled_out`), unless that
    repeats a run of its words ("bidirectional lstm tree long short term memory network", of an ACL
    coordination, stays).

    >>> spelled = Spelled({"explainable ai": "explainable artificial intelligence"})
    >>> spelled("explainable ai method"), spelled("explainable ai"), spelled("explainable aid")
    ('explainable artificial intelligence method', 'explainable artificial intelligence', 'explainable aid')
    >>> bi = Spelled({"bidirectional lstm": "bidirectional long short term memory"})
    >>> bi("bidirectional lstm tree long short term memory network")
    'bidirectional lstm tree long short term memory network'
    """

    __slots__ = ("_firsts", "_table")

    def __init__(self, table: dict[str, str]) -> None:
        self._table = table
        self._firsts = frozenset(long.partition(" ")[0] for long in table)

    def __call__(self, key: str) -> str:
        if key.partition(" ")[0] not in self._firsts:
            return key  # (most keys: no long form the run spells out opens them)
        if key in self._table:
            return self._table[key]
        words = key.split()
        for i in range(len(words) - 1, 1, -1):
            if (start := " ".join(words[:i])) in self._table:
                out = " ".join([self._table[start], *words[i:]])
                return key if repeats_words(out) else out
        return key


#: What separates the conjuncts of a coordination: "A, B and C", "A or B".
_CONJUNCTIONS = re.compile(r"\s*[,;]\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+")


def _spelled(mentions: list[Mention], norm: Normaliser) -> list[Mention]:
    """``mentions``, each of a coordination's concepts (:func:`~kg.records.coordinated`) with the words
    that spell it as its text, for the run-wide rules that read a mention's words: "AI models" of
    "human and AI models", "pre-processing methods" of "pre- and post-processing methods".

    >>> m = Mention("human and AI models", "Technique", 0, 19, "", "uses", "human model")
    >>> [x.text for x in _spelled([m, replace(m, concept="ai model")], Normaliser())]
    ['human models', 'AI models']
    """
    shared = coordinated(mentions)
    if not shared:
        return mentions
    return [_conjunct(m, norm) if (m.field, m.start, m.end) in shared else m for m in mentions]


def _conjunct(m: Mention, norm: Normaliser) -> Mention:
    """``m`` with the words of its coordination that spell its concept as its text, or as it is."""
    parts = [p for p in _CONJUNCTIONS.split(m.text) if p]
    last = parts[-1].split()
    for i, part in enumerate(parts, 1):
        if i == len(parts):
            spellings = [part]
        else:  # the last part's head: "human" + "models"; "pre-" + "processing methods"
            spellings = [f"{part} {' '.join(last[k:])}" for k in range(1, len(last))]
            if part.endswith("-") and "-" in last[0][1:]:
                spellings.append(" ".join([part + last[0].split("-", 1)[1], *last[1:]]))
        for text in spellings:
            if norm.key(text) == m.concept:
                return replace(m, text=text)
    return m


def _expand_acronyms(
    m: Mention,
    acronyms: dict[str, str],
    own: dict[str, str],
    norm: Normaliser,
    curated: frozenset[str] = frozenset(),
    known: frozenset[str] = frozenset(),
) -> str | None:
    """The key of ``m`` with long forms for its bare acronyms: its paper's own, else the run's.

    A mention its abstract keyed by more than its words and its own acronyms ("DP-SGD", defined
    there as a whole; "supervised" of "supervised and unsupervised learning") keeps its key. The
    model's mentions, keyed with the paper's own definitions at extraction, take the run's for the
    rest ("MoE LLMs" where the abstract defines only MoE); candidate phrases ("KV cache
    compression" where the abstract defines "Key-Value (KV) cache") take the paper's here.

    A name of several parts that are no words ("VQ-VAE", "MS-COCO", "VI-ReID", "MIMIC-IV") is
    looked up whole, unless it holds a number ("GPT-4", a name the run defines too); its parts
    take their paper's long forms or a ``curated`` one (an alias's, "CNN" of "CNN-LSTM", or one the
    run agrees on, :attr:`RunTables.agreed`), not any other of the run's: a short form the run reads
    in several ways is as often another field's there ("VI" of "VI-ReID", visible-infrared
    re-identification, is variational inference in most arXiv ML abstracts that define it).
    A Roman numeral that numbers a name ("SEED IV", "BCI Competition IV") stays. So do the parts of a
    ``known`` name that numbers none ("MIMIC-CXR", "MT-Bench", "SWE-bench", "R-CNN": 10,000 arXiv ML
    abstracts of 2026 had keyed them "mimic chest x ray", "machine translation bench"...).

    >>> m = Mention("MT-Bench", "Dataset", 0, 8, "", "uses", "mt bench")
    >>> run = {"MT": "machine translation"}
    >>> _expand_acronyms(m, run, {}, Normaliser(), frozenset(run)), _expand_acronyms(
    ...     m, run, {}, Normaliser(), frozenset(run), frozenset({"mt bench"}))
    ('machine translation bench', None)

    Short forms joined by a slash are each expanded only where each is one ("LLM/VLM"); else they
    are one name: "CNN/DM", the CNN/Daily Mail summarisation dataset (5 papers of 5,000 ACL papers of
    2023 had it keyed "convolutional neural network/dm dataset"; the ACL corpus writes "CNN/DailyMail"
    52 times, "CNN/Daily Mail" 40, "CNN/DM" 24).

    >>> run = {"CNN": "convolutional neural network", "LLM": "large language model", "VLM": "vision language model"}
    >>> m = Mention("CNN/DM dataset", "Dataset", 0, 14, "", "uses", "cnn/dm dataset")
    >>> _expand_acronyms(m, run, {}, Normaliser(), frozenset(run)), _expand_acronyms(
    ...     replace(m, text="LLM/VLM agents", concept="llm/vlm agent"), run, {}, Normaliser(), frozenset(run))
    (None, 'large language model/vision language model agent')
    """
    if not (acronyms or own) or "(" in m.text or m.text.islower():
        return None  # (every short form has a capital: a mention in small letters names none)

    def expand(run: dict[str, str]) -> tuple[str, bool]:
        found = False

        def lookup(short: str, in_name: bool) -> str | None:
            mine = own.get(short)
            if mine is not None and _looks_like_acronym(short):
                return mine
            return run.get(short) if not in_name or short in curated else None

        def long_form(match: re.Match[str]) -> str:
            nonlocal found
            word = match.group()
            name = _name_in(word) if "-" in word or "/" in word else ""  # "VQ-VAE" of "VQ-VAE-based"
            numbered = any(c.isdigit() for c in name)  # "GPT-4", "COVID-19": a name and its number, kept
            if name and not numbered and (long := lookup(singular(name), False)) is not None:
                found = True
                return long + word[len(name) :]
            if "-" in word and not _NUMBER_PART.search(word) and norm.key(word) in known:
                return word  # a known name's parts: "MIMIC-CXR" is no MIMIC chest X-ray
            if "/" in word and any(lookup(singular(p), False) is None for p in word.split("/") if p.lower() != p):
                return word  # one name ("CNN/DM", "CNN/Daily Mail"), not short forms in a list ("LLM/VLM")

            def part(p: re.Match[str]) -> str:
                nonlocal found
                at = match.start() + p.start()
                if _ROMAN.fullmatch(p.group()) and (p.start() > 0 or _numeral(m.text, at)):
                    return p.group()
                long = lookup(singular(p.group()), p.start() < len(name))
                if long is None:
                    return p.group()
                found = True
                return long

            return _WORD.sub(part, word)

        return _COMPOUND.sub(long_form, m.text), found

    text, found = expand(acronyms)
    if not found:  # most mentions: no acronym the run defines (and no keying, which costs more)
        return None
    if norm.key(m.text) != m.concept and norm.key(expand({})[0]) != m.concept:
        return None  # keyed by more than its words and its paper's acronyms
    key = norm.key(text)
    return None if repeats_words(key) else key  # the mention spells the long form out already
