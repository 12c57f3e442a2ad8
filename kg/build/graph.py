"""The paper-concept graph and the combined knowledge graph.

Node ids are ``"paper:<id>"`` and ``"concept:<key>"``; every node has ``kind`` (``Paper`` or
``Concept``) and every edge ``rel``: ``MENTIONS``, ``SHARES_CONCEPTS``, ``CO_OCCURS``, or a
relation a sentence states between two concepts (:data:`kg.records.RELATION_TYPES`).
"""

from __future__ import annotations

import logging
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Container, Iterable, Iterator, Mapping
from dataclasses import replace
from functools import cache
from typing import Any

import networkx as nx

from kg.build.attributes import OneEach, SharedKeys, add_edge_dict, set_node_dict
from kg.build.texts import TextFile
from kg.normalise.acronyms import spelled_by_initials
from kg.normalise.keys import Normaliser, written_as_name
from kg.normalise.specificity import generic_terms, is_acronym, specificity, writes_acronym
from kg.records import RELATION_TYPES, ROLE_STRENGTH, Extraction, Mention, Paper, coordinated

log = logging.getLogger(__name__)

TYPE_ORDER = ("Method", "Technique", "Problem", "Dataset", "Metric", "Hardware")

_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")

# The attribute dicts of a corpus's papers, concepts and mentions share their keys
# (:class:`kg.build.attributes.SharedKeys`), with room for what later stages add: the analytics
# (:func:`kg.analyse.annotate`). 61,839 ACL papers: the run's peak 2,462 -> 2,257 MB, with the links'.
PAPER_KEYS = SharedKeys("kind", "id", "title", "abstract", "year", "authors", "venue", "categories",
                        "primary_category", "extra", "n_concepts", "community", "pagerank")  # fmt: skip
#: The aliases of every concept spelt one way only, one list for all (150,965 arXiv ML papers: 865,444
#: of 1.08 million concepts, 48 MB as a list each). A concept's aliases are replaced, never changed in place.
NO_ALIASES: list[str] = []
CONCEPT_KEYS = SharedKeys("kind", "key", "name", "type", "aliases", "paper_count", "specificity", "generic",
                          "community", "pagerank", "degree", "betweenness", "first_year", "yearly", "trend",
                          "bridge")  # fmt: skip
RELATION_KEYS = SharedKeys("rel", "papers", "paper", "sentence", "n_papers")
MENTION_KEYS = SharedKeys("rel", "role", "text", "sentence", "field", "start", "end", "count", "salience")


def paper_node(paper_id: str) -> str:
    """Node id of a paper.

    >>> paper_node("acl:P19-1001")
    'paper:acl:P19-1001'
    """
    return f"paper:{paper_id}"


def concept_node(key: str) -> str:
    """Node id of a concept.

    >>> concept_node("machine translation")
    'concept:machine translation'
    """
    return f"concept:{key}"


#: A paper's subject categories (arXiv's cs.CL, cs.LG, ...): node properties of their own, not ``extra``.
CATEGORY_FIELDS = ("categories", "primary_category")


def paper_categories(extra: dict[str, Any]) -> dict[str, Any]:
    """A record's ``categories`` (a list, or text separated by spaces) and ``primary_category``.

    arXiv lists the primary category first: without a ``primary_category`` field, the first
    category is the primary one.

    >>> paper_categories({"categories": ["cs.CL", "cs.AI"]})
    {'categories': ['cs.CL', 'cs.AI'], 'primary_category': 'cs.CL'}
    >>> paper_categories({"categories": "cs.LG stat.ML", "primary_category": "stat.ML"})
    {'categories': ['cs.LG', 'stat.ML'], 'primary_category': 'stat.ML'}
    >>> paper_categories({})
    {'categories': [], 'primary_category': None}

    Only text counts: the readers reject a record whose categories are anything else, and a
    ``Paper`` made in Python with such ``extra`` keeps its other fields (``5`` had stopped the
    build with a ``TypeError``, ``[None]`` had been the category "None").

    >>> paper_categories({"categories": 5}), paper_categories({"categories": [None, "cs.CL"], "primary_category": 7})
    ({'categories': [], 'primary_category': None}, {'categories': ['cs.CL'], 'primary_category': 'cs.CL'})
    """
    found = extra.get("categories") or []
    if isinstance(found, str):
        found = found.split()
    elif not isinstance(found, (list, tuple)):
        found = []
    categories = list(dict.fromkeys(c.strip() for c in found if isinstance(c, str) and c.strip()))
    primary = extra.get("primary_category")
    primary = primary.strip() if isinstance(primary, str) and primary.strip() else None
    return {"categories": categories, "primary_category": primary or (categories[0] if categories else None)}


