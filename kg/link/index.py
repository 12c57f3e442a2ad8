"""Linking papers added to an already linked corpus, without relinking the corpus.

A full run links every paper (:func:`kg.link.link_papers`, :func:`kg.link.cooccurrence`)
and keeps a :class:`LinkIndex`: which concepts each paper mentions, and the weights of each
paper's strongest links. A run that only adds papers then costs what the new papers cost:

- each new paper is scored against every paper, with the concept weights of the grown corpus
  (:func:`kg.link.papers.concept_weights`: a concept's specificity with the run pooled in), and keeps
  its ``top_k`` strongest links, exactly as a full run scores it;
- an old paper gains a link to a new paper when the new one is among its ``top_k`` strongest
  now, and the link that this pushes out of its ``top_k`` goes, unless the other end keeps it
  among its own: as in a full run, every link is among the ``top_k`` of one of its ends;
- old links keep the weights they were given, and old papers are ranked with them: a full
  run reweighs them with the weights of the grown corpus (N and the concept frequencies moved),
  which reorders a few papers' lists (``bench/links.py`` measures how many);
- co-occurrence counts are exact: old counts plus the new papers' pairs.
"""

from __future__ import annotations

import json
from array import array
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import scipy.sparse as sp

from kg.build.graph import counted_generic, introductions, opens_title_edge, worded_generic
from kg.link.papers import UNLINKED_TYPES, concept_weights
from kg.link.papers import linkable as papers_linkable


@dataclass
class LinkDelta:
    """What adding papers changes in the links (node ids as in :mod:`kg.build`)."""

    #: New ``SHARES_CONCEPTS`` edges ``(u, v, attrs)``, ``u < v``.
    links: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    #: Stored ``SHARES_CONCEPTS`` edges ``(u, v)``, ``u < v``, that neither end keeps among its ``top_k`` now.
    removed: list[tuple[str, str]] = field(default_factory=list)
    #: ``CO_OCCURS`` edges ``(u, v, weight)`` that are new, and old ones whose weight grew.
    cooccurs_new: list[tuple[str, str, int]] = field(default_factory=list)
    cooccurs_updated: list[tuple[str, str, int]] = field(default_factory=list)
    #: Concept node -> its paper count now, for every concept a new paper mentions.
    paper_counts: dict[str, int] = field(default_factory=dict)


