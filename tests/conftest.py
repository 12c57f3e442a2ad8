from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample" / "acl-sample.jsonl"
SHARED = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def nlp():
    from kg.extract import load_pipeline

    return load_pipeline()


@pytest.fixture(scope="session")
def sample_run(tmp_path_factory):
    """The default pipeline run once on the bundled sample, into a temporary folder."""
    from kg.pipeline import load_pipeline_file, run_pipeline

    out = tmp_path_factory.mktemp("sample-run")
    overrides = [f'outputs.{name}="{out / file}"' for name, file in OUTPUTS.items()]
    spec = load_pipeline_file(ROOT / "pipelines" / "sample.toml", overrides)
    spec.sources[0].path = SAMPLE
    report = run_pipeline(spec)
    return out, report


OUTPUTS = {
    "store": "kg.lbug",
    "html": "graph.html",
    "mentions": "mentions.jsonl",
    "rejects": "rejects.jsonl",
    "report": "report.json",
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
    page.wait_for_function("window.kgNetwork !== undefined", timeout=15000)
    return page, log
