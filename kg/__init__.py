"""kg: a knowledge-graph builder for scientific literature.

The stages, in data-flow order, each callable on its own::

    from kg.read import read_records          # files -> Paper | Reject
    from kg.extract import extract             # Paper -> Extraction (mentions)
    from kg.build import build_graph           # -> paper-concept graph
    from kg.link import link_papers, cooccurrence
    from kg.build import knowledge_graph       # -> one networkx graph
    from kg.store import write_embedded, query_embedded
    from kg.viz import write_html

or all at once: ``kg.run_pipeline(kg.load_pipeline_file("pipelines/sample.toml"))``.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("kg")
except PackageNotFoundError:  # pragma: no cover - running from a source tree without install
    __version__ = "0.0.0"

from typing import Any

from kg.errors import ConfigError, InputError, KGError, StoreError


def __getattr__(name: str) -> Any:
    # The pipeline pulls in spaCy; import it only when asked for, so `kg --help` stays quick.
    if name in ("load_pipeline_file", "run_pipeline"):
        import kg.pipeline

        return getattr(kg.pipeline, name)
    raise AttributeError(f"module 'kg' has no attribute {name!r}")


__all__ = [
    "ConfigError",
    "InputError",
    "KGError",
    "StoreError",
    "__version__",
    "load_pipeline_file",
    "run_pipeline",
]
