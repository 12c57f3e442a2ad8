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
    return f"COPY {table} FROM {_quoted(path)}"


def copy_rels_to(rel: str, path: str) -> str:
    """Write every ``rel`` relationship to a Parquet file of kg's own: ``from``, ``to`` and its properties
    (the columns :func:`copy_from` loads)."""
    src, dst, props = REL_TABLES[rel]
    cols = "".join(f", r.{p} AS {p}" for p, _ in props)
    query = f"MATCH (a:{src})-[r:{rel}]->(b:{dst}) RETURN a.{_key(src)} AS `from`, b.{_key(dst)} AS `to`{cols}"
    return f"COPY ({query}) TO {_quoted(path)}"


def rel_ddl(rel: str) -> str:
    """The ``CREATE REL TABLE`` statement of ``rel``."""
    return next(ddl for ddl in ladybug_ddl() if ddl.startswith(f"CREATE REL TABLE IF NOT EXISTS {rel}("))


def _quoted(path: str) -> str:
    escaped = path.replace("\\", "\\\\").replace("'", "\\'")
    return f"'{escaped}'"


# --- Neo4j -------------------------------------------------------------------------------
# Every statement takes its values as parameters ($rows, $ids, ...); only kg's own schema
# names (labels, relationship types, property names from kg.store.schema) are in the text.

#: kg's key constraints, by name.
NEO4J_CONSTRAINTS = {
    "kg_paper_id": "CREATE CONSTRAINT kg_paper_id IF NOT EXISTS FOR (n:Paper) REQUIRE n.id IS UNIQUE",
    "kg_concept_key": "CREATE CONSTRAINT kg_concept_key IF NOT EXISTS FOR (n:Concept) REQUIRE n.key IS UNIQUE",
}
NEO4J_CONSTRAINT_NAMES = "SHOW CONSTRAINTS YIELD name RETURN name"


# The writer sends columns, not rows: ``$key``, ``$a``/``$b`` (node element ids) and one list per
# property, read at ``i`` (a list of plain values packs smaller and faster than a list of maps).
_EACH = "UNWIND range(0, size({col}) - 1) AS i "


def neo4j_merge_nodes(label: str) -> str:
    """MERGE each node on its natural key, set every other property; return its key and element id."""
    key, *props = [p for p, _ in NODE_TABLES[label]]
    sets = ", ".join(f"n.{p} = ${p}[i]" for p in props)
    merge = f"MERGE (n:{label} {{{key}: ${key}[i]}}) SET {sets}"
    return _EACH.format(col=f"${key}") + f"{merge} RETURN ${key}[i], elementId(n)"


def neo4j_create_nodes(label: str) -> str:
    """CREATE each node (new to the database) with its properties; return its key and element id."""
    key = NODE_TABLES[label][0][0]
    props = ", ".join(f"{p}: ${p}[i]" for p, _ in NODE_TABLES[label])
    return _EACH.format(col=f"${key}") + f"CREATE (n:{label} {{{props}}}) RETURN ${key}[i], elementId(n)"


def neo4j_create_rels(rel: str) -> str:
    """CREATE relationships between nodes given by element id (``$a``, ``$b``): for ends new to the database."""
    props = ", ".join(f"{p}: ${p}[i]" for p, _ in REL_TABLES[rel][2])
    return f"{_ends()} CREATE (a)-[:{rel} {{{props}}}]->(b)"


def neo4j_merge_rels(rel: str) -> str:
    """MERGE relationships between nodes given by element id (``$a``, ``$b``), then set their properties."""
    sets = ", ".join(f"r.{p} = ${p}[i]" for p, _ in REL_TABLES[rel][2])
    return f"{_ends()} MERGE (a)-[r:{rel}]->(b) SET {sets}"


def _ends() -> str:
    # Element ids of nodes this load wrote or read: a direct record lookup, cheaper than an index seek.
    return _EACH.format(col="$a") + "MATCH (a) WHERE elementId(a) = $a[i] MATCH (b) WHERE elementId(b) = $b[i]"


def neo4j_delete_stale_rels(rel: str) -> str:
    """Delete the ``rel`` edges leaving each node ``$a[i]`` whose far end's key is not in ``$keep[i]``."""
    _, dst, _ = REL_TABLES[rel]
    return (
        _EACH.format(col="$a") + f"MATCH (a)-[r:{rel}]->(b:{dst}) WHERE elementId(a) = $a[i] "
        f"AND NOT b.{_key(dst)} IN $keep[i] DELETE r"
    )


def neo4j_delete_nodes(label: str) -> str:
    """Delete the ``label`` nodes with the keys in ``$keys``, with their relationships."""
    key = _key(label)
    return f"UNWIND $keys AS k MATCH (n:{label} {{{key}: k}}) DETACH DELETE n"


def neo4j_delete_strays(label: str) -> str:
    """Delete the ``label`` nodes whose element id is not in ``$keep``, with their relationships."""
    return f"MATCH (n:{label}) WHERE NOT elementId(n) IN $keep DETACH DELETE n"


def neo4j_node_keys(label: str) -> str:
    key = _key(label)
    return f"MATCH (n:{label}) RETURN n.{key} AS key, elementId(n) AS id"


def neo4j_count(label_or_rel: str) -> str:
    """How many nodes (a label) or relationships (a type) there are: read from Neo4j's count store."""
    if label_or_rel in NODE_TABLES:
        return f"MATCH (n:{label_or_rel}) RETURN count(n)"
    return f"MATCH ()-[r:{label_or_rel}]->() RETURN count(r)"


def set_node_props(label: str, props: list[str]) -> str:
    """``UNWIND $rows`` of key + ``props``: set those properties on the existing nodes (both stores)."""
    key = _key(label)
    sets = ", ".join(f"n.{p} = row.{p}" for p in props)
    return f"UNWIND $rows AS row MATCH (n:{label} {{{key}: row.{key}}}) SET {sets}"


def set_rel_props(rel: str, props: list[str]) -> str:
    """``UNWIND $rows`` of ``from``/``to`` keys + ``props``: set them on the existing relationships."""
    sets = ", ".join(f"r.{p} = row.{p}" for p in props)
    return f"{match_rel(rel)} SET {sets}"


def delete_rels(rel: str) -> str:
    """``UNWIND $rows`` of ``from``/``to`` keys: delete those relationships."""
    return f"{match_rel(rel)} DELETE r"


def _key(label: str) -> str:
    return NODE_TABLES[label][0][0]


def match_rel(rel: str) -> str:
    """``UNWIND $rows`` of ``from``/``to`` keys: the relationship ``r`` between the two.

    Both ends first, then the relationship between them: LadybugDB plans the pattern written
    as one path as a scan of the whole relationship table joined with the rows (arXiv ML,
    2.2 million links: 2,000 looked up in 3.8 s, against 0.44 s so).
    """
    return f"{_match_ends(rel)} MATCH (a)-[r:{rel}]->(b)"


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
