"""The Neo4j store against a real Neo4j 5.26 server started by the test session."""

from __future__ import annotations

import networkx as nx
import pytest

from kg.build import build_graph, knowledge_graph, merge_graphs
from kg.errors import StoreError
from kg.link import cooccurrence, link_papers
from kg.records import RELATION_TYPES, Extraction, Mention, Paper, Relation
from kg.store import cypher
from kg.store.neo4j import Neo4jSettings, query_neo4j, read_neo4j, write_neo4j


def _canon(G: nx.DiGraph):
    return ({n: dict(d) for n, d in G.nodes(data=True)}, {(u, v): dict(d) for u, v, d in G.edges(data=True)})


def _full(B: nx.DiGraph) -> nx.DiGraph:
    return knowledge_graph(B, link_papers(B, max_df=1.0), cooccurrence(B, min_papers=1))


def _paper(pid: str, concepts: list[str], year: int | None = 2020) -> tuple[Paper, Extraction]:
    text = " and ".join(concepts) + " are studied in this abstract."
    mentions, pos = [], 0
    for c in concepts:
        mentions.append(Mention(c, "Technique", pos, pos + len(c), text, "uses", c.lower()))
        pos += len(c) + 5
    used = []
    if len(mentions) > 1:  # the abstract says its first concept is used for its second
        h, t = mentions[0], mentions[1]
        used.append(Relation("USED_FOR", h.concept, t.concept, h.text, t.text, h.start, h.end, t.start, t.end, text))
    return Paper(
        pid, f"Title of {pid} <b>", text, year, ["Ann Lee", "Bo; Chen"], "ACL", {"doi": f"10/{pid}"}
    ), Extraction(pid, mentions, used)


def _bipartite(specs: dict[str, list[str]]) -> nx.DiGraph:
    pairs = [_paper(pid, cs) for pid, cs in specs.items()]
    return build_graph([p for p, _ in pairs], [x for _, x in pairs])


BATCH1 = {"a": ["BERT", "parsing", "Korean"], "b": ["BERT", "parsing"], "c": ["CRF", "tagging"]}
BATCH2 = {"d": ["CRF", "tagging", "BERT"], "e": ["Korean", "parsing"]}


def _counts(settings: Neo4jSettings) -> dict[str, int]:
    out = {}
    for label in ("Paper", "Concept"):
        out[label] = query_neo4j(settings, f"MATCH (n:{label}) RETURN count(n)").rows[0][0]
    for rel in ("MENTIONS", "SHARES_CONCEPTS", "CO_OCCURS", *RELATION_TYPES):
        out[rel] = query_neo4j(settings, f"MATCH ()-[r:{rel}]->() RETURN count(r)").rows[0][0]
    return out


def test_constraints_are_created_first(neo4j):
    write_neo4j(_full(_bipartite(BATCH1)), neo4j)
    rows = query_neo4j(
        neo4j,
        "SHOW CONSTRAINTS YIELD name, labelsOrTypes, properties RETURN name, labelsOrTypes, properties ORDER BY name",
    ).rows
    assert rows == [["kg_concept_key", ["Concept"], ["key"]], ["kg_paper_id", ["Paper"], ["id"]]]