def build_graph(
    papers: Iterable[Paper], extractions: Iterable[Extraction], *, texts: TextFile | None = None
) -> nx.DiGraph:
    """Build the bipartite paper -> concept graph.

    Parameters
    ----------
    papers
        The validated papers; each becomes a ``Paper`` node with all its fields (its own
        ``authors`` list, and its own ``extra`` dict where it has no categories: the graph does
        not copy them).
    extractions
        The mentions found in each paper (matched by id; papers without one have none).
    texts
        Where the papers' abstracts and their edges' evidence sentences go (a run's graph: see
        :mod:`kg.build.texts`); the graph then holds their numbers in that file.

    Returns
    -------
    networkx.DiGraph
        ``Paper`` and ``Concept`` nodes and one ``MENTIONS`` edge per (paper, concept) that
        keeps the strongest role, its evidence sentence, the field it is in (``title`` or
        ``abstract``) and offsets there, the mention count and the concept's :func:`salience` in
        the paper; one concept -> concept edge per stated relation (:func:`relation_edges`).
        Concepts carry ``specificity`` and ``generic`` (:func:`concept_scores`).

    Examples
    --------
    >>> from kg.records import Mention, Relation
    >>> text = "We use BERT for parsing."
    >>> p = Paper("p1", "T", text, 2020)
    >>> ms = [Mention("BERT", "Method", 7, 11, text, "uses", "bert"),
    ...       Mention("parsing", "Problem", 16, 23, text, "mentions", "parsing")]
    >>> r = Relation("USED_FOR", "bert", "parsing", "BERT", "parsing", 7, 11, 16, 23, text)
    >>> B = build_graph([p], [Extraction("p1", ms, [r])])
    >>> B.nodes["concept:bert"]["name"], B.nodes["concept:bert"]["paper_count"]
    ('BERT', 1)
    >>> B.edges["paper:p1", "concept:bert"]["role"], B.edges["paper:p1", "concept:bert"]["salience"]
    ('uses', 0.3855)
    >>> B.nodes["concept:parsing"]["generic"]
    False
    >>> B.edges["concept:bert", "concept:parsing"]["rel"], B.edges["concept:bert", "concept:parsing"]["n_papers"]
    ('USED_FOR', 1)
    """
    extraction_of = _in_step(extractions)
    B = nx.DiGraph()
    # per concept: how often each spelling (all, and in abstracts) and each type is met
    surfaces, in_abstracts, types = Tally(), Tally(), Tally()
    # One object per value that edges by the million repeat: a salience (rounded: a few thousand
    # in a corpus), an offset, a spelling; and one id per concept, which is each of its edges' key
    # in the graph's adjacency (61,839 ACL papers: 913,331 edges).
    scores, offsets, spellings = OneEach(), OneEach(), OneEach()
    first_words = _FirstWords()  # how mentions inside sentences write their first words
    concept_ids: dict[str, str] = {}
    # Each paper's extraction is let go once its edges are added (only its relations are kept), so
    # that a caller that hands over the only reference (:func:`kg.pipeline.run.build_stage`) frees
    # the mentions while the graph grows into their memory.
    stated: list[Extraction] = []
    for paper in papers:
        node = paper_node(paper.id)
        found = extraction_of(paper.id)
        # One string per sentence and per role and field name: a paper's mentions and relations
        # carry each sentence as a string of their own (decoded apart), a corpus's edges by the million.
        # With a text file, one number per sentence, its own in that file.
        sentences: Callable[[str], Any] = OneEach() if texts is None else _numbered(texts)
        if found is not None:
            relations = [replace(r, sentence=sentences(r.sentence)) for r in found.relations]
            stated.append(Extraction(found.id, [], relations))
        # the paper's own list of authors and (without categories) its own dict of other fields
        extra = paper.extra
        if any(k in extra for k in CATEGORY_FIELDS):
            extra = {k: v for k, v in extra.items() if k not in CATEGORY_FIELDS}
        abstract = paper.abstract if texts is None else texts.add(paper.abstract)
        attrs = {"kind": "Paper", "id": paper.id, "title": paper.title, "abstract": abstract,
                 "year": paper.year, "authors": paper.authors, "venue": paper.venue,
                 **paper_categories(paper.extra), "extra": extra}  # fmt: skip
        set_node_dict(B, node, PAPER_KEYS(attrs))
        best: dict[str, tuple[Mention, int]] = {}
        placed: dict[str, float] = defaultdict(float)
        first_end = _first_sentence_end(paper.abstract)
        mentioned = found.mentions if found is not None else []
        shared = coordinated(mentioned)
        for m in mentioned:
            place = 1.0 if m.field == "title" else 0.5 if m.start < first_end else 0.0
            placed[m.concept] = max(placed[m.concept], place)
            text = spellings(m.text)
            if shared and (m.field, m.start, m.end) in shared:
                surfaces.register(m.concept)  # "supervised and unsupervised learning" spells neither
            else:
                # a title's spelling names a concept only when no abstract spells it ("Neural Machine
                # Translation" in title case)
                surfaces.add(m.concept, text)
                if m.field == "abstract":
                    in_abstracts.add(m.concept, text)
                    if not _opens_sentence(paper.abstract, m.start):
                        first_words.add(text)
            types.add(m.concept, m.type)
            seen = best.get(m.concept)
            if seen is None:
                best[m.concept] = (m, 1)
            elif ROLE_STRENGTH[m.role] > ROLE_STRENGTH[seen[0].role] or (
                m.role == seen[0].role and opens_title(m.role, m.field, m.start)
            ):
                best[m.concept] = (m, seen[1] + 1)  # (the title that names a paper's own work is its evidence)
            else:
                best[m.concept] = (seen[0], seen[1] + 1)
        for key, (m, count) in best.items():
            score = salience(m.role, place=placed[key], count=count, specificity=specificity(key))
            attrs = {"rel": "MENTIONS", "role": sys.intern(m.role), "text": spellings(m.text),
                     "sentence": sentences(m.sentence), "field": sys.intern(m.field), "start": offsets(m.start),
                     "end": offsets(m.end), "count": count, "salience": scores(score)}  # fmt: skip
            concept = concept_ids.get(key) or concept_ids.setdefault(key, concept_node(key))
            add_edge_dict(B, node, concept, MENTION_KEYS(attrs))
        B.nodes[node]["n_concepts"] = len(best)
        del found, mentioned  # before the next paper is read
    names = _distinct_names(surfaces, lambda key: in_abstracts.get(key) or surfaces[key],
                            lambda key: B.in_degree(concept_ids[key]), lowered=first_words.lowered())  # fmt: skip
    for key in surfaces:
        node = concept_ids[key]
        name = key if names[key] == key else names[key]
        typed = types[key]
        attrs = {"kind": "Concept", "key": key, "name": name,
                 "type": min(typed, key=lambda t: (-typed[t], _type_rank(t))),
                 "aliases": sorted(set(surfaces[key]) - {name}) or NO_ALIASES,
                 "paper_count": B.in_degree(node)}  # fmt: skip
        set_node_dict(B, node, CONCEPT_KEYS(attrs))
    concept_scores(B)
    edges = relation_edges(stated, node=lambda key: concept_ids.get(key) or concept_node(key))
    B.add_edges_from((u, v, d) for u, v, d in edges if u in B and v in B)
    return B


