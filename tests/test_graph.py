"""Build and link: the graph functions on small graphs with known answers."""

from __future__ import annotations

import sys
import weakref

import networkx as nx

from kg.analyse import analyse, annotate
from kg.build import build_graph, knowledge_graph, merge_graphs
from kg.link import cooccurrence, link_papers
from kg.records import RELATION_TYPES, Extraction, Mention, Paper, Relation


def _m(text, concept, type_="Technique", role="mentions", start=0):
    return Mention(text, type_, start, start + len(text), f"About {text}.", role, concept)


def _graph(spec: dict[str, list[str]]) -> nx.DiGraph:
    papers = [Paper(pid, f"title {pid}", "abstract " * 5, 2020) for pid in spec]
    extractions = [Extraction(pid, [_m(c, c) for c in concepts]) for pid, concepts in spec.items()]
    return build_graph(papers, extractions)


def test_categories_that_are_no_text_neither_stop_the_build_nor_become_text():
    # The readers reject such records; a Paper made in Python reaches build_graph as it is
    odd = {"categories": [None, "cs.CL"], "primary_category": 3}
    papers = [
        Paper("a", "t", "abstract " * 5, 2020, extra={"categories": 5}),
        Paper("b", "t", "abstract " * 5, 2020, extra=odd),
    ]
    G = build_graph(papers, [Extraction("a", [_m("BERT", "bert")]), Extraction("b", [_m("BERT", "bert")])])
    assert (G.nodes["paper:a"]["categories"], G.nodes["paper:a"]["primary_category"]) == ([], None)
    assert (G.nodes["paper:b"]["categories"], G.nodes["paper:b"]["primary_category"]) == (["cs.CL"], "cs.CL")


def test_the_graph_keeps_no_extraction_handed_to_it():
    # A run hands its extractions over (kg.pipeline.run.build_stage): each paper's mentions must be
    # freed once its edges are in, or a corpus holds them all beside the graph (62k ACL: 290 MB)
    class Mentions(list):  # a list that can be watched for its end
        pass

    text = "About BERT and ELMo."
    papers = [Paper(f"p{i}", "T", text, 2020) for i in range(3)]
    stated = [Relation("USED_FOR", "bert", "elmo", "BERT", "ELMo", 6, 10, 15, 19, text)]
    handed = [Extraction(p.id, Mentions([_m("BERT", "bert"), _m("ELMo", "elmo")]), stated) for p in papers]
    watched = {x.id: weakref.ref(x.mentions) for x in handed}
    alive_when_next_read = []

    def hand_over():
        while handed:
            yield handed.pop()

    def read():
        for i, paper in enumerate(papers):
            alive_when_next_read.append([watched[p.id]() is not None for p in papers[:i]])
            yield paper

    B = build_graph(read(), hand_over())
    assert alive_when_next_read == [[], [False], [False, False]]
    assert B.edges["paper:p0", "concept:bert"]["text"] == "BERT"
    assert B.edges["concept:bert", "concept:elmo"]["n_papers"] == 3


def test_extractions_in_the_papers_order_are_read_one_paper_at_a_time():
    # A run's extractions are packed and decoded as they are read: read all before the first paper
    # is built, a corpus's mentions were all decoded at once, and freeing them while the graph grew
    # into their memory left 540 MB of the 61,839 ACL papers' run part-used to its end
    papers = [Paper(f"p{i}", "T", "About BERT.", 2020) for i in range(4)]
    read: list[str] = []

    def handed():
        for p in papers:
            read.append(p.id)
            yield Extraction(p.id, [_m("BERT", "bert")])

    ahead = []

    def built():
        for i, paper in enumerate(papers):
            ahead.append(len(read) - i)
            yield paper

    B = build_graph(built(), handed())
    assert ahead == [0, 0, 0, 0]  # when paper i is read, no extraction after its own has been (before: 4, 3, 2, 1)
    assert B.nodes["concept:bert"]["paper_count"] == 4


