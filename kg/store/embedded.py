"""The embedded store: LadybugDB (in-process Cypher, one file), written with bulk ``COPY``."""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx
import pyarrow as pa
import pyarrow.parquet as pq

from kg.errors import StoreError
from kg.store import cypher, readonly
from kg.store.readonly import DEFAULT_TIMEOUT
from kg.store.schema import NODE_TABLES, REL_TABLES, graph_from_queries, node_rows, rel_rows

#: Where the default pipeline writes the embedded store; `kg query` and `kg viz` read it.
DEFAULT_STORE = Path("out/kg.lbug")

_ARROW = {"STRING": pa.string(), "INT64": pa.int64(), "DOUBLE": pa.float64(), "BOOLEAN": pa.bool_(),
          "STRING[]": pa.list_(pa.string())}  # fmt: skip


@dataclass(frozen=True, slots=True)
class QueryResult:
    columns: list[str]
    rows: list[list[Any]]


def write_embedded(G: nx.DiGraph, path: str | Path) -> dict[str, int]:
    """Write the knowledge graph to a new LadybugDB database at ``path`` (replacing one there).

    Returns the number of rows written per table.
    """
    import ladybug

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    for old in (path, path.with_name(path.name + ".wal")):
        if old.is_dir():
            shutil.rmtree(old)
        elif old.exists():
            old.unlink()
    counts: dict[str, int] = {}
    db = ladybug.Database(str(path))
    try:
        conn = ladybug.Connection(db)
        for ddl in cypher.ladybug_ddl():
            conn.execute(ddl)
        with tempfile.TemporaryDirectory(prefix="kg-copy-") as tmp:
            for label, props in NODE_TABLES.items():
                counts[label] = _copy(conn, label, list(node_rows(G, label)), props, Path(tmp))
            for rel, (_, _, props) in REL_TABLES.items():
                cols = [("from", "STRING"), ("to", "STRING"), *props]
                counts[rel] = _copy(conn, rel, list(rel_rows(G, rel)), cols, Path(tmp))
        conn.close()
    finally:
        db.close()
    return counts


@dataclass
class GraphDelta:
    """Rows to add to a stored graph and properties to change, table by table.

    ``nodes``/``rels`` hold new rows as :func:`~kg.store.schema.node_rows` and
    :func:`~kg.store.schema.rel_rows` make them; ``node_updates``/``rel_updates`` hold the key
    (or ``from``/``to``) and the properties to set on rows that exist; ``rel_deletes`` the
    ``from``/``to`` of relationships to delete (before anything is added).
    """

    nodes: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    rels: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    node_updates: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    rel_updates: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    rel_deletes: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


#: An update leaves its changes in the write-ahead log (read and replayed by every reader)
#: and checkpoints them into the database file once the log is this big: a checkpoint
#: rewrites much of the relationship storage (seconds for the full corpus), so it is paid
#: once per many updates, not by each.
CHECKPOINT_BYTES = 128 * 2**20


def update_embedded(path: str | Path, delta: GraphDelta) -> dict[str, int]:
    """Apply ``delta`` to the database at ``path`` in one transaction: all of it or none.

    New rows go in with ``UNWIND $rows ... CREATE`` (nodes before relationships), changes
    with ``UNWIND $rows ... SET``: unlike ``COPY``, these are written to the write-ahead log,
    so committing them does not rewrite the database file (see :data:`CHECKPOINT_BYTES`).
    Returns the rows added or changed per table.
    """
    import ladybug

    path = Path(path)
    if not path.exists():
        raise StoreError(f"no embedded database at {path} to update")
    counts: dict[str, int] = {}
    db = ladybug.Database(str(path), checkpoint_threshold=CHECKPOINT_BYTES)
    try:
        conn = ladybug.Connection(db)
        conn.execute("CALL force_checkpoint_on_close=false")
        conn.execute("BEGIN TRANSACTION")
        try:
            for rel, rows in delta.rel_deletes.items():
                counts[f"{rel} deleted"] = _batches(conn, cypher.delete_rels(rel), rows)
            for label in NODE_TABLES:
                counts[label] = _batches(conn, cypher.ladybug_create_nodes(label), delta.nodes.get(label, []))
            for rel in REL_TABLES:
                counts[rel] = _batches(conn, cypher.ladybug_create_rels(rel), delta.rels.get(rel, []))
            for label, rows in delta.node_updates.items():
                props = [p for p in (rows[0] if rows else {}) if p != NODE_TABLES[label][0][0]]
                counts[f"{label} updated"] = _batches(conn, cypher.set_node_props(label, props), rows)
            for rel, rows in delta.rel_updates.items():
                props = [p for p in (rows[0] if rows else {}) if p not in ("from", "to")]
                counts[f"{rel} updated"] = _batches(conn, cypher.set_rel_props(rel, props), rows)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.close()
    finally:
        db.close()
    return counts


