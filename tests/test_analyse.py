"""Analytics on small graphs with known answers, and on the bundled sample."""

from __future__ import annotations

import copy
import json

import networkx as nx
import pytest

from kg.analyse import (
    CONCEPT_PROPERTIES,
    HUB_Z,
    PAPER_PROPERTIES,
    analyse,
    annotate,
    bridges,
    bursts,
    centrality,
    communities,
    concept_graph,
    louvain,
    method_problem_pairs,
    name_communities,
    nearest_papers,
    paper_graph,
    trends,
    within_z,
)
from kg.build import build_graph, knowledge_graph
from kg.errors import KGError
from kg.link import cooccurrence, link_papers
from kg.records import Extraction, Mention, Paper
from kg.store import read_embedded

MT = [("NMT", "Method"), ("BLEU", "Technique"), ("beam search", "Technique"), ("machine translation", "Problem")]
NER = [("CRF", "Method"), ("BiLSTM", "Method"), ("gazetteer", "Technique"), ("named entity recognition", "Problem")]
UBIQUITOUS = ("neural network", "Technique")


def _paper(pid: str, year: int | None, concepts: list[tuple[str, str]]) -> tuple[Paper, Extraction]:
    text = "We study " + ", ".join(name for name, _ in concepts) + "."
    mentions = []
    for name, kind in concepts:
        start = text.index(name)
        mentions.append(Mention(name, kind, start, start + len(name), text, "uses", name.lower()))
    return Paper(pid, f"Paper {pid}", text, year), Extraction(pid, mentions)


def _graph(items: list[tuple[Paper, Extraction]], *, min_cooccurrence: int = 2) -> nx.DiGraph:
    papers, found = zip(*items, strict=True)
    B = build_graph(papers, found)
    return knowledge_graph(B, link_papers(B, max_df=1.0), cooccurrence(B, min_papers=min_cooccurrence))


@pytest.fixture(scope="module")
def two_fields() -> nx.DiGraph:
    """Six machine-translation papers and six NER papers; every one also mentions neural networks."""
    items = [_paper(f"mt{i}", 2018 + i, [*MT, UBIQUITOUS]) for i in range(6)]
    items += [_paper(f"ner{i}", 2018 + i, [*NER, UBIQUITOUS]) for i in range(6)]
    return _graph(items)


def _key(name: str) -> str:
    return f"concept:{name.lower()}"


def test_the_analytics_hold_one_projection_at_a_time(two_fields, monkeypatch):
    # A corpus's concept and paper projections held together were the analyse stage's peak
    # (61,839 ACL papers: +781 MB over the graph; one at a time, +504 MB).
    from kg.analyse import analytics

    made: list[nx.Graph] = []
    held: list[int] = []  # when each projection is made, the nodes the ones before still hold

    def made_by(project):
        def make(G):
            held.append(sum(H.number_of_nodes() for H in made))
            made.append(project(G))
            return made[-1]

        return make

    monkeypatch.setattr(analytics, "concept_graph", made_by(concept_graph))
    monkeypatch.setattr(analytics, "paper_graph", made_by(paper_graph))
    found = analyse(two_fields)
    assert held == [0, 0]
    assert [c.size for c in found.concept_communities.communities][:2] in ([5, 4], [4, 5])


def test_the_paper_projection_is_a_view_holding_the_links_a_copy_would_in_its_order():
    # A copy of a corpus's paper links was the analyse stage's peak (150,965 arXiv ML papers:
    # 2.2 million links, +590 MB over the graph); the view reads them from the graph, in the
    # order a copy holds them, so the analytics' sums (PageRank's) give the same floats.
    import random

    from kg.analyse.graphs import _projection
    from tests.test_graph import _random_graph

    rng = random.Random(11)
    for _ in range(10):
        _, B = _random_graph(rng, concepts=12)
        built = knowledge_graph(B, link_papers(B, max_df=1.0, top_k=3), cooccurrence(B, min_papers=2))
        # papers in another order than their ids, which order the links' ends
        G = nx.DiGraph()
        G.add_nodes_from(rng.sample(list(built.nodes(data=True)), built.number_of_nodes()))
        G.add_edges_from(built.edges(data=True))
        P, copied = paper_graph(G), _projection(G, "Paper", "SHARES_CONCEPTS")
        assert list(P.nodes(data=True)) == list(copied.nodes(data=True))
        assert [(u, list(P.adj[u].items())) for u in P] == [(u, list(copied.adj[u].items())) for u in copied]
        assert all(d is G.edges[u, v] if G.has_edge(u, v) else G.edges[v, u] for u, v, d in P.edges(data=True))
        assert P.number_of_edges() == copied.number_of_edges() > 0
        assert centrality(P) == centrality(copied)
        assert communities(P, G) == communities(copied, G)
        edges = G.number_of_edges()
        P.clear()
        assert P.number_of_nodes() == P.number_of_edges() == 0 and G.number_of_edges() == edges