def test_a_corpus_graphs_attribute_dicts_share_their_keys_to_the_end_of_the_analytics():
    # A graph's attribute dicts were most of a corpus's memory: a MENTIONS edge's took 280 bytes,
    # 168 sharing their keys (61,839 ACL papers: the run's peak 2,462 -> 2,257 MB). A dict that
    # stops sharing (set with add_edge(**attrs), or given a key that is not reserved) is no
    # smaller than a copy of itself.
    papers = [Paper(f"p{i}", "BERT for NER", "We use BERT for NER.", 2000 + i % 20) for i in range(300)]
    found = [Extraction(p.id, [_m("BERT", "bert"), _m("NER", "ner", "Problem", "addresses", 11),
                               _m("X", f"x{i}", "Method", "proposes", 0)]) for i, p in enumerate(papers)]  # fmt: skip
    B = build_graph(papers, found)
    G = annotate(knowledge_graph(B, link_papers(B, max_df=1.0), cooccurrence(B), copy=False),
                 analyse(B), copy=False)  # fmt: skip

    def ratio(dicts: list[dict]) -> float:
        assert len(dicts) >= 300
        return sum(map(sys.getsizeof, dicts)) / sum(sys.getsizeof(dict(d)) for d in dicts)

    for rel in ("MENTIONS", "SHARES_CONCEPTS"):
        assert ratio([d for _, _, d in G.edges(data=True) if d["rel"] == rel]) < 0.75, rel
    for kind in ("Paper", "Concept"):
        nodes = [d for _, d in G.nodes(data=True) if d["kind"] == kind]
        assert all("pagerank" in d for d in nodes)
        assert ratio(nodes) < 0.75, kind


def test_a_corpus_graph_holds_each_repeated_string_and_number_once():
    # Extractions come decoded one by one (the cache, the workers): each mention has strings and
    # offsets of its own. A concept's id is the key of each of its edges in the graph's adjacency,
    # and spellings, sentences and offsets repeat by the million (61,839 ACL papers: 913,331
    # MENTIONS edges; one object each took the run's peak from 1,999 to 1,884 MB with the rest).
    def fresh(s: str) -> str:
        return "".join(list(s))  # an equal string that is not the same object

    text = "We use BERT for parsing: 3000 words of text, and BERT again."

    def found(pid: str) -> Extraction:
        bert = Mention(
            fresh("BERT"), "Method", int(fresh("300")), int(fresh("304")), fresh(text), "uses", fresh("bert")
        )
        parsing = Mention(fresh("parsing"), "Problem", 16, 23, fresh(text), "addresses", fresh("parsing"))
        used = Relation("USED_FOR", fresh("bert"), fresh("parsing"), "BERT", "parsing", 7, 11, 16, 23, fresh(text))
        return Extraction(pid, [bert, parsing], [used])

    B = build_graph([Paper(f"p{i}", "T", text, 2020) for i in range(3)], [found(f"p{i}") for i in range(3)])

    (bert,) = (n for n in B if n == "concept:bert")  # the graph's own id
    assert all(next(v for v in B.succ[p] if v == bert) is bert for p in B.pred[bert])
    edges = [B.edges[f"paper:p{i}", bert] for i in range(3)]
    for attr in ("text", "start", "end"):
        assert len({id(e[attr]) for e in edges}) == 1, attr
    assert B.nodes["concept:parsing"]["name"] is B.nodes["concept:parsing"]["key"]
    # a paper's sentence is one string: its mentions' and its stated relations'
    sentence = B.edges["paper:p0", bert]["sentence"]
    assert B.edges["paper:p0", "concept:parsing"]["sentence"] is sentence
    assert B.edges[bert, "concept:parsing"]["sentence"] is sentence


def test_build_keeps_strongest_role_and_counts():
    paper = Paper("p1", "T", "x" * 30, 2021, ["A"], "ACL", {"doi": "10/x"})
    ms = [
        _m("BERT", "bert", "Method", "mentions", 0),
        _m("BERT", "bert", "Method", "proposes", 10),
        _m("Bert", "bert", "Method", "uses", 20),
    ]
    B = build_graph([paper], [Extraction("p1", ms)])
    edge = B.edges["paper:p1", "concept:bert"]
    assert (edge["role"], edge["start"], edge["count"]) == ("proposes", 10, 3)
    concept = B.nodes["concept:bert"]
    assert (concept["name"], concept["aliases"], concept["type"], concept["paper_count"]) == (
        "BERT",
        ["Bert"],
        "Method",
        1,
    )
    assert B.nodes["paper:p1"]["extra"] == {"doi": "10/x"} and B.nodes["paper:p1"]["n_concepts"] == 1


