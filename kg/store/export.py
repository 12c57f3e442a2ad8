"""File exports: ``neo4j-admin database import`` CSVs for very large graphs, GraphML and GEXF."""

from __future__ import annotations

import csv
import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import networkx as nx

from kg.store.schema import NODE_TABLES, REL_TABLES, node_rows, rel_rows

FORMATS = ("neo4j-admin", "graphml", "gexf")
#: Between the items of a list property in the CSVs (names and titles may contain ";").
ARRAY_DELIMITER = "\x1f"
_ADMIN_TYPES = {"STRING": "", "INT64": ":long", "DOUBLE": ":double", "BOOLEAN": ":boolean", "STRING[]": ":string[]"}


def export(G: nx.DiGraph, fmt: str, dest: str | Path) -> list[Path]:
    """Write ``G`` in ``fmt`` to ``dest`` (a folder for ``neo4j-admin``, a file otherwise)."""
    if fmt == "neo4j-admin":
        return write_neo4j_admin(G, Path(dest))
    if fmt in ("graphml", "gexf"):
        path = Path(dest)
        path.parent.mkdir(parents=True, exist_ok=True)
        flat = _flat(G)
        (nx.write_graphml if fmt == "graphml" else nx.write_gexf)(flat, path)
        return [path]
    from kg.errors import ConfigError

    raise ConfigError(f"unknown export format {fmt!r}: expected one of {', '.join(FORMATS)}")


