from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample" / "acl-sample.jsonl"
#: The default pipeline's sample (pipelines/sample.toml): arXiv abstracts on training and serving large models.
DEFAULT_SAMPLE = ROOT / "data" / "sample" / "arxiv-llm-sample.jsonl"
SHARED = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def nlp():
    from kg.extract import load_pipeline

    return load_pipeline()


def _run(tmp_path_factory, pipeline: str, sample: Path):
    from kg.pipeline import load_pipeline_file, run_pipeline

    out = tmp_path_factory.mktemp(pipeline.removesuffix(".toml") + "-run")
    overrides = [f'outputs.{name}="{out / file}"' for name, file in OUTPUTS.items()]
    spec = load_pipeline_file(ROOT / "pipelines" / pipeline, overrides)
    spec.sources[0].path = sample
    return out, run_pipeline(spec)


@pytest.fixture(scope="session")
def sample_run(tmp_path_factory):
    """The ACL sample pipeline (pipelines/acl-sample.toml) run once, into a temporary folder."""
    return _run(tmp_path_factory, "acl-sample.toml", SAMPLE)


@pytest.fixture(scope="session")
def default_run(tmp_path_factory):
    """The default pipeline (pipelines/sample.toml, what `make run` runs) run once, into a temporary folder."""
    return _run(tmp_path_factory, "sample.toml", DEFAULT_SAMPLE)


OUTPUTS = {
    "store": "kg.lbug",
    "html": "graph.html",
    "mentions": "mentions.jsonl",
    "rejects": "rejects.jsonl",
    "report": "report.json",
    "cache": "cache.sqlite",
    "report_html": "report.html",
    "report_md": "report.md",
}


@pytest.fixture
def in_root(monkeypatch):
    monkeypatch.chdir(ROOT)
    return ROOT


def copy_sample(dest: Path) -> Path:
    shutil.copy(SAMPLE, dest)
    return dest


CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser():
    """Real headless Chromium (the Debian package `make test` installs), driven by Playwright."""
    import os

    from playwright.sync_api import sync_playwright

    exe = os.environ.get("KG_CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
    if not Path(exe).exists():
        pytest.fail(f"Chromium not found at {exe}: `make test` installs it (apt-get install chromium)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=exe, args=CHROMIUM_FLAGS)
        yield b
        b.close()


class PageLog:
    def __init__(self):
        self.requests: list[str] = []
        self.errors: list[str] = []


def open_page(browser, path: Path):
    """Open a local page with every network request blocked and logged, and every console error kept."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    log = PageLog()
    page.on("console", lambda m: log.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: log.errors.append(str(e)))

    def route(r):
        if r.request.url.startswith("file://"):
            r.continue_()
        else:
            log.requests.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.goto(path.resolve().as_uri())
    page.wait_for_function("window.kgReady === true", timeout=15000)
    return page, log


#: A new password each session, so a test can look for it anywhere the machine might show it.
NEO4J_PASSWORD = "kg-test-" + secrets.token_hex(8)
#: The environment that gives tools/neo4j/start.sh the password (never its command line).
NEO4J_ENV = {**os.environ, "NEO4J_PASSWORD": NEO4J_PASSWORD}
#: The session's Neo4j process: its ``pid`` and its ``home`` folder (logs included).
NEO4J_PROCESS: dict = {}


@pytest.fixture(scope="session")
def neo4j_server(tmp_path_factory):
    """A real Neo4j 5.26 for the session, started by tools/neo4j (no Docker), stopped at the end.

    The password goes in a file only its owner can read, never on the command line.
    """
    import subprocess
    import threading
    import time

    from kg.store.neo4j import Neo4jSettings

    start = ROOT / "tools" / "neo4j" / "start.sh"
    secret = tmp_path_factory.mktemp("neo4j-secret") / "password"
    secret.touch(mode=0o600)
    secret.write_text(NEO4J_PASSWORD + "\n", encoding="utf-8")
    proc = subprocess.Popen(
        [str(start), "--port", "0", "--password-file", str(secret)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    stderr: list[str] = []
    threading.Thread(target=lambda: stderr.extend(proc.stderr), daemon=True).start()  # type: ignore[arg-type]
    reader = threading.Thread(target=lambda: lines.append(proc.stdout.readline()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    reader.join(timeout=300)
    if not lines or not lines[0].startswith("BOLT "):
        proc.kill()
        pytest.fail("Neo4j did not start (tools/neo4j/start.sh):\n" + "".join(stderr[-30:]))
    uri = lines[0].split()[1]
    for _ in range(50):  # the "ready" line with the home folder comes just before the BOLT line
        if homes := [ln.rsplit(" home ", 1)[1].strip() for ln in stderr if "kg-neo4j: ready" in ln]:
            NEO4J_PROCESS.update(pid=proc.pid, home=Path(homes[0]))
            break
        time.sleep(0.1)
    yield Neo4jSettings(uri=uri, user="neo4j", password=NEO4J_PASSWORD)
    proc.stdin.close()  # type: ignore[union-attr]
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture
def neo4j(neo4j_server):
    """The session's Neo4j, emptied before the test."""
    from kg.store.neo4j import query_neo4j

    query_neo4j(neo4j_server, "MATCH (n) DETACH DELETE n", write=True)
    return neo4j_server


def with_entities(nlp, text, ents, *, disable):
    """``text`` through ``nlp`` (less ``disable``) with the NER's entities given by hand: (label, phrase)."""
    import re

    doc = nlp(text, disable=disable)
    spans = []
    for label, phrase in ents:
        found = re.search(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)", text)
        assert found, phrase
        spans.append(doc.char_span(found.start(), found.end(), label=label))
    doc.ents = spans
    return doc
