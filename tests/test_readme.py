"""The README's pipeline example is a valid pipeline file."""

from __future__ import annotations

import re

from kg.pipeline.spec import PipelineSpec
from tests.conftest import ROOT


def test_readme_pipeline_example_is_complete_and_valid():
    import tomllib

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = re.search(r"## Pipeline files.*?```toml\n(.*?)```", readme, re.S)
    assert example, "no pipeline example in the README"
    data = tomllib.loads(example.group(1))
    spec = PipelineSpec.model_validate(data)
    documented = {f"{section}.{key}" for section, values in data.items() if isinstance(values, dict) for key in values}
    for section in ("read", "extract", "link", "viz", "outputs"):
        fields = set(type(getattr(spec, section)).model_fields)
        assert {f"{section}.{f}" for f in fields} - {"extract.model", "read.max_year"} <= documented, section


def test_readme_first_screen_says_how_to_call_kg():
    first_screen = "\n".join((ROOT / "README.md").read_text(encoding="utf-8").splitlines()[:25])
    assert "source .venv/bin/activate" in first_screen and ".venv/bin/kg" in first_screen