def _numbered(texts: TextFile) -> Callable[[str], int]:
    """``number(sentence)``: the sentence's number in ``texts``, where it is added the first time it is met."""
    numbers: dict[str, int] = {}

    def number(sentence: str) -> int:
        found = numbers.get(sentence)
        if found is None:
            found = numbers[sentence] = texts.add(sentence)
        return found

    return number


class Tally(Mapping[str, Counter[str]]):
    """How often each value is met with each key, as a read-only mapping of key -> ``Counter``.

    Compact while a key has met one value only, as most of a corpus's concepts have one spelling
    and all of them one type: that value and a count, not a ``Counter`` each (the 398,420
    concepts of 61,839 ACL papers had three each while their graph was built).

    >>> t = Tally()
    >>> for key, value in [("bert", "BERT"), ("bert", "BERT"), ("gpt", "GPT"), ("bert", "Bert")]:
    ...     t.add(key, value)
    >>> t["bert"], t["gpt"], list(t)
    (Counter({'BERT': 2, 'Bert': 1}), Counter({'GPT': 1}), ['bert', 'gpt'])
    """

    __slots__ = ("_count", "_seen")

    def __init__(self) -> None:
        # key -> its one value so far (counted in _count), or a Counter once it has met two
        self._seen: dict[str, str | Counter[str]] = {}
        self._count: dict[str, int] = {}

    def add(self, key: str, value: str) -> None:
        seen = self._seen.get(key)
        if seen is None:
            self._seen[key] = value
            self._count[key] = 1
        elif isinstance(seen, Counter):
            seen[value] += 1
        elif seen == value:
            self._count[key] += 1
        else:
            self._seen[key] = Counter({seen: self._count.pop(key), value: 1})

    def register(self, key: str) -> None:
        """Count ``key`` in, with no value met (yet)."""
        if key not in self._seen:
            self._seen[key] = Counter()

    def __getitem__(self, key: str) -> Counter[str]:
        seen = self._seen[key]
        return seen if isinstance(seen, Counter) else Counter({seen: self._count[key]})

    def __iter__(self) -> Iterator[str]:
        return iter(self._seen)

    def __len__(self) -> int:
        return len(self._seen)


def _in_step(extractions: Iterable[Extraction]) -> Callable[[str], Extraction | None]:
    """``extraction_of(paper_id)``: the paper's extraction, read from ``extractions`` only as far as needed.

    A run's extractions come in the order of its papers, so each is decoded when its paper is
    built and freed once its edges are in. Decoded all at once, the 61,839 ACL papers' 1.2
    million mentions were freed while the graph grew into their memory, and left 540 MB of
    Python's small-object arenas part-used until the run ended. Extractions met ahead of their
    paper wait (in any order, they all do).

    >>> of = _in_step([Extraction("b", []), Extraction("a", [])])
    >>> [x.id if x else None for x in (of("a"), of("c"), of("b"))]
    ['a', None, 'b']
    """
    stream = iter(extractions)
    ahead: dict[str, Extraction] = {}

    def extraction_of(paper_id: str) -> Extraction | None:
        found = ahead.pop(paper_id, None)
        if found is not None:
            return found
        for x in stream:
            if x.id == paper_id:
                return x
            ahead[x.id] = x
        return None

    return extraction_of


def salience(role: str, *, place: float = 0.0, count: int = 1, specificity: float = 0.0) -> float:
    """How central a concept is to a paper, in [0, 1].

    ``0.1 + 0.3 role + 0.25 place + 0.15 (1 - 1/count) + 0.2 specificity``, where ``role`` is
    the strongest role's rank scaled to [0, 1] (proposes 1, addresses 2/3, uses 1/3, mentions
    0), ``place`` is 1 for a concept in the title, 0.5 in the abstract's first sentence and 0
    elsewhere, ``count`` the paper's mentions of it and ``specificity`` its reference
    specificity (:func:`kg.normalise.specificity.specificity`, without the run, so a paper's
    salience does not move when papers are added). Each term only raises it.

    >>> salience("proposes", place=1.0, count=2, specificity=0.4) > salience("mentions", specificity=0.4)
    True
    >>> salience("mentions"), salience("proposes", place=1.0, count=10**9, specificity=1.0)
    (0.1, 1.0)
    """
    rank = ROLE_STRENGTH[role] / max(ROLE_STRENGTH.values())
    score = 0.1 + 0.3 * rank + 0.25 * place + 0.15 * (1 - 1 / max(count, 1)) + 0.2 * specificity
    return round(min(1.0, score), 4)


def concept_scores(G: nx.DiGraph) -> None:
    """Set ``specificity`` and ``generic`` on every concept node of ``G``, in place.

    ``specificity`` pools the concept's papers in ``G`` with the reference corpora
    (:func:`kg.normalise.specificity.specificity`); ``generic`` marks concepts that name no
    research concept of their own, which stay in the graph but do not link papers, name
    communities or fill top lists: concepts made only of general academic words
    (:func:`worded_generic`), and those that the run's counts show to be common words it seldom
    makes a concept of alone ("human") or names that many papers each give their own thing
    ("PRISM"; :func:`counted_generic`).

    >>> G = nx.DiGraph()
    >>> G.add_node("concept:downstream task", kind="Concept", key="downstream task", name="downstream tasks",
    ...            aliases=[], paper_count=3)
    >>> concept_scores(G)
    >>> G.nodes["concept:downstream task"]["generic"]
    True
    """
    n_papers = sum(1 for _, kind in G.nodes(data="kind") if kind == "Paper")
    introduced = introductions(G)
    scores = OneEach()
    for n, d in G.nodes(data=True):
        if d.get("kind") == "Concept":
            run_df = min(d.get("paper_count") or 0, n_papers)
            score = round(specificity(d["key"], run_df=run_df, run_docs=n_papers), 4)
            d["specificity"] = scores(score)
            d["generic"] = worded_generic(G, n) or counted_generic(
                d, run_df=run_df, run_docs=n_papers, introduced=introduced[n]
            )


