"""The Cypher cookbook: named queries in ``config/queries/*.cypher``.

Each file starts with ``//`` comment lines: a one-line description, then a ``// params:`` line
giving each parameter its default and what it is, as
``// params: type = "" (Method, Technique, ... or "" for all), limit = 20``; a default is a JSON
value. Queries are written once for both stores; where LadybugDB's dialect differs,
``NAME.ladybug.cypher`` beside it overrides it. Values reach the query as parameters, never as
query text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kg.config import config_dir
from kg.errors import ConfigError

DIALECTS = ("neo4j", "ladybug")
_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
#: One parameter of a ``// params:`` line: ``name = default (what it is)``, then a comma or the end.
_HEADER_PARAM = re.compile(
    r"""\s*(?P<name>[A-Za-z_]\w*)
        (?:\s*=\s*(?P<default>"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false))?
        (?:\s*\((?P<note>(?:[^()]|\([^()]*\))*)\))?
        \s*(?:,|$)""",
    re.X,
)
#: A query argument that is one word, so not Cypher: a cookbook name (or a mistyped one).
_NAME = re.compile(r"[A-Za-z_][\w.-]*")


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    default: Any
    #: What the parameter is, as the header says.
    note: str = ""


@dataclass(frozen=True, slots=True)
class CookbookQuery:
    name: str
    description: str
    params: tuple[str, ...]
    text: str
    #: Each parameter with its default, in the header's order.
    parameters: tuple[Param, ...] = ()

    @property
    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.parameters}


def _dir() -> Path:
    return config_dir() / "queries"


def names() -> list[str]:
    """The names of the cookbook queries."""
    return sorted({p.name.split(".")[0] for p in _dir().glob("*.cypher")})


def parse_params(line: str, *, where: str = "") -> tuple[Param, ...]:
    """The parameters of a ``// params:`` line, each with its default.

    >>> parse_params('type = "" (Method, Technique, or "" for all), limit = 20')
    (Param(name='type', default='', note='Method, Technique, or "" for all'), Param(name='limit', default=20, note=''))
    """
    params, pos = [], 0
    while pos < len(line.rstrip()):
        m = _HEADER_PARAM.match(line, pos)
        if not m or m.end() == pos:
            raise ConfigError(
                f"{where}: cannot read the params line at {line[pos:]!r}: write name = default (note), ..."
            )
        if m["default"] is None:
            raise ConfigError(f"{where}: parameter {m['name']!r} has no default: write {m['name']} = VALUE")
        params.append(Param(m["name"], json.loads(m["default"]), (m["note"] or "").strip()))
        pos = m.end()
    return tuple(params)


def load(name: str, dialect: str = "neo4j") -> CookbookQuery:
    """The query ``name`` in the given dialect (``neo4j`` or ``ladybug``)."""
    if dialect not in DIALECTS:
        raise ConfigError(f"unknown Cypher dialect {dialect!r}: expected one of {', '.join(DIALECTS)}")
    path = _dir() / f"{name}.{dialect}.cypher"
    if not path.is_file():
        path = _dir() / f"{name}.cypher"
    if not path.is_file():
        raise ConfigError(f"no cookbook query named {name!r}; the cookbook has: {', '.join(names())}")
    text = path.read_text(encoding="utf-8")
    comments = [ln[2:].strip() for ln in text.splitlines() if ln.startswith("//")]
    body = "\n".join(ln for ln in text.splitlines() if not ln.startswith("//")).strip()
    header = next((c.removeprefix("params:") for c in comments if c.startswith("params:")), "")
    return CookbookQuery(
        name=name,
        description=comments[0] if comments else "",
        params=tuple(dict.fromkeys(_PARAM.findall(body))),
        text=body,
        parameters=parse_params(header, where=str(path)),
    )


def prepare(query: str, dialect: str, params: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """Query text and parameters for ``query``: a cookbook name, a ``.cypher`` file, or Cypher itself.

    A cookbook query's parameters are its defaults, then ``params``; a parameter it does not
    have is an error, and so is a single word that names no query and no file.
    """
    params = dict(params or {})
    if query.endswith(".cypher"):
        path = Path(query)
        if not path.is_file():
            raise ConfigError(f"query file not found: {query}")
        return path.read_text(encoding="utf-8"), params
    if not _NAME.fullmatch(query):
        return query, params
    if query not in names():
        raise ConfigError(f"no cookbook query named {query!r}; the cookbook has: {', '.join(names())}")
    q = load(query, dialect)
    if unknown := sorted(set(params) - set(q.params)):
        have = ", ".join(q.params) or "none"
        raise ConfigError(f"{query} has no parameter {unknown[0]!r} (its parameters: {have})")
    return q.text, q.defaults | params


def listing() -> str:
    """The cookbook as text: each query, what it answers, and its parameters with their defaults."""
    lines = []
    for name in names():
        q = load(name)
        lines.append(f"{name}: {q.description}")
        for p in q.parameters:
            note = f"  ({p.note})" if p.note else ""
            lines.append(f"    -p {p.name}={json.dumps(p.default, ensure_ascii=False)}{note}")
    return "\n".join(lines)