# communities -------------------------------------------------------------------------------


def test_two_fields_give_two_concept_communities_named_by_their_own_concepts(two_fields):
    found = communities(concept_graph(two_fields), two_fields)
    assert [c.size for c in found.communities][:2] in ([5, 4], [4, 5])
    mt = found.of(_key("NMT"))
    ner = found.of(_key("CRF"))
    assert mt != ner and mt >= 0 and ner >= 0
    assert {found.of(_key(n)) for n, _ in MT} == {mt}
    assert {found.of(_key(n)) for n, _ in NER} == {ner}
    labels = {c.number: c.label for c in found.communities}
    # Named by the field's own concepts, never by the concept every paper mentions.
    assert all(part.strip() in {n for n, _ in MT} for part in labels[mt].split(","))
    assert all(part.strip() in {n for n, _ in NER} for part in labels[ner].split(","))
    assert "neural network" not in labels[mt] + labels[ner]


def test_two_fields_give_two_paper_communities(two_fields):
    found = communities(paper_graph(two_fields), two_fields)
    assert found.kind == "Paper"
    assert [c.size for c in found.communities] == [6, 6]
    assert len({found.of(f"paper:mt{i}") for i in range(6)}) == 1
    assert len({found.of(f"paper:ner{i}") for i in range(6)}) == 1
    by_paper = {found.of("paper:mt0"): MT, found.of("paper:ner0"): NER}
    for c in found.communities:
        names = {n for n, _ in by_paper[c.number]}
        assert c.label and all(part.strip() in names for part in c.label.split(","))
        assert len(c.top) == 3


def test_a_community_name_does_not_say_a_concept_twice():
    """The default page named a community "model merging, merging", another "MoE LLMs, MoE, pruning"."""
    G = nx.DiGraph()
    names = {"model merging": 5, "merging": 4, "multi-task learning": 3, "task arithmetic": 3, "x": 1}
    for name, n in names.items():
        G.add_node(_key(name), kind="Concept", name=name, key=name)
        for i in range(n):
            G.add_edge(f"paper:m{i}", _key(name), rel="MENTIONS")
    for i in range(5):
        G.add_edge(f"paper:o{i}", _key("x"), rel="MENTIONS")
    membership = {f"paper:m{i}": 0 for i in range(5)} | {f"paper:o{i}": 1 for i in range(5)}
    (merging, _) = name_communities("Paper", membership, G)
    assert merging.label == "model merging, multi-task learning, task arithmetic"


def test_a_concept_of_most_papers_names_no_community():
    """The default page named its papers on quantization "post-training quantization, large language
    models, precision": LLMs are in 174 of its 300 papers."""
    G = nx.DiGraph()
    mentions = {"large language model": [*range(5), 5, 6], "post training quantization": range(5),
                "precision": range(3), "x": range(5, 10)}  # fmt: skip
    for name, papers in mentions.items():
        G.add_node(_key(name), kind="Concept", name=name, key=name)
        G.add_edges_from(((f"paper:p{i}", _key(name)) for i in papers), rel="MENTIONS")
    membership = {f"paper:p{i}": 0 if i < 5 else 1 for i in range(10)}
    quantization, other = name_communities("Paper", membership, G)
    assert quantization.label == "post training quantization, precision"
    assert other.label == "x"
    # ...unless nothing else would name it
    alone = G.subgraph(["paper:p0", "paper:p1", _key("large language model")])
    (everything,) = name_communities("Paper", {"paper:p0": 0, "paper:p1": 0}, alone)
    assert everything.label == "large language model"