def worded_generic(G: nx.DiGraph, n: str) -> bool:
    """Whether the words of concept ``n`` and its spellings make it generic
    (:meth:`kg.normalise.specificity.GenericTerms.is_generic`).

    An acronym names a concept of general words ("Deep Learning Models (DLMs)") when one paper
    in :data:`ACRONYM_SHARE` at least writes it so (the text of its ``MENTIONS``): on the arXiv ML
    corpus one paper's "classification (CFC)" had kept "classification" (3,240 papers), and a few
    "pre-trained models (PTMs)" "pretrained model" (1,907), from being generic.
    """
    generic = generic_terms()
    d = G.nodes[n]
    forms = _forms(d)
    if generic.is_generic(d["key"], forms):
        return True
    plain = [f for f in forms if not writes_acronym(f)]
    if len(plain) < len(forms) and generic.is_generic(d["key"], plain):
        texts = [t for _, _, t in G.in_edges(n, data="text") if t is not None]
        return ACRONYM_SHARE * sum(map(writes_acronym, texts)) < len(texts)
    return False


def counted_generic(d: dict[str, Any], *, run_df: int, run_docs: int, introduced: int) -> bool:
    """Whether a concept (its node's attributes ``d``) is generic by the run's counts: a common word
    that few of the ``run_docs`` papers with it make a concept of alone (``run_df`` do), or a name
    that many of its papers each introduce (``introduced`` do; :func:`introductions`)."""
    generic = generic_terms()
    forms = _forms(d)
    return generic.rarely_a_term(d["key"], forms, run_df=run_df, run_docs=run_docs) or generic.reused_name(
        forms[0], introduced=introduced, papers=run_df
    )


def introductions(G: nx.DiGraph) -> Counter[str]:
    """Concept node -> how many papers introduce it: open their title with it, as a name of their
    own ("PRISM: Efficient Long-Range Reasoning With Short-Context LLMs"; a ``MENTIONS`` edge that
    proposes it from the title's start).

    >>> G = nx.DiGraph()
    >>> G.add_edge("paper:a", "concept:prism", rel="MENTIONS", role="proposes", field="title", start=0)
    >>> G.add_edge("paper:b", "concept:prism", rel="MENTIONS", role="proposes", field="abstract", start=9)
    >>> introductions(G)
    Counter({'concept:prism': 1})
    """
    return Counter(v for _, v, d in G.edges(data=True) if d.get("rel") == "MENTIONS" and opens_title_edge(d))


def opens_title(role: str | None, field: str | None, start: int | None) -> bool:
    """Whether a mention proposes its concept from the title's start (a paper's own name)."""
    return role == "proposes" and field == "title" and start == 0


def opens_title_edge(d: dict[str, Any]) -> bool:
    """:func:`opens_title` of a ``MENTIONS`` edge's attributes."""
    return opens_title(d.get("role"), d.get("field"), d.get("start"))


def _forms(d: dict[str, Any]) -> list[str]:
    """A concept node's spellings, its name first."""
    return [d.get("name") or "", *d.get("aliases", [])]


def _opens_sentence(text: str, start: int) -> bool:
    """Whether the mention at ``start`` of ``text`` opens a sentence: the text's start, or after a
    sentence's end.

    >>> _opens_sentence("Deep nets. Graph models", 11), _opens_sentence("Deep nets. Graph models", 0)
    (True, True)
    >>> _opens_sentence("We use Graph models", 7)
    False
    """
    before = text[max(0, start - 3) : start].rstrip()
    return before[-1:] in (".", "!", "?", ":") if before else start < 3


class _FirstWords:
    """How the run writes the first word of a mention inside a sentence: in lower case ("graphical user
    interface") or with a capital alone ("Bayesian optimization"); ``lowered`` gives the words written
    in lower case more often.

    >>> words = _FirstWords()
    >>> for text in ["graphical models", "Bayesian optimization", "GUI agents", "graph-based methods",
    ...              "Graphical User Interface (GUI) agents"]:
    ...     words.add(text)
    >>> sorted(words.lowered())
    ['graph', 'graphical']
    """

    __slots__ = ("_lead",)

    def __init__(self) -> None:
        self._lead: Counter[str] = Counter()  # word -> times in lower case less times with a capital alone

    def add(self, text: str) -> None:
        first = _FIRST_WORD.match(text)
        if first is None:
            return
        word = first.group()
        if word.islower():
            self._lead[word] += 1
        elif word[1:].islower() and _CAPITAL_ALONE.match(text):
            self._lead[word.lower()] -= 1

    def lowered(self) -> frozenset[str]:
        return frozenset(w for w, n in self._lead.items() if n > 0)


_FIRST_WORD = re.compile(r"[^\W\d_]+")
#: A first word with a capital and no capital after it: "Bayesian optimization", "Transformer"; not
#: a title's way or a definition's ("Graphical User Interface (GUI) agents" is no sign that
#: "graphical" is a name).
_CAPITAL_ALONE = re.compile(r"[^\W\d_]+(?:$|[\s-]+[a-z])")


def _first_sentence_end(text: str) -> int:
    found = _SENTENCE_END.search(text)
    return found.end() if found else len(text)


