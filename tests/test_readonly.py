"""`kg query` on the embedded store only reads: the real LadybugDB, the real command line."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from kg.build import build_graph, knowledge_graph
from kg.cli import main
from kg.errors import StoreError
from kg.link import cooccurrence, link_papers
from kg.records import Extraction, Mention, Paper
from kg.store import query_embedded, reader, write_embedded
from kg.store.readonly import QueryRefused, check_ladybug_plan, check_text
from tests.conftest import ROOT

SECRET = "kg-secret-line-7f3a"

#: File, extension, admin and write statements; {tmp} is a folder outside the store, {secret}
#: a file the process can read. Relative paths resolve from a folder inside {tmp}.
REFUSED = [
    "COPY (MATCH (c:Concept) RETURN c.name) TO '{tmp}/out.csv'",
    "COPY (MATCH (c:Concept) RETURN c.name) TO '../escape.parquet'",
    "COPY Concept TO '{tmp}/concepts.csv'",
    "COPY Concept FROM '{secret}'",
    "EXPORT DATABASE '{tmp}/export'",
    "EXPORT DATABASE '../export2' (format='parquet')",
    "IMPORT DATABASE '{tmp}'",
    "LOAD FROM '{secret}' (file_format='csv', header=false) RETURN *",
    "LOAD WITH HEADERS (line STRING) FROM '{secret}' (file_format='csv') RETURN *",
    "LOAD FROM '/etc/passwd' (file_format='csv', header=false, delim=':') RETURN *",
    "LOAD FROM 'http://127.0.0.1:9/x.csv' (file_format='csv') RETURN *",
    "MATCH (c:Concept) WITH c LOAD FROM '{secret}' (file_format='csv', header=false) RETURN *",
    "/* a comment first */ LOAD FROM '{secret}' (file_format='csv', header=false) RETURN *",
    "INSTALL json",
    "INSTALL httpfs FROM 'http://127.0.0.1:9/'",
    "UPDATE json",
    "UNINSTALL json",
    "LOAD EXTENSION json",
    "LOAD json",
    "ATTACH '{tmp}/other.lbug' AS other (dbtype lbug)",
    "DETACH other",
    "USE other",
    "CHECKPOINT",
    "CALL timeout=0",
    "CALL threads=1",
    "CALL force_checkpoint_on_close=true",
    "CALL spill_to_disk=true",
    "CALL `checkpoint_threshold`=1",
    "CALL current_setting('timeout') RETURN *",
    "BEGIN TRANSACTION",
    "COMMIT",
    "ROLLBACK",
    "PROFILE COPY (MATCH (c:Concept) RETURN c.name) TO '{tmp}/profiled.csv'",
    "MATCH (c:Concept) RETURN c.name; COPY (MATCH (c:Concept) RETURN c.name) TO '{tmp}/second.csv'",
    "CREATE (:Paper {id: 'new'})",
    "MERGE (c:Concept {key: 'new'})",
    "MATCH (c:Concept) SET c.name = 'changed'",
    "MATCH (c:Concept) DELETE c",
    "MATCH (c:Concept) DETACH DELETE c",
    "UNWIND [1, 2] AS x CREATE (:Paper {id: 'p' + CAST(x AS STRING)})",
    "CREATE NODE TABLE Extra(id STRING, PRIMARY KEY (id))",
    "DROP TABLE Concept",
    "ALTER TABLE Concept ADD extra INT64",
    "COMMENT ON TABLE Concept IS 'changed'",
    "CREATE MACRO plus_one(x) AS x + 1",
    "CREATE SEQUENCE numbers",
]

#: Reads that look a bit like the statements above, and must run.
READS = [
    "MATCH (c:Concept) RETURN c.name ORDER BY c.name",
    "MATCH (c:Concept) // LOAD FROM '/etc/passwd' in a comment\nRETURN count(c)",
    "MATCH (c:Concept) WHERE c.name <> 'COPY x TO y; CHECKPOINT' RETURN count(*)",
    "MATCH (load:Concept) RETURN load.name ORDER BY load.name",
    "MATCH (p:Paper)-[m:MENTIONS]->(c:Concept) RETURN p.id, count(c) ORDER BY p.id",
    "MATCH p = (a:Concept)-[* SHORTEST 1..5]-(b:Concept) WHERE a.key < b.key RETURN length(p)",
    "CALL show_tables() RETURN name ORDER BY name",
    "CALL table_info('Concept') RETURN count(*)",
    "MATCH (c:Concept) RETURN c.name;",
]


def small_graph():
    """Three papers that use BERT for parsing of Korean: papers, concepts, links, co-occurrence."""
    text = "We use BERT for parsing of Korean."
    papers = [Paper(f"p{i}", f"Paper {i}", text, 2020 + i) for i in range(3)]
    mentions = [
        Mention("BERT", "Method", 7, 11, text, "uses", "bert"),
        Mention("parsing of Korean", "Problem", 16, 33, text, "addresses", "parsing of korean"),
    ]
    B = build_graph(papers, [Extraction(p.id, mentions) for p in papers])
    return knowledge_graph(B, link_papers(B, max_df=1.0), cooccurrence(B))


@pytest.fixture
def store(tmp_path):
    """A small store, a folder to run in beside it, and a file with a secret line."""
    db = tmp_path / "store" / "kg.lbug"
    write_embedded(small_graph(), db)
    secret = tmp_path / "secret.csv"
    secret.write_text(SECRET + "\n", encoding="utf-8")
    (tmp_path / "run").mkdir()
    return db, secret


def _snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
            for p in sorted(root.rglob("*"))}  # fmt: skip


def _kg(monkeypatch, capsys, *args: str) -> tuple[int, str, str]:
    """The `kg` command in this process (as its entry point runs it): exit code, stdout, stderr."""
    monkeypatch.setattr(sys, "argv", ["kg", *args])
    with pytest.raises(SystemExit) as exit_:
        main()
    out = capsys.readouterr()
    return exit_.value.code or 0, out.out, out.err  # type: ignore[return-value]


def test_kg_query_refuses_every_file_extension_admin_and_write_statement(store, tmp_path, monkeypatch, capsys):
    db, secret = store
    monkeypatch.chdir(tmp_path / "run")
    before = _snapshot(tmp_path)
    for statement in REFUSED:
        query = statement.replace("{tmp}", str(tmp_path)).replace("{secret}", str(secret))
        code, out, err = _kg(monkeypatch, capsys, "query", query, "--db", str(db))
        assert code == 1, query
        # a single word is a cookbook name to `kg query` (and not one): it never reaches the store
        expected = "kg: error: no cookbook query named" if " " not in query else "kg: error: refused: "
        assert err.startswith(expected), (query, err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, (query, err)
        assert out == "" and SECRET not in err, query
        with pytest.raises(QueryRefused):
            query_embedded(db, query)
    assert _snapshot(tmp_path) == before  # the store, its folder, the files beside it: all untouched
    assert query_embedded(db, "MATCH (n) RETURN count(n)").rows == [[5]]


def test_reads_that_look_like_them_run(store):
    db, _ = store
    for query in READS:
        assert query_embedded(db, query).rows, query


def test_the_database_plan_refuses_them_without_the_text_check(store, tmp_path):
    """The second gate alone: LadybugDB's own plan of the statement, for those it is harmless to plan."""
    import ladybug

    db, secret = store
    conn = ladybug.Connection(ladybug.Database(str(db), read_only=True))
    planned = {
        f"COPY (MATCH (c:Concept) RETURN c.name) TO '{tmp_path}/out.csv'": "COPY_TO",
        f"LOAD FROM '{secret}' (file_format='csv', header=false) RETURN *": "READ_CSV",
        "INSTALL json": "INSTALL_EXTENSION",
        "UNINSTALL json": "UNINSTALL_EXTENSION",
        "CHECKPOINT": "TRANSACTION",
        "BEGIN TRANSACTION": "TRANSACTION",
        "CALL timeout=0": "STANDALONE_CALL",
        "CALL current_setting('timeout') RETURN *": "CURRENT_SETTING",
        "USE other": "USE_DATABASE",
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for statement, operator in planned.items():
            plan = conn.execute(conn.prepare("EXPLAIN " + statement)).get_next()[0]
            with pytest.raises(QueryRefused, match=operator):
                check_ladybug_plan(plan)
        check_ladybug_plan(conn.execute(conn.prepare("EXPLAIN MATCH (c:Concept) RETURN c.name")).get_next()[0])
    assert not (tmp_path / "out.csv").exists()


def test_writes_are_refused_by_the_database_itself(store):
    db, _ = store
    with pytest.raises(QueryRefused, match="read-only database"):  # LadybugDB's words, quoted
        query_embedded(db, "MATCH (c:Concept) SET c.name = 'changed'")
    with reader(db) as run, pytest.raises(StoreError, match="read-only"):  # no check in front
        run("CREATE (:Paper {id: 'new'})")


def test_the_text_check_knows_keywords_from_names():
    check_text("MATCH (c:Concept {use: 1}) RETURN c.load, $copy AS export", "ladybug")
    check_text("CALL db.labels() YIELD label RETURN label", "neo4j")
    check_text("SHOW RANGE INDEXES YIELD name RETURN name", "neo4j")
    for bad in ("SHOW USERS", "MATCH (n) CALL { USE system MATCH (m) RETURN m } RETURN n", "CALL dbms.listConfig()"):
        with pytest.raises(QueryRefused):
            check_text(bad, "neo4j")


def test_a_long_query_is_stopped_by_the_timeout_with_one_line(store, monkeypatch, capsys):
    db, _ = store
    started = time.monotonic()
    code, out, err = _kg(monkeypatch, capsys, "query", "MATCH (a)-[*1..30]-(b) RETURN count(*)", "--db", str(db),
                         "--timeout", "1")  # fmt: skip
    assert code == 1 and out == ""
    assert err.strip() == "kg: error: query stopped after 1 s (--timeout): narrow it down or allow it more time"
    assert time.monotonic() - started < 30
    assert query_embedded(db, "MATCH (c:Concept) RETURN count(c)").rows == [[2]]  # the store still answers


def test_the_real_command_refuses_with_one_line(store, tmp_path):
    db, _ = store
    result = subprocess.run(
        [sys.executable, "-m", "kg", "query", f"COPY (MATCH (c:Concept) RETURN c.name) TO '{tmp_path}/x.csv'",
         "--db", str(db)], cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 1
    assert result.stderr == "kg: error: refused: COPY does not begin a query; kg query only reads the graph\n"
    assert not (tmp_path / "x.csv").exists()


def test_the_query_view_is_read_only_too(store, tmp_path, monkeypatch, capsys):
    db, secret = store
    query = f"LOAD FROM '{secret}' (file_format='csv', header=false) RETURN *"
    code, _, err = _kg(monkeypatch, capsys, "viz", "query", "--query", query, "--db", str(db),
                       "-o", str(tmp_path / "q.html"))  # fmt: skip
    assert code == 1 and err.startswith("kg: error: refused: LOAD") and SECRET not in err
    assert not (tmp_path / "q.html").exists()