def test_papers_without_mentions_are_still_nodes():
    B = build_graph([Paper("p1", "T", "x" * 30)], [])
    assert B.nodes["paper:p1"]["n_concepts"] == 0


def test_rare_shared_concepts_weigh_more():
    B = _graph(
        {
            "a": ["common", "rare"],
            "b": ["common", "rare"],
            "c": ["common", "other"],
            "d": ["common", "other2"],
        }
    )
    P = link_papers(B, max_df=1.0)
    assert P.edges["paper:a", "paper:b"]["shared"] == ["rare", "common"]
    assert P.edges["paper:a", "paper:b"]["weight"] > P.edges["paper:a", "paper:c"]["weight"]
    assert P.nodes["paper:a"]["title"] == "title a"


def test_a_topic_of_the_collection_links_its_papers_a_word_of_the_field_does_not():
    # the default sample (300 papers on seven subjects of large models): "mixture of experts" (35
    # papers) and "model merging" (34) were over link.max_df (10%) and linked no paper, like
    # "accuracy" (36); the reference abstracts tell them apart (0.8%, 0.2% and 19% of them)
    spec = {f"p{i:03d}": [f"own{i}"] for i in range(300)}
    for i in range(35):
        spec[f"p{i:03d}"].append("mixture of experts")
    for i in range(100, 136):
        spec[f"p{i:03d}"].append("accuracy")
    B = _graph(spec)
    assert not B.nodes["concept:accuracy"].get("generic")  # kept out by how common it is
    P = link_papers(B, max_df=0.1, top_k=40)
    assert {c for _, _, d in P.edges(data=True) for c in d["shared"]} == {"mixture of experts"}
    assert P.number_of_edges() == 35 * 34 // 2
    assert link_papers(B, max_df=0.1, top_k=40, topic_papers=0).number_of_edges() == 0


def test_papers_that_share_only_a_metric_are_not_linked():
    # both report F1; only the two on speculative decoding are about the same thing
    B = _graph({"a": ["f1", "speculative decoding"], "b": ["f1", "speculative decoding"], "c": ["f1", "pruning"]})
    B.nodes["concept:f1"]["type"] = "Metric"
    P = link_papers(B, max_df=1.0)
    assert list(P.edges(data="shared")) == [("paper:a", "paper:b", ["speculative decoding"])]


def test_ubiquitous_concepts_do_not_link_and_top_k_holds():
    spec = {f"p{i}": ["everywhere", f"pair{i // 2}"] for i in range(10)}
    B = _graph(spec)
    P = link_papers(B, max_df=0.5)
    assert P.number_of_edges() == 5  # only the pairs; "everywhere" is in 100% of papers
    P = link_papers(B, max_df=1.0, top_k=1)
    assert all(deg >= 1 for _, deg in P.degree())
    assert P.number_of_edges() <= 10


def test_link_does_not_mutate_input():
    B = _graph({"a": ["x"], "b": ["x"]})
    before = (sorted(B.nodes(data=False)), sorted(B.edges()))
    link_papers(B, max_df=1.0)
    cooccurrence(B)
    assert before == (sorted(B.nodes(data=False)), sorted(B.edges()))


def test_cooccurrence_threshold():
    B = _graph({"a": ["x", "y", "z"], "b": ["x", "y"], "c": ["y", "z"]})
    C = cooccurrence(B, min_papers=2)
    assert sorted(C.edges(data="weight")) == [("concept:x", "concept:y", 2), ("concept:y", "concept:z", 2)]
    assert C.nodes["concept:x"]["kind"] == "Concept"


def test_knowledge_graph_combines_all_relations():
    B = _graph({"a": ["x", "y"], "b": ["x", "y"]})
    G = knowledge_graph(B, link_papers(B, max_df=1.0), cooccurrence(B))
    rels = sorted(d["rel"] for _, _, d in G.edges(data=True))
    assert rels == ["CO_OCCURS", "MENTIONS", "MENTIONS", "MENTIONS", "MENTIONS", "SHARES_CONCEPTS"]


