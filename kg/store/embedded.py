"""The embedded store: LadybugDB (in-process Cypher, one file), written with bulk ``COPY``."""

from __future__ import annotations

import importlib
import os
import pickle
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

import networkx as nx
import pyarrow as pa
import pyarrow.parquet as pq

from kg.errors import StoreError
from kg.memory import give_back_memory
from kg.outputs import refuse_folder, remove, remove_temp, temp_beside
from kg.store import cypher, readonly
from kg.store.readonly import DEFAULT_TIMEOUT
from kg.store.schema import NODE_TABLES, REL_TABLES, graph_from_queries, node_rows, rel_rows

if TYPE_CHECKING:
    from kg.build.texts import TextFile

#: Where the default pipeline writes the embedded store; `kg query` and `kg viz` read it.
DEFAULT_STORE = Path("out/kg.lbug")

_ARROW = {"STRING": pa.string(), "INT64": pa.int64(), "DOUBLE": pa.float64(), "BOOLEAN": pa.bool_(),
          "STRING[]": pa.list_(pa.string())}  # fmt: skip


@dataclass(frozen=True, slots=True)
class QueryResult:
    columns: list[str]
    #: lists, or tuples for kg's own bulk reads (:func:`reader`'s ``tuples``)
    rows: list[Any]


