"""The pipeline file (TOML): validated before anything runs.

Relative paths are taken from the folder kg is run in (the project root for the shipped
pipelines). ``--set section.key=value`` overrides any setting.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

from kg.config import NEO4J_BATCH, NEO4J_WORKERS, option_value, resolve_n_process
from kg.errors import ConfigError


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Source(_Section):
    path: Path
    format: Literal["auto", "jsonl", "csv", "bibtex", "ris", "openalex", "arxiv", "s2"] = "auto"


class ReadSettings(_Section):
    max_abstract_chars: int = Field(20_000, gt=0)
    min_abstract_chars: int = Field(20, ge=1)
    #: A paper dated outside min_year..max_year is rejected ("implausible year"); no max_year: next year.
    min_year: int = Field(1800, ge=0)
    max_year: int | None = Field(None, ge=0, le=9999)
    #: Merge the same paper (same DOI, arXiv id or title), within and across sources, into one.
    dedupe: bool = True


class ExtractSettings(_Section):
    model: Path | None = None
    batch_size: int = Field(64, gt=0)
    #: Worker processes: "auto" (the default) is every core this process may use; 1 extracts in
    #: the run's own process.
    n_process: int | Literal["auto"] = "auto"
    #: Results are committed to the cache every this many papers (what a kill -9 can lose).
    commit_every: int = Field(500, ge=1)
    #: "local" (spaCy worker processes) or "dask" (shards on a dask.distributed cluster).
    executor: Literal["local", "dask"] = "local"
    #: Address of a running Dask scheduler (tcp://host:8786); empty: a local cluster of n_process workers.
    scheduler: str = ""
    shard_size: int = Field(500, ge=1)

    @field_validator("n_process", mode="before")
    @classmethod
    def _workers(cls, value: Any) -> Any:
        """A number of worker processes, 1 or more, or "auto" (``--set extract.n_process=auto`` too)."""
        if value == "auto":
            return value
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise PydanticCustomError("n_process", 'Input should be a number of worker processes or "auto"')
        if value < 1:
            raise PydanticCustomError("n_process", 'Input should be greater than or equal to 1 (or "auto")')
        return value

    @property
    def processes(self) -> int:
        """``n_process`` as a number: "auto" is every core this process may use."""
        return resolve_n_process(self.n_process)


class LinkSettings(_Section):
    min_shared: int = Field(1, ge=1)
    min_weight: float = Field(0.0, ge=0)
    max_df: float = Field(0.1, gt=0, le=1)
    #: A concept in more than max_df of the papers still links them when it is a topic of the
    #: collection: in at most this many papers and rare in the field (kg.link.papers.linkable).
    topic_papers: int = Field(200, ge=0)
    top_k: int = Field(20, ge=1)
    min_cooccurrence: int = Field(2, ge=1)


class VizSettings(_Section):
    max_nodes: int = Field(2000, ge=1)
    title: str = "kg knowledge graph"
    #: Extra pages written beside outputs.html: the concept map and the paper map.
    views: list[Literal["concepts", "papers"]] = Field(default_factory=lambda: ["concepts", "papers"])  # type: ignore[arg-type]


class AnalyseSettings(_Section):
    enabled: bool = True
    seed: int = 7


class UpdateSettings(_Section):
    #: Add the papers that are new since the last run to the stored graph instead of rebuilding
    #: it, when nothing else changed (no paper edited or gone, same model, config and settings).
    incremental: bool = False
    #: ...but rebuild everything (and recompute the analytics and the report) once the papers
    #: added since the last full run exceed this share of the papers it had.
    refresh: float = Field(0.2, ge=0)


class Neo4jOutput(_Section):
    """A Neo4j the run loads as its last stage; the password comes from ``NEO4J_PASSWORD`` only."""

    uri: str
    #: None: ``NEO4J_USER``, else neo4j
    user: str | None = None
    database: str | None = None
    batch_size: int = Field(NEO4J_BATCH, gt=0)
    workers: int = Field(NEO4J_WORKERS, ge=1)

    @model_validator(mode="before")
    @classmethod
    def _no_password(cls, data: Any) -> Any:
        if isinstance(data, dict) and "password" in data:
            raise ValueError("no password here: kg reads it from NEO4J_PASSWORD only")
        return data


class Outputs(_Section):
    """Where a run writes: only the outputs named here are written (a key left out skips its output)."""

    store: Path | None = None
    html: Path | None = None
    mentions: Path | None = None
    rejects: Path | None = None
    cache: Path | None = None
    report: Path | None = None
    report_html: Path | None = None
    report_md: Path | None = None
    neo4j: Neo4jOutput | None = None

    @field_validator("*", mode="before")
    @classmethod
    def _empty_skips(cls, value: Any) -> Any:
        """``--set outputs.html=`` (empty) skips an output the file names."""
        return None if value == "" else value


class PipelineSpec(_Section):
    name: str
    description: str = ""
    sources: list[Source] = Field(min_length=1)
    read: ReadSettings = Field(default_factory=ReadSettings)
    extract: ExtractSettings = Field(default_factory=ExtractSettings)
    link: LinkSettings = Field(default_factory=LinkSettings)
    analyse: AnalyseSettings = Field(default_factory=AnalyseSettings)
    viz: VizSettings = Field(default_factory=VizSettings)
    update: UpdateSettings = Field(default_factory=UpdateSettings)
    outputs: Outputs = Field(default_factory=Outputs)


#: Environment variables ``KG__SECTION__KEY=value`` override a setting (before ``--set``).
ENV_PREFIX = "KG__"


def env_overrides(environ: Mapping[str, str] | None = None) -> list[str]:
    """``section.key=value`` overrides from the environment.

    >>> env_overrides({"KG__EXTRACT__N_PROCESS": "2", "HOME": "/x"})
    ['extract.n_process=2']
    """
    environ = os.environ if environ is None else environ
    return [
        k[len(ENV_PREFIX) :].lower().replace("__", ".") + "=" + v
        for k, v in sorted(environ.items())
        if k.startswith(ENV_PREFIX)
    ]


def load_pipeline_file(path: str | Path, overrides: list[str] | None = None) -> PipelineSpec:
    """Read and validate a pipeline file, then apply ``KG__...`` variables and ``overrides``.

    ``overrides`` are ``section.key=value`` strings, as given to ``kg run --set``.
    """
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"pipeline file not found: {path}")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from exc
    for item in [*env_overrides(), *(overrides or [])]:
        _apply_override(data, item, path)
    try:
        return PipelineSpec.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(p) for p in err["loc"]) or "(top level)"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise ConfigError(f"{path}: {key}: {err['msg']}{more}") from exc


def _apply_override(data: dict[str, Any], item: str, path: Path) -> None:
    if "=" not in item:
        raise ConfigError(f"override {item!r}: expected section.key=value, e.g. extract.n_process=2")
    dotted, raw = item.split("=", 1)
    keys = dotted.strip().split(".")
    value = option_value(raw, what=f"override {dotted.strip()}")
    node: Any = data
    for k in keys[:-1]:
        if isinstance(node, list) and k.isdigit() and int(k) < len(node):
            node = node[int(k)]  # sources.0.path
        elif isinstance(node, dict):
            node = node.setdefault(k, {})
        else:
            raise ConfigError(f"override {item!r}: {k} in {path} is not a section")
    if isinstance(node, list) and keys[-1].isdigit() and int(keys[-1]) < len(node):
        node[int(keys[-1])] = value
    elif isinstance(node, dict):
        node[keys[-1]] = value
    else:
        raise ConfigError(f"override {item!r}: cannot set {keys[-1]} in {path}")
