"""Batch runs: a pipeline file names the sources, the stage settings and the outputs."""

from kg.pipeline.run import RunReport, run_pipeline
from kg.pipeline.spec import PipelineSpec, load_pipeline_file

__all__ = ["PipelineSpec", "RunReport", "load_pipeline_file", "run_pipeline"]
