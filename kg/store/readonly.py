"""What a user's Cypher may do through kg: read the graph, and nothing else.

``kg query`` and ``kg viz query`` run Cypher a user wrote, on a machine where the store may sit
beside files that matter. A statement passes three gates before it runs:

1. Its text, token by token (strings and comments skipped): one statement that begins like a
   query, with no clause that reaches files, URLs, extensions or other databases (``LOAD``,
   ``USE``, ...), and ``CALL`` of a few catalogue procedures only. This gate comes first because
   the databases act on some statements while merely planning them: LadybugDB opens the file of
   a ``LOAD FROM`` to learn its columns, and explaining ``EXPORT DATABASE`` creates its folder.
2. The database's own plan of it (``EXPLAIN``): on LadybugDB every operator must be one that
   reads (an allow-list, so an operator kg does not know is refused, not run); on Neo4j the
   query type must be read-only, with no procedure call off the list and no administration.
3. The database itself refuses writes: LadybugDB is opened read-only (a write fails when it is
   prepared), Neo4j runs the query in a read transaction; and the Neo4j kg starts
   (``tools/neo4j``) refuses ``LOAD CSV`` from files and from any address on its own.

Every query also has a time limit (:data:`DEFAULT_TIMEOUT`, ``kg query --timeout``).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kg.errors import StoreError

#: Seconds a user's query may run before the database stops it (``kg query --timeout``).
DEFAULT_TIMEOUT = 60.0

_ONLY_READS = "kg query only reads the graph"


class QueryRefused(StoreError):
    """A user's statement would do more than read the graph, so it was not run."""


# --- gate 1: the text ----------------------------------------------------------------------

#: The clauses a query may begin with. Updating clauses are let through to the database,
#: which refuses them (read-only store, read transaction) unless kg asked for a write.
_STARTS = {"MATCH", "OPTIONAL", "WITH", "UNWIND", "RETURN", "CALL", "CREATE", "MERGE"}
#: Clauses that reach outside the graph: files and URLs, other databases, running transactions.
_NEVER = {
    "LOAD": "LOAD reads files, URLs or extensions",
    "USE": "USE switches to another database",
    "TERMINATE": "TERMINATE stops other transactions",
}
#: Procedures a query may CALL, by dialect: the catalogue of the graph, nothing else.
CALLABLE = {
    "ladybug": ("show_tables", "table_info", "show_connection", "db_version"),
    "neo4j": ("db.labels", "db.relationshipTypes", "db.propertyKeys", "db.schema.visualization"),
}
#: Neo4j's SHOW commands a query may begin with (``SHOW [RANGE|...] INDEXES`` and so on).
_SHOWABLE = {"CONSTRAINT", "CONSTRAINTS", "INDEX", "INDEXES"}
_SHOW_KINDS = {"ALL", "RANGE", "TEXT", "POINT", "LOOKUP", "FULLTEXT", "VECTOR", "UNIQUE", "UNIQUENESS", "NODE",
               "RELATIONSHIP", "REL", "EXIST", "EXISTENCE", "EXISTS", "KEY", "PROPERTY", "TYPE"}  # fmt: skip

_TOKEN = re.compile(
    r"""(?P<space>\s+)
      | (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
      | (?P<string>'(?:[^'\\]|\\.)*(?:'|\Z)|"(?:[^"\\]|\\.)*(?:"|\Z))
      | (?P<quoted>`(?:[^`]|``)*(?:`|\Z))
      | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<other>.)""",
    re.X | re.S,
)


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # word, quoted, string, other
    text: str


def _tokens(query: str) -> list[_Token]:
    """The tokens of ``query`` that mean something: no spaces, no comments."""
    return [_Token(m.lastgroup or "other", m.group()) for m in _TOKEN.finditer(query)
            if m.lastgroup not in ("space", "comment")]  # fmt: skip


def _is_keyword(tokens: list[_Token], i: int) -> bool:
    """A word in keyword position: not a property (``p.load``), label (``:Use``), parameter
    (``$load``), map key (``{load: 1}``) or variable before its label or property (``(load:X)``,
    ``load.name``)."""
    if tokens[i].kind != "word":
        return False
    before = tokens[i - 1].text if i else ""
    after = tokens[i + 1].text if i + 1 < len(tokens) else ""
    return before not in (".", ":", "$") and after not in (":", ".")