def _batches(conn: Any, statement: str, rows: list[dict[str, Any]], size: int = 5000) -> int:
    for start in range(0, len(rows), size):
        conn.execute(statement, {"rows": rows[start : start + size]})
    return len(rows)


def _copy(conn: Any, table: str, rows: list[dict[str, Any]], props: list[tuple[str, str]], tmp: Path) -> int:
    if not rows:
        return 0
    schema = pa.schema([(p, _ARROW[t]) for p, t in props])
    file = tmp / f"{table}.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), file)
    conn.execute(cypher.copy_from(table, str(file)))
    return len(rows)


def query_embedded(
    path: str | Path, query: str, params: Mapping[str, Any] | None = None, *, timeout: float = DEFAULT_TIMEOUT
) -> QueryResult:
    """Run a user's Cypher query against the database at ``path``: one statement that only reads
    (anything else is refused, see :mod:`kg.store.readonly`), stopped after ``timeout`` seconds."""
    with reader(path, user=True, timeout=timeout) as run:
        return run(query, params)


@contextmanager
def reader(
    path: str | Path, *, user: bool = False, timeout: float | None = None
) -> Iterator[Callable[..., QueryResult]]:
    """One read-only connection to the database at ``path``, as a function that runs queries.

    With ``user``, each query is a user's and goes through :func:`kg.store.readonly.run_ladybug`
    first; ``timeout`` (seconds) stops any query that runs longer.
    """
    import ladybug

    path = Path(path)
    if not path.exists():
        raise StoreError(f"no embedded database at {path} (run `kg run` or `make run` first, or pass --db)")
    try:
        db = ladybug.Database(str(path), read_only=True)
    except RuntimeError as exc:
        raise StoreError(f"cannot open {path}: {exc}") from exc
    conn = ladybug.Connection(db)
    if timeout is not None:
        conn.set_query_timeout(max(1, round(timeout * 1000)))

    def run(query: str, params: Mapping[str, Any] | None = None) -> QueryResult:
        try:
            if user:
                result = readonly.run_ladybug(conn, query, params or {})
            else:
                result = conn.execute(query, dict(params or {}))
        except RuntimeError as exc:
            if timeout is not None and readonly.timed_out(str(exc)):
                raise StoreError(readonly.stopped(timeout)) from exc
            raise StoreError(f"query failed: {_first_line(exc)}") from exc
        if isinstance(result, list):
            result = result[-1]
        return QueryResult(result.get_column_names(), _rows(result))

    try:
        yield run
    finally:
        conn.close()
        db.close()


#: Column types whose values Arrow turns into the same Python values as LadybugDB's rows do.
_PLAIN = re.compile(r"(STRING|INT64|INT32|DOUBLE|BOOL|BOOLEAN)(\[\])?")


def _rows(result: Any) -> list[list[Any]]:
    """The rows of a result; columns of plain values come in bulk through Arrow (a large page
    reads about 200,000 rows), anything else (nodes, relationships, paths...) row by row."""
    if result.get_num_tuples() and all(_PLAIN.fullmatch(t) for t in result.get_column_data_types()):
        columns = result.get_as_arrow(chunk_size=0).columns
        return [list(row) for row in zip(*(c.to_pylist() for c in columns), strict=True)]
    rows: list[list[Any]] = []
    while result.has_next():
        rows.append(list(result.get_next()))
    return rows


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def read_embedded(path: str | Path) -> nx.DiGraph:
    """Read a knowledge graph written by :func:`write_embedded` back into networkx."""
    with reader(path) as run:
        return graph_from_queries(lambda q: run(q).rows)
