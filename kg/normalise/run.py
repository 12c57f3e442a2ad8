"""Keys across a run: what one abstract cannot decide alone.

Three rules, each a table built from the whole run and applied with dict lookups:

- acronyms: a definition in any abstract serves every abstract that uses the short form bare
  ("PPO" alone gets the key "proximal policy optimization" defined elsewhere); an abstract's own
  definition always wins for it. Of several long forms, the most frequent one whose initials
  spell the short form is taken (then the most frequent, then the first in sort order).
- compounds: keys equal once their spaces are removed are one concept ("data set", "dataset",
  "data-set"); the key is the most frequent form, then the closed one.
- generic heads: "X model", "X framework"... (``generic_heads`` in ``config/normalise.toml``)
  become "X" when "X" is a concept of the run or of ``known``, and "X" is not one common word:
  a one-word "X" must be written as a name somewhere ("BERT model" -> "bert"; "language model"
  stays).

The tables (:class:`RunTables`) are kept by incremental runs, so that new papers get the keys the
stored ones got.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from kg.normalise.acronyms import find_acronyms, initials, letters
from kg.normalise.keys import Normaliser
from kg.records import Extraction, Mention, Paper

_WORD = re.compile(r"\w+")
#: Rule names, as counted in the run report.
ACRONYM, COMPOUND, HEAD, SELF_RELATION = (
    "acronym from the run",
    "compound folded",
    "generic head stripped",
    "relation within one concept dropped",
)


@dataclass(frozen=True)
class RunTables:
    """What the run-wide rules decided: kept by incremental runs for the papers they add.

    ``acronyms``: short form -> key of its long form; ``concepts``: every key of the run after
    the acronym and compound rules (one per space-less form); ``named``: the one-word ones among
    them that some mention writes as a name ("BERT", "ResNet", "GPT-2").
    """

    acronyms: dict[str, str] = field(default_factory=dict)
    concepts: frozenset[str] = frozenset()
    named: frozenset[str] = frozenset()

    def to_dict(self) -> dict[str, Any]:
        return {"acronyms": dict(sorted(self.acronyms.items())), "concepts": sorted(self.concepts),
                "named": sorted(self.named)}  # fmt: skip

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunTables:
        return cls(dict(data["acronyms"]), frozenset(data["concepts"]), frozenset(data["named"]))


def normalise_run(
    papers: Iterable[Paper],
    extractions: list[Extraction],
    *,
    normaliser: Normaliser | None = None,
    known: frozenset[str] = frozenset(),
    tables: RunTables | None = None,
) -> tuple[list[Extraction], Counter[str]]:
    """Re-key the mentions and relations of a run with the run-wide rules.

    Returns new extractions (the inputs are left alone) and how often each rule fired, the
    per-paper rules of :class:`~kg.records.Extraction` included. ``tables`` are those of
    :func:`run_tables` for these papers, built here if not given.

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
    defined = _defined_by_paper(papers, norm)
    tables = tables or run_tables(papers, extractions, normaliser=norm)
    rekey = _Rekey(norm, tables, known)
    rules: Counter[str] = Counter()
    out = []
    for x in extractions:
        rules.update(x.rules)
        own = defined.get(x.id, {})
        by_span: dict[tuple[int, int], str] = {}
        mentions = []
        for m in x.mentions:
            key = rekey(m, own, rules)
            by_span[m.start, m.end] = key
            mentions.append(m if key == m.concept else replace(m, concept=key))
        relations = []
        for r in x.relations:
            head = by_span.get((r.head_start, r.head_end)) or rekey.key(r.head)
            tail = by_span.get((r.tail_start, r.tail_end)) or rekey.key(r.tail)
            if head == tail:  # "data set USED_FOR dataset": one concept now
                rules[SELF_RELATION] += 1
                continue
            relations.append(r if (head, tail) == (r.head, r.tail) else replace(r, head=head, tail=tail))
        out.append(Extraction(x.id, mentions, relations, x.rules))
    return out, Counter(dict(sorted(rules.items())))


