"""The default pipeline (`make run`) on the bundled arXiv sample: what it builds, prints and draws."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys

import pytest

from kg.store import cookbook, query_embedded, read_embedded
from kg.viz import graph_from_rows
from tests.conftest import DEFAULT_SAMPLE, ROOT, open_page
from tests.test_cli import kg

# Exact figures for the shipped model on the default sample; update them when the model, the
# config or the sample changes, after looking at what changed.
# Paper, Concept, MENTIONS, SHARES_CONCEPTS, CO_OCCURS
EXPECTED_GRAPH = (300, 3561, 4790, 2972, 387)
# USED_FOR, PART_OF, HYPONYM_OF
EXPECTED_RELATIONS = (1010, 7, 127)
EXPECTED_MENTIONS = 6335
#: Concepts a researcher of large models indexes these papers by, among the 40 with most papers.
FIELD_CONCEPTS = {"model merging", "knowledge distillation", "key value cache", "mixture of experts",
                  "post training quantization", "speculative decoding", "pipeline parallelism"}  # fmt: skip


def test_the_sample_is_what_the_selection_script_draws():
    lines = DEFAULT_SAMPLE.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert len(records) == 300 and len({r["id"] for r in records}) == 300
    topics = {t: sum(r["topic"] == t for r in records) for t in {r["topic"] for r in records}}
    assert len(topics) == 7 and set(topics.values()) == {42, 43}
    assert all(r["id"].startswith("arxiv:") and r["venue"] == "arXiv" for r in records)


def test_default_run_builds_the_large_model_sample(default_run):
    out, report = default_run
    assert report.pipeline == "sample"
    assert report.records == {"read": 300, "kept": 300, "rejected": 0, "rejected_by_reason": {}}
    assert (report.graph["nodes"]["Paper"], report.graph["nodes"]["Concept"]) == EXPECTED_GRAPH[:2]
    edges = report.graph["edges"]
    assert (edges["MENTIONS"], edges["SHARES_CONCEPTS"], edges["CO_OCCURS"]) == EXPECTED_GRAPH[2:]
    assert (edges["USED_FOR"], edges["PART_OF"], edges["HYPONYM_OF"]) == EXPECTED_RELATIONS
    assert report.mentions["total"] == EXPECTED_MENTIONS
    top = query_embedded(out / "kg.lbug", cookbook.prepare("top_concepts", "ladybug", {"limit": 40})[0],
                         {"type": "", "limit": 40}).rows  # fmt: skip
    keys = {row[0] for row in query_embedded(
        out / "kg.lbug", "MATCH (c:Concept) WHERE c.name IN $names RETURN c.key", {"names": [r[0] for r in top]}
    ).rows}  # fmt: skip
    assert keys >= FIELD_CONCEPTS


def test_make_run_prints_what_to_open_and_a_query_that_answers(default_run):
    out, _ = default_run
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^run: .*?\n((?:\t.*\n)+)", makefile, re.M)
    assert recipe and "kg run pipelines/sample.toml" in recipe.group(1)
    printed = "\n".join(re.findall(r"@echo '?(.*?)'?$", recipe.group(1), re.M))
    assert "out/graph.html" in printed
    commands = re.findall(r"\.venv/bin/(kg query .+)$", printed, re.M)
    assert len(commands) == 1
    args = [*shlex.split(commands[0])[1:], "--db", str(out / "kg.lbug"), "-f", "json"]
    proc = subprocess.run([sys.executable, "-m", "kg", *args], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)) >= 5


def test_readme_cookbook_runs_on_the_default_sample(default_run):
    out, _ = default_run
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = [c for c in re.findall(r"^(?:\.venv/bin/)?(kg query .+)$", readme, re.M) if "--neo4j" not in c]
    assert len(commands) >= 6
    for command in commands:
        args = [*shlex.split(command.replace("\\$", "$"))[1:], "--db", str(out / "kg.lbug"), "-f", "json"]
        proc = subprocess.run([sys.executable, "-m", "kg", *args], cwd=ROOT, capture_output=True, text=True)
        assert proc.returncode == 0, (command, proc.stderr)
        assert json.loads(proc.stdout), f"no rows for: {command}"


@pytest.fixture(scope="module")
def default_graph(default_run):
    out, _ = default_run
    return read_embedded(out / "kg.lbug")


#: Cookbook queries that count, per year or per arXiv category, and name no node.
COUNTS = {"proposed_per_year", "papers_per_category"}


@pytest.mark.parametrize("name", [n for n in cookbook.names() if n not in COUNTS])
def test_every_cookbook_query_about_nodes_can_be_drawn(name, default_run, default_graph):
    """The nodes a cookbook query names with its defaults, and the parameter's node, are the view's."""
    out, _ = default_run
    text, args = cookbook.prepare(name, "ladybug")
    rows = query_embedded(out / "kg.lbug", text, args).rows
    H = graph_from_rows(rows, default_graph, params=args)
    assert H.number_of_nodes() >= 2, name
    for key in ("paper", "concept", "method", "problem", "technique", "category", "source", "target"):
        if key in args:
            assert {f"paper:{args[key]}", f"concept:{args[key]}"} & set(H), (name, key)


def test_kg_viz_query_with_a_cookbook_name_draws_its_concepts(default_run, default_graph, browser, tmp_path):
    out, _ = default_run
    page_file = tmp_path / "top.html"
    result = kg("viz", "query", "--query", "top_concepts", "-p", "limit=15", "--db", str(out / "kg.lbug"),
                "-o", str(page_file))  # fmt: skip
    assert result.returncode == 0, result.stderr
    db = str(out / "kg.lbug")
    listed = json.loads(kg("query", "top_concepts", "-p", "limit=15", "--db", db, "-f", "json").stdout)
    names = {default_graph.nodes[n]["name"] for n in default_graph if default_graph.nodes[n].get("kind") == "Concept"}
    assert {r["concept"] for r in listed} <= names
    page, log = open_page(browser, page_file)
    shown = page.evaluate("kgNodes.get().map(n => n.name)")
    assert sorted(shown) == sorted(r["concept"] for r in listed)
    assert page.evaluate("kgEdges.length") > 0  # the co-occurrences among them
    assert log.errors == [] and log.requests == []
    # a query that returns only counts draws nothing, and says what to return instead
    bare = kg("viz", "query", "--query", "proposed_per_year", "--db", db, "-o", str(tmp_path / "n.html"))
    assert bare.returncode == 1 and "columns of paper ids, concept keys or concept names" in bare.stderr


def test_screenshot_of_the_default_graph_for_the_readme(default_run, browser):
    """docs/default-graph.png, shown at the top of the README, is the default run's page."""
    out, _ = default_run
    page, log = open_page(browser, out / "graph.html")
    page.set_viewport_size({"width": 1000, "height": 620})  # small enough for a light png
    page.wait_for_timeout(500)  # the network follows the window's size, then fits to it
    page.evaluate("kgNetwork.fit()")
    page.wait_for_timeout(500)
    shot = ROOT / "docs" / "default-graph.png"
    shot.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(shot))
    assert log.errors == [] and log.requests == []
    assert shot.stat().st_size < 300_000
    assert "](docs/default-graph.png)" in "\n".join((ROOT / "README.md").read_text(encoding="utf-8").splitlines()[:25])