class LinkIndex:
    """Paper x concept postings and each paper's strongest links; see the module doc."""

    def __init__(self, papers: list[str], concepts: list[str], indptr: np.ndarray, indices: np.ndarray,
                 topk: np.ndarray, nbr: np.ndarray, salience: np.ndarray | None = None,
                 generic: set[str] | None = None, unlinked: set[str] | None = None,
                 introduced: dict[str, int] | None = None) -> None:  # fmt: skip
        self.papers = papers
        self.concepts = concepts
        self.indptr = indptr.astype(np.int64)
        self.indices = indices.astype(np.int32)
        #: ``salience[k]``: the salience of posting ``indices[k]`` in its paper (1 when unknown).
        self.salience = np.ones(len(indices)) if salience is None else salience.astype(float)
        #: Generic concepts, which link no papers and co-occur with nothing.
        self.generic = set(generic or ())
        #: Concepts of a type that links no papers (metrics, ``UNLINKED_TYPES``), which co-occur.
        self.unlinked = set(unlinked or ())
        #: Concept -> papers that introduce it (:func:`kg.build.graph.introductions`), where any do.
        self.introduced = dict(introduced or {})
        #: ``topk[i]``: paper i's ``top_k`` strongest link weights, descending (ties: the other
        #: paper's id ascending), padded with -inf; ``nbr[i]``: those papers' rows, padded with -1.
        self.topk = topk
        self.nbr = nbr.astype(np.int32)

    @classmethod
    def from_graph(cls, G: nx.DiGraph, *, top_k: int) -> LinkIndex:
        """The index of a linked knowledge graph (MENTIONS and SHARES_CONCEPTS edges)."""
        papers = sorted(n for n, kind in G.nodes(data="kind") if kind == "Paper")
        concepts = sorted(n for n, kind in G.nodes(data="kind") if kind == "Concept")
        col = {c: j for j, c in enumerate(concepts)}
        row = {p: i for i, p in enumerate(papers)}
        # one number per edge in typed arrays: tuples per edge would cost ten times the memory;
        # papers and concepts numbered in 32 bits, and each array let go of once used (61,839 ACL
        # papers: +132 MB over the graph, the link stage's peak, in 64 bits kept to the end)
        p_row, p_col, p_sal = array("i"), array("i"), array("d")
        l_u, l_v, l_w = array("i"), array("i"), array("d")
        introduced: Counter[str] = Counter()
        for u, v, d in G.edges(data=True):
            rel = d.get("rel")
            if rel == "MENTIONS":
                if opens_title_edge(d):
                    introduced[v] += 1
                p_row.append(row[u])
                p_col.append(col[v])
                p_sal.append(1.0 if d.get("salience") is None else float(d["salience"]))
            elif rel == "SHARES_CONCEPTS":
                l_u.append(row[u])
                l_v.append(row[v])
                l_w.append(d["weight"])
        del row, col
        rows, cols, sal = np.frombuffer(p_row, np.int32), np.frombuffer(p_col, np.int32), np.frombuffer(p_sal)
        order = np.lexsort((sal, cols, rows))  # a paper's postings by concept
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=len(papers)))])
        postings, saliences = cols[order], sal[order]
        del rows, cols, sal, order, p_row, p_col, p_sal
        # a paper's top_k are the strongest of its links: the links it was linked for, as the
        # links others keep for it are weaker (kg.link.link_papers; papers are rows in id order)
        u, v, w = np.frombuffer(l_u, np.int32), np.frombuffer(l_v, np.int32), np.frombuffer(l_w)
        ends, others, weights = np.concatenate([u, v]), np.concatenate([v, u]), np.concatenate([w, w])
        del u, v, w, l_u, l_v, l_w
        ranked = np.lexsort((others, -weights, ends))  # each paper's links, strongest first (ties: row)
        ends, others, weights = ends[ranked], others[ranked], weights[ranked]
        del ranked
        place = np.arange(len(ends)) - np.searchsorted(ends, ends)  # rank among the paper's links
        kept = place < top_k
        topk = np.full((len(papers), top_k), -np.inf)
        nbr = np.full((len(papers), top_k), -1, dtype=np.int32)
        topk[ends[kept], place[kept]] = weights[kept]
        nbr[ends[kept], place[kept]] = others[kept]
        del ends, others, weights, place, kept
        generic = {c for c in concepts if G.nodes[c].get("generic")}
        unlinked = {c for c in concepts if G.nodes[c].get("type") in UNLINKED_TYPES}
        return cls(papers, concepts, indptr, postings, topk, nbr, saliences, generic, unlinked,
                   dict(introduced))  # fmt: skip

    # -- persistence -----------------------------------------------------------------------

    def save(self, folder: Path) -> None:
        """Write ``index.npz`` and ``nodes.json`` into ``folder``, each straight to its file."""
        folder.mkdir(parents=True, exist_ok=True)
        np.savez(folder / "index.npz", indptr=self.indptr, indices=self.indices, topk=self.topk, nbr=self.nbr,
                 salience=self.salience)  # fmt: skip
        nodes = {"papers": self.papers, "concepts": self.concepts, "generic": sorted(self.generic),
                 "unlinked": sorted(self.unlinked), "introduced": self.introduced}  # fmt: skip
        with (folder / "nodes.json").open("w", encoding="utf-8") as fh:
            json.dump(nodes, fh, ensure_ascii=False)  # in pieces, not one text of them all (arXiv: 100 MB)

    @classmethod
    def load(cls, folder: Path) -> LinkIndex:
        arrays = np.load(folder / "index.npz")
        nodes = json.loads((folder / "nodes.json").read_text(encoding="utf-8"))
        return cls(nodes["papers"], nodes["concepts"], arrays["indptr"], arrays["indices"], arrays["topk"],
                   arrays["nbr"], arrays["salience"], set(nodes["generic"]), set(nodes["unlinked"]),
                   nodes.get("introduced"))  # fmt: skip

    # -- adding papers ---------------------------------------------------------------------

    def add(self, B: nx.DiGraph, *, min_shared: int = 1, min_weight: float = 0.0, max_df: float = 0.1,
            min_cooccurrence: int = 2, topic_papers: int = 200) -> LinkDelta:  # fmt: skip
        """Add the papers of the paper-concept graph ``B`` (none of them indexed yet).

        Updates the index in place and returns the links to add to the stored graph; the
        settings are those of :func:`kg.link.link_papers` and :func:`kg.link.cooccurrence`.
        """
        new = sorted(n for n, kind in B.nodes(data="kind") if kind == "Paper")
        known = set(self.papers)
        if clash := [p for p in new if p in known]:
            raise ValueError(f"{len(clash)} papers are indexed already, e.g. {clash[0]}")
        n_old, c_old = len(self.papers), len(self.concepts)
        col = {c: j for j, c in enumerate(self.concepts)}
        added = sorted({c for p in new for c in B.successors(p)} - col.keys())
        for c in added:
            col[c] = len(self.concepts)
            self.concepts.append(c)
        mentioned = {c for p in new for c in B.successors(p)}
        # the new papers' graph carries each concept's type (a stored concept keeps its own)
        self.unlinked = (self.unlinked - mentioned) | {c for c in mentioned if B.nodes[c].get("type") in UNLINKED_TYPES}
        postings = [sorted((col[c], _salience(B, p, c)) for c in B.successors(p)) for p in new]
        rows = [[j for j, _ in r] for r in postings]
        self.papers += new
        self.indptr = np.concatenate([self.indptr, self.indptr[-1] + np.cumsum([len(r) for r in rows])])
        self.indices = np.concatenate([self.indices, np.array([j for r in rows for j in r], dtype=np.int32)])
        self.salience = np.concatenate([self.salience, np.array([s for r in postings for _, s in r], dtype=float)])
        n, n_concepts = len(self.papers), len(self.concepts)
        X = sp.csr_matrix((np.ones(len(self.indices)), self.indices, self.indptr), shape=(n, n_concepts))
        df = np.bincount(self.indices, minlength=n_concepts)

        delta = LinkDelta()
        touched = sorted({j for r in rows for j in r})
        delta.paper_counts = {self.concepts[j]: int(df[j]) for j in touched}
        self._flag_generic(B, len(new), delta.paper_counts, set(added))
        delta.links, delta.removed = self._link_new(X, df, n_old, min_shared=min_shared, min_weight=min_weight,
                                                    max_df=max_df, topic_papers=topic_papers)  # fmt: skip
        generic = {col[c] for c in self.generic}
        self._cooccur(X[:n_old].tocsc(), [[j for j in r if j not in generic] for r in rows], c_old,
                      min_cooccurrence, delta)  # fmt: skip
        return delta

    def _flag_generic(self, B: nx.DiGraph, n_new: int, paper_counts: dict[str, int], added: set[str]) -> None:
        """Whether each concept the new papers of ``B`` mention is generic, as a full run would decide.

        What the words and spellings say (:func:`kg.build.graph.worded_generic`) comes from ``B``'s
        flags: a known concept that the new papers spell specifically (an acronym) stops being
        generic, one they do not spell so does not become generic for that. What the counts say
        (:func:`kg.build.graph.counted_generic`) is decided on the papers of the whole index.
        """
        introduced = introductions(B)
        for c, n in introduced.items():
            self.introduced[c] = self.introduced.get(c, 0) + n
        n_papers = len(self.papers)
        for c, count in paper_counts.items():
            d = B.nodes[c]
            # (where B's own counts flagged it, its words are asked again)
            alone = counted_generic(d, run_df=B.in_degree(c), run_docs=n_new, introduced=introduced[c])
            worded = worded_generic(B, c) if alone else bool(d.get("generic"))
            counted = counted_generic(d, run_df=count, run_docs=n_papers, introduced=self.introduced.get(c, 0))
            if (worded and (c in added or c in self.generic)) or counted:
                self.generic.add(c)
            else:
                self.generic.discard(c)

    def _link_new(
        self, X: sp.csr_matrix, df: np.ndarray, n_old: int, *, min_shared: int, min_weight: float, max_df: float,
        topic_papers: int,
    ) -> tuple[list[tuple[str, str, dict[str, Any]]], list[tuple[str, str]]]:  # fmt: skip
        n = X.shape[0]
        k = self.topk.shape[1]
        specific = np.ones(len(df), dtype=bool)
        specific[[j for j, c in enumerate(self.concepts) if c in self.generic or c in self.unlinked]] = False
        maybe = np.flatnonzero(specific & (df >= 2))  # (most concepts are in one paper: no key needed)
        keys = [self.concepts[j].removeprefix("concept:") for j in maybe]
        ok = papers_linkable(keys, df[maybe].tolist(), n, max_df=max_df, topic_papers=topic_papers)
        linked = maybe[ok]
        linkable = np.zeros(len(df), dtype=bool)
        linkable[linked] = True
        weights = np.zeros(len(df))
        weights[linked] = concept_weights([k for k, keep in zip(keys, ok.tolist(), strict=True) if keep],
                                          df[linked].tolist(), n)  # fmt: skip
        XL = (X @ sp.diags(linkable.astype(float))).tocsr()
        XL.eliminate_zeros()
        XT = XL.T.tocsr()
        # as in link_papers: the concept's weight * sqrt(s_p * s_q) summed over the shared concepts
        roots = sp.csr_matrix((np.sqrt(self.salience), X.indices, X.indptr), shape=X.shape)
        SL = (roots @ sp.diags(linkable.astype(float))).tocsr()
        SL.eliminate_zeros()
        ST = SL.T.tocsr()
        new = XL[n_old:]
        scores = ((SL[n_old:] @ sp.diags(weights)) @ ST).tocsr()
        counts = (new @ XT).tocsr()
        scores.sort_indices()
        counts.sort_indices()
        # ties go to the paper whose id comes first, as in a full run (rows are not in id order)
        rank = np.empty(n, dtype=np.int64)
        rank[sorted(range(n), key=self.papers.__getitem__)] = np.arange(n)
        chosen: set[tuple[int, int]] = set()
        offers: dict[int, list[tuple[float, int]]] = defaultdict(list)  # old paper -> (weight, new paper)
        topk = np.full((n, k), -np.inf)
        nbr = np.full((n, k), -1, dtype=np.int32)
        topk[:n_old], nbr[:n_old] = self.topk, self.nbr
        # an old paper's k-th strongest link: a new one must rank before it to enter the list
        floor, floor_rank = self.topk[:, k - 1], np.where(self.nbr[:, k - 1] >= 0, rank[self.nbr[:, k - 1]], n)
        for i in range(scores.shape[0]):
            p = n_old + i
            a, b = scores.indptr[i], scores.indptr[i + 1]
            js, ws, ns = scores.indices[a:b], np.round(scores.data[a:b], 6), counts.data[a:b]
            keep = (js != p) & (ns >= min_shared) & (ws >= min_weight)
            js, ws = js[keep], ws[keep]
            order = np.lexsort((rank[js], -ws))[:k]
            chosen.update((p, int(q)) for q in js[order])
            topk[p, : len(order)], nbr[p, : len(order)] = ws[order], js[order]
            old = js < n_old
            w_old, q_old = ws[old], js[old]
            beats = (w_old > floor[q_old]) | ((w_old == floor[q_old]) & (rank[p] < floor_rank[q_old]))
            for q, w in zip(q_old[beats].tolist(), w_old[beats].tolist(), strict=True):
                offers[q].append((w, p))
        pushed: list[tuple[int, list[int]]] = []
        for q, offered in offers.items():
            had = [(w, int(r)) for w, r in zip(self.topk[q].tolist(), self.nbr[q].tolist(), strict=True) if r >= 0]
            ranked = sorted(had + offered, key=lambda e: (-e[0], rank[e[1]]))[:k]
            kept = {r for _, r in ranked}
            chosen.update((q, p) for _, p in offered if p in kept)
            pushed.append((q, [r for _, r in had if r not in kept]))
            topk[q], nbr[q] = -np.inf, -1
            topk[q, : len(ranked)], nbr[q, : len(ranked)] = [w for w, _ in ranked], [r for _, r in ranked]
        # a link pushed out of one end's list stays if the other end still keeps it
        gone = sorted({self._pair(q, r) for q, out in pushed for r in out if q not in nbr[r]})
        self.topk, self.nbr = topk, nbr
        links = []
        for i, j in sorted({self._pair(i, j) for i, j in chosen}, key=lambda e: (self.papers[e[0]], self.papers[e[1]])):
            si, sj = _row(SL, i), _row(SL, j)
            share = {c: float(weights[c] * si[c] * sj[c]) for c in si.keys() & sj.keys()}
            cols = sorted(share, key=lambda c: (-round(share[c], 9), self.concepts[c]))
            keys = [self.concepts[c] for c in cols]
            weight = sum(share[c] for c in cols)
            links.append((self.papers[i], self.papers[j], {
                "weight": round(weight, 6), "n_shared": len(keys), "shared": [c.removeprefix("concept:") for c in keys]
            }))  # fmt: skip
        return links, [(self.papers[i], self.papers[j]) for i, j in gone]

    def _pair(self, i: int, j: int) -> tuple[int, int]:
        """Rows ``i`` and ``j`` as a stored link has its ends: the lesser id first."""
        return (i, j) if self.papers[i] < self.papers[j] else (j, i)

    def _cooccur(self, old: sp.csc_matrix, rows: list[list[int]], c_old: int, min_papers: int,
                 delta: LinkDelta) -> None:  # fmt: skip
        pairs: Counter[tuple[int, int]] = Counter()
        for r in rows:
            pairs.update(combinations(sorted(r, key=lambda j: self.concepts[j]), 2))
        for (a, b), added in sorted(pairs.items(), key=lambda kv: (self.concepts[kv[0][0]], self.concepts[kv[0][1]])):
            before = 0
            if a < c_old and b < c_old:
                pa = old.indices[old.indptr[a] : old.indptr[a + 1]]
                pb = old.indices[old.indptr[b] : old.indptr[b + 1]]
                before = int(np.intersect1d(pa, pb, assume_unique=True).size) if len(pa) and len(pb) else 0
            total = before + added
            if total >= min_papers:
                edge = (self.concepts[a], self.concepts[b], total)
                (delta.cooccurs_updated if before >= min_papers else delta.cooccurs_new).append(edge)


def _row(M: sp.csr_matrix, i: int) -> dict[int, float]:
    a, b = M.indptr[i], M.indptr[i + 1]
    return dict(zip(M.indices[a:b].tolist(), M.data[a:b].tolist(), strict=True))


def _salience(B: nx.DiGraph, paper: str, concept: str) -> float:
    value = B.edges[paper, concept].get("salience")
    return 1.0 if value is None else float(value)