def relation_edges(
    extractions: Iterable[Extraction], *, node: Callable[[str], str] = concept_node
) -> list[tuple[str, str, dict]]:
    """One ``(head, tail, attributes)`` edge per concept pair that some sentence relates.

    ``rel`` is the relation type, ``papers`` the ids of the papers that state it (in input
    order), ``n_papers`` their number, and ``paper`` and ``sentence`` the first statement.
    ``node`` gives a concept's node id (the graph's own string, where the caller has it).
    A graph holds one edge per ordered pair, so when sentences give one pair several types,
    the type most papers state wins (the first stated, on a tie), and of a pair stated both
    ways, the direction most papers state (:func:`one_per_pair`).

    Examples
    --------
    >>> from kg.records import Relation
    >>> def said(pid, kind):
    ...     return Extraction(pid, [], [Relation(kind, "x", "y", "X", "Y", 0, 1, 6, 7, f"X {kind} Y.")])
    >>> [(u, v, d["rel"], d["papers"]) for u, v, d in relation_edges([said("a", "PART_OF"), said("b", "USED_FOR"),
    ...                                                               said("c", "USED_FOR")])]
    [('concept:x', 'concept:y', 'USED_FOR', ['b', 'c'])]
    """
    stated: dict[tuple[str, str], dict[str, dict]] = defaultdict(dict)
    for x in extractions:
        for r in x.relations:
            by_type = stated[(r.head, r.tail)]
            if r.type not in by_type:
                by_type[r.type] = {"rel": r.type, "papers": [x.id], "paper": x.id, "sentence": r.sentence}
            elif by_type[r.type]["papers"][-1] != x.id:
                by_type[r.type]["papers"].append(x.id)
    edges = []
    for (head, tail), by_type in stated.items():
        best = max(by_type.values(), key=lambda d: len(d["papers"]))  # max keeps the first on a tie
        edges.append((node(head), node(tail), RELATION_KEYS({**best, "n_papers": len(best["papers"])})))
    return one_per_pair(edges)


def one_per_pair(edges: list[tuple[str, str, dict]]) -> list[tuple[str, str, dict]]:
    """Of relations stated both ways between two concepts, the one more papers state (the first, on a tie).

    Two concepts keep one stated relation, so the other direction of the pair is free for their
    co-occurrence link: a networkx graph holds one edge per ordered pair.

    >>> one_per_pair([("a", "b", {"n_papers": 1}), ("b", "a", {"n_papers": 2}), ("a", "c", {"n_papers": 1})])
    [('b', 'a', {'n_papers': 2}), ('a', 'c', {'n_papers': 1})]
    """
    first = {(u, v): i for i, (u, v, _) in enumerate(edges)}
    count = {(u, v): d["n_papers"] for u, v, d in edges}

    def wins(u: str, v: str) -> bool:
        if (v, u) not in count:
            return True
        return (-count[u, v], first[u, v]) < (-count[v, u], first[v, u])

    return [(u, v, d) for u, v, d in edges if wins(u, v)]


def _distinct_names(
    keys: Iterable[str],
    forms: Callable[[str], Counter[str]],
    papers: Callable[[str], int],
    *,
    lowered: Container[str] = frozenset(),
) -> dict[str, str]:
    """Each concept's name (:func:`_concept_name` of its spellings ``forms(key)``), no two alike:
    where concepts would share one, the concept with most papers keeps it and the others are
    spelled out.

    A paper that defines LLM as "large-scale language model" writes "LLM serving" for a concept of
    its own, which the name of "large language model serving" must not hide.

    >>> forms = {"large language model serving": Counter({"LLM serving": 5}),
    ...          "large scale language model serving": Counter({"LLM serving": 1})}
    >>> names = _distinct_names(forms, forms.__getitem__,
    ...                         {"large language model serving": 11, "large scale language model serving": 1}.get)
    >>> names["large language model serving"], names["large scale language model serving"]
    ('LLM serving', 'large scale language model serving')
    """
    names = {key: _concept_name(key, forms(key), lowered=lowered) for key in keys}
    alike: dict[str, list[str]] = defaultdict(list)
    for key, name in names.items():
        alike[name.casefold()].append(key)
    for same in alike.values():
        if len(same) > 1:
            same.sort(key=lambda k: (-papers(k), k))
            for key in same[1:]:
                names[key] = _concept_name(key, forms(key), spelled_out=True, lowered=lowered)
    return names


