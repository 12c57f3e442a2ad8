"""One type per concept, decided across all the mentions of a run.

The NER types each mention from its context, so one concept collects several types
("reinforcement learning": Problem 61, Method 39, Technique 9 on 2,000 arXiv ML abstracts).
Every mention votes for its type with its ``confidence``; a concept the gazetteer knows gets a
strong prior vote for the gazetteer's type: a known dataset or metric (curated or mined names,
see :mod:`kg.normalise.gazetteer`) is decided by the gazetteer alone, a known method, technique
or problem (Papers with Code names) by a vote worth ``PRIOR_MIN`` mentions plus ``PRIOR_SHARE``
of the mentions' total weight, which a few contrary mentions cannot outvote and a clear
majority of the run can.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import replace

from kg.normalise.gazetteer import Gazetteer
from kg.records import Extraction

#: Tie order among types: the more specific reading first.
TYPE_ORDER = ("Method", "Technique", "Problem", "Dataset", "Metric")
#: Types whose gazetteer entries decide alone (curated and mined names, precise).
DECISIVE = frozenset(["Dataset", "Metric"])
PRIOR_MIN = 3.0
PRIOR_SHARE = 0.5


def decide_types(
    votes: Iterable[tuple[str, str, float]],
    *,
    gazetteer: Gazetteer | None = None,
    known: Mapping[str, str] | None = None,
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
    """
    weight: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for key, kind, confidence in votes:
        weight[key][kind] += confidence
    known = known or {}
    decided = {}
    for key, by_type in weight.items():
        if key in known:
            decided[key] = known[key]
            continue
        prior = gazetteer.type_of(key) if gazetteer else None
        if prior in DECISIVE:
            decided[key] = prior
            continue
        if prior is not None:
            by_type[prior] += PRIOR_MIN + PRIOR_SHARE * sum(by_type.values())
        decided[key] = min(by_type, key=lambda t: (-by_type[t], _rank(t)))
    return decided


def assign_types(
    extractions: Iterable[Extraction],
    *,
    gazetteer: Gazetteer | None = None,
    known: Mapping[str, str] | None = None,
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
        ((m.concept, m.type, m.confidence) for x in extractions for m in x.mentions), gazetteer=gazetteer, known=known
    )
    return [
        replace(
            x, mentions=[m if m.type == types[m.concept] else replace(m, type=types[m.concept]) for m in x.mentions]
        )
        for x in extractions
    ]


def _rank(kind: str) -> int:
    return TYPE_ORDER.index(kind) if kind in TYPE_ORDER else len(TYPE_ORDER)
