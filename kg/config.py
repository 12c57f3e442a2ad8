"""Where kg finds its data files (``config/``) and its shipped model."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

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


def model_dir() -> Path:
    """The concept model shipped inside the package (trained by ``make model``)."""
    return Path(str(resources.files("kg") / "models" / "concepts"))


def relations_model_dir() -> Path:
    """The relation classifier shipped inside the package (trained by ``make relations-model``)."""
    return Path(str(resources.files("kg") / "models" / "relations"))


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
