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

import networkx as nx

from kg.errors import StoreError
from kg.store import cypher
from kg.store.embedded import QueryResult
from kg.store.schema import NODE_TABLES, REL_TABLES, graph_from_queries, node_rows, rel_rows

log = logging.getLogger(__name__)

DEFAULT_URI = "bolt://localhost:7687"
DEFAULT_BATCH = 5000


@dataclass(frozen=True)
class Neo4jSettings:
    """Where and how to connect. The password is never logged or shown in ``repr``."""

    uri: str = DEFAULT_URI
    user: str = "neo4j"
    password: str = ""
    database: str | None = None

    def __repr__(self) -> str:
        return f"Neo4jSettings(uri={self.uri!r}, user={self.user!r}, password='***', database={self.database!r})"

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
    settings: Neo4jSettings, query: str, params: Mapping[str, Any] | None = None, *, write: bool = False
) -> QueryResult:
    """Run one query; read-only unless ``write`` (Neo4j refuses writes in a read transaction)."""
    with _session(settings) as run:
        return run(query, params, write=write)


@contextmanager
def _session(settings: Neo4jSettings) -> Iterator[Callable[..., QueryResult]]:
    """One driver and session, as a function that runs a query in a managed transaction."""
    import neo4j

    driver = _driver(settings)
    try:
        with driver.session(database=settings.database) as session:

            def run(query: str, params: Mapping[str, Any] | None = None, *, write: bool = False) -> QueryResult:
                def work(tx: Any) -> QueryResult:
                    result = tx.run(query, dict(params or {}))
                    keys = list(result.keys())
                    return QueryResult(keys, [[_plain(v) for v in record.values()] for record in result])

                return session.execute_write(work) if write else session.execute_read(work)

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
