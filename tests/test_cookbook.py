"""The Cypher cookbook: every query runs on both stores and returns the same rows."""

from __future__ import annotations

import json
from collections import Counter

import networkx as nx
import pytest

from kg.store import cookbook, query_embedded, read_embedded
from kg.store.neo4j import query_neo4j, write_neo4j
from tests.conftest import SAMPLE
from tests.test_cli import kg


def test_cookbook_has_at_least_ten_documented_queries():
    names = cookbook.names()
    assert len(names) >= 10
    for name in names:
        q = cookbook.load(name)
        assert q.description and q.params, name


@pytest.mark.parametrize("dialect", cookbook.DIALECTS)
def test_every_parameter_has_a_documented_default(dialect):
    for name in cookbook.names():
        q = cookbook.load(name, dialect)
        assert set(q.defaults) == set(q.params), name


def test_cookbook_queries_answer_with_their_defaults_alone(default_run):
    """Every query by name, without -p, on the real embedded store the default pipeline wrote."""
    out, _ = default_run
    for name in cookbook.names():
        text, args = cookbook.prepare(name, "ladybug")
        assert query_embedded(out / "kg.lbug", text, args).rows, f"{name} answers nothing with its defaults {args}"
    rows = json.loads(kg("query", "top_concepts", "--db", str(out / "kg.lbug"), "-f", "json").stdout)
    assert len(rows) == cookbook.load("top_concepts").defaults["limit"]
    rows = json.loads(kg("query", "top_concepts", "-p", "type=Problem", "-p", "limit=3", "--db",
                         str(out / "kg.lbug"), "-f", "json").stdout)  # fmt: skip
    assert len(rows) == 3 and {r["type"] for r in rows} == {"Problem"}


def test_query_list_shows_every_query_with_its_defaults():
    listed = kg("query", "--list")
    assert listed.returncode == 0
    for name in cookbook.names():
        assert f"{name}: {cookbook.load(name).description}" in listed.stdout
    assert '-p type=""  (Method, Technique, Problem, Dataset, Metric, or "" for all)' in listed.stdout
    assert "-p limit=20" in listed.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["top_concept"], "kg: error: no cookbook query named 'top_concept'; the cookbook has: author_concepts, "),
        (["top_concepts", "-p", "typ=Method"], "kg: error: top_concepts has no parameter 'typ' (its parameters: "),
    ],
)
def test_a_wrong_cookbook_name_or_parameter_is_one_line(args, message, tmp_path):
    result = kg("query", *args, "--db", str(tmp_path / "none.lbug"))
    assert result.returncode == 1 and result.stderr.startswith(message)
    assert len(result.stderr.strip().splitlines()) == 1 and "top_concepts" in result.stderr


def test_kg_build_stores_the_analytics(tmp_path, sample_run):
    out, _ = sample_run
    db, mentions = tmp_path / "kg.lbug", str(out / "mentions.jsonl")
    built = kg("build", str(SAMPLE), "--mentions", mentions, "--db", str(db))
    assert built.returncode == 0 and "mentions file" not in built.stderr  # a run's mentions fit its records
    for name in ("central_concepts", "community_members", "bridge_by_community", "emerging_concepts"):
        rows = json.loads(kg("query", name, "--db", str(db), "-f", "json").stdout)
        assert rows, f"{name} answers nothing after kg build"
    bare = kg("build", str(SAMPLE), "--mentions", mentions, "--db", str(db), "--no-analyse")
    assert "no analytics: central_concepts" in bare.stdout and "without --no-analyse" in bare.stdout
    assert json.loads(kg("query", "central_concepts", "--db", str(db), "-f", "json").stdout) == []


@pytest.fixture(scope="module")
def params(sample_run):
    """Parameters that make every query answer something on the bundled sample."""
    out, _ = sample_run
    G = read_embedded(out / "kg.lbug")
    papers = {d["id"]: d for _, d in G.nodes(data=True) if d["kind"] == "Paper"}
    concepts = {d["key"]: d for _, d in G.nodes(data=True) if d["kind"] == "Concept"}
    busiest = max(papers, key=lambda p: (papers[p]["n_concepts"], p))
    problem = max(
        (k for k, d in concepts.items() if d["type"] == "Problem"), key=lambda k: (concepts[k]["paper_count"], k)
    )
    C = nx.Graph((u, v) for u, v, d in G.edges(data=True) if d["rel"] == "CO_OCCURS")
    hub = max(C, key=lambda n: (C.degree(n), n))
    far = max(nx.single_source_shortest_path_length(C, hub).items(), key=lambda kv: (kv[1], kv[0]))[0]
    method = max(
        (k for k, d in concepts.items() if d["type"] in ("Method", "Technique")),
        key=lambda k: (concepts[k]["paper_count"], k),
    )
    stated = Counter((rel, u if rel == "USED_FOR" else v) for u, v, rel in G.edges(data="rel"))
    technique = max((n for rel, n in stated if rel == "USED_FOR"), key=lambda n: (stated["USED_FOR", n], n))
    category = max((n for rel, n in stated if rel == "HYPONYM_OF"), key=lambda n: (stated["HYPONYM_OF", n], n))
    return {
        "type": "Method",
        "limit": 25,
        "paper": busiest,
        "problem": problem,
        "concept": G.nodes[hub]["key"],
        "venue_a": "ACL",
        "venue_b": "EMNLP",
        "source": G.nodes[hub]["key"],
        "target": G.nodes[far]["key"],
        "method": method,
        "year": 2024,
        "author": papers[busiest]["authors"][0],
        "min_papers": 2,
        "community": 0,
        "min_degree": 2,
        "technique": G.nodes[technique]["key"],
        "category": G.nodes[category]["key"],
        # the sample's papers have no arXiv categories: every paper (tests/test_arxiv.py has them)
        "arxiv_category": "",
        "primary_only": False,
    }