def test_first_load_adds_the_constraints_after_the_nodes_and_drops_twins(neo4j, monkeypatch):
    import neo4j as driver

    from kg.store import neo4j as store

    with driver.GraphDatabase.driver(neo4j.uri, auth=(neo4j.user, neo4j.password)) as d:
        for name in cypher.NEO4J_CONSTRAINTS:
            d.execute_query(f"DROP CONSTRAINT {name} IF EXISTS")
    real = store._Writers._run
    retried: list[str] = []

    def answer_lost_once(self, query, params, fetch):
        if "CREATE (n:Paper" in query and not retried:  # committed, but the driver never heard: it runs it again
            retried.append(query)
            real(self, query, params, fetch)
        return real(self, query, params, fetch)

    monkeypatch.setattr(store._Writers, "_run", answer_lost_once)
    G = _full(_bipartite(BATCH1))
    seconds: dict[str, float] = {}
    write_neo4j(G, neo4j, seconds=seconds)
    assert retried and "constraints" in seconds  # the first-load path ran, with a twin of each paper
    assert _canon(read_neo4j(neo4j)) == _canon(G)
    assert _counts(neo4j)["Paper"] == 3
    names = query_neo4j(neo4j, "SHOW CONSTRAINTS YIELD name RETURN name ORDER BY name").rows
    assert names == [["kg_concept_key"], ["kg_paper_id"]]
    seconds.clear()
    write_neo4j(G, neo4j, seconds=seconds)  # not a first load any more: MERGE behind the constraints
    assert "constraints" not in seconds
    assert _canon(read_neo4j(neo4j)) == _canon(G)


def test_round_trip_of_every_property(neo4j, sample_run):
    from kg.store import read_embedded

    out, _ = sample_run
    G = read_embedded(out / "kg.lbug")
    write_neo4j(G, neo4j, batch_size=500)
    assert _canon(read_neo4j(neo4j)) == _canon(G)


def test_double_load_changes_nothing(neo4j):
    G = _full(_bipartite(BATCH1))
    write_neo4j(G, neo4j)
    first = (_counts(neo4j), _canon(read_neo4j(neo4j)))
    write_neo4j(G, neo4j)
    assert (_counts(neo4j), _canon(read_neo4j(neo4j))) == first


def test_incremental_batch_updates_counts_and_links(neo4j):
    B1 = _bipartite(BATCH1)
    write_neo4j(_full(B1), neo4j)
    merged = merge_graphs(read_neo4j(neo4j), _bipartite(BATCH2))
    write_neo4j(_full(merged), neo4j)
    expected = _full(_bipartite({**BATCH1, **BATCH2}))
    assert _canon(read_neo4j(neo4j)) == _canon(expected)
    assert query_neo4j(neo4j, "MATCH (c:Concept {key: 'bert'}) RETURN c.paper_count").rows == [[3]]
    linked = query_neo4j(neo4j, "MATCH (:Paper {id: 'a'})-[s:SHARES_CONCEPTS]-(q:Paper) RETURN q.id ORDER BY q.id")
    assert [r[0] for r in linked.rows] == ["b", "d", "e"]  # links across both batches


def test_reextraction_leaves_no_stale_edges(neo4j):
    write_neo4j(_full(_bipartite(BATCH1)), neo4j)
    redo = _bipartite({"c": ["BERT", "segmentation"]})  # paper c re-extracted: CRF and tagging are gone
    write_neo4j(_full(merge_graphs(read_neo4j(neo4j), redo)), neo4j)
    assert _canon(read_neo4j(neo4j)) == _canon(_full(_bipartite({**BATCH1, "c": ["BERT", "segmentation"]})))
    assert query_neo4j(neo4j, "MATCH (c:Concept) WHERE c.key IN ['crf', 'tagging'] RETURN count(c)").rows == [[0]]
    used = query_neo4j(neo4j, "MATCH (a)-[r:USED_FOR]->(b) RETURN a.key, b.key, r.papers ORDER BY a.key, b.key")
    assert used.rows == [["bert", "parsing", ["a", "b"]], ["bert", "segmentation", ["c"]]]


def test_interrupted_load_is_finished_by_running_it_again(neo4j, monkeypatch):
    G = _full(_bipartite({**BATCH1, **BATCH2}))
    real = cypher.neo4j_merge_rels

    def failing(rel: str) -> str:
        if rel == "SHARES_CONCEPTS":
            raise RuntimeError("process killed half-way")
        return real(rel)

    monkeypatch.setattr(cypher, "neo4j_merge_rels", failing)
    with pytest.raises(RuntimeError):
        write_neo4j(G, neo4j, batch_size=2)
    assert _counts(neo4j)["SHARES_CONCEPTS"] == 0  # half-written: papers and mentions only
    monkeypatch.setattr(cypher, "neo4j_merge_rels", real)
    write_neo4j(G, neo4j, batch_size=2)
    assert _canon(read_neo4j(neo4j)) == _canon(G)


