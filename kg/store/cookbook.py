"""The Cypher cookbook: named queries in ``config/queries/*.cypher``.

Each file starts with ``//`` comment lines: a one-line description, then
``// params: name (...), name`` listing its parameters. Queries are written once for both
stores; where LadybugDB's dialect differs, ``NAME.ladybug.cypher`` beside it overrides it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from kg.config import config_dir
from kg.errors import ConfigError

DIALECTS = ("neo4j", "ladybug")
_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True, slots=True)
class CookbookQuery:
    name: str
    description: str
    params: tuple[str, ...]
    text: str


def _dir() -> Path:
    return config_dir() / "queries"


def names() -> list[str]:
    """The names of the cookbook queries."""
    return sorted({p.name.split(".")[0] for p in _dir().glob("*.cypher")})


def load(name: str, dialect: str = "neo4j") -> CookbookQuery:
    """The query ``name`` in the given dialect (``neo4j`` or ``ladybug``)."""
    if dialect not in DIALECTS:
        raise ConfigError(f"unknown Cypher dialect {dialect!r}: expected one of {', '.join(DIALECTS)}")
    path = _dir() / f"{name}.{dialect}.cypher"
    if not path.is_file():
        path = _dir() / f"{name}.cypher"
    if not path.is_file():
        raise ConfigError(f"no cookbook query named {name!r} (known: {', '.join(names())})")
    text = path.read_text(encoding="utf-8")
    comments = [ln[2:].strip() for ln in text.splitlines() if ln.startswith("//")]
    body = "\n".join(ln for ln in text.splitlines() if not ln.startswith("//")).strip()
    return CookbookQuery(
        name=name,
        description=comments[0] if comments else "",
        params=tuple(dict.fromkeys(_PARAM.findall(body))),
        text=body,
    )


def resolve(query: str, dialect: str) -> str:
    """Query text for ``query``: a cookbook name, a ``.cypher`` file, or Cypher itself."""
    if re.fullmatch(r"[a-z_]+", query) and query in names():
        return load(query, dialect).text
    if query.endswith(".cypher"):
        path = Path(query)
        if not path.is_file():
            raise ConfigError(f"query file not found: {query}")
        return path.read_text(encoding="utf-8")
    return query