def _concept_name(
    key: str, forms: Counter[str], *, spelled_out: bool = False, lowered: Container[str] = frozenset()
) -> str:
    """What the papers call the concept: the most frequent form that spells the key out (not an
    acronym of it), unless another form is written :data:`WRITTEN_MORE` times as often ("GPT-4",
    "LSTM", "KV cache"); never a cut form "X (ACRONYM)", which reads only half the name.

    A definition "X (ACRONYM)" whose X spells the key counts for X ("Key-Value (KV) cache" for
    "Key-Value cache"): each paper that defines the acronym writes it once. A form with a head
    word the key has dropped counts for the form without it ("MoE models" for "MoE", the name of
    "mixture of experts").

    >>> _concept_name("reinforcement learning from human feedback",
    ...               Counter({"Human Feedback (RLHF)": 3, "RLHF": 2}))
    'RLHF'
    >>> _concept_name("large language model",
    ...               Counter({"large language models (LLMs)": 3, "large language models": 2, "LLMs": 9}))
    'large language models'
    >>> _concept_name("generative pretrained transformer 4",
    ...               Counter({"GPT-4": 745, "GPT-4 models": 5, "Generative Pre-trained Transformer 4 (GPT-4)": 1}))
    'GPT-4'
    >>> _concept_name("mixture of experts", Counter({"MoE models": 8, "MoE": 7, "mixture-of-experts": 3}))
    'MoE'

    An acronym of the key's last words is no head: "open-source LLMs" names the concept a
    coordination wrote "open-source" for ("open-source and closed-source LLMs").

    >>> _concept_name("open source large language model", Counter({"open-source LLMs": 4, "open-source": 4}))
    'open-source LLMs'

    A hyphenated last word is no head the key dropped: "supervised fine-tuning" is no "supervised"
    with a head, though a coordination wrote "supervised" for the concept ("supervised and
    reinforcement fine-tuning").

    >>> _concept_name("supervised fine tuning", Counter({"supervised fine-tuning": 9, "supervised": 2}))
    'supervised fine-tuning'
    >>> _concept_name("symbolic approach", Counter({"symbolic approaches": 7, "symbolic": 1, "symbolic approach": 1}))
    'symbolic approaches'

    The first words of the key alone (a coordination's cut, "commercial and open-source ASR
    systems") never name it: a concept written only so is named by its key.

    >>> _concept_name("commercial automatic speech recognition system", Counter({"commercial": 1}))
    'commercial automatic speech recognition system'
    >>> _concept_name("ecg signal", Counter({"ECG": 1})), _concept_name("open language model", Counter({"open-": 1}))
    ('ECG', 'open language model')

    Forms that differ only in case and hyphens count together. The most frequent names them,
    or a form with fewer capitals at the starts of words that is written at least a quarter as
    often: a sentence or a title capitalises a term its papers write in lower case ("Speculative
    decoding", "Speculative Decoding"); "BERT" is never "Bert", nor "KV cache" "kv cache".

    >>> _concept_name("speculative decoding", Counter({"Speculative decoding": 8, "Speculative Decoding": 3,
    ...                                                "speculative decoding": 6}))
    'speculative decoding'
    >>> _concept_name("key value cache", Counter({"KV cache": 10, "kv cache": 3, "KV Cache": 4}))
    'KV cache'
    >>> _concept_name("bert", Counter({"BERT": 2, "Bert": 1}))
    'BERT'

    A gerund and its object never name the concept of the gerund's noun (rule ``object of a gerund
    turned``, :mod:`kg.normalise.run`).

    >>> _concept_name("malware detection", Counter({"detecting malware": 2, "Malware Detection": 1}))
    'Malware Detection'
    >>> _concept_name("malware detection", Counter({"detecting malware": 2}))
    'malware detection'

    A form capitalised only at a sentence's start counts for the form in lower case: 10,000 arXiv ML
    papers had named RLVR "Reinforcement learning with verifiable rewards".

    >>> _concept_name("reinforcement learning with verifiable reward", Counter({
    ...     "Reinforcement Learning with Verifiable Rewards": 25, "Reinforcement learning with verifiable rewards": 7,
    ...     "reinforcement learning with verifiable rewards": 5}))
    'reinforcement learning with verifiable rewards'

    ... and so does a sentence's capital on a first word that other forms write in lower case: 10,000
    arXiv ML papers of late 2025 had named their multilingual LLMs "Multilingual large language models".

    >>> _concept_name("multilingual large language model", Counter({"multilingual LLMs": 9,
    ...     "multilingual Large Language Models (LLMs)": 3, "Multilingual Large Language Models (LLMs)": 2,
    ...     "Multilingual large language models (LLMs)": 1}))
    'multilingual large language models'

    An aside of several words in brackets is no part of a name, as it is none of the key (10,000 arXiv
    ML papers of late 2025 had 419 such names):

    >>> _concept_name("shap analysis", Counter({"SHAP (SHapley Additive exPlanations) analysis": 2}))
    'SHAP analysis'
    >>> _concept_name("neural ordinary differential equation", Counter({
    ...     "Neural Ordinary Differential Equation (Neural ODE)": 3, "neural ODEs": 1}))
    'Neural Ordinary Differential Equation'

    One paper in lower case against many with a capital is no sign of a sentence's capital: "Gaussian
    splatting" had been "gaussian splatting" for one such abstract of 10,000.

    >>> _concept_name("gaussian splatting", Counter({"Gaussian Splatting": 11, "Gaussian splatting": 9,
    ...                                              "gaussian splatting": 1}))
    'Gaussian splatting'

    ... and so does one on a word that the run writes in lower case where it opens a mention inside a
    sentence (``lowered``): 10,000 arXiv ML papers of 2026 had named their "Graphical user interface
    agents" and "Automated essay scoring" so; "Bayesian optimization" keeps its capital.

    >>> lowered = frozenset({"graphical", "automated"})
    >>> _concept_name("automated essay scoring", Counter({"Automated essay scoring": 2}), lowered=lowered)
    'automated essay scoring'
    >>> _concept_name("bayesian optimization", Counter({"Bayesian optimization": 2}), lowered=lowered)
    'Bayesian optimization'
    >>> _concept_name("graphical user interface agent", Counter({"Graphical user interface (GUI) agents": 1,
    ...     "Graphical User Interface (GUI) Agents": 1}), lowered=lowered)
    'graphical user interface agents'

    With ``spelled_out``, the form that spells the key out, however rare, else the key; without
    forms (a concept written only in coordinations, :func:`kg.records.coordinated`), the key.
    """
    if not forms:
        return key
    if any("(" in form for form in forms):
        asides = Counter[str]()
        for form, n in forms.items():
            asides[_ASIDE.sub("", form)] += n
        forms = asides

    def spells(form: str) -> bool:
        return len(form) >= len(key) - 2 and form.lower().replace("-", " ")[:3] == key[:3]

    def cut(form: str) -> bool:  # the first words of the key alone ("open-"), not a name ("ECG", "Llama-2-7B")
        return key.startswith(f"{form.lower().replace('-', ' ').strip()} ") and not written_as_name(form)

    def turned(form: str) -> bool:  # a gerund and its object ("detecting malware"), not the key's words
        first = re.split(r"[\s-]", form, maxsplit=1)[0].lower()
        return first.endswith("ing") and " " in form and first not in key.split()

    def uncapped(name: str) -> str:  # a sentence's capital on a word the run writes in lower case
        first = re.split(r"[\s-]", name, maxsplit=1)[0]
        sentence_case = first.isalpha() and first[1:].islower() and name[1:].islower()
        return name[:1].lower() + name[1:] if sentence_case and first.lower() in lowered else name

    if len(forms) == 1 and not spelled_out:  # most concepts: what follows comes to the one form
        (form,) = forms
        bare = _DEFINED_ACRONYM.sub("", form)
        return uncapped(bare) if bare != form and spells(bare) else key if cut(form) or turned(form) else uncapped(form)
    cased: Counter[str] = Counter()
    for form, n in forms.items():
        bare = _DEFINED_ACRONYM.sub("", form)
        cased[bare if bare != form and spells(bare) else form] += n
    groups: dict[str, list[str]] = {}
    for form in cased:
        groups.setdefault(form.lower().replace("-", " "), []).append(form)
    folded: Counter[str] = Counter()
    for members in groups.values():
        for form in members:  # a sentence's capital on a form its papers write in lower case counts for it
            small = form[:1].lower() + form[1:]
            if small != form and small in cased and small == form.lower() and 4 * cased[small] >= cased[form]:
                cased[small] += cased.pop(form)
        members = [f for f in members if f in cased]
        top = min(members, key=lambda f: (-cased[f], f))
        variants = [f for f in members if 4 * cased[f] >= cased[top] and _initials_lowered(f) == _initials_lowered(top)]
        name = min(variants, key=lambda f: (sum(c.isupper() for c in f), -cased[f], f))
        first = re.split(r"[\s-]", name, maxsplit=1)[0]
        small_first = sum(cased[f] for f in members if f[:1].islower())
        if (
            first.isalpha()
            and first[1:].islower()
            and name[1:].islower()
            and 4 * small_first >= sum(cased[f] for f in members if not f[:1].islower())
        ):
            name = name[:1].lower() + name[1:]  # a sentence's capital on a word its papers write in lower case
        folded[uncapped(name)] += sum(cased[f] for f in members)
    last = key.rpartition(" ")[2]
    for form in list(folded):
        rest, _, head = form.rpartition(" ")
        if form not in folded or rest not in folded:
            continue
        if _spells_the_end(head, key):
            # an acronym of the key's last words is no head it dropped: "open-source" (of "open- and
            # closed-source LLMs") is cut from "open-source LLMs"
            folded[form] += folded.pop(rest)
        elif not _same_word(head.lower().replace("-", " ").rpartition(" ")[2], last):
            # the head as the key writes it: "fine-tuning" of "supervised fine-tuning" ends in "tuning"
            folded[rest] += folded.pop(form)
    ranked = sorted(folded, key=lambda f: (-folded[f], f))
    spelled = next((f for f in ranked if spells(f)), None)
    if spelled_out:
        return spelled if spelled is not None else key
    whole = [f for f in ranked if not cut(f) and not turned(f)]
    if not whole:
        return key
    written = ([f for f in whole if "(" not in f] or whole)[0]
    return spelled if spelled is not None and WRITTEN_MORE * folded[spelled] > folded[written] else written


