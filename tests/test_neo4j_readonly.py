"""`kg query --neo4j` only reads, the server refuses files and URLs itself, and the password stays
secret: against the real Neo4j 5.26 the session starts with tools/neo4j."""

from __future__ import annotations

import http.server
import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from kg.cli import main
from kg.errors import StoreError
from kg.store import write_embedded
from kg.store.neo4j import Neo4jSettings, query_neo4j, write_neo4j
from kg.store.readonly import QueryRefused, check_neo4j_plan
from tests.conftest import NEO4J_PASSWORD, NEO4J_PROCESS, ROOT
from tests.test_readonly import small_graph

#: File, URL, procedure, admin and write statements; {port} is a local web server's.
REFUSED = [
    "LOAD CSV FROM 'file:///../../etc/passwd' AS row RETURN row",
    "LOAD CSV FROM 'file:///etc/hostname' AS row RETURN row",
    "LOAD CSV WITH HEADERS FROM 'file:///kg.csv' AS row RETURN row",
    "LOAD CSV FROM 'http://127.0.0.1:{port}/' AS row RETURN row",
    "MATCH (n) WITH n LIMIT 1 LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row",
    "CALL dbms.listConfig()",
    "CALL dbms.listConfig() YIELD name, value RETURN name, value",
    "CALL `dbms`.listConfig() YIELD name RETURN name",
    "CALL dbms.components()",
    "CALL dbms.showCurrentUser()",
    "CALL db.clearQueryCaches()",
    "CALL db.createLabel('Intruder')",
    "CALL tx.setMetaData({app: 'x'})",
    "CALL db.stats.retrieve('GRAPH COUNTS')",
    "CALL dbms.queryJmx('*:*')",
    "SHOW USERS",
    "SHOW CURRENT USER",
    "SHOW DATABASES",
    "SHOW SETTINGS YIELD name, value RETURN name, value",
    "SHOW TRANSACTIONS",
    "SHOW PROCEDURES",
    "SHOW ROLES",
    "SHOW PRIVILEGES",
    "TERMINATE TRANSACTIONS 'neo4j-transaction-1'",
    "CREATE USER intruder SET PASSWORD 'intruder-password'",
    "ALTER USER neo4j SET PASSWORD 'changed-password'",
    "ALTER CURRENT USER SET PASSWORD FROM 'old-password' TO 'new-password'",
    "DROP USER neo4j",
    "CREATE DATABASE other",
    "STOP DATABASE neo4j",
    "USE system SHOW USERS",
    "MATCH (n) CALL (n) { USE system MATCH (m) RETURN m } RETURN n",
    "CREATE (n:Paper {id: 'new'})",
    "MERGE (c:Concept {key: 'new'})",
    "MATCH (c:Concept) SET c.name = 'changed'",
    "MATCH (c:Concept) REMOVE c.name",
    "MATCH (c:Concept) DETACH DELETE c",
    "MATCH (c:Concept) CALL (c) { DETACH DELETE c }",
    "FOREACH (x IN [1] | CREATE (:Paper {id: 'f'}))",
    "CREATE INDEX intruder FOR (n:Paper) ON (n.title)",
    "CREATE CONSTRAINT intruder FOR (n:Paper) REQUIRE n.title IS UNIQUE",
    "DROP CONSTRAINT kg_paper_id",
    "MATCH (n) RETURN n; MATCH (m) DETACH DELETE m",
    "PROFILE MATCH (n) DETACH DELETE n",
    "CYPHER runtime=slotted MATCH (c:Concept) DETACH DELETE c",
]

LONG = "UNWIND range(1, 1000000000) AS x WITH x WHERE x % 7 = 100 RETURN count(*)"


def _kg(monkeypatch, capsys, settings: Neo4jSettings, *args: str) -> tuple[int, str, str]:
    """The `kg` command in this process, connection settings in the environment."""
    monkeypatch.setenv("NEO4J_URI", settings.uri)
    monkeypatch.setenv("NEO4J_USER", settings.user)
    monkeypatch.setenv("NEO4J_PASSWORD", settings.password)
    monkeypatch.setattr(sys, "argv", ["kg", *args])
    with pytest.raises(SystemExit) as exit_:
        main()
    out = capsys.readouterr()
    return exit_.value.code or 0, out.out, out.err  # type: ignore[return-value]


def _admin(settings: Neo4jSettings, query: str, database: str | None = None) -> list:
    """``query`` straight through the driver, past every check of kg's."""
    import neo4j

    with neo4j.GraphDatabase.driver(settings.uri, auth=(settings.user, settings.password)) as driver:
        records, _, _ = driver.execute_query(query, database_=database, routing_=neo4j.RoutingControl.READ)
        return [list(r.values()) for r in records]