def _procedure(tokens: list[_Token], i: int) -> str:
    """The dotted name after the ``CALL`` at ``i`` ("" for a subquery ``CALL {`` / ``CALL (x) {``)."""
    parts: list[str] = []
    j = i + 1
    while j < len(tokens) and tokens[j].kind in ("word", "quoted"):
        parts.append(tokens[j].text.strip("`"))
        if j + 1 < len(tokens) and tokens[j + 1].text == ".":
            j += 2
        else:
            break
    return ".".join(parts)


def check_text(query: str, dialect: str) -> None:
    """Refuse ``query`` unless its text is one statement that may only read (gate 1).

    >>> check_text("MATCH (c:Concept) RETURN c.name // LOAD is fine in a comment", "ladybug")
    >>> check_text("COPY (MATCH (c) RETURN c) TO '/tmp/x.csv'", "ladybug")
    Traceback (most recent call last):
    ...
    kg.store.readonly.QueryRefused: refused: COPY does not begin a query; kg query only reads the graph
    """
    tokens = _tokens(query)
    if tokens and tokens[-1].text == ";":
        tokens.pop()
    if not tokens:
        raise QueryRefused("refused: the query is empty")
    if any(t.text == ";" for t in tokens):
        raise QueryRefused(f"refused: one statement at a time (this one has a ';' in it); {_ONLY_READS}")
    first = tokens[0].text.upper()
    starts = _STARTS | ({"SHOW"} if dialect == "neo4j" else set())
    if tokens[0].kind != "word" or first not in starts:
        raise QueryRefused(f"refused: {tokens[0].text} does not begin a query; {_ONLY_READS}")
    for i, t in enumerate(tokens):
        if not _is_keyword(tokens, i):
            continue
        word = t.text.upper()
        if word in _NEVER:
            raise QueryRefused(f"refused: {_NEVER[word]}; {_ONLY_READS}")
        if word == "CALL":
            name = _procedure(tokens, i)
            allowed = {n.lower() for n in CALLABLE[dialect]}
            if name and name.lower() not in allowed:
                raise QueryRefused(
                    f"refused: CALL {name}: kg query calls only {', '.join(CALLABLE[dialect])}; {_ONLY_READS}"
                )
        if word == "SHOW" and dialect == "neo4j":
            _check_show(tokens, i)


def _check_show(tokens: list[_Token], i: int) -> None:
    words = []
    for t in tokens[i + 1 :]:
        if t.kind != "word" or t.text.upper() in ("YIELD", "WHERE", "RETURN"):
            break
        words.append(t.text.upper())
    if not words or words[-1] not in _SHOWABLE or not set(words[:-1]) <= _SHOW_KINDS:
        shown = " ".join(["SHOW", *words[:3]])
        raise QueryRefused(f"refused: {shown}: kg query shows only constraints and indexes; {_ONLY_READS}")


# --- gates 2 and 3 on LadybugDB --------------------------------------------------------------

#: Operators of LadybugDB plans that only read the graph or the query's own rows.
LADYBUG_OPERATORS = frozenset({
    "AGGREGATE", "AGGREGATE_FINALIZE", "AGGREGATE_SCAN", "COUNT_REL_TABLE", "CROSS_PRODUCT", "DUMMY_SINK",
    "EMPTY_RESULT", "FILTER", "FLATTEN", "HASH_JOIN_BUILD", "HASH_JOIN_PROBE", "INDEX_LOOKUP", "INTERSECT",
    "INTERSECT_BUILD", "LIMIT", "MULTIPLICITY_REDUCER", "OFFSET_SCAN_NODE_TABLE", "PATH_PROPERTY_PROBE",
    "PRIMARY_KEY_SCAN_NODE_TABLE", "PROJECTION", "QUERY_PRIMARY_KEY_LOOKUP", "RECURSIVE_EXTEND", "RESULT_COLLECTOR",
    "SCAN_NODE_TABLE", "SCAN_REL_TABLE", "SEMI_MASKER", "SKIP", "TABLE_FUNCTION_CALL", "TOP_K", "TOP_K_SCAN",
    "ORDER_BY", "ORDER_BY_MERGE", "ORDER_BY_SCAN", "UNION_ALL_SCAN", "UNWIND",
})  # fmt: skip
#: Table functions a plan may call: the query's own intermediate rows, and the CALL-able catalogue.
LADYBUG_FUNCTIONS = frozenset({"READ_FTABLE", *(n.upper() for n in CALLABLE["ladybug"])})
_OPERATOR = re.compile(r"│\s*([A-Z][A-Z0-9_]*)\[(\d+)\]\s*│")
_FUNCTION = re.compile(r"Function: (\S+)")