def test_knowledge_graph_in_place_moves_the_links_out_of_their_graphs():
    # a run's graph takes the links in place (copy=False): the link graphs are emptied as they go,
    # so that a corpus's 900k links are not held twice; the graph is the one a copy would give
    papers = {"a": ["x", "y", "z"], "b": ["x", "y"], "c": ["y", "z"], "d": ["z", "x"]}
    B = _graph(papers)
    expected = knowledge_graph(B, link_papers(B, max_df=1.0), cooccurrence(B, min_papers=2))
    P, C = link_papers(B, max_df=1.0), cooccurrence(B, min_papers=2)
    G = knowledge_graph(B, P, C, copy=False)
    assert G is B and P.number_of_edges() == C.number_of_edges() == 0
    assert list(G.edges(data=True)) == list(expected.edges(data=True))
    assert sum(d["rel"] == "SHARES_CONCEPTS" for _, _, d in G.edges(data=True)) == 6
    # a run adds the paper links straight into its graph (link_papers(into=B): no graph of them to
    # move, 350 MB of adjacency for 150,965 arXiv ML papers); the concepts' links after, read from
    # the papers' concepts only
    import random

    rng = random.Random(5)
    for _ in range(10):
        _, B = _random_graph(rng, concepts=12)
        expected = knowledge_graph(B, link_papers(B, max_df=1.0, top_k=3), cooccurrence(B, min_papers=2))
        assert link_papers(B, max_df=1.0, top_k=3, into=B) is B
        G = knowledge_graph(B, nx.Graph(), cooccurrence(B, min_papers=2), copy=False)
        assert list(G.nodes(data=True)) == list(expected.nodes(data=True))
        assert list(G.edges(data=True)) == list(expected.edges(data=True))