def test_queries_are_read_only_unless_asked(neo4j):
    with pytest.raises(StoreError, match="refused: Neo4j says this statement writes"):
        query_neo4j(neo4j, "CREATE (:Paper {id: 'x'})")
    assert query_neo4j(neo4j, "MATCH (n) RETURN count(n)").rows == [[0]]
    query_neo4j(neo4j, "CREATE (:Paper {id: 'x'})", write=True)
    assert query_neo4j(neo4j, "MATCH (n) RETURN count(n)").rows == [[1]]


def test_values_are_parameters(neo4j):
    evil = "x'}) DETACH DELETE n //"
    G = _full(_bipartite({evil: ["BERT"], "b": ["BERT"]}))
    write_neo4j(G, neo4j)
    assert query_neo4j(neo4j, "MATCH (p:Paper {id: $id}) RETURN p.id", {"id": evil}).rows == [[evil]]


def test_bad_password_is_one_clear_error(neo4j):
    wrong = Neo4jSettings(uri=neo4j.uri, user="neo4j", password="wrong-password")
    with pytest.raises(StoreError, match=r"Neo4j at bolt://127\.0\.0\.1:\d+ refused user neo4j: wrong password") as err:
        query_neo4j(wrong, "RETURN 1")
    assert "wrong-password" not in str(err.value)
    assert "wrong-password" not in repr(wrong)
    with pytest.raises(StoreError, match=r"no password for Neo4j at .*: set NEO4J_PASSWORD"):
        write_neo4j(nx.DiGraph(), Neo4jSettings(uri=neo4j.uri, password=""))


@pytest.mark.parametrize("password", ["", "wrong-password"])
def test_kg_load_without_the_right_password_says_so_in_one_line(neo4j, sample_run, password):
    import os
    import subprocess
    import sys

    from tests.conftest import ROOT

    out, _ = sample_run
    env = {**os.environ, "NEO4J_URI": neo4j.uri, "NEO4J_PASSWORD": password}
    done = subprocess.run([sys.executable, "-m", "kg", "load", "--db", str(out / "kg.lbug")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    assert line.startswith("kg: error: ")
    assert ("set NEO4J_PASSWORD" if not password else "wrong password") in line


def test_pages_read_from_neo4j_equal_those_read_from_the_embedded_store(neo4j, sample_run, tmp_path):
    """``kg viz --neo4j`` reads what a page shows with the same Cypher as the embedded store."""
    from kg.store import read_embedded, reader
    from kg.viz import write_html
    from kg.viz.stored import page_graph

    out, _ = sample_run
    write_neo4j(read_embedded(out / "kg.lbug"), neo4j, batch_size=500)
    with reader(out / "kg.lbug") as run:
        embedded = page_graph(lambda q, p: run(q, p).rows, max_nodes=300, views=["graph", "concepts"])
    served = page_graph(lambda q, p: query_neo4j(neo4j, q, p).rows, max_nodes=300, views=["graph", "concepts"])
    # (overview_above=100: the capped graph page opens as the map of the whole view, kg.viz.overview.WholeMap)
    for view, above in (("graph", 1000), ("graph", 100), ("concepts", 1000)):
        pages = []
        for name, pg in (("embedded", embedded), ("neo4j", served)):
            H, score, total = pg.views[view]
            pages.append(write_html(H, tmp_path / f"{name}-{view}.html", G=pg.G, max_nodes=300, score=score,
                                    total=total, overview_above=above).path.read_text(encoding="utf-8"))  # fmt: skip
        assert pages[0] == pages[1], view
        assert ('<p id="map-note">' in pages[0]) == (above == 100), view