def check_ladybug_plan(plan: str) -> None:
    """Refuse a LadybugDB ``EXPLAIN`` plan with an operator or table function that is not known
    to only read (gate 2). Text a query puts in the plan (names, strings) can only add names to
    check, never hide one; every operator number must be accounted for."""
    found = _OPERATOR.findall(plan)
    ids = {int(n) for _, n in found}
    if not found or ids != set(range(max(ids) + 1)):
        raise QueryRefused(f"refused: kg cannot read the database's plan of this query; {_ONLY_READS}")
    for name, _ in found:
        if name not in LADYBUG_OPERATORS:
            raise QueryRefused(f"refused: the database plans {name} for this query; {_ONLY_READS}")
    for name in _FUNCTION.findall(plan):
        if name.upper() not in LADYBUG_FUNCTIONS:
            raise QueryRefused(f"refused: the database would call {name} for this query; {_ONLY_READS}")


def run_ladybug(conn: Any, query: str, params: Mapping[str, Any]) -> Any:
    """Run a user's ``query`` on a connection to a database opened read-only, through all three
    gates; returns LadybugDB's result. Database errors come out as ``RuntimeError``."""
    check_text(query, "ladybug")
    with warnings.catch_warnings():
        # prepare is deprecated in favour of execute(text), but it is the call that refuses
        # a second statement and, on a read-only database, any write, before anything runs
        warnings.simplefilter("ignore", DeprecationWarning)
        statement = conn.prepare(query)
        if statement.is_success():
            explain = conn.prepare("EXPLAIN " + query)
    if not statement.is_success():
        message = statement.get_error_message()
        if "read-only" in message:
            raise QueryRefused(f"refused: kg query is read-only and this statement writes ({_first_line(message)})")
        raise RuntimeError(message)
    if not explain.is_success():
        raise RuntimeError(explain.get_error_message())
    plan = conn.execute(explain, dict(params))
    check_ladybug_plan(plan.get_next()[0])
    return conn.execute(statement, dict(params))


def timed_out(message: str) -> bool:
    """Whether a LadybugDB error says the query was stopped by the connection's timeout."""
    return message.strip() == "Interrupted."


def stopped(timeout: float) -> str:
    """The message for a query the database stopped after ``timeout`` seconds."""
    return f"query stopped after {timeout:g} s (--timeout): narrow it down or allow it more time"


# --- gate 2 on Neo4j -------------------------------------------------------------------------

#: Neo4j plan operators that are never run for a user, whatever their query type says.
_NEO4J_REFUSED = ("LoadCSV", "AdministrationCommand", "TerminateTransactions")
#: SHOW operators (all read-only to Neo4j) that a user may run: the schema of the graph.
_NEO4J_SHOWS = ("ShowConstraints", "ShowIndexes")


def check_neo4j_plan(query_type: str | None, plan: Mapping[str, Any] | None, *, write: bool = False) -> None:
    """Refuse a Neo4j ``EXPLAIN`` summary (query type and plan) of anything but a read, or a
    write when ``write`` (gate 2): no schema or system commands, no LOAD CSV, no procedure off
    :data:`CALLABLE`, no SHOW but constraints and indexes."""
    allowed = ("r", "rw", "w") if write else ("r",)
    if query_type not in allowed:
        what = {"s": "changes the schema or the system", "w": "writes", "rw": "writes"}.get(query_type or "", "")
        hint = " (--write allows writes)" if query_type in ("w", "rw") else ""
        raise QueryRefused(f"refused: Neo4j says this statement {what or 'does more than read'}; {_ONLY_READS}{hint}")
    stack = [plan or {}]
    while stack:
        op = stack.pop()
        stack.extend(op.get("children", []))
        name = str(op.get("operatorType", "")).split("@")[0]
        details = str(op.get("args", {}).get("Details", ""))
        if name in _NEO4J_REFUSED or str(op.get("operatorType", "")).endswith("@system"):
            raise QueryRefused(f"refused: Neo4j plans {name} for this statement; {_ONLY_READS}")
        if name.startswith("Show") and name not in _NEO4J_SHOWS:
            raise QueryRefused(f"refused: Neo4j plans {name} for this statement; {_ONLY_READS}")
        if name == "ProcedureCall" and details.split("(")[0].strip() not in CALLABLE["neo4j"]:
            raise QueryRefused(f"refused: CALL {details.split('(')[0].strip()}: kg query calls only "
                               f"{', '.join(CALLABLE['neo4j'])}; {_ONLY_READS}")  # fmt: skip


def _first_line(message: str) -> str:
    return message.strip().splitlines()[0] if message.strip() else ""