def _brute_force_scores(B, *, min_shared=1, min_weight=0.0, max_df=0.1):
    """Every pair, in plain Python: paper -> other paper -> (weight, shared concept keys)."""
    import math
    from collections import defaultdict

    papers = [n for n, kind in B.nodes(data="kind") if kind == "Paper"]
    n, cap = len(papers), max(2, int(max_df * len(papers)))
    from kg.normalise.specificity import reference_df, specificity

    ref = reference_df()

    def links(key, df):  # in at most max_df of the papers, or a topic: rare in the field, in <= 200 and half
        return 2 <= df <= cap or (df <= min(200, n // 2) and ref.df(key) <= 0.02 * ref.n_docs)

    # a shared concept's weight: its specificity with the run's papers pooled in
    idf = {c: specificity(d.get("key", c.removeprefix("concept:")), run_df=B.in_degree(c), run_docs=n)
           for c, d in B.nodes(data=True)
           if d["kind"] == "Concept" and not d.get("generic") and d.get("type") != "Metric"
           and links(d.get("key", c.removeprefix("concept:")), B.in_degree(c))}  # fmt: skip
    out = {}
    for p in papers:
        scores, shared = defaultdict(float), defaultdict(dict)
        for c in B.successors(p):
            for q in B.predecessors(c) if c in idf else []:
                if q != p:
                    share = idf[c] * math.sqrt(B.edges[p, c]["salience"] * B.edges[q, c]["salience"])
                    scores[q] += share
                    shared[q][c] = share
        out[p] = {}
        for q in scores:
            if len(shared[q]) >= min_shared and scores[q] >= min_weight:
                keys = sorted(shared[q], key=lambda c: (-round(shared[q][c], 9), c))
                out[p][q] = (round(scores[q], 6), [c.removeprefix("concept:") for c in keys])
    return out


def _brute_force_links(B, *, top_k=20, **settings):
    """What link_papers must equal: each paper's top_k strongest links (ties by paper id), together."""
    edges = {}
    for p, scores in _brute_force_scores(B, **settings).items():
        for q in sorted(scores, key=lambda q: (-scores[q][0], q))[:top_k]:
            weight, keys = scores[q]
            edges[tuple(sorted((p, q)))] = (weight, len(keys), keys)
    return edges


def _random_graph(rng, *, concepts: int):
    """40 papers of up to 6 of ``concepts`` concepts, random saliences, 3 concepts generic, 2 metrics: (spec, graph)."""
    spec = {f"p{i:02d}": rng.sample([f"c{j}" for j in range(concepts)], rng.randint(0, 6)) for i in range(40)}
    B = _graph(spec)
    for _, _, d in B.edges(data=True):
        d["salience"] = rng.choice([0.1, 0.25, 0.5, 1.0])
    for c in rng.sample([n for n, k in B.nodes(data="kind") if k == "Concept"], 3):
        B.nodes[c]["generic"] = True
    for c in rng.sample([n for n, k in B.nodes(data="kind") if k == "Concept"], 2):
        B.nodes[c]["type"] = "Metric"
    return spec, B


def test_link_papers_equals_brute_force_on_random_graphs():
    import random

    rng = random.Random(3)
    for trial in range(20):
        _, B = _random_graph(rng, concepts=30)
        kw = {"max_df": rng.choice([0.1, 0.3, 1.0]), "top_k": rng.choice([1, 3, 20]), "min_shared": rng.choice([1, 2])}
        P = link_papers(B, **kw)
        got = {tuple(sorted((u, v))): (d["weight"], d["n_shared"], d["shared"]) for u, v, d in P.edges(data=True)}
        assert got == _brute_force_links(B, **kw), (trial, kw)


def _brute_force_update(B, old, *, top_k, **settings):
    """The links after adding the papers of ``B`` that are not in ``old`` to those linked in full.

    Old papers keep their top_k of the links they had (with their weights) and of the new
    papers (weighed in the grown corpus); new papers rank every paper; a link stays where one
    end ranks it in its top_k.
    """
    before = _brute_force_links(B.subgraph(old | {c for p in old for c in B.successors(p)}), top_k=top_k, **settings)
    scores = _brute_force_scores(B, **settings)
    offered = {p: {q: (w, len(keys), keys) for q, (w, keys) in ranked.items()} for p, ranked in scores.items()}
    for (u, v), link in before.items():  # an old paper weighs the links it had as they were stored
        offered[u][v], offered[v][u] = link, link
    links = {}
    for p, ranked in offered.items():
        candidates = [q for q in ranked if p not in old or q not in old or tuple(sorted((p, q))) in before]
        for q in sorted(candidates, key=lambda q: (-ranked[q][0], q))[:top_k]:
            links[tuple(sorted((p, q)))] = ranked[q]
    return links


def test_link_index_adds_papers_as_the_brute_force_update(tmp_path):
    """Random corpora split in two: the index's update is the brute-force one, and a link stays only in a top_k."""
    import random

    from kg.link.index import LinkIndex

    rng = random.Random(5)
    for trial in range(20):
        spec, B = _random_graph(rng, concepts=25)
        kw = {"max_df": rng.choice([0.2, 1.0]), "top_k": rng.choice([1, 3, 5]), "min_shared": rng.choice([1, 2])}
        # new papers get ids among the old ones', so rows are not in id order
        new = set(rng.sample(sorted(spec), 10))
        old = {f"paper:{p}" for p in spec} - {f"paper:{p}" for p in new}
        B_old = B.subgraph(old | {c for p in old for c in B.successors(p)}).copy()
        P = link_papers(B_old, **kw)
        index = LinkIndex.from_graph(knowledge_graph(B_old, P, cooccurrence(B_old)), top_k=kw["top_k"])
        index.save(tmp_path)
        index = LinkIndex.load(tmp_path)
        added = {f"paper:{p}" for p in new}
        settings = {k: v for k, v in kw.items() if k != "top_k"}
        delta = index.add(B.subgraph(added | {c for p in added for c in B.successors(p)}).copy(), **settings)
        links = {(u, v): (d["weight"], d["n_shared"], d["shared"]) for u, v, d in P.edges(data=True)}
        assert all((u, v) in links for u, v in delta.removed)
        links = {e: link for e, link in links.items() if e not in set(delta.removed)}
        links |= {(u, v): (d["weight"], d["n_shared"], d["shared"]) for u, v, d in delta.links}
        assert links == _brute_force_update(B, old, **kw), (trial, kw)
        assert all(u < v for u, v, _ in delta.links)


def _stating(pid: str, concepts: list[str], relations: list[tuple[str, str, str]]) -> tuple[Paper, Extraction]:
    text = f"Sentence of {pid}."
    said = [Relation(kind, h, t, h, t, 0, 1, 2, 3, text) for h, kind, t in relations]
    return Paper(pid, "", text, 2020), Extraction(pid, [_m(c, c) for c in concepts], said)


def _stated(G: nx.DiGraph) -> list[tuple[str, str, str, list[str], int, str | None]]:
    return sorted((u, v, d["rel"], d["papers"], d["n_papers"], d["sentence"]) for u, v, d in G.edges(data=True)
                  if d["rel"] in RELATION_TYPES)  # fmt: skip


def test_stated_relations_are_concept_edges_with_evidence():
    pairs = [
        _stating("a", ["crf", "tagging"], [("crf", "USED_FOR", "tagging")]),
        _stating("b", ["crf", "tagging", "model"], [("crf", "USED_FOR", "tagging"), ("crf", "HYPONYM_OF", "model")]),
    ]
    B = build_graph([p for p, _ in pairs], [x for _, x in pairs])
    assert _stated(B) == [
        ("concept:crf", "concept:model", "HYPONYM_OF", ["b"], 1, "Sentence of b."),
        ("concept:crf", "concept:tagging", "USED_FOR", ["a", "b"], 2, "Sentence of a."),
    ]
    assert B.edges["concept:crf", "concept:tagging"]["paper"] == "a"
    # relation edges are not mentions: paper counts and paper links see papers only
    assert B.nodes["concept:tagging"]["paper_count"] == 2
    assert link_papers(B, max_df=1.0).edges["paper:a", "paper:b"]["shared"] == ["crf", "tagging"]
    G = knowledge_graph(B, link_papers(B, max_df=1.0), cooccurrence(B))
    # crf -> tagging is taken by USED_FOR, so their co-occurrence is stored tagging -> crf
    assert G.edges["concept:crf", "concept:tagging"]["rel"] == "USED_FOR"
    assert G.edges["concept:tagging", "concept:crf"] == {"weight": 2, "rel": "CO_OCCURS"}


def test_merge_replaces_the_statements_of_reextracted_papers():
    def graph(*pairs):
        return build_graph([p for p, _ in pairs], [x for _, x in pairs])

    a = _stating("a", ["crf", "tagging"], [("crf", "USED_FOR", "tagging")])
    b = _stating("b", ["crf", "tagging"], [("crf", "USED_FOR", "tagging")])
    b_again = _stating("b", ["crf", "parsing"], [("crf", "USED_FOR", "parsing")])
    a_again = _stating("a", ["crf", "tagging"], [])
    M = merge_graphs(graph(a, b), graph(b_again))
    assert _stated(M) == _stated(graph(a, b_again))
    M = merge_graphs(graph(a, b), graph(a_again))
    # b still states it; a's sentence went with a's old extraction and b's is not stored
    assert _stated(M) == [("concept:crf", "concept:tagging", "USED_FOR", ["b"], 1, None)]


def test_a_concept_is_named_as_abstracts_spell_it_not_as_title_case_titles_do():
    title = "Low-Resource Neural Machine Translation"
    papers = [Paper(f"p{i}", title, "We study neural machine translation here.", 2021) for i in range(3)]
    in_title = Mention("Neural Machine Translation", "Problem", 13, 39, title, "mentions", "neural machine translation",
                       field="title")  # fmt: skip
    in_abstract = _m("neural machine translation", "neural machine translation", "Problem", start=9)
    extractions = [Extraction("p0", [in_title, in_abstract])] + [Extraction(f"p{i}", [in_title]) for i in (1, 2)]
    concept = build_graph(papers, extractions).nodes["concept:neural machine translation"]
    assert concept["name"] == "neural machine translation" and concept["aliases"] == ["Neural Machine Translation"]
    # with no abstract spelling, the title's names it
    concept = build_graph(papers[1:], extractions[1:]).nodes["concept:neural machine translation"]
    assert concept["name"] == "Neural Machine Translation"


def test_a_coordination_is_no_spelling_of_the_concepts_it_names():
    # "supervised and unsupervised learning" is one mention of each concept, over the coordination
    # (kg_concepts): neither concept is named by it nor has it as an alias
    text = "We combine supervised and unsupervised learning."
    papers = [Paper("p0", "", text, 2021), Paper("p1", "", "We use unsupervised learning.", 2021)]
    both = [_m("supervised and unsupervised learning", key, "Technique", start=11) for key in
            ("supervised learning", "unsupervised learning")]  # fmt: skip
    extractions = [Extraction("p0", both), Extraction("p1", [_m("unsupervised learning", "unsupervised learning",
                                                                "Technique", start=7)])]  # fmt: skip
    B = build_graph(papers, extractions)
    supervised, unsupervised = B.nodes["concept:supervised learning"], B.nodes["concept:unsupervised learning"]
    assert (supervised["name"], supervised["aliases"], supervised["paper_count"]) == ("supervised learning", [], 1)
    assert (unsupervised["name"], unsupervised["aliases"]) == ("unsupervised learning", [])
    assert unsupervised["paper_count"] == 2
    # the evidence is what the paper wrote
    assert B.edges["paper:p0", "concept:supervised learning"]["text"] == "supervised and unsupervised learning"


def test_a_sentences_capital_is_no_part_of_a_name_where_the_run_writes_the_word_in_lower_case():
    # 10,000 arXiv ML abstracts of 2026 had concepts named "Automated essay scoring" and "Graphical user
    # interface agents": every paper that wrote them opened a sentence with them
    texts = ["Automated essay scoring is hard. Bayesian optimization helps.", "We use automated grading here.",
             "We use Bayesian networks here."]  # fmt: skip
    papers = [Paper(f"p{i}", "T", text, 2026) for i, text in enumerate(texts)]
    extractions = [
        Extraction("p0", [_m("Automated essay scoring", "automated essay scoring", "Problem"),
                          _m("Bayesian optimization", "bayesian optimization", "Method", start=33)]),
        Extraction("p1", [_m("automated grading", "automated grading", "Problem", start=7)]),
        Extraction("p2", [_m("Bayesian networks", "bayesian network", "Method", start=7)]),
    ]  # fmt: skip
    B = build_graph(papers, extractions)
    assert B.nodes["concept:automated essay scoring"]["name"] == "automated essay scoring"
    assert B.nodes["concept:bayesian optimization"]["name"] == "Bayesian optimization"


def test_a_concept_is_named_as_papers_call_it_not_as_they_define_its_acronym():
    # every paper defines the acronym once, and then writes the short form or the long one
    sentences = ["Large language models (LLMs) can reason.", "We prompt large language models in context."]
    papers = [Paper(f"p{i}", "T", text, 2024) for i, text in enumerate(sentences * 2)]
    defined = _m("Large language models (LLMs)", "large language model", "Technique")
    written = _m("large language models", "large language model", "Technique", start=10)
    extractions = [Extraction(p.id, [defined if i % 2 == 0 else written]) for i, p in enumerate(papers)]
    extractions[0].mentions.append(_m("large language models (LLMs)", "large language model", "Technique", start=0))
    concept = build_graph(papers, extractions).nodes["concept:large language model"]
    assert concept["name"] == "large language models"
    assert "Large language models (LLMs)" in concept["aliases"]


def test_a_concept_is_named_by_the_form_papers_write_far_more_often():
    # ACL: 745 "GPT-4" to one "Generative Pre-trained Transformer 4 (GPT-4)" had named it by the latter
    papers = [Paper(f"p{i}", "T", "We prompt GPT-4 here.", 2024) for i in range(5)]
    written = _m("GPT-4", "generative pretrained transformer 4", "Method", start=10)
    defined = _m("Generative Pre-trained Transformer 4 (GPT-4)", "generative pretrained transformer 4", "Method")
    extractions = [Extraction("p0", [defined])] + [Extraction(f"p{i}", [written]) for i in range(1, 5)]
    concept = build_graph(papers, extractions).nodes["concept:generative pretrained transformer 4"]
    assert concept["name"] == "GPT-4"
    # the default sample: "MoE models" and "MoE architectures" name "mixture of experts" as "MoE"
    forms = ["MoE models"] * 3 + ["MoE"] * 2 + ["MoE architectures"] * 2 + ["mixture-of-experts"]
    papers = [Paper(f"p{i}", "T", "About them.", 2024) for i in range(len(forms))]
    extractions = [Extraction(p.id, [_m(text, "mixture of experts")]) for p, text in zip(papers, forms, strict=True)]
    assert build_graph(papers, extractions).nodes["concept:mixture of experts"]["name"] == "MoE"


def test_concepts_spelt_one_way_share_one_empty_list_of_aliases_that_no_stage_fills(default_run):
    # 865,444 of the 1.08 million concepts of 150,965 arXiv ML papers have no other spelling: a list
    # each took 48 MB. The run went through every stage in this process, and left it empty.
    from kg.build.graph import NO_ALIASES
    from kg.store import query_embedded

    out, _ = default_run
    assert NO_ALIASES == []
    counts = dict(query_embedded(out / "kg.lbug", "MATCH (c:Concept) RETURN size(c.aliases) = 0, count(*)").rows)
    assert counts[True] > 0 and counts[False] > 0
