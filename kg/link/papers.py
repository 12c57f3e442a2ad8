"""Paper-paper links weighted by the concepts two papers share."""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterator, Sequence
from typing import Any

import networkx as nx
import numpy as np
import scipy.sparse as sp

from kg.build.attributes import OneEach, SharedKeys, add_edge_dict, set_node_dict
from kg.normalise.specificity import reference_df, specificity

#: Papers scored together; bounds the memory of one block of the paper x paper product.
BLOCK = 2000

#: A link's attributes, and the ``rel`` the knowledge graph gives it (:class:`kg.build.attributes.SharedKeys`).
LINK_KEYS = SharedKeys("weight", "n_shared", "shared", "rel")
#: A concept in at most this share of the reference abstracts is no word of the whole field.
TOPIC_REFERENCE_RATE = 0.02
#: Concepts of these types link no papers: two papers that both report F1 or a success rate are no
#: closer for it (of 20,943 links on 2,000 arXiv ML abstracts, 1,290 shared metrics alone). Nor do
#: they name a community before a concept of another type (:func:`kg.analyse.name_communities`),
#: or count in the cookbook's ``related_papers``.
UNLINKED_TYPES = frozenset({"Metric"})


def link_papers(
    B: nx.DiGraph,
    *,
    min_shared: int = 1,
    min_weight: float = 0.0,
    max_df: float = 0.1,
    top_k: int = 20,
    include_generic: bool = False,
    topic_papers: int = 200,
    into: nx.DiGraph | None = None,
) -> nx.Graph:
    """Link papers that share concepts, rare concepts and concepts central to both counting more.

    A shared concept ``c`` adds ``spec(c) * sqrt(s_p(c) * s_q(c))`` to the weight of papers ``p``
    and ``q`` (``spec`` the concept's specificity with the run's papers pooled in, as
    ``Concept.specificity``: :func:`concept_weights`; ``s`` the ``salience`` of c in each paper,
    :func:`kg.build.graph.salience`; 1 when an edge has none). Generic concepts
    (``generic`` true: "computational cost", "downstream task"), metrics (``UNLINKED_TYPES``) and
    concepts too common to tell papers apart (:func:`linkable`) are skipped, and each paper
    keeps its ``top_k`` strongest neighbours, so the work grows with the postings of the
    concepts kept, not with N². The scores come from a sparse paper x concept matrix
    multiplied by its transpose in blocks of rows (networkx's bipartite projections build
    every pair in Python, which does not scale to a corpus).

    Parameters
    ----------
    B
        A paper-concept graph from :func:`kg.build.build_graph`.
    min_shared, min_weight
        A link needs at least this many shared concepts and this weight.
    max_df, topic_papers
        Concepts mentioned by more than this share of the papers do not link (at least 2), unless
        they are a topic of the collection, in at most ``topic_papers`` (:func:`linkable`).
    top_k
        Links kept per paper (a link is kept if either end keeps it).
    include_generic
        Let generic concepts link papers too.
    into
        Add the links to this graph (``B`` itself, in a run) instead, each once, from the smaller
        paper id to the larger, with ``rel`` ``SHARES_CONCEPTS``, as
        :func:`kg.build.knowledge_graph` adds them: a graph of the links costs as much again
        while they are moved (150,965 arXiv ML papers' 2.2 million links: 350 MB of adjacency).

    Returns
    -------
    networkx.Graph
        Paper nodes (with their attributes) and edges with ``weight``, ``n_shared`` and
        ``shared`` (concept keys, largest contribution to the weight first). As in a networkx
        subgraph view, a node's attributes are ``B``'s own dict, not a copy. With ``into``, ``into``.

    Examples
    --------
    >>> B = nx.DiGraph()
    >>> B.add_nodes_from(["paper:a", "paper:b", "paper:c"], kind="Paper")
    >>> B.add_nodes_from(["concept:x", "concept:y"], kind="Concept")
    >>> B.add_edges_from([("paper:a", "concept:x"), ("paper:b", "concept:x"), ("paper:c", "concept:y")])
    >>> B.add_edges_from([("paper:a", "concept:g"), ("paper:c", "concept:g")], salience=0.9)
    >>> B.add_node("concept:g", kind="Concept", generic=True)
    >>> P = link_papers(B, max_df=1.0)
    >>> list(P.edges(data="shared"))
    [('paper:a', 'paper:b', ['x'])]
    >>> link_papers(B, max_df=1.0, into=B).edges["paper:a", "paper:b"]["rel"]
    'SHARES_CONCEPTS'
    """
    papers = sorted(n for n, kind in B.nodes(data="kind") if kind == "Paper")
    P: nx.Graph = nx.Graph() if into is None else into
    if into is None:
        for n in papers:
            set_node_dict(P, n, B.nodes[n])
    n_papers = len(papers)
    row = {p: i for i, p in enumerate(papers)}
    # A concept's predecessors are its papers and the concepts stated to relate to it. One with
    # fewer than two cannot link papers (:func:`linkable`): 82% of a corpus's concepts, left out.
    mentioned_by = {
        c: [p for p in B.predecessors(c) if p in row]
        for c, d in B.nodes(data=True)
        if d.get("kind") == "Concept"
        and B.in_degree(c) >= 2
        and (include_generic or not d.get("generic"))
        and d.get("type") not in UNLINKED_TYPES
    }
    candidates = sorted(mentioned_by)
    keys = {c: B.nodes[c].get("key", c.removeprefix("concept:")) for c in candidates}
    ok = linkable([keys[c] for c in candidates], [len(mentioned_by[c]) for c in candidates], n_papers,
                  max_df=max_df, topic_papers=topic_papers)  # fmt: skip
    concepts = [c for c, keep in zip(candidates, ok.tolist(), strict=True) if keep]
    if not papers or not concepts:
        return P
    col = {c: j for j, c in enumerate(concepts)}
    weights = concept_weights([keys[c] for c in concepts], [len(mentioned_by[c]) for c in concepts], n_papers)
    # machine numbers, not lists of Python ones (150,965 arXiv ML papers: 2 million of each, about 200 MB as lists)
    rows, cols, saliences = array("q"), array("q"), array("d")
    for c in concepts:
        j = col[c]
        for p in mentioned_by[c]:
            rows.append(row[p])
            cols.append(j)
            saliences.append(_salience(B, p, c))
    del mentioned_by
    ix = (np.frombuffer(rows, dtype=np.int64), np.frombuffer(cols, dtype=np.int64))
    sal = sp.csr_matrix((np.frombuffer(saliences, dtype=np.float64), ix), shape=(n_papers, len(concepts)))
    # sqrt(s_p) * sqrt(s_q) summed over concepts, each weighted, is one sparse product
    S = sal.sqrt()
    X = sp.csr_matrix((np.ones(len(rows)), ix), shape=(n_papers, len(concepts)))
    del ix, saliences, rows, cols
    XW = S @ sp.diags(weights)
    XT = X.T.tocsr()
    ST = S.T.tocsr()
    # each kept pair (i < j) as one number, i * n_papers + j: sorted, the pairs in (i, j) order
    chosen: list[np.ndarray] = []
    for start in range(0, n_papers, BLOCK):
        block = slice(start, min(start + BLOCK, n_papers))
        scores = (XW[block] @ ST).tocsr()
        counts = (X[block] @ XT).tocsr()
        # X and S have the same non-zeros, so both products do too: their arrays line up.
        scores.sort_indices()
        counts.sort_indices()
        for i in range(scores.shape[0]):
            a, b = scores.indptr[i], scores.indptr[i + 1]
            js, ws, ns = scores.indices[a:b], scores.data[a:b], counts.data[a:b]
            p = start + i
            keep = (js != p) & (ns >= min_shared) & (ws >= min_weight)
            js, ws = js[keep], ws[keep]
            # strongest first, at the precision a link's weight is stored with (an update ranks
            # stored weights: kg.link.index); ties by paper id, as the ids are sorted
            order = np.lexsort((js, -np.round(ws, 6)))[:top_k]
            q = js[order].astype(np.int64)
            chosen.append(np.minimum(p, q) * n_papers + np.maximum(p, q))
    weight_of = weights.tolist()  # (by column)
    pairs = np.unique(np.concatenate(chosen)) if chosen else np.empty(0, dtype=np.int64)
    del chosen, X, S, XW, XT, ST  # (the links come on top of what is left)

    def saliences_of(i: int) -> dict[int, float]:
        """Paper ``i``'s linkable concepts (by column), each with its salience."""
        a, b = sal.indptr[i], sal.indptr[i + 1]
        return dict(zip(sal.indices[a:b].tolist(), sal.data[a:b].tolist(), strict=True))

    mine: dict[int, float] = {}
    last = -1
    rounded = OneEach()  # one float object per weight (902,731 ACL links: 329,012 weights)
    firsts, seconds = np.divmod(pairs, n_papers)
    del pairs
    for i, j in _side_by_side(firsts, seconds):  # (in order of i: each row read once)
        if i != last:
            mine, last = saliences_of(i), i
        theirs = saliences_of(j)
        u, v = papers[i], papers[j]
        share = {concepts[c]: weight_of[c] * math.sqrt(s * theirs[c])
                 for c, s in mine.items() if c in theirs}  # fmt: skip
        shared = sorted(share, key=lambda c: (-round(share[c], 9), c))
        weight = sum(share[c] for c in shared)
        for at, c in enumerate(shared):  # in place: the list sorted() made has no room to spare, as one
            shared[at] = keys[c]  # that grows does (902,731 ACL links: 20 MB)
        attrs = {"weight": rounded(round(weight, 6)), "n_shared": len(shared), "shared": shared}
        if into is not None:  # (u < v: papers are in id order)
            attrs["rel"] = "SHARES_CONCEPTS"
        add_edge_dict(P, u, v, LINK_KEYS(attrs))
    return P


