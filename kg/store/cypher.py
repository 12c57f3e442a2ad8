"""All Cypher text kg sends to LadybugDB. Values are always parameters, never formatted in."""

from __future__ import annotations

from kg.store.schema import NODE_TABLES, REL_TABLES


def ladybug_ddl() -> list[str]:
    """``CREATE NODE/REL TABLE`` statements for the schema (LadybugDB needs a schema first)."""
    out = []
    for label, props in NODE_TABLES.items():
        cols = ", ".join(f"{p} {t}" for p, t in props)
        out.append(f"CREATE NODE TABLE IF NOT EXISTS {label}({cols}, PRIMARY KEY ({props[0][0]}))")
    for rel, (src, dst, props) in REL_TABLES.items():
        cols = "".join(f", {p} {t}" for p, t in props)
        out.append(f"CREATE REL TABLE IF NOT EXISTS {rel}(FROM {src} TO {dst}{cols})")
    return out


def copy_from(table: str, path: str) -> str:
    """Bulk load a table from a Parquet file kg wrote itself (the path is ours, not user data)."""
    escaped = path.replace("\\", "\\\\").replace("'", "\\'")
    return f"COPY {table} FROM '{escaped}'"


# --- Neo4j -------------------------------------------------------------------------------
# Every statement takes its values as parameters ($rows, $ids, ...); only kg's own schema
# names (labels, relationship types, property names from kg.store.schema) are in the text.

NEO4J_CONSTRAINTS = [
    "CREATE CONSTRAINT kg_paper_id IF NOT EXISTS FOR (n:Paper) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT kg_concept_key IF NOT EXISTS FOR (n:Concept) REQUIRE n.key IS UNIQUE",
]


def neo4j_merge_nodes(label: str) -> str:
    """``UNWIND $rows MERGE`` on the natural key, then set every other property."""
    key, *props = [p for p, _ in NODE_TABLES[label]]
    sets = ", ".join(f"n.{p} = row.{p}" for p in props)
    return f"UNWIND $rows AS row MERGE (n:{label} {{{key}: row.{key}}}) SET {sets}"


def neo4j_merge_rels(rel: str) -> str:
    """``UNWIND $rows`` of ``from``/``to`` keys: MATCH both ends (two clauses), MERGE, set properties."""
    sets = ", ".join(f"r.{p} = row.{p}" for p, _ in REL_TABLES[rel][2])
    return f"{_match_ends(rel)} MERGE (a)-[r:{rel}]->(b) SET {sets}"


def neo4j_delete_stale_rels(rel: str) -> str:
    """Delete the ``rel`` edges leaving each node in ``$rows`` whose far end is not in ``row.keep``."""
    src, dst, _ = REL_TABLES[rel]
    return (
        f"UNWIND $rows AS row MATCH (a:{src} {{{_key(src)}: row.key}})-[r:{rel}]->(b:{dst}) "
        f"WHERE NOT b.{_key(dst)} IN row.keep DELETE r"
    )


def neo4j_delete_nodes(label: str) -> str:
    """Delete the ``label`` nodes with the keys in ``$keys``, with their relationships."""
    key = _key(label)
    return f"UNWIND $keys AS k MATCH (n:{label} {{{key}: k}}) DETACH DELETE n"


def neo4j_node_keys(label: str) -> str:
    key = _key(label)
    return f"MATCH (n:{label}) RETURN n.{key} AS key"


def set_node_props(label: str, props: list[str]) -> str:
    """``UNWIND $rows`` of key + ``props``: set those properties on the existing nodes (both stores)."""
    key = _key(label)
    sets = ", ".join(f"n.{p} = row.{p}" for p in props)
    return f"UNWIND $rows AS row MATCH (n:{label} {{{key}: row.{key}}}) SET {sets}"


def set_rel_props(rel: str, props: list[str]) -> str:
    """``UNWIND $rows`` of ``from``/``to`` keys + ``props``: set them on the existing relationships."""
    sets = ", ".join(f"r.{p} = row.{p}" for p in props)
    return f"{_match_rel(rel)} SET {sets}"


def delete_rels(rel: str) -> str:
    """``UNWIND $rows`` of ``from``/``to`` keys: delete those relationships."""
    return f"{_match_rel(rel)} DELETE r"


def _key(label: str) -> str:
    return NODE_TABLES[label][0][0]


def _match_rel(rel: str) -> str:
    """``UNWIND $rows`` of ``from``/``to`` keys: the relationship ``r`` between the two."""
    src, dst, _ = REL_TABLES[rel]
    return f"UNWIND $rows AS row MATCH (a:{src} {{{_key(src)}: row.from}})-[r:{rel}]->(b:{dst} {{{_key(dst)}: row.to}})"


def _match_ends(rel: str) -> str:
    """``UNWIND $rows`` of ``from``/``to`` keys: its two end nodes ``a`` and ``b`` (two clauses)."""
    src, dst, _ = REL_TABLES[rel]
    return f"UNWIND $rows AS row MATCH (a:{src} {{{_key(src)}: row.from}}) MATCH (b:{dst} {{{_key(dst)}: row.to}})"


def _typed(props: list[tuple[str, str]]) -> str:
    # LadybugDB infers a parameter's type from its values: cast, so a first null or [] types nothing
    return ", ".join(f"{p}: CAST(row.{p} AS {t})" for p, t in props)


def ladybug_create_nodes(label: str) -> str:
    """``UNWIND $rows CREATE`` of new nodes: logged in LadybugDB's WAL, unlike ``COPY``."""
    return f"UNWIND $rows AS row CREATE (n:{label} {{{_typed(NODE_TABLES[label])}}})"


def ladybug_create_rels(rel: str) -> str:
    """``UNWIND $rows`` of ``from``/``to`` keys: MATCH both ends, CREATE the relationship."""
    return f"{_match_ends(rel)} CREATE (a)-[r:{rel} {{{_typed(REL_TABLES[rel][2])}}}]->(b)"