class _Web:
    """A local web server that counts the requests it gets."""

    def __enter__(self):
        self.hits = 0
        web = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                web.hits += 1
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"a,b\n")

            def log_message(self, *args):
                pass

        self.server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.port = self.server.server_address[1]
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def _state(settings: Neo4jSettings) -> tuple:
    return (
        _admin(settings, "MATCH (n) RETURN labels(n)[0] AS l, count(*) ORDER BY l"),
        _admin(settings, "MATCH ()-[r]->() RETURN count(r)"),
        _admin(settings, "SHOW CONSTRAINTS YIELD name RETURN name ORDER BY name"),
        _admin(settings, "SHOW INDEXES YIELD name RETURN name ORDER BY name"),
        _admin(settings, "SHOW USERS YIELD user RETURN user", database="system"),
        _admin(settings, "SHOW DATABASES YIELD name, currentStatus RETURN name, currentStatus ORDER BY name"),
    )


def test_kg_query_neo4j_refuses_every_file_admin_and_write_statement(neo4j, monkeypatch, capsys):
    write_neo4j(small_graph(), neo4j)
    before = _state(neo4j)
    with _Web() as web:
        for statement in REFUSED:
            query = statement.replace("{port}", str(web.port))
            code, out, err = _kg(monkeypatch, capsys, neo4j, "query", "--neo4j", query)
            assert code == 1, query
            # Neo4j community refuses enterprise commands while it plans them, before kg can
            assert err.startswith(("kg: error: refused: ", "kg: error: query failed: Unsupported administration")), (
                query,
                err,
            )
            assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, (query, err)
            assert out == "" and "root:" not in err, query
    assert web.hits == 0
    assert _state(neo4j) == before  # graph, schema, users, databases: all as they were
    assert query_neo4j(neo4j, "MATCH (c:Concept) RETURN c.name ORDER BY c.name").rows == [
        ["BERT"],
        ["parsing of Korean"],
    ]


def test_neo4j_plan_refuses_them_without_the_text_check(neo4j):
    """The second gate alone: Neo4j's own EXPLAIN of the statement, kg's text check skipped."""
    import neo4j as driver_module

    planned = {
        "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row": "LoadCSV",
        "CALL dbms.listConfig() YIELD name RETURN name": "schema or the system",
        "CALL dbms.showCurrentUser()": "schema or the system",
        "CALL db.stats.retrieve('GRAPH COUNTS')": r"CALL db\.stats\.retrieve: kg query calls only",
        "SHOW USERS": "schema or the system",
        "SHOW SETTINGS": "ShowSettings",
        "TERMINATE TRANSACTIONS 'neo4j-transaction-1'": "TerminateTransactions",
        "CREATE (n:Paper {id: 'new'})": "writes",
        "CREATE INDEX intruder FOR (n:Paper) ON (n.title)": "schema or the system",
    }
    with driver_module.GraphDatabase.driver(neo4j.uri, auth=(neo4j.user, neo4j.password)) as driver:
        for statement, reason in planned.items():
            summary = driver.execute_query("EXPLAIN " + statement).summary
            with pytest.raises(QueryRefused, match=reason):
                check_neo4j_plan(summary.query_type, summary.plan)
        summary = driver.execute_query("EXPLAIN SHOW CONSTRAINTS YIELD name RETURN name").summary
        check_neo4j_plan(summary.query_type, summary.plan)


def test_write_is_allowed_only_when_asked_and_never_files_or_admin(neo4j):
    query_neo4j(neo4j, "CREATE (:Paper {id: 'w'})", write=True)
    assert query_neo4j(neo4j, "MATCH (p:Paper) RETURN p.id").rows == [["w"]]
    for statement in ("CREATE USER intruder SET PASSWORD 'intruder-password'", "SHOW USERS",
                      "LOAD CSV FROM 'file:///etc/passwd' AS row CREATE (:Paper {id: row[0]})"):  # fmt: skip
        with pytest.raises(QueryRefused):
            query_neo4j(neo4j, statement, write=True)


def test_the_server_refuses_load_csv_from_files_and_urls_on_its_own(neo4j_server):
    """Past kg's checks, straight through the driver: the server's settings are the reason."""
    import neo4j

    with _Web() as web:
        refusals = {
            "file:///../../etc/passwd": "'dbms.security.allow_csv_import_from_file_urls' is false",
            "file:///kg.csv": "'dbms.security.allow_csv_import_from_file_urls' is false",
            f"http://127.0.0.1:{web.port}/": "blocked via the configuration property internal.dbms.cypher_ip_blocklist",
            f"http://localhost:{web.port}/": "blocked via the configuration property internal.dbms.cypher_ip_blocklist",
        }
        for url, reason in refusals.items():
            with pytest.raises(neo4j.exceptions.ClientError) as err:
                _load_csv(neo4j_server, url)
            assert err.value.code == "Neo.ClientError.Statement.ExternalResourceFailed"
            assert reason in (err.value.message or ""), err.value.message
    assert web.hits == 0
    home = NEO4J_PROCESS["home"]
    assert list((home / "import").iterdir()) == []