def linkable(keys: Sequence[str], df: Sequence[int], n_papers: int, *, max_df: float, topic_papers: int) -> np.ndarray:
    """Which concepts tell papers apart by how many of them mention each (``df``): those in two
    papers or more and in at most ``max_df`` of the ``n_papers`` (at least 2), and a topic of the
    collection in more: one in at most ``topic_papers`` and half the papers, whose words are in at
    most ``TOPIC_REFERENCE_RATE`` of the reference abstracts (:mod:`kg.normalise.specificity`).

    On the default sample (300 papers on seven subjects of large models), "mixture of experts"
    (35 papers; 0.8% of the reference abstracts) and "model merging" (34; 0.2%) are topics,
    "accuracy" (36; 19%) a word of the field. A large run has no such topic: ``topic_papers``
    bounds the pairs a concept adds to the link products.

    >>> linkable(["mixture of experts", "accuracy", "bleu", "x"], [35, 36, 3, 1], 300, max_df=0.1, topic_papers=200)
    array([ True, False,  True, False])
    """
    ref = reference_df()
    cap = max(2, int(max_df * n_papers))
    rare, most = TOPIC_REFERENCE_RATE * ref.n_docs, min(topic_papers, n_papers // 2)
    return np.array([2 <= d <= cap or (cap < d <= most and ref.df(k) <= rare)
                     for k, d in zip(keys, df, strict=True)], dtype=bool)  # fmt: skip


def concept_weights(keys: Sequence[str], df: Sequence[int], n_papers: int) -> np.ndarray:
    """What each shared concept adds to a link before the saliences: its specificity with the run's
    ``n_papers`` pooled in (``df`` of them mention it; :func:`kg.normalise.specificity.specificity`).

    A concept common in the field's abstracts ("question answering") links two papers less than
    one as rare in the run but rare in the field too ("speculative decoding"): of each paper's
    strongest link, the share to a paper sharing an author keyword rose from 0.614 to 0.643
    (Inspec) and 0.319 to 0.321 (www) against the run's idf alone, of its five strongest from
    0.517 to 0.536 and 0.246 to 0.258 (``bench/link_quality.py``). Never 0, so that a shared
    concept always leaves its mark on the sparse products.

    >>> [round(float(w), 3) for w in concept_weights(["model", "speculative decoding"], [50, 5], 100)]
    [0.022, 0.51]
    """
    return np.array([max(specificity(k, run_df=d, run_docs=n_papers), 1e-9) for k, d in zip(keys, df, strict=True)])


def _side_by_side(*columns: np.ndarray, size: int = 65_536) -> Iterator[tuple[Any, ...]]:
    """The rows of ``columns`` as tuples of Python numbers, made a chunk at a time: as whole lists,
    150,965 arXiv ML papers' 2.2 million links' ends took 160 MB on top of the links.

    >>> list(_side_by_side(np.array([1, 2, 3]), np.array([4.0, 5.0, 6.0]), size=2))
    [(1, 4.0), (2, 5.0), (3, 6.0)]
    """
    for at in range(0, len(columns[0]), size):
        yield from zip(*(c[at : at + size].tolist() for c in columns), strict=True)


def _salience(B: nx.DiGraph, paper: str, concept: str) -> float:
    # Graphs built before salience existed weigh every mention alike.
    value = B.edges[paper, concept].get("salience")
    return 1.0 if value is None else float(value)
