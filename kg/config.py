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
