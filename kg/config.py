"""Where kg finds its data files (``config/``) and its shipped model."""

from __future__ import annotations

import json
import os
import tomllib
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from kg.errors import ConfigError

#: The environment variable that points kg at another config folder.
CONFIG_ENV = "KG_CONFIG_DIR"


def config_dir() -> Path:
    """The config folder: ``$KG_CONFIG_DIR``, else the one installed with kg."""
    env = os.environ.get(CONFIG_ENV)
    if env:
        return Path(env)
    return Path(str(resources.files("kg") / "_config"))


def config_path(name: str) -> Path:
    """Path of one config file; a missing file is a :class:`~kg.errors.ConfigError`."""
    path = config_dir() / name
    if not path.exists():
        raise ConfigError(f"config file {name} not found in {path.parent} (set {CONFIG_ENV} to a folder that has it)")
    return path


def read_settings(name: str) -> dict[str, Any]:
    """A TOML config file of :func:`config_dir`, parsed once per path: several components read the
    word lists of ``normalise.toml``. Callers only read what they are given."""
    return _parsed(str(config_path(name)))


@lru_cache(maxsize=8)
def _parsed(path: str) -> dict[str, Any]:
    return tomllib.loads(Path(path).read_text(encoding="utf-8"))


def model_dir() -> Path:
    """The concept model shipped inside the package (trained by ``make model``)."""
    return Path(str(resources.files("kg") / "models" / "concepts"))


def relations_model_dir() -> Path:
    """The relation classifier shipped inside the package (trained by ``make relations-model``)."""
    return Path(str(resources.files("kg") / "models" / "relations"))


#: Deepest nesting of lists and objects in an option value.
MAX_OPTION_DEPTH = 16


def option_value(raw: str, *, what: str) -> Any:
    """A value given on the command line (``--set``, ``-p``): JSON when it is JSON, else the text as it is.

    Text that starts like a JSON list or object but is not one, nesting deeper than
    :data:`MAX_OPTION_DEPTH`, a whole number beyond 64 bits and a list mixing kinds of values
    (a database parameter holds one kind) are a :class:`~kg.errors.ConfigError` naming ``what``.

    >>> option_value("2", what="x"), option_value("bert", what="x"), option_value('["a", "b"]', what="x")
    (2, 'bert', ['a', 'b'])
    >>> option_value('[1, "b"]', what="-p x")
    Traceback (most recent call last):
    ...
    kg.errors.ConfigError: -p x: a list must hold one kind of value (it mixes number and text)
    """
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        if raw.lstrip().startswith(("[", "{")):
            raise ConfigError(
                f"{what}: not valid JSON ({exc.msg} at column {exc.colno}); give text that starts with [ or {{ "
                "as a JSON string, e.g. '\"[draft]\"'"
            ) from None
        return raw
    except RecursionError:
        raise ConfigError(f"{what}: nested too deep (at most {MAX_OPTION_DEPTH} levels)") from None
    except ValueError:
        raise ConfigError(f"{what}: a number with too many digits") from None
    _check_option(value, what, 0)
    return value


def _check_option(value: Any, what: str, depth: int) -> None:
    if depth > MAX_OPTION_DEPTH:
        raise ConfigError(f"{what}: nested too deep (at most {MAX_OPTION_DEPTH} levels)")
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63:
        raise ConfigError(f"{what}: {_digits(value)} is too large a whole number (at most 64 bits)")
    if isinstance(value, list):
        kinds = sorted({_kind(v) for v in value if v is not None})
        if len(kinds) > 1:
            raise ConfigError(f"{what}: a list must hold one kind of value (it mixes {' and '.join(kinds)})")
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    for child in children:
        _check_option(child, what, depth + 1)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "number"  # 1 and 1.5 alike
    names: dict[type, str] = {str: "text", list: "list", dict: "object"}
    return names.get(type(value), type(value).__name__)


def _digits(value: int) -> str:
    text = str(value)
    return text if len(text) <= 30 else f"{text[:12]}...({len(text)} digits)"


#: Rows per write transaction of a Neo4j load (`kg load --batch-size`, ``[outputs.neo4j] batch_size``).
NEO4J_BATCH = 10_000
#: Sessions writing a Neo4j load's batches at once (`--workers`, ``workers``): while one waits on
#: the network or for the client, the server works on the other. More hold more transactions'
#: state in the server's heap and more batches waiting on the same hub nodes' locks: on the full
#: ACL graph on a quiet 2-core machine 2 wrote 32,100 relationships/s and 4 28,900
#: (bench/neo4j_load.py); a server of many cores may take more.
NEO4J_WORKERS = 2


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one), at least 1.

    What ``n_process = "auto"`` resolves to: a container or ``taskset`` limited to two cores of
    a larger machine gets two workers, not one per core it cannot use.
    """
    if hasattr(os, "process_cpu_count"):  # Python 3.13+
        return os.process_cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def resolve_n_process(value: int | str) -> int:
    """Worker processes for extraction: ``"auto"`` is every available core, a number is taken as it is.

    >>> resolve_n_process(1), resolve_n_process("auto") == available_cores()
    (1, True)
    """
    if value == "auto":
        return available_cores()
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise ConfigError(f"n_process {value!r}: give a number of worker processes (1 or more) or auto")
    return n