def test_each_community_is_named_first_by_a_concept_no_larger_one_leads_with():
    """The arXiv ML map drew two circles labelled "large language models": a circle shows the first
    concept of its community's name, and LLMs came first in the names of two communities."""
    G = nx.DiGraph()
    mentions = {"large language model": range(11), "agent": range(3), "mathematical reasoning": range(6, 8),
                "x": range(11, 18), "y": range(18, 25)}  # fmt: skip
    for name, papers in mentions.items():
        G.add_node(_key(name), kind="Concept", name=name, key=name)
        G.add_edges_from(((f"paper:p{i}", _key(name)) for i in papers), rel="MENTIONS")
    membership = {f"paper:p{i}": 0 if i < 6 else 1 if i < 11 else 2 if i < 18 else 3 for i in range(25)}
    agents, reasoning, *_ = name_communities("Paper", membership, G)
    assert agents.label == "large language model, agent"
    # LLMs still score first in the second community, which its own concept now leads
    assert reasoning.label == "mathematical reasoning, large language model"
    assert reasoning.top == (_key("mathematical reasoning"), _key("large language model"))


def test_a_concept_name_too_long_for_a_community_name_is_said_by_its_acronym():
    """The arXiv ML map had a circle "reinforcement learning from human feedb…": a name over 40
    characters was cut. It is said by an acronym among the concept's aliases, or cut if it has none;
    the pages drawn from a store name it so too (kg.viz.stored)."""
    from kg.viz.stored import _paper_labels

    rlhf, other = "reinforcement learning from human feedback", "x" * 38 + " feedback learning"
    aliases = {rlhf: ["RL from human feedback", "RLHF", "RL", "RLHF LLMs"], other: ["Feedback learning"]}
    G = nx.DiGraph()
    for name, papers in ((rlhf, range(5)), (other, range(5, 10))):
        G.add_node(_key(name), kind="Concept", name=name, key=name, aliases=aliases[name])
        G.add_edges_from(((f"paper:p{i}", _key(name)) for i in papers), rel="MENTIONS")
    membership = {f"paper:p{i}": i // 5 for i in range(10)}
    assert [c.label for c in name_communities("Paper", membership, G)] == ["RLHF", other[:39] + "…"]

    def run(query, params):  # what a store answers (kg.viz.stored's queries)
        d = {k: G.nodes[_key(k)] for k in params["keys"]}
        if "c.aliases" in query:
            return [(k, d[k]["aliases"]) for k in d]
        return [(k, d[k]["name"], False, "Technique") for k in d]

    mentions = [(k, _key(name), 5) for k, name in enumerate((rlhf, other))]
    assert _paper_labels(run, {0: 5, 1: 5}, mentions) == {0: "RLHF", 1: other[:39] + "…"}


def test_a_metric_names_a_community_last():
    """The arXiv sample's concept map named a community "accuracy, transformer, convolutional neural
    networks", and a map of papers "web agents, success rates": a metric says how work is scored."""
    G = nx.DiGraph()
    mentions = {"success rate": range(5), "web agent": range(4), "x": range(5, 10)}
    for name, papers in mentions.items():
        G.add_node(
            _key(name), kind="Concept", name=name, key=name, type="Metric" if name == "success rate" else "Method"
        )
        G.add_edges_from(((f"paper:p{i}", _key(name)) for i in papers), rel="MENTIONS")
    membership = {f"paper:p{i}": 0 if i < 5 else 1 for i in range(10)}
    agents, _ = name_communities("Paper", membership, G)
    assert agents.label == "web agent, success rate"


def test_louvain_numbers_the_largest_community_zero_and_leaves_isolated_nodes_out():
    H = nx.Graph()
    nx.add_path(H, ["s1", "s2"])
    H.add_edges_from((a, b) for a in "abcde" for b in "abcde" if a < b)
    H.add_node("alone")
    membership = louvain(H)
    assert {membership[n] for n in "abcde"} == {0}
    assert membership["s1"] == membership["s2"] == 1
    assert "alone" not in membership


def test_analysis_is_reproducible(two_fields):
    a, b = analyse(two_fields), analyse(two_fields)
    assert a.concept_communities == b.concept_communities
    assert a.paper_communities == b.paper_communities
    assert a.concepts.pagerank == b.concepts.pagerank


# rankings and bridges ----------------------------------------------------------------------


def _cliques_with_bridge() -> nx.DiGraph:
    G = nx.DiGraph()
    names = ["a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4", "transformer"]
    for n in names:
        G.add_node(f"concept:{n}", kind="Concept", key=n, name=n, type="Technique")
    for side in "ab":
        members = [f"concept:{side}{i}" for i in range(1, 5)]
        G.add_edges_from(((u, v) for u in members for v in members if u < v), rel="CO_OCCURS", weight=5)
    for other in ("a1", "a2", "b1", "b2"):
        G.add_edge(f"concept:{other}", "concept:transformer", rel="CO_OCCURS", weight=3)
    return G


def test_bridge_between_two_communities_ranks_first():
    G = _cliques_with_bridge()
    a = analyse(G)
    top = a.bridges[0]
    assert top.name == "transformer"
    assert len(top.communities) == 2
    assert top.score == pytest.approx(0.5)
    assert a.participation["concept:transformer"] == max(a.participation.values())
    assert a.participation["concept:a3"] == 0.0
    # And it carries the most shortest paths.
    assert max(a.concepts.betweenness, key=a.concepts.betweenness.get) == "concept:transformer"


def test_bridges_need_links_into_two_communities():
    H = nx.Graph([("x", "y"), ("y", "z"), ("x", "z")])
    assert bridges(H, {"x": 0, "y": 0, "z": 0}, min_degree=1) == []


def test_a_hub_that_reaches_other_communities_ranks_before_a_few_scattered_links():
    # On 10,000 arXiv ML abstracts of 2025 the bridges had opened with "post-training phase" (10
    # co-occurrences over 5 communities) before "knowledge distillation" (141 over 9), a hub of its own.
    H = nx.Graph()
    for side in "abc":
        members = [f"{side}{i}" for i in range(10)]
        H.add_weighted_edges_from((u, v, 2) for u in members for v in members if u < v)
    H.add_weighted_edges_from(("distillation", f"a{i}", 5) for i in range(10))
    H.add_weighted_edges_from(("distillation", f"{side}{i}", 3) for side in "bc" for i in range(3))
    H.add_weighted_edges_from(("post-training phase", f"{side}0", 1) for side in "abc")
    membership = {n: "abc".index(n[0]) for n in H if n[0] in "abc" and n[1:].isdigit()}
    membership |= {"distillation": 0, "post-training phase": 0}
    ranked = bridges(H, membership)
    assert [b.node for b in ranked[:2]] == ["distillation", "post-training phase"]
    assert ranked[0].hub >= HUB_Z > ranked[1].hub
    # though the scattered one spreads more evenly
    assert ranked[1].score > ranked[0].score
    assert within_z(H, membership)["distillation"] == ranked[0].hub


def test_rankings_on_a_star():
    H = nx.star_graph(5)
    H = nx.relabel_nodes(H, str)
    r = centrality(H)
    assert max(r.pagerank, key=r.pagerank.get) == "0"
    assert r.degree["0"] == 5 and r.degree["1"] == 1
    assert r.betweenness["0"] == 1.0 and r.note == "exact"


def test_betweenness_is_sampled_or_skipped_on_big_graphs():
    H = nx.relabel_nodes(nx.barabasi_albert_graph(3000, 2, seed=1), str)
    sampled = centrality(H, budget=100 * H.number_of_edges())
    assert sampled.note.startswith("sampled from 100 of 3000")
    assert len(sampled.betweenness) == 3000
    skipped = centrality(H, budget=10 * H.number_of_edges())
    assert skipped.note.startswith("skipped") and skipped.betweenness == {}
    assert len(skipped.pagerank) == 3000


# trends ------------------------------------------------------------------------------------


def _yearly_corpus(per_year: dict[int, int], concepts: dict[str, dict[int, int]]) -> nx.DiGraph:
    """``per_year[y]`` papers in year y; concept c is mentioned by ``concepts[c][y]`` of them."""
    G = nx.DiGraph()
    for c in concepts:
        G.add_node(f"concept:{c}", kind="Concept", key=c, name=c, type="Method")
    for year, n in per_year.items():
        for i in range(n):
            G.add_node(f"paper:{year}-{i}", kind="Paper", id=f"{year}-{i}", year=year)
        for c, counts in concepts.items():
            for i in range(counts.get(year, 0)):
                G.add_edge(f"paper:{year}-{i}", f"concept:{c}", rel="MENTIONS")
    return G


def test_a_burst_is_emerging_and_a_decline_is_fading():
    years = range(2015, 2025)
    G = _yearly_corpus(
        dict.fromkeys(years, 20),
        {
            "prompting": {y: 1 if y < 2022 else 8 for y in years},
            "crf": {y: 8 if y < 2020 else {2020: 3, 2021: 1}.get(y, 0) for y in years},
            "parsing": dict.fromkeys(years, 4),
        },
    )
    t = trends(G)
    assert t.recent_window == (2022, 2024) and t.baseline_window == (2017, 2021)
    assert [x.name for x in t.emerging][:1] == ["prompting"]
    assert t.emerging[0].burst == (2022, 2024)
    assert t.emerging[0].recent == 24 and t.emerging[0].baseline == 5
    assert [x.name for x in t.fading][:1] == ["crf"]
    assert t.fading[0].burst is not None and t.fading[0].burst[1] <= 2019
    assert "parsing" not in {x.name for x in t.emerging + t.fading if abs(x.growth) > 0.3}
    assert t.first_year["concept:prompting"] == 2015
    assert t.yearly["concept:crf"][2020] == 3


def test_growth_is_normalised_by_the_papers_of_each_year():
    # The corpus doubles every year and the concept keeps a 10% share: no growth.
    years = range(2016, 2025)
    per_year = {y: 10 * 2 ** (y - 2016) for y in years}
    G = _yearly_corpus(per_year, {"steady": {y: n // 10 for y, n in per_year.items()}})
    t = trends(G)
    assert abs(t.growth["concept:steady"]) < 0.05
    assert t.emerging == [] or t.emerging[0].growth < 0.05


def test_a_few_old_papers_do_not_make_every_concept_explode():
    # arXiv ML: 30 of 150,965 papers before 2024; compared with them, "reinforcement learning"
    # (7,060 papers, none before 2024) had grown x7062
    per_year = {2019: 1, 2023: 2, 2024: 300, 2025: 600, 2026: 400}
    G = _yearly_corpus(per_year, {"rl": {2024: 15, 2025: 30, 2026: 20}, "agents": {2024: 10, 2025: 40, 2026: 60}})
    t = trends(G)
    assert t.recent_window == (2026, 2026) and t.baseline_window == (2024, 2025)
    assert [x.name for x in t.emerging] == ["agents"]  # 5.6% of the papers of 2024-2025, 15% of 2026's: x2.7
    assert abs(t.growth["concept:rl"]) < 0.05 and 1.3 < t.growth["concept:agents"] < 1.5


def test_minimum_support_keeps_one_off_concepts_out():
    G = _yearly_corpus(dict.fromkeys(range(2015, 2025), 10), {"once": {2024: 1}, "twice": {2023: 1, 2024: 1}})
    assert trends(G, min_papers=3).emerging == []
    assert [x.name for x in trends(G, min_papers=2).emerging] == ["twice"]


def test_bursts_follow_the_rate_not_the_count():
    growing = {2018: 10, 2019: 10, 2020: 100, 2021: 100}
    # 10% every year: a bigger year is no burst.
    assert bursts({2018: 1, 2019: 1, 2020: 10, 2021: 10}, growing) == []
    steady = dict.fromkeys(range(2016, 2022), 100)
    assert bursts({2016: 10, 2017: 10, 2018: 10, 2019: 10, 2020: 40, 2021: 40}, steady) == [(2020, 2021)]
    assert bursts({2016: 10, 2017: 10, 2018: 10, 2019: 10, 2020: 10, 2021: 10}, steady) == []


def test_no_years_no_trends():
    G = nx.DiGraph()
    G.add_node("paper:a", kind="Paper", year=None)
    G.add_node("concept:x", kind="Concept", name="x")
    G.add_edge("paper:a", "concept:x", rel="MENTIONS")
    t = trends(G)
    assert t.recent_window is None and t.emerging == [] and t.growth == {"concept:x": 0.0}


# nearest papers and pairs ------------------------------------------------------------------


def test_nearest_papers_come_with_the_concepts_they_share(two_fields):
    near = nearest_papers(two_fields, "mt0", limit=3)
    assert len(near) == 3
    assert all(n.paper.startswith("mt") and n.via == "SHARES_CONCEPTS" for n in near)
    assert set(near[0].shared) == {"nmt", "bleu", "beam search", "machine translation", "neural network"}
    assert near == nearest_papers(two_fields, "paper:mt0", limit=3)
    assert [n.weight for n in near] == sorted((n.weight for n in near), reverse=True)


def test_nearest_papers_fall_back_to_mentions():
    items = [
        _paper("a", 2020, [("BERT", "Method"), ("NER", "Problem")]),
        _paper("b", 2021, [("BERT", "Method"), ("NER", "Problem")]),
        _paper("c", 2021, [("NER", "Problem"), ("CRF", "Method")]),
        _paper("d", 2022, [("CRF", "Method")]),
    ]
    papers, found = zip(*items, strict=True)
    B = build_graph(papers, found)  # no SHARES_CONCEPTS at all
    near = nearest_papers(B, "a")
    # weighed as links are, by specificity: "ner" is in 1,416 reference abstracts, "bert" in 5,118
    assert [(n.paper, n.shared, n.via) for n in near] == [
        ("b", ("ner", "bert"), "MENTIONS"),
        ("c", ("ner",), "MENTIONS"),
    ]
    assert near[0].title == "Paper b" and near[0].year == 2021


def test_nearest_papers_of_an_unknown_paper_is_an_error(two_fields):
    with pytest.raises(KGError, match="no paper 'nope'"):
        nearest_papers(two_fields, "nope")


def test_method_problem_pairs(two_fields):
    pairs = method_problem_pairs(two_fields, limit=100)
    found = {(p.method, p.problem): p.papers for p in pairs}
    assert found[(_key("NMT"), _key("machine translation"))] == 6
    assert found[(_key("neural network"), _key("named entity recognition"))] == 6
    assert (_key("NMT"), _key("named entity recognition")) not in found
    assert all(p.papers >= 2 for p in pairs)


def test_the_analytics_pairs_name_each_concept_twice_at_most_and_no_concept_with_its_narrower_name():
    # arXiv ML: 13 of the report's 15 pairs were "large language models" with one problem or
    # another, and one paired "unlearning" with "machine unlearning"
    llm, rag = ("large language models", "Technique"), ("retrieval-augmented generation", "Technique")
    problems = [(name, "Problem") for name in ("reasoning", "code generation", "question answering", "translation")]
    items = [_paper(f"llm{i}", 2024, [llm, *problems]) for i in range(9)]
    items += [_paper(f"rag{i}", 2024, [rag, ("retrieval", "Problem"), problems[2]]) for i in range(3)]
    items += [_paper(f"mu{i}", 2024, [("unlearning", "Technique"), ("machine unlearning", "Problem"),
                                      ("privacy", "Problem")]) for i in range(4)]  # fmt: skip
    G = _graph(items)
    everything = method_problem_pairs(G, limit=100)
    assert [(p.method, p.problem) for p in everything[:4]] == [(_key(llm[0]), _key(name)) for name, _ in
                                                               sorted(problems)]  # fmt: skip
    G.nodes[_key("privacy")]["generic"] = True
    pairs = [(p.method, p.problem, p.papers) for p in analyse(G).pairs]
    assert pairs == [
        (_key(llm[0]), _key("code generation"), 9),
        (_key(llm[0]), _key("question answering"), 9),
        (_key(rag[0]), _key("question answering"), 3),
        (_key(rag[0]), _key("retrieval"), 3),
    ]


# annotate ----------------------------------------------------------------------------------


def _snapshot(G: nx.DiGraph):
    return (copy.deepcopy(dict(G.nodes(data=True))), copy.deepcopy(list(G.edges(data=True))), dict(G.graph))


def test_annotate_copies_and_writes_typed_properties(two_fields):
    before = _snapshot(two_fields)
    a = analyse(two_fields)
    A = annotate(two_fields, a)
    assert _snapshot(two_fields) == before  # neither analyse nor annotate touched the input
    assert A is not two_fields
    assert sorted(A.edges) == sorted(two_fields.edges)
    for _, d in A.nodes(data=True):
        if d["kind"] == "Concept":
            assert set(CONCEPT_PROPERTIES) <= set(d)
            assert type(d["community"]) is int and d["community"] >= -1
            assert type(d["pagerank"]) is float and type(d["betweenness"]) is float
            assert type(d["degree"]) is int
            assert type(d["trend"]) is float and type(d["bridge"]) is float
            assert type(d["first_year"]) is int
            yearly = json.loads(d["yearly"])
            assert type(d["yearly"]) is str and all(type(k) is str for k in yearly)
            assert sum(yearly.values()) == d["paper_count"]
        else:
            assert set(PAPER_PROPERTIES) <= set(d)
            assert type(d["community"]) is int and type(d["pagerank"]) is float
    nmt = A.nodes[_key("NMT")]
    assert nmt["yearly"] == '{"2018": 1, "2019": 1, "2020": 1, "2021": 1, "2022": 1, "2023": 1}'
    assert nmt["first_year"] == 2018 and nmt["degree"] == 4


def test_annotate_marks_unlinked_and_undated_nodes():
    G = nx.DiGraph()
    G.add_node("paper:a", kind="Paper", id="a", year=None)
    G.add_node("concept:x", kind="Concept", key="x", name="x")
    G.add_edge("paper:a", "concept:x", rel="MENTIONS")
    A = annotate(G, analyse(G))
    x, a = A.nodes["concept:x"], A.nodes["paper:a"]
    assert (x["community"], x["first_year"], x["yearly"], x["betweenness"]) == (-1, None, "{}", 0.0)
    assert a["community"] == -1


def test_empty_graph():
    a = analyse(nx.DiGraph())
    assert a.concept_communities.communities == [] and a.bridges == [] and a.pairs == []
    assert annotate(nx.DiGraph(), a).number_of_nodes() == 0


# the bundled sample ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sample_graph(sample_run):
    out, _ = sample_run
    return read_embedded(out / "kg.lbug")


def test_sample_analytics(sample_graph):
    before = _snapshot(sample_graph)
    a = analyse(sample_graph)
    assert _snapshot(sample_graph) == before
    for parts in (a.concept_communities, a.paper_communities):
        sizes = [c.size for c in parts.communities]
        assert sizes == sorted(sizes, reverse=True) and sizes
        assert [c.number for c in parts.communities] == list(range(len(sizes)))
        assert all(c.label for c in parts.communities)
        assert sum(sizes) == len(parts.membership)
    papers = sum(1 for _, d in sample_graph.nodes(data=True) if d["kind"] == "Paper")
    assert sum(a.trends.papers_per_year.values()) == papers
    assert a.trends.recent_window == (2023, 2025)
    llm = next(t for t in a.trends.emerging if "large language model" in t.name.lower())
    assert llm.baseline == 0 and llm.recent >= 20
    assert sum(a.papers.pagerank.values()) == pytest.approx(1.0)
    assert sum(a.seconds.values()) < 30
    A = annotate(sample_graph, a)
    concepts = [d for _, d in A.nodes(data=True) if d["kind"] == "Concept"]
    assert all(set(CONCEPT_PROPERTIES) <= set(d) for d in concepts)
    assert sum(d["community"] >= 0 for d in concepts) == len(a.concept_communities.membership)
