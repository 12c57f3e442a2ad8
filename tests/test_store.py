"""The embedded store: the real LadybugDB, round trip, read-only queries, parameters."""

from __future__ import annotations

import networkx as nx
import pytest

from kg.build import build_graph, knowledge_graph
from kg.errors import StoreError
from kg.link import cooccurrence, link_papers
from kg.records import Extraction, Mention, Paper, Relation
from kg.store import query_embedded, read_embedded, write_embedded

EVIL = "x'}) DETACH DELETE n //"


@pytest.fixture
def graph():
    papers = [
        Paper(
            "p1",
            "Title <b>one</b>",
            "We use BERT for parsing of Korean. " * 2,
            2020,
            ["Ann Lee", "Bo"],
            "ACL",
            {"doi": "10.1/a", "n": 3},
        ),
        Paper("p2", EVIL, "BERT helps parsing of Korean too, we find.", None, [], None),
        Paper("p3", "Lonely", "Nothing to share with the others here.", 2022, ["Cy"], "EMNLP"),
    ]
    s1 = "We use BERT for parsing of Korean."
    ext = [
        Extraction(
            "p1",
            [
                Mention("BERT", "Method", 7, 11, s1, "uses", "bert"),
                Mention("parsing of Korean", "Problem", 16, 33, s1, "addresses", "parsing of korean"),
            ],
            [Relation("USED_FOR", "bert", "parsing of korean", "BERT", "parsing of Korean", 7, 11, 16, 33, s1)],
        ),
        Extraction(
            "p2",
            [
                Mention("BERT", "Method", 0, 4, "BERT helps parsing of Korean too, we find.", "mentions", "bert"),
                Mention(
                    "parsing of Korean",
                    "Problem",
                    11,
                    28,
                    "BERT helps parsing of Korean too, we find.",
                    "mentions",
                    "parsing of korean",
                ),
            ],
        ),
    ]
    B = build_graph(papers, ext)
    return knowledge_graph(B, link_papers(B, max_df=1.0), cooccurrence(B))


def _canon(G: nx.DiGraph):
    nodes = {n: dict(d) for n, d in G.nodes(data=True)}
    edges = {(u, v): dict(d) for u, v, d in G.edges(data=True)}
    return nodes, edges


def test_round_trip_keeps_every_property(tmp_path, graph):
    db = tmp_path / "kg.lbug"
    counts = write_embedded(graph, db)
    assert counts == {"Paper": 3, "Concept": 2, "MENTIONS": 4, "SHARES_CONCEPTS": 1, "CO_OCCURS": 1,
                      "USED_FOR": 1, "PART_OF": 0, "HYPONYM_OF": 0}  # fmt: skip
    assert _canon(read_embedded(db)) == _canon(graph)
    # the stated relation holds bert -> parsing, so the co-occurrence link is stored the other way
    assert graph.edges["concept:bert", "concept:parsing of korean"]["rel"] == "USED_FOR"
    assert graph.edges["concept:parsing of korean", "concept:bert"]["rel"] == "CO_OCCURS"