def _same_word(written: str, keyed: str) -> bool:
    """Whether ``written`` is ``keyed`` (a key's last word) or its plural, as keys make words singular.

    >>> [_same_word(w, k) for w, k in [("approaches", "approach"), ("studies", "study"), ("analyses", "analysis"),
    ...                                 ("models", "model"), ("model", "mixture")]]
    [True, True, True, True, False]
    """
    return written == keyed or _normaliser().singular(written) == keyed


@cache
def _normaliser() -> Normaliser:
    """One :class:`Normaliser` for the names of a process's concepts (its plurals, from the config)."""
    return Normaliser()


def _spells_the_end(word: str, key: str) -> bool:
    """Whether ``word`` is an acronym of the last words of ``key``.

    >>> _spells_the_end("LLMs", "open source large language model"), _spells_the_end("models", "mixture of experts")
    (True, False)
    >>> _spells_the_end("RLHF", "online reinforcement learning from human feedback")
    True
    """
    return is_acronym(word) and spelled_by_initials(word, key) is not None


def _initials_lowered(form: str) -> str:
    """``form`` with the first letter of each word in lower case: "Speculative Decoding" ->
    "speculative decoding", "BERT" -> "bERT"."""
    return _WORD_START.sub(lambda m: m.group(0).lower(), form)


_WORD_START = re.compile(r"(?:^|(?<=[\s-]))\w")

#: One paper in this many, at least, names a concept of general words by an acronym for the
#: acronym to make it specific (:func:`concept_scores`).
ACRONYM_SHARE = 10

#: How many times as often another form must be written for it to name a concept instead of the
#: spelled-out form: 745 "GPT-4" to 1 "Generative Pre-trained Transformer 4" (61,839 ACL papers:
#: 74 of the 3,000 concepts with most papers, "LSTM", "RoBERTa", "CLIP", "SQuAD", "NLP research").
WRITTEN_MORE = 4


#: A bracketed acronym in a form: "large language models (LLMs)", "Key-Value (KV) cache".
_DEFINED_ACRONYM = re.compile(r"\s*\(\s*[^()\s]+\s*\)")
#: An aside of several words in brackets after a form's first word, which its key leaves out too:
#: "Neural Ordinary Differential Equation (Neural ODE)", "gFID (w/o CFG)".
_ASIDE = re.compile(r"\s+\((?=[^()]*\s)[^()]*\)")


def _type_rank(t: str) -> int:
    return TYPE_ORDER.index(t) if t in TYPE_ORDER else len(TYPE_ORDER)


