"""Typed records passed between the stages of kg."""

from __future__ import annotations

import json
import marshal
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from kg.errors import InputError

ConceptType = Literal["Method", "Technique", "Problem", "Dataset", "Metric", "Hardware"]
Role = Literal["proposes", "uses", "addresses", "mentions"]
#: The field of a paper a mention is in; its offsets index that field's text.
TextField = Literal["title", "abstract"]

#: Concept -> concept relations a sentence can state (see :mod:`kg.extract.relations`).
RELATION_TYPES = ("USED_FOR", "PART_OF", "HYPONYM_OF")

#: When one paper mentions a concept several times, the edge keeps the strongest role.
ROLE_STRENGTH: dict[str, int] = {"proposes": 3, "addresses": 2, "uses": 1, "mentions": 0}


@dataclass(slots=True)
class Paper:
    """One input record that passed validation."""

    id: str
    title: str
    abstract: str
    year: int | None = None
    authors: list[str] = field(default_factory=list)
    venue: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Reject:
    """An input record that could not be used, with the reason and the raw text."""

    source: str
    line: int
    id: str | None
    kind: str
    reason: str
    raw: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Mention:
    """A concept mention in a paper's title or abstract: ``getattr(paper, field)[start:end] == text``.

    ``sentence`` is the evidence: the sentence of the abstract, or the whole title. Mentions
    written before titles were read have no ``field``: they are in the abstract.

    ``confidence`` weighs the mention's vote for its concept's type (:mod:`kg.normalise.types`):
    1.0 when the mention's own words carry its type, lower when only its context does.

    ``source`` is what found it: ``"model"`` (the entity recogniser) or ``"phrase"`` (a scored
    candidate phrase where the recogniser found nothing, ``kg_phrases``).

    A coordination whose conjuncts share words ("supervised and unsupervised learning") is one
    mention of each of its concepts over the same characters, whose text spells none of them
    alone (:func:`coordinated`).
    """

    text: str
    type: str
    start: int
    end: int
    sentence: str
    role: str
    concept: str
    field: TextField = "abstract"
    confidence: float = 1.0
    source: str = "model"

    def to_dict(self) -> dict[str, Any]:
        # every field is a plain value: no need for asdict's deep copy, which costs ten times this
        return {name: getattr(self, name) for name in self.__slots__}


def coordinated(mentions: Sequence[Mention]) -> set[tuple[str, int, int]]:
    """Where (field, start, end) a coordination is the mention of several concepts of one paper.

    >>> from dataclasses import replace
    >>> m = Mention("supervised and unsupervised learning", "Technique", 0, 37, "", "uses", "supervised learning")
    >>> coordinated([m, replace(m, concept="unsupervised learning")]), coordinated([m])
    ({('abstract', 0, 37)}, set())
    """
    where = [(m.field, m.start, m.end) for m in mentions]
    if len(set(where)) == len(where):  # most papers
        return set()
    concepts: dict[tuple[str, int, int], set[str]] = {}
    for at, m in zip(where, mentions, strict=True):
        concepts.setdefault(at, set()).add(m.concept)
    return {at for at, keys in concepts.items() if len(keys) > 1}


@dataclass(frozen=True, slots=True)
class Relation:
    """A relation between two concepts that one sentence states: ``head`` is ``type`` ``tail``.

    ``head`` and ``tail`` are concept keys; ``type`` is ``USED_FOR`` (the head is used for the
    tail), ``HYPONYM_OF`` (the head is a kind of the tail) or ``PART_OF`` (the head is part of
    the tail). The offsets are the two mentions' characters in ``field``, the paper's title or
    its abstract (a relation is stated in one sentence, and the title is a sentence of its own).
    """

    type: str
    head: str
    tail: str
    head_text: str
    tail_text: str
    head_start: int
    head_end: int
    tail_start: int
    tail_end: int
    sentence: str
    field: TextField = "abstract"

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(slots=True)
class Extraction:
    """Everything extraction found in one paper: one line of ``kg extract`` output.

    ``rules`` counts the key rules that fired in the paper (README "Concept keys"): the run
    report adds them up.
    """

    id: str
    mentions: list[Mention]
    relations: list[Relation] = field(default_factory=list)
    rules: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "mentions": [m.to_dict() for m in self.mentions],
            "relations": [r.to_dict() for r in self.relations],
            "rules": dict(sorted(self.rules.items())),
        }

    def fits(self, paper: Paper) -> bool:
        """Whether each mention and relation is in ``paper``'s text as it is: its offsets cut its text
        from its field, which holds its sentence. An extraction of an older text of the paper seldom is.

        >>> x = Extraction("p1", [Mention("BERT", "Method", 7, 11, "We use BERT.", "uses", "bert")])
        >>> x.fits(Paper("p1", "", "We use BERT.")), x.fits(Paper("p1", "", "We use RoBERTa."))
        (True, False)
        """

        def cut(field: str, start: int, end: int, text: str, sentence: str) -> bool:
            whole = paper.title if field == "title" else paper.abstract
            return start >= 0 and whole[start:end] == text and sentence in whole

        return all(cut(m.field, m.start, m.end, m.text, m.sentence) for m in self.mentions) and all(
            cut(r.field, r.head_start, r.head_end, r.head_text, r.sentence)
            and cut(r.field, r.tail_start, r.tail_end, r.tail_text, r.sentence)
            for r in self.relations
        )

    @classmethod
    def from_line(cls, line: str, *, where: str) -> Extraction:
        """One line of ``kg extract`` output; an :class:`~kg.errors.InputError` naming ``where`` for any other line.

        >>> Extraction.from_line('{"id": "p1"}', where="m.jsonl, line 1")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        kg.errors.InputError: m.jsonl, line 1: not a line of `kg extract` output (no 'mentions'): give what ...
        """
        try:
            return cls.from_dict(json.loads(line))
        except json.JSONDecodeError:
            reason = "not JSON"
        except KeyError as exc:
            reason = f"no {exc.args[0]!r}"
        except TypeError:  # not an object, or a mention or relation with other fields than kg's
            reason = "not the fields kg writes"
        raise InputError(f"{where}: not a line of `kg extract` output ({reason}): give what kg extract wrote")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Extraction:
        return cls(
            id=data["id"],
            mentions=[Mention(**shared(m, SHARED_MENTION_FIELDS)) for m in data["mentions"]],
            relations=[Relation(**shared(r, SHARED_RELATION_FIELDS)) for r in data.get("relations", [])],
            rules=dict(data.get("rules", {})),
        )