def write_neo4j_admin(G: nx.DiGraph, folder: Path) -> list[Path]:
    """One CSV per label and relationship type with neo4j-admin headers, and the import command."""
    folder.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    nodes, rels = [], []
    for label, props in NODE_TABLES.items():
        header = [f"{props[0][0]}:ID({label})"] + [p + _ADMIN_TYPES[t] for p, t in props[1:]] + [":LABEL"]
        path = folder / f"nodes-{label}.csv"
        _write(path, header, ([*_cells(row, props), label] for row in node_rows(G, label)))
        files.append(path)
        nodes.append(path.name)
    for rel, (src, dst, props) in REL_TABLES.items():
        header = [f":START_ID({src})", f":END_ID({dst})"] + [p + _ADMIN_TYPES[t] for p, t in props] + [":TYPE"]
        path = folder / f"rels-{rel}.csv"
        _write(path, header, ([row["from"], row["to"], *_cells(row, props, skip=0), rel] for row in rel_rows(G, rel)))
        files.append(path)
        rels.append(path.name)
    command = [
        "neo4j-admin", "database", "import", "full",
        *(f"--nodes={n}" for n in nodes),
        *(f"--relationships={r}" for r in rels),
        "--array-delimiter=U+001F", "--multiline-fields=true", "--overwrite-destination=true", "neo4j",
    ]  # fmt: skip
    script = folder / "import.sh"
    script.write_text(
        '#!/bin/sh\n# Run from this folder with Neo4j stopped; then start Neo4j.\nset -e\ncd "$(dirname "$0")"\n'
        + shlex.join(command)
        + "\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    files.append(script)
    return files


def admin_import_args(folder: Path, database: str = "neo4j") -> list[str]:
    """The arguments after ``neo4j-admin`` that import ``folder`` (as written by :func:`write_neo4j_admin`)."""
    args = shlex.split((folder / "import.sh").read_text(encoding="utf-8").splitlines()[-1])[1:-1]
    return [a.replace("--nodes=", f"--nodes={folder}/").replace("--relationships=", f"--relationships={folder}/")
            for a in args] + [database]  # fmt: skip


#: Where ``tools/neo4j`` fetches the Neo4j jars (``make neo4j``), in a checkout of kg.
TOOLS = Path(__file__).resolve().parents[2] / "tools" / "neo4j"


def neo4j_admin_command() -> list[str]:
    """How to run ``neo4j-admin``: the one on ``PATH``, else the jars ``tools/neo4j`` fetched."""
    from kg.errors import StoreError

    if found := shutil.which("neo4j-admin"):
        return [found]
    jars = TOOLS / "lib"
    if not any(jars.glob("neo4j-*.jar")):
        raise StoreError("neo4j-admin not found: put Neo4j's bin/ on PATH, or fetch the jars with `make neo4j`")
    # the flags every Neo4j JVM needs, and the heap and JIT of the "load" profile: an import is a big load
    lines = [ln for name in ("jvm.flags", "jvm-load.flags") for ln in (TOOLS / name).read_text("utf-8").splitlines()]
    flags = [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]
    java = str(Path(os.environ["JAVA_HOME"]) / "bin" / "java") if os.environ.get("JAVA_HOME") else "java"
    return [java, *flags, "-cp", f"{jars}/*", "org.neo4j.cli.AdminTool"]


def admin_import(folder: Path, *, home: Path | None, database: str = "neo4j") -> str:
    """``neo4j-admin database import full`` of ``folder`` (from :func:`write_neo4j_admin`) into ``database``.

    Replaces that database; Neo4j must be stopped. ``home`` is the Neo4j home to import into (the
    ``--data`` folder of ``tools/neo4j/start.sh``); None: the home of the ``neo4j-admin`` on ``PATH``.
    Returns neo4j-admin's summary line.
    """
    from kg.errors import StoreError

    command = neo4j_admin_command()
    env = dict(os.environ)
    if home is not None:
        (home / "conf").mkdir(parents=True, exist_ok=True)  # neo4j-admin needs a conf folder, even empty
        env["NEO4J_HOME"] = str(home.resolve())
    elif len(command) > 1:
        raise StoreError("importing with the jars of tools/neo4j needs the Neo4j home to import into (--home)")
    report = folder / "import.report"
    done = subprocess.run([*command, *admin_import_args(folder, database), f"--report-file={report}"],
                          env=env, capture_output=True, text=True)  # fmt: skip
    lines = [ln.strip() for ln in (done.stdout + done.stderr).splitlines() if ln.strip()]
    if done.returncode != 0:
        why = next((ln for ln in reversed(lines) if "rror" in ln or "ailed" in ln), lines[-1] if lines else "")
        raise StoreError(f"neo4j-admin import into {home or 'its home'} failed (is Neo4j stopped?): {why}")
    # "Imported:" is followed by one line per count: "4039 nodes", "6884 relationships", ...
    at = next((i for i, ln in enumerate(lines) if ln.startswith("Imported")), len(lines))
    counts = [ln for ln in lines[at + 1 : at + 4] if re.fullmatch(r"\d+ \w+", ln)]
    return "imported " + ", ".join(counts) if counts else (lines[-1] if lines else "imported")


def _cells(row: dict[str, Any], props: list[tuple[str, str]], skip: int = 1) -> list[Any]:
    out = []
    for p, _ in props[skip:]:
        v = row.get(p)
        if isinstance(v, bool):  # neo4j-admin reads "true"/"false", not Python's spelling
            out.append("true" if v else "false")
        else:
            out.append(ARRAY_DELIMITER.join(v) if isinstance(v, list) else ("" if v is None else v))
    if skip:
        return [row[props[0][0]], *out]
    return out


def _write(path: Path, header: list[str], rows: Any) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(rows)


def _flat(G: nx.DiGraph) -> nx.DiGraph:
    # GraphML and GEXF take scalars only: lists and dicts become JSON text, None is left out.
    def flat(d: dict[str, Any]) -> dict[str, Any]:
        return {
            k: json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else v
            for k, v in d.items()
            if v is not None
        }

    F = nx.DiGraph()
    F.add_nodes_from((n, flat(d)) for n, d in G.nodes(data=True))
    F.add_edges_from((u, v, flat(d)) for u, v, d in G.edges(data=True))
    return F
