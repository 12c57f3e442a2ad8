"""Store stage: the knowledge graph in a Cypher database (embedded LadybugDB by default)."""

from kg.store.embedded import (
    DEFAULT_STORE,
    GraphDelta,
    QueryResult,
    query_embedded,
    read_embedded,
    reader,
    update_embedded,
    write_embedded,
)

__all__ = [
    "DEFAULT_STORE",
    "GraphDelta",
    "QueryResult",
    "query_embedded",
    "read_embedded",
    "reader",
    "update_embedded",
    "write_embedded",
]