def knowledge_graph(B: nx.DiGraph, paper_links: nx.Graph, concept_links: nx.Graph, *, copy: bool = True) -> nx.DiGraph:
    """Combine the paper-concept graph with the paper-paper and concept-concept links.

    Returns a new ``DiGraph``; the inputs are not changed. With ``copy=False`` the links are
    added to ``B`` itself, which is returned (as in ``networkx.relabel_nodes``), and moved out of
    ``paper_links`` and ``concept_links``, which are left empty: a run does this, as a copy of a
    corpus's graph or of its links costs as much memory as they take. Undirected links are stored once,
    from the smaller node id to the larger, or the other way when a stated relation (which
    comes from ``B``) already joins the two that way.

    Examples
    --------
    >>> B = nx.DiGraph()
    >>> B.add_edge("paper:a", "concept:x", rel="MENTIONS")
    >>> P = nx.Graph()
    >>> P.add_edge("paper:b", "paper:a", weight=1.0)
    >>> G = knowledge_graph(B, P, nx.Graph())
    >>> sorted((u, v, d["rel"]) for u, v, d in G.edges(data=True))
    [('paper:a', 'concept:x', 'MENTIONS'), ('paper:a', 'paper:b', 'SHARES_CONCEPTS')]
    """
    G = B.copy() if copy else B
    for links, rel in ((paper_links, "SHARES_CONCEPTS"), (concept_links, "CO_OCCURS")):
        done: set[str] = set()
        for u in list(links):  # the order of links.edges(), each node's links to the nodes after it
            for v, data in links.adj[u].items():
                if v in done:
                    continue
                a, b = sorted((u, v))
                if G.has_edge(a, b):  # a stated relation holds a -> b, and a DiGraph has one edge per pair
                    if G.has_edge(b, a):
                        log.warning("%s link %s - %s not kept: both directions carry a stated relation", rel, a, b)
                        continue
                    a, b = b, a
                if copy:
                    G.add_edge(a, b, **data, rel=rel)
                else:  # the link's own attributes move: a copy of each is a corpus's links' memory again
                    data["rel"] = rel
                    add_edge_dict(G, a, b, data)
            if copy:
                done.add(u)
            else:  # its links are in G now: let go of their copies as G grows
                links.remove_node(u)
    return G


def merge_graphs(old: nx.DiGraph, new: nx.DiGraph) -> nx.DiGraph:
    """Add the papers of ``new`` to the paper-concept graph ``old``; returns a new graph.

    A paper in both is taken from ``new`` with all its mentions (re-extraction: its old
    mentions go). Concepts keep their name and type from ``old`` and gain ``new``'s aliases;
    concepts no paper mentions any more are dropped and every ``paper_count`` is recounted (and
    with it ``specificity`` and ``generic``, :func:`concept_scores`).
    Stated relations lose the papers taken from ``new`` and gain what ``new`` states (the
    evidence sentence stays when its paper does). Only ``MENTIONS`` and relation edges are
    taken: link the result again with :mod:`kg.link`.

    Examples
    --------
    >>> def one(pid, text):
    ...     mention = Mention(text, "Method", 0, 4, "", "uses", "bert")
    ...     return build_graph([Paper(pid, "", text)], [Extraction(pid, [mention])])
    >>> a, b = one("p1", "BERT"), one("p2", "Bert")
    >>> M = merge_graphs(a, b)
    >>> M.nodes["concept:bert"]["paper_count"], M.nodes["concept:bert"]["aliases"]
    (2, ['Bert'])
    """
    M = nx.DiGraph()
    M.add_nodes_from((n, dict(d)) for n, d in old.nodes(data=True))
    M.add_edges_from((u, v, dict(d)) for u, v, d in old.edges(data=True) if d.get("rel") == "MENTIONS")
    redone = {d["id"] for _, d in new.nodes(data=True) if d.get("kind") == "Paper"}
    for n, d in new.nodes(data=True):
        if d.get("kind") == "Paper":
            if n in M:
                M.remove_edges_from(list(M.out_edges(n)))
            M.add_node(n, **dict(d))
        elif n in M:
            known = M.nodes[n]
            known["aliases"] = sorted(
                (set(known.get("aliases", [])) | set(d.get("aliases", [])) | {d["name"]}) - {known["name"]}
            )
        else:
            M.add_node(n, **dict(d))
    M.add_edges_from((u, v, dict(d)) for u, v, d in new.edges(data=True) if d.get("rel") == "MENTIONS")
    for u, v, d in old.edges(data=True):
        if d.get("rel") in RELATION_TYPES and (kept := _without(d, redone)) is not None:
            M.add_edge(u, v, **kept)
    for u, v, d in new.edges(data=True):
        if d.get("rel") in RELATION_TYPES:
            M.add_edge(u, v, **combine_statements(M.edges[u, v] if M.has_edge(u, v) else None, d))
    stated = [(u, v, d) for u, v, d in M.edges(data=True) if d.get("rel") in RELATION_TYPES]
    M.remove_edges_from([(u, v) for u, v, _ in stated])
    M.add_edges_from(one_per_pair(stated))
    for n, d in list(M.nodes(data=True)):
        if d.get("kind") == "Concept":
            papers = sum(1 for p in M.predecessors(n) if M.nodes[p].get("kind") == "Paper")
            if papers == 0:
                M.remove_node(n)
            else:
                d["paper_count"] = papers
    concept_scores(M)
    return M


def _without(edge: dict, papers: set[str]) -> dict | None:
    # A relation edge without the statements of ``papers``; None when no paper states it any more.
    left = [p for p in edge["papers"] if p not in papers]
    if not left:
        return None
    if edge["paper"] in papers:  # its evidence sentence went with the paper: the next paper has none stored
        return {**edge, "papers": left, "n_papers": len(left), "paper": left[0], "sentence": None}
    return {**edge, "papers": left, "n_papers": len(left)}


def combine_statements(old: dict | None, new: dict) -> dict:
    """One stated relation of an ordered concept pair from ``old`` and ``new`` papers' edges.

    One type per pair: the one more papers state; papers in input order, the first evidence.
    """
    if old is None or (old["rel"] != new["rel"] and len(new["papers"]) > len(old["papers"])):
        return dict(new)
    if old["rel"] != new["rel"]:
        return old
    papers = old["papers"] + [p for p in new["papers"] if p not in old["papers"]]
    evidence = old if old.get("sentence") is not None else new
    return {**old, "papers": papers, "n_papers": len(papers), "paper": evidence["paper"],
            "sentence": evidence["sentence"]}  # fmt: skip