def _load_csv(settings: Neo4jSettings, url: str) -> None:
    import neo4j

    with neo4j.GraphDatabase.driver(settings.uri, auth=(settings.user, settings.password)) as driver:
        driver.execute_query("LOAD CSV FROM $url AS row RETURN row", {"url": url})


def test_a_long_query_is_stopped_by_the_timeout_with_one_line(neo4j, monkeypatch, capsys):
    started = time.monotonic()
    code, out, err = _kg(monkeypatch, capsys, neo4j, "query", "--neo4j", LONG, "--timeout", "1")
    assert code == 1 and out == ""
    assert err.strip() == "kg: error: query stopped after 1 s (--timeout): narrow it down or allow it more time"
    assert time.monotonic() - started < 30
    with pytest.raises(StoreError, match=r"query stopped after 0\.5 s"):
        query_neo4j(neo4j, LONG, timeout=0.5)
    assert query_neo4j(neo4j, "RETURN 1").rows == [[1]]  # the server answers on


def _cmdlines() -> list[str]:
    out = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                out.append((proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"))
            except OSError:
                continue  # gone meanwhile
    return out


def test_the_password_is_in_no_process_list_log_or_message(neo4j, tmp_path, monkeypatch, capsys):
    pid, home = NEO4J_PROCESS["pid"], NEO4J_PROCESS["home"]
    server = (Path("/proc") / str(pid) / "cmdline").read_bytes().decode()
    assert "--password-file" in server and NEO4J_PASSWORD not in server
    assert not any(NEO4J_PASSWORD in line for line in _cmdlines())
    assert stat.S_IMODE(home.stat().st_mode) == 0o700  # Neo4j's home, logs included, is the owner's
    logs = [p for p in (home / "logs").rglob("*") if p.is_file()]
    assert any(p.name == "debug.log" and p.stat().st_size for p in logs)
    for log in logs:
        assert NEO4J_PASSWORD not in log.read_text(encoding="utf-8", errors="replace"), log

    db = tmp_path / "kg.lbug"
    write_embedded(small_graph(), db)
    outputs = [
        _kg(monkeypatch, capsys, neo4j, "load", "--db", str(db)),
        _kg(monkeypatch, capsys, neo4j, "query", "--neo4j", "MATCH (n) RETURN count(n)", "--format", "json"),
        _kg(monkeypatch, capsys, neo4j, "query", "--neo4j", "SHOW USERS"),
        _kg(monkeypatch, capsys, neo4j, "report", "--neo4j", "-o", str(tmp_path / "report.html")),
    ]
    assert [code for code, _, _ in outputs] == [0, 0, 1, 0]
    with_user = neo4j.uri.replace("bolt://", f"bolt://neo4j:{NEO4J_PASSWORD}@")
    for command in ("load", "query"):
        args = ["--neo4j", "RETURN 1"] if command == "query" else ["--db", str(db)]
        code, out, err = _kg(monkeypatch, capsys, neo4j, command, *args, "--uri", with_user)
        assert code == 1 and err.startswith("kg: error: the Neo4j URI bolt://***@127.0.0.1:")
        outputs.append((code, out, err))
    for _, out, err in outputs:
        assert NEO4J_PASSWORD not in out + err
    for written in tmp_path.rglob("*"):
        if written.is_file() and written.suffix in (".html", ".md", ".json"):
            assert NEO4J_PASSWORD not in written.read_text(encoding="utf-8", errors="replace"), written


def test_a_uri_kg_cannot_use_says_which_schemes_it_takes(tmp_path, monkeypatch, capsys):
    settings = Neo4jSettings(uri="bolt://127.0.0.1:1", password="x")
    for uri in ("http://127.0.0.1:7474", "localhost:7687", "bolt://"):
        code, out, err = _kg(monkeypatch, capsys, settings, "load", "--db", str(tmp_path / "none.lbug"), "--uri", uri)
        assert code == 1 and out == ""
        assert err == (f"kg: error: cannot use the Neo4j URI {uri!r}: give bolt://HOST:PORT or neo4j://HOST:PORT "
                       "(+s or +ssc after the scheme for TLS), e.g. bolt://localhost:7687\n")  # fmt: skip


def test_the_launcher_takes_the_password_from_no_command_line(tmp_path):
    start = ROOT / "tools" / "neo4j" / "start.sh"
    env = {k: v for k, v in os.environ.items() if k != "NEO4J_PASSWORD"}
    shared = tmp_path / "password"
    shared.write_text("a-shared-password\n", encoding="utf-8")
    shared.chmod(0o644)
    for args, message in (
        (["--password", "a-password-here"], "--password is gone"),
        (["--password-file", str(shared)], "is readable by others (mode rw-r--r--): chmod 600 it"),
        ([], "set NEO4J_PASSWORD or give --password-file FILE"),
    ):
        result = subprocess.run([str(start), "--port", "0", *args], env=env, stdin=subprocess.DEVNULL,
                                capture_output=True, text=True, timeout=300)  # fmt: skip
        assert result.returncode == 2, result.stderr[-2000:]
        assert message in result.stderr and result.stdout == ""