def write_embedded(G: nx.DiGraph, path: str | Path) -> dict[str, int]:
    """Write the knowledge graph to a new LadybugDB database at ``path`` (replacing one there).

    The database is written beside ``path`` (:func:`create_embedded`) and moved there once
    complete (:func:`replace_store`): until then a store at ``path`` stays as it was, readable.
    Anything at ``path`` that is not a LadybugDB database is refused (:func:`check_target`).
    Returns the number of rows written per table.
    """
    path = Path(path)
    check_target(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_beside(path)
    try:
        counts = create_embedded(G, tmp)
        replace_store(tmp, path)
    finally:
        remove_temp(tmp)
    return counts


def create_embedded(
    G: nx.DiGraph, path: Path, *, release: Callable[[], None] | None = None, texts: TextFile | None = None
) -> dict[str, int]:
    """Write the knowledge graph to a new LadybugDB database at ``path``, a free path kg chose.

    Every table is first written out to Parquet files in ``<path>.copy/`` (removed after),
    built :data:`COPY_CHUNK` rows at a time (no whole table is held in memory at once), then
    loaded with bulk ``COPY``, :data:`COPY_ROWS` rows a COPY (a table with a list column in one);
    the store is marked complete (:data:`COMPLETE`) last. The abstracts and sentences of a graph
    built with ``texts`` (:mod:`kg.build.texts`) are read from there. ``release`` is called between the two,
    when the graph is no longer read: a caller that lets go of the graph there (a run does) keeps
    the COPYs' memory from coming on top of the graph's. Returns the rows written per table.
    """
    with _written(), _connection(path) as conn:
        for ddl in cypher.ladybug_ddl():
            conn.execute(ddl)
        _mark(conn, complete=False)
    copies = Path(str(path) + ".copy")
    copies.mkdir()
    try:
        tables = [(label, node_rows(G, label, texts=texts), props) for label, props in NODE_TABLES.items()]
        tables += [(rel, rel_rows(G, rel, texts=texts), [("from", "STRING"), ("to", "STRING"), *props])
                   for rel, (_, _, props) in REL_TABLES.items()]  # fmt: skip
        files = {table: _parquet(table, rows, cols, copies) for table, rows, cols in tables}
        del G, tables
        if release is not None:
            release()
        with _written():
            counts = {table: _copy(path, table, parts) for table, parts in files.items()}
    finally:
        remove(copies)
    with _written(), _connection(path) as conn:
        _mark(conn, complete=True)
    return counts


@contextmanager
def _written() -> Iterator[None]:
    """LadybugDB's errors while writing (a full disk: "IO exception: Cannot write to file ... No space
    left on device") as a :class:`StoreError`, one line for the user rather than a traceback."""
    try:
        yield
    except RuntimeError as exc:
        raise StoreError(f"writing the store failed: {_first_line(exc)}") from exc


@contextmanager
def _connection(path: Path, *, threads: int = 1) -> Iterator[Any]:
    """A read-write connection to the database at ``path``, closed (and checkpointed) after.

    One thread unless told (``threads=0``: every core): a COPY's memory grows with its threads
    (10,000 papers: 55 MB less at one).
    """
    import ladybug

    db = ladybug.Database(str(path), max_num_threads=threads)
    try:
        conn = ladybug.Connection(db)
        yield conn
        conn.close()
    finally:
        db.close()


#: The start of the comment on the Paper table of a store that was written to its end; the
#: last thing a writer does, so a store without it is one a run did not finish (or an older kg wrote).
COMPLETE = "kg store complete"
_INCOMPLETE = "kg store being written"
#: The first bytes of a LadybugDB database file.
_MAGIC = b"LBUG"


def _mark(conn: Any, *, complete: bool) -> None:
    # constant text of kg's own: COMMENT takes a string literal, not a parameter
    conn.execute(f"COMMENT ON TABLE Paper IS '{COMPLETE if complete else _INCOMPLETE}'")


def _completed(conn: Any) -> bool:
    try:
        result = conn.execute("CALL show_tables() WHERE name = 'Paper' RETURN comment")
    except RuntimeError:
        return False
    return result.has_next() and str(result.get_next()[0]).startswith(COMPLETE)


def is_complete(path: str | Path) -> bool:
    """Whether ``path`` is a LadybugDB store whose writer finished it."""
    import ladybug

    if not is_ladybug(Path(path)):
        return False
    try:
        db = ladybug.Database(str(path), read_only=True)
    except RuntimeError:
        return False
    conn = ladybug.Connection(db)
    try:
        return _completed(conn)
    finally:
        conn.close()
        db.close()


def incomplete_message(path: Path) -> str:
    """What to say of an incomplete store: what it is and the command that rebuilds it."""
    return (f"{path} is not a complete kg store (its run did not finish, or an older kg wrote it): rebuild it "
            f"with `kg run PIPELINE` for the pipeline whose outputs.store it is (`make run` for {DEFAULT_STORE}), "
            f"or `kg build RECORDS --db {path}`")  # fmt: skip


def check_target(path: Path) -> None:
    """A :class:`StoreError` unless ``path`` is free or holds a LadybugDB database kg may replace."""
    refuse_folder(path, "store")
    if path.exists() and not is_ladybug(path):
        raise StoreError(f"{path} exists and is not a LadybugDB store: kg does not replace it "
                         "(move it away or name another path)")  # fmt: skip


def is_ladybug(path: Path) -> bool:
    """Whether ``path`` is a LadybugDB database file."""
    try:
        with path.open("rb") as fh:
            return fh.read(len(_MAGIC)) == _MAGIC
    except OSError:
        return False


def replace_store(tmp: Path, path: Path) -> None:
    """Move the finished database ``tmp`` to ``path`` in one step (readers open one or the other).

    A finished database is one file (its write-ahead log checkpointed on close); the log an older
    kg left beside ``path`` would be replayed against the new file, so it goes first.
    """
    Path(str(path) + ".wal").unlink(missing_ok=True)
    os.replace(tmp, path)


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


def update_embedded(path: str | Path, delta: GraphDelta, *, into: str | Path | None = None) -> dict[str, int]:
    """Apply ``delta`` to a copy of the database at ``path`` in one transaction, and put the copy in its place.

    The store at ``path`` stays as it was, readable, until the updated copy replaces it
    (:func:`replace_store`). With ``into`` (a free path kg chose), the updated copy is left
    there and ``path`` is not touched: the caller moves it in. New rows go in with
    ``UNWIND $rows ... CREATE`` (nodes before relationships), changes with ``UNWIND $rows ... SET``.
    Returns the rows added or changed per table.
    """
    path = Path(path)
    if not is_ladybug(path):
        raise StoreError(f"no embedded database at {path} to update")
    if not is_complete(path):
        raise StoreError(incomplete_message(path))
    counts: dict[str, int] = {}
    tmp = Path(into) if into is not None else temp_beside(path)
    try:
        shutil.copyfile(path, tmp)
        with _written():
            _apply(path, tmp, delta, counts)
        if into is None:
            replace_store(tmp, path)
    finally:
        if into is None:
            remove_temp(tmp)
    return counts


def _apply(source: Path, tmp: Path, delta: GraphDelta, counts: dict[str, int]) -> None:
    """Apply ``delta`` to the database at ``tmp`` (a copy of ``source``), counting rows into
    ``counts``: one transaction, then the relationship tables :func:`_rewritten` picks are loaded
    anew from the Parquet files :func:`_anew` writes meanwhile, from ``source``, in a process of
    its own (LadybugDB holds the interpreter's lock while it checkpoints the transaction: 16-26 s
    for 1,000 new arXiv ML papers, beside the 5 s of reading and filtering 2.2 million links)."""
    rewritten = _rewritten(delta)
    folder = Path(str(tmp) + ".copy")
    with _removed(folder), ExitStack() as running:  # (the processes end before their folder goes)
        if rewritten:
            folder.mkdir()
        anew = {rel: running.enter_context(_elsewhere(folder / rel, _anew, source, rel, delta.rel_deletes.get(rel, []),
                                                      delta.rels.get(rel, []), folder))
                for rel in rewritten}  # fmt: skip
        _transaction(tmp, delta, rewritten, counts)
        for rel, files in anew.items():
            with _connection(tmp) as conn:
                conn.execute(f"DROP TABLE {rel}")
                conn.execute(cypher.rel_ddl(rel))
            # every core: an update holds no corpus graph, and this COPY is its store's longest step
            # (150,965 arXiv ML papers' 2.2 million links: 12.5-13.2 s at one thread, 9.3-10.2 s at two)
            _copy(tmp, rel, files(), threads=0)
            counts[f"{rel} deleted"], counts[rel] = len(delta.rel_deletes.get(rel, [])), len(delta.rels.get(rel, []))
    if rewritten:
        with _connection(tmp) as conn:
            _mark(conn, complete=True)


def _transaction(tmp: Path, delta: GraphDelta, rewritten: list[str], counts: dict[str, int]) -> None:
    """``delta`` but the ``rewritten`` tables' rows, in one transaction on the database at ``tmp``."""
    import ladybug

    db = ladybug.Database(str(tmp))
    try:
        conn = ladybug.Connection(db)
        _mark(conn, complete=False)
        conn.execute("BEGIN TRANSACTION")
        try:
            for rel, rows in delta.rel_deletes.items():
                if rel not in rewritten:
                    counts[f"{rel} deleted"] = _batches(conn, cypher.delete_rels(rel), rows)
            for label in NODE_TABLES:
                counts[label] = _batches(conn, cypher.ladybug_create_nodes(label), delta.nodes.get(label, []))
            for rel in REL_TABLES:
                if rel not in rewritten:
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
        if not rewritten:
            _mark(conn, complete=True)
        conn.close()
    finally:
        db.close()  # checkpoints: the copy is one file again


@contextmanager
def _elsewhere(work: Path, fn: Callable[..., Any], *args: Any) -> Iterator[Callable[[], Any]]:
    """``fn(*args)`` run in a new Python process (:func:`_serve`) while the block
    runs: yields a function that waits for its result, or raises its error. ``work`` is a path
    prefix for the call and its result. A new interpreter, not :mod:`multiprocessing`: a forked
    one would share the pages this process writes meanwhile, and a spawned one would run a user's
    script again if it has no ``if __name__ == "__main__"`` guard. The process is ended on leaving
    the block."""
    call, result = Path(f"{work}.call"), Path(f"{work}.result")
    call.write_bytes(pickle.dumps((fn.__module__, fn.__name__, args, str(result)), pickle.HIGHEST_PROTOCOL))
    serve = "import sys; from pathlib import Path; from kg.store.embedded import _serve; _serve(Path(sys.argv[1]))"
    # the same kg, wherever it is (-P: not one in the working folder)
    env = os.environ | {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    process = subprocess.Popen([sys.executable, "-P", "-c", serve, str(call)], stdin=subprocess.DEVNULL, env=env)

    def wait() -> Any:
        if process.wait() != 0 or not result.exists():
            raise StoreError(f"a process kg started to write the store stopped (exit code {process.returncode})")
        ok, value = pickle.loads(result.read_bytes())
        if not ok:
            raise value
        return value

    try:
        yield wait
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _serve(call: Path) -> None:
    """Run the call :func:`_elsewhere` wrote to ``call``, and write its result, or error, where it asks."""
    module, name, args, result = pickle.loads(call.read_bytes())
    try:
        out: tuple[bool, Any] = (True, getattr(importlib.import_module(module), name)(*args))
    except Exception as exc:  # handed back to the caller, which raises it
        out = (False, exc)
    Path(result).write_bytes(pickle.dumps(out, pickle.HIGHEST_PROTOCOL))


@contextmanager
def _removed(folder: Path) -> Iterator[None]:
    try:
        yield
    finally:
        remove(folder)


#: Rows deleted and added from which a relationship table with a list column is written anew
#: (:func:`_anew`) instead of changed in place. LadybugDB's checkpoint rewrites every part of
#: such a table that a change touched, slowly, and 1,000 new ACL papers touch nearly all of
#: them: their 25,542 links and the 10,921 old links they push out took a 30.6 s COMMIT on the
#: 902,731 stored links (0.9 s without the ``shared`` list column), against 4.2 s to write the
#: table anew. Below this, the few parts touched cost less than a whole table.
REWRITE_ROWS = 1_000


def _rewritten(delta: GraphDelta) -> list[str]:
    """The relationship tables with a list column that ``delta`` changes by :data:`REWRITE_ROWS` rows or more."""
    changed = {rel: len(delta.rel_deletes.get(rel, ())) + len(delta.rels.get(rel, ())) for rel in REL_TABLES}
    return [rel for rel, (_, _, props) in REL_TABLES.items() if _has_list(props) and changed[rel] >= REWRITE_ROWS]


def _anew(
    source: Path, rel: str, deleted: list[dict[str, Any]], added: list[dict[str, Any]], folder: Path
) -> list[Path]:
    """The ``rel`` table of the database at ``source`` written anew to Parquet files in ``folder``,
    to be loaded with ``COPY`` as a new store's tables are (:func:`_copy`): what the table holds
    (exported) but the ``deleted`` pairs, then the ``added`` rows."""
    import ladybug

    props = [("from", "STRING"), ("to", "STRING"), *REL_TABLES[rel][2]]
    schema = _schema(props)
    gone = {(row["from"], row["to"]) for row in deleted}
    stored = folder / f"{rel}-stored.parquet"
    db = ladybug.Database(str(source), read_only=True, max_num_threads=1)
    try:
        conn = ladybug.Connection(db)
        conn.execute(cypher.copy_rels_to(rel, str(stored)))
        conn.close()
    finally:
        db.close()

    def rows() -> Iterator[pa.Table]:
        for batch in pq.ParquetFile(stored).iter_batches(COPY_CHUNK):
            pairs = zip(batch.column("from").to_pylist(), batch.column("to").to_pylist(), strict=True)
            keep = pa.array([pair not in gone for pair in pairs], pa.bool_())
            yield pa.Table.from_batches([batch]).filter(keep).cast(schema)
        for chunk in _chunks(added, COPY_CHUNK):
            yield pa.Table.from_pylist(chunk, schema=schema)

    files = _parquet_files(rel, rows(), schema, None, folder)
    stored.unlink()
    return files


def _batches(conn: Any, statement: str, rows: list[dict[str, Any]], size: int = 5000) -> int:
    for start in range(0, len(rows), size):
        conn.execute(statement, {"rows": rows[start : start + size]})
    return len(rows)


#: Rows turned into Arrow and written to a Parquet file at a time (one row group each): the
#: graph is still held while they are, so they come on top of it (the ACL corpus's store: +226 MB
#: over the graph at 50,000 rows, +103 MB at 10,000).
COPY_CHUNK = 10_000
#: Rows loaded by one ``COPY``. A COPY into a relationship table that has rows costs time in
#: proportion to the rows it has, so a COPY per 50,000 rows made a corpus's store quadratic to
#: write (150,965 arXiv papers: 845 s); one COPY of a whole table holds all its new rows in the
#: buffer pool at once (+2.9 GB there). Half a million rows a COPY keeps both in bounds.
COPY_ROWS = 500_000
# A table with a list column (``SHARES_CONCEPTS.shared``, the relations' ``papers``, ``authors``,
# ``aliases``) is loaded by one COPY, whatever its size: a second COPY into such a table is
# slower by far (61,839 ACL papers, 899,686 links: 3.6 + 58.4 s in two COPYs, 6.5 s in one, the
# same without the list column 1.4 + 1.9 s; 150,965 arXiv ML papers, 2,205,525 links: 11.1 +
# 165.5 s in two, 11.7 s in one). One COPY of the arXiv links takes +562 MB; of the ACL ones +418.


def _parquet(table: str, rows: Iterable[dict[str, Any]], props: list[tuple[str, str]], folder: Path) -> list[Path]:
    """``rows`` of ``table`` in Parquet files in ``folder``, one COPY each: :data:`COPY_ROWS` rows a file,
    or one file for a table with a list column."""
    schema = _schema(props)
    chunks = (pa.Table.from_pylist(chunk, schema=schema) for chunk in _chunks(rows, COPY_CHUNK))
    return _parquet_files(table, chunks, schema, None if _has_list(props) else COPY_ROWS, folder)


def _parquet_files(
    table: str, chunks: Iterable[pa.Table], schema: pa.Schema, per_file: int | None, folder: Path
) -> list[Path]:
    """``chunks`` written to Parquet files ``<folder>/<table>-<n>.parquet``, a new file once one holds
    ``per_file`` rows (one row group a chunk; one file when ``per_file`` is None)."""
    files: list[Path] = []
    out: pq.ParquetWriter | None = None
    in_file = 0
    try:
        for chunk in chunks:
            if out is None or (per_file is not None and in_file >= per_file):
                if out is not None:
                    out.close()
                files.append(folder / f"{table}-{len(files)}.parquet")
                out, in_file = pq.ParquetWriter(files[-1], schema), 0
            out.write_table(chunk)
            in_file += chunk.num_rows
    finally:
        if out is not None:
            out.close()
    return files


def _chunks(rows: Iterable[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    rows = iter(rows)
    while chunk := list(islice(rows, size)):
        yield chunk


def _schema(props: list[tuple[str, str]]) -> pa.Schema:
    return pa.schema([(p, _ARROW[t]) for p, t in props])


def _has_list(props: list[tuple[str, str]]) -> bool:
    return any(t.endswith("[]") for _, t in props)


def _copy(path: Path, table: str, files: list[Path], *, threads: int = 1) -> int:
    """Load ``table`` of the database at ``path`` from Parquet ``files`` (:func:`_parquet`), one ``COPY`` a file
    on ``threads`` threads (:func:`_connection`).

    Each COPY opens the database for itself: LadybugDB keeps every page it wrote in its buffer
    pool until closed, so one connection would hold the whole table in memory; and what the
    closed database freed is handed back to the system before the next COPY
    (:func:`give_back_memory`). 61,839 ACL papers: the process holds 2,622 MB after the store
    instead of 3,054. A COPY into a table that has rows reads what the table has (the second
    500,000 MENTIONS: +830 MB). Returns the rows loaded.
    """
    written = 0
    for file in files:
        with _connection(path, threads=threads) as conn:
            conn.execute(cypher.copy_from(table, str(file)))
        give_back_memory()
        written += pq.ParquetFile(file).metadata.num_rows
    return written


def query_embedded(
    path: str | Path, query: str, params: Mapping[str, Any] | None = None, *, timeout: float = DEFAULT_TIMEOUT
) -> QueryResult:
    """Run a user's Cypher query against the database at ``path``: one statement that only reads
    (anything else is refused, see :mod:`kg.store.readonly`), stopped after ``timeout`` seconds."""
    with reader(path, user=True, timeout=timeout) as run:
        return run(query, params)


@contextmanager
def reader(
    path: str | Path, *, user: bool = False, timeout: float | None = None, tuples: bool = False, fresh: bool = False
) -> Iterator[Callable[..., QueryResult]]:
    """One read-only connection to the database at ``path``, as a function that runs queries.

    With ``user``, each query is a user's and goes through :func:`kg.store.readonly.run_ladybug`
    first; ``timeout`` (seconds) stops any query that runs longer. With ``tuples``, a row is a
    tuple, not a list: for kg's own bulk reads (the arXiv ML store's pages read 3.3 million rows,
    in 16 s instead of 19 s). With ``fresh``, each query opens the database anew (about 0.03 s):
    LadybugDB keeps in memory what a connection's queries read until the database is closed,
    so a series of large reads holds the sum of theirs (the stored pages of 150,965 arXiv ML
    papers: 2.3 GB beside their 1.1 GB of graph; the largest of them alone, 0.8 GB).
    """
    import ladybug

    path = Path(path)
    if not path.exists():
        raise StoreError(f"no embedded database at {path} (run `kg run` or `make run` first, or pass --db)")

    def connect() -> tuple[Any, Any]:
        try:
            db = ladybug.Database(str(path), read_only=True)
        except RuntimeError as exc:
            raise StoreError(f"cannot open {path}: {exc}") from exc
        conn = ladybug.Connection(db)
        if timeout is not None:
            conn.set_query_timeout(max(1, round(timeout * 1000)))
        return db, conn

    db, conn = connect()
    if not _completed(conn):
        conn.close()
        db.close()
        raise StoreError(incomplete_message(path))

    def run(query: str, params: Mapping[str, Any] | None = None) -> QueryResult:
        nonlocal db, conn
        if conn is None:
            db, conn = connect()
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
        out = QueryResult(result.get_column_names(), _rows(result, tuples=tuples))
        if fresh:
            del result
            conn.close()
            db.close()
            db = conn = None
        return out

    try:
        yield run
    finally:
        if conn is not None:
            conn.close()
            db.close()


#: Column types whose values Arrow turns into the same Python values as LadybugDB's rows do.
_PLAIN = re.compile(r"(STRING|INT64|INT32|DOUBLE|BOOL|BOOLEAN)(\[\])?")


def _rows(result: Any, *, tuples: bool = False) -> list[Any]:
    """The rows of a result, as lists or ``tuples``; columns of plain values come in bulk through
    Arrow (a large page reads about 200,000 rows), anything else (nodes, relationships, paths...)
    row by row."""
    if result.get_num_tuples() and all(_PLAIN.fullmatch(t) for t in result.get_column_data_types()):
        rows = zip(*(c.to_pylist() for c in result.get_as_arrow(chunk_size=0).columns), strict=True)
        return list(rows) if tuples else [list(row) for row in rows]
    found = []
    while result.has_next():
        row = result.get_next()
        found.append(tuple(row) if tuples else list(row))
    return found


def _first_line(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def read_embedded(path: str | Path) -> nx.DiGraph:
    """Read a knowledge graph written by :func:`write_embedded` back into networkx."""
    with reader(path, tuples=True) as run:
        return graph_from_queries(lambda q: run(q).rows)
