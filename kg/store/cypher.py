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