#: The fields of mentions and relations whose values repeat across papers: a type, a role, a
#: concept key. A million mentions decoded from JSON or unpickled from a worker hold a copy each.
SHARED_MENTION_FIELDS = ("type", "role", "concept", "field", "source")
SHARED_RELATION_FIELDS = ("type", "head", "tail", "field")


def shared(values: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """``values`` with the strings under ``names`` interned: one object for each distinct value
    however many mentions hold it (about 200 MB on the ACL corpus's 1.2 million mentions).

    >>> a, b = (shared({"type": "".join(["Meth", "od"])}, ("type",)) for _ in range(2))
    >>> a["type"] is b["type"]
    True
    """
    for name in names:
        if isinstance(value := values.get(name), str):
            values[name] = sys.intern(value)
    return values


class PackedExtractions:
    """Extractions held as one compact ``bytes`` each, decoded afresh whenever they are read.

    A run holds every paper's extraction from the extract stage to the build stage. As objects,
    the 61,839 ACL papers' 1.2 million mentions took 700 MB, and freeing them while the graph
    grew left 550 MB of Python's small-object arenas part-used, for the rest of the run. Packed,
    each paper is one block outside those arenas (its sentences once, its repeated strings
    interned), and the mentions a stage decodes live only while it reads that paper.

    >>> xs = PackedExtractions([Extraction("p1", [Mention("BERT", "Method", 7, 11, "We use BERT.", "uses", "bert")])])
    >>> [x.mentions[0].concept for x in xs], len(xs)
    (['bert'], 1)
    >>> [x.id for x in xs.drain()], len(xs)
    (['p1'], 0)
    """

    __slots__ = ("_blobs",)

    def __init__(self, extractions: Iterable[Extraction] = ()) -> None:
        self._blobs: list[bytes] = [pack(x) for x in extractions]

    @classmethod
    def of_packed(cls, blobs: Iterable[bytes]) -> PackedExtractions:
        """The extractions that :func:`pack` made ``blobs`` of."""
        packed = cls()
        packed._blobs = list(blobs)
        return packed

    def append(self, x: Extraction) -> None:
        self._blobs.append(pack(x))

    def __len__(self) -> int:
        return len(self._blobs)

    def __iter__(self) -> Iterator[Extraction]:
        return map(unpack, self._blobs)

    def drain(self) -> Iterator[Extraction]:
        """Every extraction, in order, each let go of once it is handed out."""
        blobs, self._blobs = self._blobs, []
        blobs.reverse()
        while blobs:
            yield unpack(blobs.pop())


def pack(x: Extraction) -> bytes:
    """``x`` as one ``bytes`` (:class:`PackedExtractions`)."""
    sentences: dict[str, int] = {}
    mentions = tuple(
        (m.text, sys.intern(m.type), m.start, m.end, sentences.setdefault(m.sentence, len(sentences)),
         sys.intern(m.role), sys.intern(m.concept), sys.intern(m.field), m.confidence, sys.intern(m.source))
        for m in x.mentions
    )  # fmt: skip
    relations = tuple(
        (sys.intern(r.type), sys.intern(r.head), sys.intern(r.tail), r.head_text, r.tail_text, r.head_start,
         r.head_end, r.tail_start, r.tail_end, sentences.setdefault(r.sentence, len(sentences)), sys.intern(r.field))
        for r in x.relations
    )  # fmt: skip
    return marshal.dumps((x.id, tuple(sentences), mentions, relations, tuple(x.rules.items())))


def unpack(blob: bytes) -> Extraction:
    """The extraction :func:`pack` made ``blob`` of."""
    # marshal gives back interned strings interned: one object per type, role and key, as
    # Extraction.from_dict's :func:`shared` makes them
    pid, sentences, mentions, relations, rules = marshal.loads(blob)
    return Extraction(
        pid,
        [Mention(text, ty, start, end, sentences[at], role, key, where, confidence, source)
         for text, ty, start, end, at, role, key, where, confidence, source in mentions],
        [Relation(ty, head, tail, ht, tt, hs, he, ts, te, sentences[at], where)
         for ty, head, tail, ht, tt, hs, he, ts, te, at, where in relations],
        dict(rules),
    )  # fmt: skip