def test_a_table_is_loaded_by_one_copy_per_copy_rows_each_on_its_own_connection(tmp_path, graph, monkeypatch):
    # A COPY into a relationship table that has rows costs time in proportion to them: a COPY
    # per chunk of rows made a corpus's store quadratic to write. Chunks bound what Python
    # holds, COPY_ROWS what one COPY loads; a table with a list column, which a second COPY
    # makes slow, is loaded by one.
    import ladybug

    from kg.store import embedded

    monkeypatch.setattr(embedded, "COPY_CHUNK", 1)
    monkeypatch.setattr(embedded, "COPY_ROWS", 3)
    sent: list[str] = []
    real, opening = ladybug.Connection.execute, ladybug.Connection.__init__

    def recording(self, query, *args, **kwargs):
        sent.append(query)
        return real(self, query, *args, **kwargs)

    def opened(self, *args, **kwargs):
        sent.append("(connection)")
        return opening(self, *args, **kwargs)

    monkeypatch.setattr(ladybug.Connection, "execute", recording)
    monkeypatch.setattr(ladybug.Connection, "__init__", opened)
    db = tmp_path / "kg.lbug"
    counts = write_embedded(graph, db)
    copies = [q.split()[1] for q in sent if q.startswith("COPY ")]
    listed = {"Paper", "Concept", "SHARES_CONCEPTS", "USED_FOR", "PART_OF", "HYPONYM_OF"}  # a STRING[] column each
    assert copies == [table for table, n in counts.items() for _ in range(min(n, 1) if table in listed else -(-n // 3))]
    assert copies.count("MENTIONS") == 2  # 4 rows
    # each COPY on a database opened for it: one connection's buffer pool keeps all it wrote
    assert all(sent[i - 1] == "(connection)" for i, q in enumerate(sent) if q.startswith("COPY "))
    monkeypatch.undo()
    assert _canon(read_embedded(db)) == _canon(graph)


def test_mentions_keep_the_field_their_evidence_is_in(tmp_path, nlp):
    from kg.extract import extract

    paper = Paper(
        "2301.1",
        "Knowledge Distillation for Neural Machine Translation",
        "We propose sparse expert layers that cut the training cost of large language models.",
    )
    B = build_graph([paper], list(extract([paper], nlp=nlp)))
    db = tmp_path / "kg.lbug"
    write_embedded(B, db)
    rows = query_embedded(
        db, "MATCH (:Paper {id: '2301.1'})-[m:MENTIONS]->(c:Concept) RETURN m.field, m.text, m.start_char, m.sentence"
    ).rows
    assert {field for field, *_ in rows} == {"title", "abstract"}
    for field, text, start, sentence in rows:
        assert getattr(paper, field)[start : start + len(text)] == text
        assert sentence == paper.title if field == "title" else sentence in paper.abstract
    assert _canon(read_embedded(db)) == _canon(B)


def test_an_update_of_many_links_writes_their_table_anew_to_the_same_end(tmp_path, graph, monkeypatch):
    # LadybugDB's checkpoint of a relationship table with a list column is slow where a change
    # touches it (1,000 new ACL papers: a 30.6 s COMMIT), so a large change writes the table anew:
    # the stored rows but the deleted pairs, then the new ones, one COPY; a small one goes in place
    from kg.store import embedded
    from kg.store.embedded import GraphDelta, update_embedded
    from kg.store.schema import node_rows

    new = dict(next(r for r in node_rows(graph, "Paper") if r["id"] == "p3"), id="p4", title="Four")
    shared = {"weight": 0.5, "n_shared": 2, "shared": ["bert", "parsing of korean"]}
    delta = GraphDelta(
        nodes={"Paper": [new]},
        rels={"SHARES_CONCEPTS": [{"from": "p1", "to": "p4", **shared}, {"from": "p3", "to": "p4", **shared}]},
        rel_deletes={"SHARES_CONCEPTS": [{"from": "p1", "to": "p2"}]},
    )
    assert graph.has_edge("paper:p1", "paper:p2")
    stores = {}
    for rows, name in ((1, "rewritten"), (10**6, "in place")):
        monkeypatch.setattr(embedded, "REWRITE_ROWS", rows)
        stores[name] = db = tmp_path / f"{name}.lbug"
        write_embedded(graph, db)
        counts = update_embedded(db, delta)
        assert counts["SHARES_CONCEPTS"] == 2 and counts["SHARES_CONCEPTS deleted"] == 1 and counts["Paper"] == 1
        assert not list(tmp_path.glob("*.copy"))  # (the Parquet files are gone)
    links = {name: query_embedded(db, "MATCH (a:Paper)-[r:SHARES_CONCEPTS]->(b:Paper) "
                                  "RETURN a.id, b.id, r.weight, r.n_shared, r.shared ORDER BY a.id, b.id").rows
             for name, db in stores.items()}  # fmt: skip
    assert links["rewritten"] == links["in place"] == [["p1", "p4", *shared.values()], ["p3", "p4", *shared.values()]]
    assert _canon(read_embedded(stores["rewritten"])) == _canon(read_embedded(stores["in place"]))


def test_rewrite_replaces_the_database(tmp_path, graph):
    db = tmp_path / "kg.lbug"
    write_embedded(graph, db)
    write_embedded(graph, db)
    assert query_embedded(db, "MATCH (p:Paper) RETURN count(p)").rows == [[3]]


def test_queries_answer_the_readme_questions(tmp_path, graph):
    db = tmp_path / "kg.lbug"
    write_embedded(graph, db)
    top = query_embedded(
        db, "MATCH (c:Concept) RETURN c.name AS name, c.paper_count AS papers ORDER BY papers DESC, name LIMIT 10"
    )
    assert top.columns == ["name", "papers"]
    assert top.rows == [["BERT", 2], ["parsing of Korean", 2]]
    related = query_embedded(
        db,
        "MATCH (p:Paper {id: $id})-[:MENTIONS]->(c:Concept)<-[:MENTIONS]-(q:Paper) WHERE q.id <> p.id "
        "RETURN q.id AS paper, count(c) AS shared, collect(c.name) AS concepts ORDER BY shared DESC, paper",
        {"id": "p1"},
    )
    assert related.rows[0][:2] == ["p2", 2]


def test_kgs_own_reads_get_the_same_rows_as_tuples(tmp_path, graph):
    """A user's query gets lists; kg's bulk reads (pages, read_embedded) the same values in tuples."""
    from kg.store import reader

    db = tmp_path / "kg.lbug"
    write_embedded(graph, db)
    queries = ["MATCH (c:Concept) RETURN c.key, c.aliases, c.paper_count ORDER BY c.key",  # in bulk, through Arrow
               "MATCH (p:Paper)-[m:MENTIONS]->(c:Concept) RETURN p, m ORDER BY p.id, c.key"]  # row by row  # fmt: skip
    with reader(db) as lists, reader(db, tuples=True) as tuples:
        for q in queries:
            as_lists, as_tuples = lists(q).rows, tuples(q).rows
            assert as_lists and all(type(row) is list for row in as_lists)
            assert all(type(row) is tuple for row in as_tuples)
            assert [list(row) for row in as_tuples] == as_lists


def test_a_fresh_reader_opens_the_database_for_each_query_and_closes_it_after(tmp_path, graph, monkeypatch):
    """The stored pages read through a reader that opens the database anew for each query:
    LadybugDB keeps what a connection's queries read until the database is closed."""
    import ladybug

    from kg.store import reader

    db = tmp_path / "kg.lbug"
    write_embedded(graph, db)
    opened: list[ladybug.Database] = []
    closed: list[ladybug.Database] = []

    class Database(ladybug.Database):  # the real database, counted
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            opened.append(self)

        def close(self):
            closed.append(self)
            super().close()

    queries = [
        "MATCH (c:Concept) RETURN c.key, c.paper_count ORDER BY c.key",
        "MATCH (p:Paper) RETURN p.id ORDER BY p.id",
    ]
    with reader(db, tuples=True) as once:
        expected = [once(q).rows for q in queries]
    monkeypatch.setattr(ladybug, "Database", Database)
    with reader(db, tuples=True, fresh=True) as fresh:
        for q, rows in zip(queries, expected, strict=True):
            assert fresh(q).rows == rows
            assert len(opened) == len(closed)  # nothing held between queries
    assert len(opened) == len(queries)  # the first query runs on the open that checked the store


def test_a_call_run_in_a_process_of_its_own_gives_its_result_or_its_error(tmp_path):
    """An update writes the links' table anew in a new Python process while its transaction is
    checkpointed (kg.store.embedded._elsewhere): its result, its error, or that it died, come back."""
    import json
    import os

    from kg.errors import StoreError
    from kg.store.embedded import _elsewhere

    with _elsewhere(tmp_path / "pid", os.getpid) as pid:
        assert pid() != os.getpid()
    with _elsewhere(tmp_path / "bad", json.loads, "{") as bad, pytest.raises(json.JSONDecodeError):
        bad()
    with _elsewhere(tmp_path / "died", os._exit, 3) as died, pytest.raises(StoreError, match="exit code 3"):
        died()


def test_user_values_are_parameters_not_cypher(tmp_path, graph):
    db = tmp_path / "kg.lbug"
    write_embedded(graph, db)
    rows = query_embedded(db, "MATCH (p:Paper) WHERE p.title = $t RETURN p.id", {"t": EVIL}).rows
    assert rows == [["p2"]]
    assert query_embedded(db, "MATCH (n) RETURN count(n)").rows == [[5]]


def test_store_is_read_only_for_queries(tmp_path, graph):
    db = tmp_path / "kg.lbug"
    write_embedded(graph, db)
    with pytest.raises(StoreError, match="read-only"):
        query_embedded(db, "CREATE (:Paper {id: 'new'})")
    with pytest.raises(StoreError, match="query failed"):
        query_embedded(db, "MATCH (p:Nope) RETURN p")


def test_missing_store_says_what_to_do(tmp_path):
    with pytest.raises(StoreError, match="run `kg run`"):
        query_embedded(tmp_path / "none.lbug", "MATCH (n) RETURN n")


def test_generic_flag_specificity_and_salience_survive_the_store(tmp_path):
    from kg.store import cookbook

    text = "We propose knowledge distillation for BERT. It lowers the computational cost."
    papers = [Paper(f"p{i}", "Knowledge distillation for BERT", text, 2021) for i in range(3)]
    mentions = [
        Mention("knowledge distillation", "Technique", 11, 33, text[:44], "proposes", "knowledge distillation"),
        Mention("computational cost", "Metric", 58, 76, text[45:], "mentions", "computational cost"),
    ]
    mentions += [Mention("computational cost", "Metric", 58, 76, text[45:], "mentions", "computational cost")]
    B = build_graph(papers, [Extraction(p.id, mentions) for p in papers])
    G = knowledge_graph(B, link_papers(B, max_df=1.0), cooccurrence(B))
    db = tmp_path / "kg.lbug"
    write_embedded(G, db)
    back = read_embedded(db)
    assert back.nodes["concept:computational cost"]["generic"] is True
    assert back.nodes["concept:knowledge distillation"]["generic"] is False
    for n in ("concept:computational cost", "concept:knowledge distillation"):
        assert back.nodes[n]["specificity"] == pytest.approx(G.nodes[n]["specificity"])
    edge = back.edges["paper:p0", "concept:knowledge distillation"]
    assert edge["salience"] == G.edges["paper:p0", "concept:knowledge distillation"]["salience"]
    assert edge["salience"] > back.edges["paper:p0", "concept:computational cost"]["salience"]
    top = query_embedded(db, cookbook.load("top_concepts", "ladybug").text, {"type": "", "limit": 10})
    assert [row[0] for row in top.rows] == ["knowledge distillation"]