def _normal(rows):
    # collect() order is unspecified in both databases: compare lists as sets of items
    return [[sorted(v, key=str) if isinstance(v, list) else v for v in row] for row in rows]


@pytest.mark.parametrize("name", cookbook.names())
def test_same_rows_on_both_stores(name, params, sample_run, neo4j_sample):
    out, _ = sample_run
    lb = cookbook.load(name, "ladybug")
    n4 = cookbook.load(name, "neo4j")
    args = {k: params[k] for k in lb.params}
    embedded = query_embedded(out / "kg.lbug", lb.text, args)
    server = query_neo4j(neo4j_sample, n4.text, args)
    assert embedded.rows, f"{name} answers nothing on the sample with {args}"
    assert embedded.columns == server.columns
    if name == "shortest_concept_path":  # several shortest paths may tie: compare ends and length
        (e_path, e_hops), (s_path, s_hops) = embedded.rows[0], server.rows[0]
        assert (e_hops, e_path[0], e_path[-1]) == (s_hops, s_path[0], s_path[-1]) and len(e_path) == e_hops + 1
    else:
        assert _normal(embedded.rows) == _normal(server.rows)


@pytest.fixture(scope="module")
def neo4j_sample(neo4j_server, sample_run):
    out, _ = sample_run
    query_neo4j(neo4j_server, "MATCH (n) DETACH DELETE n", write=True)
    write_neo4j(read_embedded(out / "kg.lbug"), neo4j_server)
    return neo4j_server


def test_query_view_is_the_same_from_both_stores(sample_run, neo4j_sample):
    from kg.viz import graph_from_rows

    out, _ = sample_run
    G = read_embedded(out / "kg.lbug")
    q = "MATCH p = (a:Paper)-[:MENTIONS]->(c:Concept {key: $k}) RETURN p"
    from_embedded = graph_from_rows(query_embedded(out / "kg.lbug", q, {"k": "large language model"}).rows, G)
    from_neo4j = graph_from_rows(query_neo4j(neo4j_sample, q, {"k": "large language model"}).rows, G)
    assert from_embedded.number_of_nodes() > 10
    assert sorted(from_embedded.nodes) == sorted(from_neo4j.nodes)
    assert sorted(map(sorted, from_embedded.edges)) == sorted(map(sorted, from_neo4j.edges))


def test_a_cookbook_table_is_drawn_the_same_from_both_stores(sample_run, neo4j_sample, params):
    """`kg viz query related_papers`: the paper, the papers its table names and the concepts they share."""
    from kg.viz import graph_from_rows

    out, _ = sample_run
    G = read_embedded(out / "kg.lbug")
    args = {"paper": params["paper"], "limit": 10}
    rows = query_embedded(out / "kg.lbug", cookbook.load("related_papers", "ladybug").text, args).rows
    from_embedded = graph_from_rows(rows, G, params=args)
    # what they share are research concepts, as for a paper link: no metric, nothing generic
    concept = {d["name"]: d for _, d in G.nodes(data=True) if d.get("kind") == "Concept"}
    shared = {name for row in rows for name in row[3]}
    assert shared and not any(concept[n].get("generic") or concept[n]["type"] == "Metric" for n in shared)
    rows = query_neo4j(neo4j_sample, cookbook.load("related_papers", "neo4j").text, args).rows
    from_neo4j = graph_from_rows(rows, G, params=args)
    papers = {n for n in from_embedded if n.startswith("paper:")}
    assert f"paper:{params['paper']}" in papers and len(papers) == 11
    assert any(n.startswith("concept:") for n in from_embedded)
    assert sorted(from_embedded.nodes) == sorted(from_neo4j.nodes)
    assert sorted(map(sorted, from_embedded.edges)) == sorted(map(sorted, from_neo4j.edges))


@pytest.mark.parametrize("name", ["related_papers", "bridge_by_community"])
def test_related_papers_and_bridges_leave_out_what_links_no_papers(name):
    # the types kg.link leaves out of paper links (and the report out of its bridges) are those the query leaves out
    from kg.link.papers import UNLINKED_TYPES

    text = cookbook.load(name).text
    assert "c.generic" in text and all(f"<> '{t}'" in text for t in UNLINKED_TYPES)
