"""Extract stage: papers (title and abstract) -> typed concept mentions with roles and evidence."""

from kg.extract.pipeline import extract, load_pipeline, mentions, model_version

__all__ = ["extract", "load_pipeline", "mentions", "model_version"]
