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
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import networkx as nx

from kg.errors import StoreError
from kg.store import cypher, readonly
from kg.store.embedded import QueryResult
from kg.store.schema import NODE_TABLES, REL_TABLES, graph_from_queries, node_rows, rel_rows

log = logging.getLogger(__name__)

DEFAULT_URI = "bolt://localhost:7687"
DEFAULT_BATCH = 5000
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

    try:
        driver = neo4j.GraphDatabase.driver(settings.uri, auth=(settings.user, settings.password))
        driver.verify_connectivity()
    except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError, ValueError) as exc:
        raise StoreError(f"cannot connect to Neo4j at {settings.uri} as {settings.user}: {_message(exc)}") from exc
    return driver


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


def _batches(rows: list[Any], size: int) -> Iterator[list[Any]]:
    for i in range(0, len(rows), size):
        yield rows[i : i + size]


def write_neo4j(
    G: nx.DiGraph, settings: Neo4jSettings, *, batch_size: int = DEFAULT_BATCH, seconds: dict[str, float] | None = None
) -> dict[str, int]:
    """Make the Neo4j database hold exactly ``G``; returns rows written per label/type.

    ``seconds``, if given, receives the time spent writing each label/type.
    """
    import neo4j

    counts: dict[str, int] = {}
    seconds = {} if seconds is None else seconds
    keys = {label: [d[props[0][0]] for _, d in G.nodes(data=True) if d.get("kind") == label]
            for label, props in NODE_TABLES.items()}  # fmt: skip
    driver = _driver(settings)
    try:
        with driver.session(database=settings.database) as session:
            for stmt in cypher.NEO4J_CONSTRAINTS:
                session.run(stmt).consume()

            def run(query: str, **params: Any) -> None:
                session.execute_write(lambda tx: tx.run(query, **params).consume())

            def write(table: str, query: str, rows: list[dict[str, Any]]) -> None:
                t0 = time.perf_counter()
                for batch in _batches(rows, batch_size):
                    run(query, rows=batch)
                seconds[table] = time.perf_counter() - t0
                counts[table] = len(rows)
                log.info("neo4j: %d rows of %s", len(rows), table)

            before = {label: {r["key"] for r in session.run(cypher.neo4j_node_keys(label))} for label in NODE_TABLES}
            for label in NODE_TABLES:
                write(label, cypher.neo4j_merge_nodes(label), list(node_rows(G, label)))
            for rel, (src, _, _) in REL_TABLES.items():
                rows = list(rel_rows(G, rel))
                write(rel, cypher.neo4j_merge_rels(rel), rows)
                # Only nodes that were there before can have edges the graph no longer has.
                keep: dict[str, list[str]] = defaultdict(list)
                for row in rows:
                    keep[row["from"]].append(row["to"])
                stale = [{"key": k, "keep": keep.get(k, [])} for k in keys[src] if k in before[src]]
                for batch in _batches(stale, batch_size):
                    run(cypher.neo4j_delete_stale_rels(rel), rows=batch)
            for label in NODE_TABLES:
                gone = sorted(before[label] - set(keys[label]))
                for batch in _batches(gone, batch_size):
                    run(cypher.neo4j_delete_nodes(label), keys=batch)
    except neo4j.exceptions.Neo4jError as exc:
        raise StoreError(f"Neo4j load failed: {_message(exc)}") from exc
    except neo4j.exceptions.DriverError as exc:
        raise StoreError(
            f"lost Neo4j at {settings.uri} during the load ({_message(exc)}); run the same load again to finish it"
        ) from exc
    finally:
        driver.close()
    return counts


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
