"""The Neo4j store: batched, idempotent loading over Bolt with the official driver.

A load makes the database hold exactly the given graph: nodes and relationships are
``MERGE``d on their natural keys in batches (``UNWIND $rows``) inside managed write
transactions, which the driver retries on transient errors; then whatever the graph no
longer has (a re-extracted paper's old mentions, links that changed) is deleted. Loading the
same graph twice changes nothing, and a load that was interrupted is finished by running it
again. Adding papers goes through :func:`kg.build.merge_graphs` first, so counts and links
are computed over everything the database holds.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import networkx as nx

from kg.config import NEO4J_BATCH, NEO4J_WORKERS
from kg.errors import StoreError
from kg.store import cypher, readonly
from kg.store.embedded import QueryResult
from kg.store.schema import EDGE_ATTR, NODE_TABLES, REL_TABLES, graph_from_queries, node_rows

log = logging.getLogger(__name__)

DEFAULT_URI = "bolt://localhost:7687"
#: The URI schemes of the Neo4j driver: plain, TLS (+s) and TLS with any certificate (+ssc).
SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


@dataclass(frozen=True)
class Neo4jSettings:
    """Where and how to connect. The password is never logged or shown in ``repr``; a URI that
    holds credentials (``bolt://user:pw@host``) is refused, as is one the driver cannot use.

    >>> Neo4jSettings(uri="bolt://neo4j:secret@localhost:7687")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kg.errors.StoreError: the Neo4j URI bolt://***@localhost:7687 holds credentials: give the user with --user ...
    """

    uri: str = DEFAULT_URI
    user: str = "neo4j"
    password: str = ""
    database: str | None = None

    def __post_init__(self) -> None:
        parts = urlsplit(self.uri)
        if "@" in parts.netloc:
            raise StoreError(
                f"the Neo4j URI {redact(self.uri)} holds credentials: give the user with --user or NEO4J_USER "
                "and the password in NEO4J_PASSWORD"
            )
        if parts.scheme not in SCHEMES or not parts.hostname:
            raise StoreError(
                f"cannot use the Neo4j URI {self.uri!r}: give bolt://HOST:PORT or neo4j://HOST:PORT "
                "(+s or +ssc after the scheme for TLS), e.g. bolt://localhost:7687"
            )

    def __repr__(self) -> str:
        return (f"Neo4jSettings(uri={redact(self.uri)!r}, user={self.user!r}, password='***', "
                f"database={self.database!r})")  # fmt: skip

    @classmethod
    def from_env(cls, **overrides: str | None) -> Neo4jSettings:
        """Settings from ``NEO4J_URI``, ``NEO4J_USER``, ``NEO4J_PASSWORD``, ``NEO4J_DATABASE``; flags win."""
        env = {
            "uri": os.environ.get("NEO4J_URI", DEFAULT_URI),
            "user": os.environ.get("NEO4J_USER", "neo4j"),
            "password": os.environ.get("NEO4J_PASSWORD", ""),
            "database": os.environ.get("NEO4J_DATABASE") or None,
        }
        env.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**env)  # type: ignore[arg-type]


def _driver(settings: Neo4jSettings) -> Any:
    import neo4j

    # The driver logs each failed connection attempt; kg reports the outcome as one StoreError.
    logging.getLogger("neo4j").setLevel(logging.CRITICAL)
    if not settings.password:
        raise StoreError(f"no password for Neo4j at {settings.uri}: set NEO4J_PASSWORD (kg reads it from there only)")
    try:
        driver = neo4j.GraphDatabase.driver(settings.uri, auth=(settings.user, settings.password))
        driver.verify_connectivity()
    except neo4j.exceptions.AuthError as exc:
        raise StoreError(
            f"Neo4j at {settings.uri} refused user {settings.user}: wrong password? (NEO4J_PASSWORD; {_message(exc)})"
        ) from exc
    except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError, ValueError) as exc:
        raise StoreError(f"cannot connect to Neo4j at {settings.uri} as {settings.user}: {_message(exc)}") from exc
    return driver


def check_neo4j(settings: Neo4jSettings) -> None:
    """Connect and log in once; a :class:`StoreError` in one line says why not."""
    _driver(settings).close()


def _message(exc: Exception) -> str:
    msg = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return msg.strip().splitlines()[0]


def redact(uri: str) -> str:
    """``uri`` without the credentials it may hold: ``bolt://u:pw@host`` -> ``bolt://***@host``.

    >>> redact("neo4j+s://neo4j:pw@db.example.org:7687/x")
    'neo4j+s://***@db.example.org:7687/x'
    """
    parts = urlsplit(uri)
    if "@" not in parts.netloc:
        return uri
    return urlunsplit(parts._replace(netloc="***@" + parts.netloc.rsplit("@", 1)[1]))


def _chunks(n: int, size: int) -> Iterator[slice]:
    for i in range(0, n, size):
        yield slice(i, i + size)


Columns = dict[str, list[Any]]


def node_columns(G: nx.DiGraph, label: str) -> Columns:
    """One list per property of a node table (the rows of :func:`~kg.store.schema.node_rows`, turned)."""
    names = [p for p, _ in NODE_TABLES[label]]
    cols: Columns = {p: [] for p in names}
    for row in node_rows(G, label):
        for p in names:
            cols[p].append(row[p])
    return cols


def rel_columns(G: nx.DiGraph) -> dict[str, Columns]:
    """Per relationship type: ``from``, ``to`` and one list per property, in one pass over the edges."""
    key = {label: props[0][0] for label, props in NODE_TABLES.items()}
    out: dict[str, Columns] = {rel: {"from": [], "to": [], **{p: [] for p, _ in props}}
                               for rel, (_, _, props) in REL_TABLES.items()}  # fmt: skip
    attrs = {rel: [(p, EDGE_ATTR.get(p, p)) for p, _ in props] for rel, (_, _, props) in REL_TABLES.items()}
    nodes = G.nodes
    for u, v, data in G.edges(data=True):
        rel = data.get("rel")
        if rel not in out:
            continue
        src, dst, _ = REL_TABLES[rel]
        cols = out[rel]
        cols["from"].append(nodes[u][key[src]])
        cols["to"].append(nodes[v][key[dst]])
        for p, attr in attrs[rel]:
            cols[p].append(data.get(attr))
    return out


def _batches(cols: Columns, rows: list[int], size: int) -> Iterator[Columns]:
    """``cols`` cut to ``rows``, ``size`` rows at a time: gathered as the writers ask for each batch."""
    for part in _chunks(len(rows), size):
        take = rows[part]
        yield {k: [v[i] for i in take] for k, v in cols.items()}


def write_neo4j(
    G: nx.DiGraph,
    settings: Neo4jSettings,
    *,
    batch_size: int = NEO4J_BATCH,
    workers: int = NEO4J_WORKERS,
    seconds: dict[str, float] | None = None,
) -> dict[str, int]:
    """Make the Neo4j database hold exactly ``G``; returns rows written per label/type.

    Nodes are MERGEd on their keys (CREATEd if new) and give back their element ids; a
    relationship with an end the database did not hold before this load cannot exist yet and is
    CREATEd, one between two nodes that were there is MERGEd (a load that was interrupted, or a
    reload). Node and relationship batches go to ``workers`` sessions at once. At the end the
    counts of every label and type are checked against ``G``. ``seconds``, if given, receives the
    time spent writing each label/type (and ``constraints``: building them after a first load's nodes).
    """
    import neo4j

    counts: dict[str, int] = {}
    seconds = {} if seconds is None else seconds
    driver = _driver(settings)
    try:
        with driver.session(database=settings.database) as session:
            before = {label: dict(session.run(cypher.neo4j_node_keys(label)).values()) for label in NODE_TABLES}
            have = set(session.run(cypher.NEO4J_CONSTRAINT_NAMES).value())
            # A first load (no kg node, no kg constraint) creates the nodes unchecked and the
            # constraints after them: one index build over all the keys costs a fraction of a
            # uniqueness check and an index insert per node. G's keys are unique (they are its
            # nodes); a second writer meanwhile would make the constraint fail, and say so.
            first = not any(before.values()) and not have & set(cypher.NEO4J_CONSTRAINTS)
            if not first:
                for stmt in cypher.NEO4J_CONSTRAINTS.values():
                    session.run(stmt).consume()
            ids: dict[str, dict[str, str]] = {}
            # the relationships' columns are gathered while the server writes the nodes
            with ThreadPoolExecutor(1) as prep, _Writers(driver, settings.database, workers) as writers:
                rels = prep.submit(rel_columns, G)
                for label in NODE_TABLES:
                    t0 = time.perf_counter()
                    cols = node_columns(G, label)
                    ids[label] = _write_nodes(writers, label, cols, before[label], batch_size)
                    seconds[label] = time.perf_counter() - t0
                    counts[label] = len(ids[label])
                    log.info("neo4j: %d nodes of %s in %.1f s", counts[label], label, seconds[label])
                if first:
                    t0 = time.perf_counter()
                    _constrain_new_nodes(session, ids)
                    seconds["constraints"] = time.perf_counter() - t0
                    log.info("neo4j: key constraints over the new nodes in %.1f s", seconds["constraints"])
                for rel, cols in rels.result().items():
                    t0 = time.perf_counter()
                    _write_rels(writers, rel, cols, ids, before, batch_size)
                    seconds[rel] = time.perf_counter() - t0
                    counts[rel] = len(cols["from"])
                    log.info("neo4j: %d relationships of %s in %.1f s", counts[rel], rel, seconds[rel])

            def run(query: str, **params: Any) -> None:
                session.execute_write(lambda tx: tx.run(query, **params).consume())

            for label in NODE_TABLES:
                gone = sorted(set(before[label]) - set(ids[label]))
                for part in _chunks(len(gone), batch_size):
                    run(cypher.neo4j_delete_nodes(label), keys=gone[part])
            held = {name: session.run(cypher.neo4j_count(name)).single(strict=True)[0] for name in counts}
    except neo4j.exceptions.Neo4jError as exc:
        raise StoreError(f"Neo4j load failed: {_message(exc)}") from exc
    except neo4j.exceptions.DriverError as exc:
        raise StoreError(
            f"lost Neo4j at {settings.uri} during the load ({_message(exc)}); run the same load again to finish it"
        ) from exc
    finally:
        driver.close()
    wrong = {name: (held[name], n) for name, n in counts.items() if held[name] != n}
    if wrong:
        what = ", ".join(f"{name} {got} (expected {n})" for name, (got, n) in wrong.items())
        raise StoreError(f"Neo4j at {settings.uri} holds {what} after the load: was it written to meanwhile?")
    return counts


def _constrain_new_nodes(session: Any, ids: dict[str, dict[str, str]]) -> None:
    """Add the key constraints after a first load wrote its nodes unchecked (``ids``: key -> element id)."""
    for label in NODE_TABLES:
        # A batch retried after its commit's answer was lost left twins behind: only ``ids`` stay.
        if session.run(cypher.neo4j_count(label)).single(strict=True)[0] != len(ids[label]):
            query, keep = cypher.neo4j_delete_strays(label), list(ids[label].values())
            session.execute_write(lambda tx, q=query, k=keep: tx.run(q, keep=k).consume())
    for stmt in cypher.NEO4J_CONSTRAINTS.values():
        session.run(stmt).consume()


def _write_nodes(
    writers: _Writers, label: str, cols: Columns, before: dict[str, str], batch_size: int
) -> dict[str, str]:
    """Write the nodes in batches: MERGE those the database held, CREATE the others; key -> element id.

    (CREATE skips MERGE's locked index lookup; the key constraint still refuses a second node.)
    """
    key = NODE_TABLES[label][0][0]
    held: list[int] = []
    new: list[int] = []
    for i, k in enumerate(cols[key]):
        (held if k in before else new).append(i)

    def parts() -> Iterator[tuple[str, dict[str, Any]]]:
        for query, rows in ((cypher.neo4j_merge_nodes(label), held), (cypher.neo4j_create_nodes(label), new)):
            for batch in _batches(cols, rows, batch_size):
                yield query, batch

    ids: dict[str, str] = {}
    writers.all(parts(), lambda records: ids.update((k, i) for k, i in records))
    return ids


class _Writers:
    """``workers`` threads, each with its own session (a session is not thread-safe), running write batches."""

    def __init__(self, driver: Any, database: str | None, workers: int) -> None:
        self._driver, self._database, self.workers = driver, database, workers
        self._pool = ThreadPoolExecutor(max_workers=workers)
        self._local = threading.local()
        self._sessions: list[Any] = []
        self._lock = threading.Lock()

    def __enter__(self) -> _Writers:
        return self

    def __exit__(self, *exc: object) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
        for session in self._sessions:
            session.close()

    def _run(self, query: str, params: dict[str, Any], fetch: bool) -> list[list[Any]]:
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = self._driver.session(database=self._database)
            with self._lock:
                self._sessions.append(session)

        def work(tx: Any) -> list[list[Any]]:
            result = tx.run(query, **params)
            if fetch:
                return result.values()
            result.consume()
            return []

        return session.execute_write(work)

    def all(
        self,
        parts: Iterable[tuple[str, dict[str, Any]]],
        receive: Callable[[list[list[Any]]], Any] | None = None,
    ) -> None:
        """Run every (query, parameters) part, a few ahead of the slowest; stop at the first failure.

        ``receive``, if given, gets the records of each part (in the order of ``parts``)."""
        pending: deque[Future[list[list[Any]]]] = deque()
        fetch = receive is not None

        def done(future: Future[list[list[Any]]]) -> None:
            records = future.result()
            if receive is not None:
                receive(records)

        try:
            for query, params in parts:
                pending.append(self._pool.submit(self._run, query, params, fetch))
                if len(pending) >= 2 * self.workers:
                    done(pending.popleft())
            while pending:
                done(pending.popleft())
        finally:
            for future in pending:  # after a failure: what has not started yet never will
                future.cancel()


def _write_rels(
    writers: _Writers,
    rel: str,
    cols: Columns,
    ids: dict[str, dict[str, str]],
    before: dict[str, dict[str, str]],
    batch_size: int,
) -> None:
    """Write one relationship type, then delete the edges of that type the graph no longer has."""
    src, dst, _ = REL_TABLES[rel]
    merge, create = cypher.neo4j_merge_rels(rel), cypher.neo4j_create_rels(rel)
    old_src, old_dst = before[src], before[dst]
    pairs = list(zip(cols["from"], cols["to"], strict=True))
    both_old: list[int] = []
    fresh: list[int] = []
    for i, (f, t) in enumerate(pairs):
        (both_old if f in old_src and t in old_dst else fresh).append(i)

    src_ids, dst_ids = ids[src], ids[dst]

    def parts() -> Iterator[tuple[str, dict[str, Any]]]:
        for query, rows in ((merge, both_old), (create, fresh)):
            for batch in _batches(cols, rows, batch_size):
                a = [src_ids[k] for k in batch.pop("from")]
                b = [dst_ids[k] for k in batch.pop("to")]
                yield query, {"a": a, "b": b, **batch}

    writers.all(parts())
    # Only nodes that were there before can have edges the graph no longer has.
    keep: dict[str, list[str]] = defaultdict(list)
    for f, t in pairs:
        keep[f].append(t)
    stale = [(old_src[k], keep.get(k, [])) for k in ids[src] if k in old_src]
    writers.all(
        (cypher.neo4j_delete_stale_rels(rel), {"a": [a for a, _ in stale[part]], "keep": [k for _, k in stale[part]]})
        for part in _chunks(len(stale), batch_size)
    )  # fmt: skip


def query_neo4j(
    settings: Neo4jSettings,
    query: str,
    params: Mapping[str, Any] | None = None,
    *,
    write: bool = False,
    timeout: float = readonly.DEFAULT_TIMEOUT,
) -> QueryResult:
    """Run a user's query in a read transaction (a write one if ``write``), stopped after
    ``timeout`` seconds. Only reads are let through, or with ``write`` reads and writes: never
    files, URLs, procedures off a short list or administration (see :mod:`kg.store.readonly`)."""
    readonly.check_text(query, "neo4j")
    with _session(settings, write=write) as run:
        return run(query, params, timeout=timeout, user=True)


@contextmanager
def _session(settings: Neo4jSettings, *, write: bool = False) -> Iterator[Callable[..., QueryResult]]:
    """One driver and session, as a function that runs a query in a managed transaction: a read
    one unless ``write``, stopped after ``timeout`` seconds; with ``user``, Neo4j's plan of the
    query is checked first (:func:`kg.store.readonly.check_neo4j_plan`)."""
    import neo4j

    driver = _driver(settings)
    try:
        access = neo4j.WRITE_ACCESS if write else neo4j.READ_ACCESS
        with driver.session(database=settings.database, default_access_mode=access) as session:

            def run(
                query: str,
                params: Mapping[str, Any] | None = None,
                *,
                timeout: float | None = None,
                user: bool = False,
            ) -> QueryResult:
                @neo4j.unit_of_work(timeout=timeout)
                def work(tx: Any) -> QueryResult:
                    if user:
                        summary = tx.run("EXPLAIN " + query, dict(params or {})).consume()
                        readonly.check_neo4j_plan(summary.query_type, summary.plan, write=write)
                    result = tx.run(query, dict(params or {}))
                    keys = list(result.keys())
                    return QueryResult(keys, [[_plain(v) for v in record.values()] for record in result])

                try:
                    return session.execute_write(work) if write else session.execute_read(work)
                except neo4j.exceptions.Neo4jError as exc:
                    code = exc.code or ""
                    if timeout is not None and "TransactionTimedOut" in code:
                        raise StoreError(readonly.stopped(timeout)) from exc
                    if code.endswith("Statement.AccessMode"):
                        raise readonly.QueryRefused(
                            f"refused: kg query is read-only and this statement writes ({_message(exc)})"
                        ) from exc
                    raise

            yield run
    except neo4j.exceptions.Neo4jError as exc:
        raise StoreError(f"query failed: {_message(exc)}") from exc
    except neo4j.exceptions.DriverError as exc:
        raise StoreError(f"lost Neo4j at {settings.uri}: {_message(exc)}") from exc
    finally:
        driver.close()


def _plain(value: Any) -> Any:
    """Driver values as plain data: nodes, relationships and paths become dicts kg's views read."""
    import neo4j.graph

    if isinstance(value, neo4j.graph.Node):
        return {"_label": next(iter(value.labels), None), "_element_id": value.element_id, **dict(value)}
    if isinstance(value, neo4j.graph.Relationship):
        start, end = value.start_node, value.end_node
        return {
            "_type": value.type,
            "_start": start.element_id if start is not None else None,
            "_end": end.element_id if end is not None else None,
            **dict(value),
        }
    if isinstance(value, neo4j.graph.Path):
        return {"_NODES": [_plain(n) for n in value.nodes], "_RELS": [_plain(r) for r in value.relationships]}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def read_neo4j(settings: Neo4jSettings) -> nx.DiGraph:
    """Read the knowledge graph in Neo4j back into networkx (the inverse of :func:`write_neo4j`)."""
    with _session(settings) as run:
        return graph_from_queries(lambda q: run(q).rows)