def run_tables(
    papers: Iterable[Paper],
    extractions: Iterable[Extraction],
    *,
    normaliser: Normaliser | None = None,
    prior: RunTables | None = None,
) -> RunTables:
    """The run-wide tables of ``papers``; a ``prior`` run's decisions win where both decide.

    >>> ps = [Paper(str(i), "", text) for i, text in enumerate(["dataset", "data set", "data-set"])]
    >>> xs = [Extraction(p.id, [Mention(p.abstract, "Dataset", 0, 8, "", "uses", "data set")]) for p in ps[1:]]
    >>> xs.append(Extraction("0", [Mention("dataset", "Dataset", 0, 7, "", "uses", "dataset")]))
    >>> sorted(run_tables(ps, xs).concepts)
    ['data set']
    """
    norm = normaliser or Normaliser()
    papers = list(papers)
    acronyms = _acronym_table(papers, norm)
    if prior:
        acronyms.update(prior.acronyms)
    defined = _defined_by_paper(papers, norm)
    counts: Counter[str] = Counter()
    named_forms: set[str] = set()
    for x in extractions:
        own = defined.get(x.id, {})
        for m in x.mentions:
            key = _expand_acronyms(m, acronyms, own, norm) or m.concept
            counts[key] += 1
            if " " not in key and _written_as_name(m.text):
                named_forms.add(key)
    groups: defaultdict[str, list[str]] = defaultdict(list)
    for key in counts:
        groups[key.replace(" ", "")].append(key)
    stored = {k.replace(" ", ""): k for k in prior.concepts} if prior else {}
    # the most frequent form, then the closed one, then the first in sort order
    chosen = {
        form: stored.get(form) or min(keys, key=lambda k: (-counts[k], k.count(" "), k))
        for form, keys in groups.items()
    }
    concepts = set(chosen.values())
    named = {chosen[k.replace(" ", "")] for k in named_forms}
    if prior:
        concepts |= prior.concepts
        named |= prior.named
    return RunTables(acronyms, frozenset(concepts), frozenset(named))


class _Rekey:
    """The run-wide rules as lookups: a mention's key, or a bare key's (a relation's end)."""

    def __init__(self, norm: Normaliser, tables: RunTables, known: frozenset[str]) -> None:
        self.norm, self.tables, self.known = norm, tables, known
        self.closed = {k.replace(" ", ""): k for k in tables.concepts}
        self.targets = tables.concepts | {self.closed.get(k.replace(" ", ""), k) for k in known}

    def __call__(self, m: Mention, own: dict[str, str], rules: Counter[str]) -> str:
        key = _expand_acronyms(m, self.tables.acronyms, own, self.norm)
        if key and key != m.concept:
            rules[ACRONYM] += 1
        key = key or m.concept
        folded = self.closed.get(key.replace(" ", ""), key)
        if folded != key:
            rules[COMPOUND] += 1
        stripped = self._strip_head(folded)
        if stripped != folded:
            rules[HEAD] += 1
        return stripped

    def key(self, key: str) -> str:
        return self._strip_head(self.closed.get(key.replace(" ", ""), key))

    def _strip_head(self, key: str) -> str:
        rest, _, head = key.rpartition(" ")
        if not rest or head not in self.norm.generic_heads or key in self.known:
            return key
        rest = self.closed.get(rest.replace(" ", ""), rest)
        if rest not in self.targets or self.norm.is_generic(rest):
            return key
        if " " not in rest and rest not in self.tables.named and rest not in self.known:
            return key  # "language model" is no "language"
        return rest


def _definitions(abstract: str, norm: Normaliser) -> Iterable[tuple[str, str]]:
    """(short form, key of its long form) of each acronym ``abstract`` defines, as ``kg_concepts`` reads them."""
    for a in find_acronyms(abstract):
        long_key = norm.key(a.long)
        if not norm.is_generic(long_key):
            yield _short(a.short), norm.resolve(a.short, long_key)


def _acronym_table(papers: list[Paper], norm: Normaliser) -> dict[str, str]:
    """Short form -> the key of its long form across ``papers`` (see the module's docstring)."""
    seen: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for p in papers:
        for short, key in _definitions(p.abstract, norm):
            # a definition an alias forbids stays the abstract's own: its key is the short form's
            if key != norm.key(short):
                seen[short][key] += 1
    table = {}
    for short, longs in seen.items():
        want = letters(short)
        table[short] = min(longs, key=lambda k: (want not in initials(k), -longs[k], k))
    return table


def _defined_by_paper(papers: list[Paper], norm: Normaliser) -> dict[str, dict[str, str]]:
    """The acronyms each abstract defines itself: short form -> key."""
    return {p.id: dict(_definitions(p.abstract, norm)) for p in papers if "(" in p.abstract}


def _short(short: str) -> str:
    """ "LLMs" -> "LLM"; "RKHS", "DARTS" stay (a capital S is no plural)."""
    return short[:-1] if len(short) > 2 and short[-1] == "s" and short[:-1].isupper() else short


def _expand_acronyms(m: Mention, acronyms: dict[str, str], own: dict[str, str], norm: Normaliser) -> str | None:
    """The key of ``m`` with the run's long forms for the bare acronyms its paper does not define."""
    if not acronyms or "(" in m.text:
        return None
    found = False

    def long_form(match: re.Match[str]) -> str:
        nonlocal found
        short = _short(match.group())
        if short in own:
            return own[short]
        if short not in acronyms:
            return match.group()
        found = True
        return acronyms[short]

    text = _WORD.sub(long_form, m.text)
    return norm.key(text) if found else None


def _written_as_name(text: str) -> bool:
    """ "BERT", "ResNet", "GPT-2", "word2vec": a capital after the first letter, or a digit."""
    return any(c.isupper() for c in text[1:]) or (any(c.isdigit() for c in text) and any(c.isalpha() for c in text))
