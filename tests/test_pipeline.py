"""Pipeline runs: settings, the extraction cache, incremental adds, and kill -9 then resume."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import weakref

import pytest

from kg.errors import ConfigError, InputError
from kg.pipeline import load_pipeline_file, run_pipeline
from kg.store import read_embedded
from tests.conftest import ROOT, SAMPLE

LINES = SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)


def _pipeline(tmp_path, records: list[str], name="p", **settings: str):
    data = tmp_path / f"{name}.jsonl"
    data.write_text("".join(records), encoding="utf-8")
    out = tmp_path / f"out-{name}"
    text = f'name = "{name}"\n[[sources]]\npath = "{data}"\n[outputs]\n' + "".join(
        f'{k} = "{out / v}"\n' for k, v in
        {"store": "kg.lbug", "html": "graph.html", "mentions": "m.jsonl", "rejects": "r.jsonl", "report": "report.json",
         "cache": "cache.sqlite", "report_html": "report.html", "report_md": "report.md"}.items()
    )  # fmt: skip
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path, out


def test_env_and_cli_overrides(tmp_path, monkeypatch):
    path, _ = _pipeline(tmp_path, LINES[:5])
    monkeypatch.setenv("KG__EXTRACT__N_PROCESS", "2")
    monkeypatch.setenv("KG__LINK__TOP_K", "7")
    spec = load_pipeline_file(path, ["link.top_k=9", "viz.title=My field"])
    assert (spec.extract.n_process, spec.link.top_k, spec.viz.title) == (2, 9, "My field")
    monkeypatch.setenv("KG__EXTRACT__N_PROCESS", "zero")
    with pytest.raises(ConfigError, match=r"extract\.n_process: Input should be a number of worker processes"):
        load_pipeline_file(path)


def test_n_process_is_every_core_unless_set(tmp_path):
    path, _ = _pipeline(tmp_path, LINES[:5])
    spec = load_pipeline_file(path)
    assert spec.extract.n_process == "auto" and spec.extract.processes == len(os.sched_getaffinity(0))
    for value, processes in (("1", 1), ("3", 3), ("auto", len(os.sched_getaffinity(0)))):
        assert load_pipeline_file(path, [f"extract.n_process={value}"]).extract.processes == processes
    path.write_text(path.read_text(encoding="utf-8") + "[extract]\nn_process = 1\n", encoding="utf-8")
    assert load_pipeline_file(path).extract.n_process == 1
    for bad in ("-1", "0", "all", "1.5"):
        with pytest.raises(ConfigError, match=r"extract\.n_process: Input should be"):
            load_pipeline_file(path, [f"extract.n_process={bad}"])


def test_auto_extracts_in_worker_processes_the_same_mentions_as_one(tmp_path, monkeypatch):
    import kg.extract.pipeline as extraction

    pools: list[int] = []
    in_pool = extraction._extract_in_pool

    def counted(*args, **kwargs):  # the real pool of worker processes, counted
        pools.append(kwargs["n_process"])
        yield from in_pool(*args, **kwargs)

    monkeypatch.setattr(extraction, "_extract_in_pool", counted)
    # batches of 2 papers: several batches, so "auto" (on a machine of several cores) starts workers
    one_path, one_out = _pipeline(tmp_path, LINES[:12], name="one")
    auto_path, auto_out = _pipeline(tmp_path, LINES[:12], name="auto")
    one = run_pipeline(load_pipeline_file(one_path, ["extract.n_process=1", "extract.batch_size=2"]))
    assert pools == []
    spec = load_pipeline_file(auto_path, ["extract.batch_size=2"])
    assert spec.extract.n_process == "auto"
    auto = run_pipeline(spec)
    cores = len(os.sched_getaffinity(0))
    assert pools == ([cores] if cores > 1 else [])
    assert (auto_out / "m.jsonl").read_text(encoding="utf-8") == (one_out / "m.jsonl").read_text(encoding="utf-8")
    assert auto.mentions == one.mentions and auto.graph == one.graph


def test_a_run_forks_its_extraction_workers_before_it_reads_and_ends_them_once_extracted(tmp_path, monkeypatch):
    # Forked after the read, two workers came to copy most of what the run had read (150,965
    # arXiv ML papers: the run's summed peak was the extraction's); after it they held memory
    # the later stages need.
    import multiprocessing

    import kg.pipeline.run as running

    events: list[str] = []
    real_workers, real_read, real_build = running.Workers, running.read_records, running.build_graph

    class Workers(real_workers):  # type: ignore[misc,valid-type]
        def __init__(self, *args, **kwargs):
            events.append("fork")
            super().__init__(*args, **kwargs)

    def read(*args, **kwargs):
        events.append("read")
        return real_read(*args, **kwargs)

    def build(*args, **kwargs):
        events.append(f"build, {len(multiprocessing.active_children())} workers alive")
        return real_build(*args, **kwargs)

    monkeypatch.setattr(running, "Workers", Workers)
    monkeypatch.setattr(running, "read_records", read)
    monkeypatch.setattr(running, "build_graph", build)
    path, out = _pipeline(tmp_path, LINES[:12])
    report = run_pipeline(load_pipeline_file(path, ["extract.n_process=2", "extract.batch_size=2"]))
    assert events == ["fork", "read", "build, 0 workers alive"]
    assert report.cache == {"hits": 0, "extracted": 12}
    assert len((out / "m.jsonl").read_text(encoding="utf-8").splitlines()) == 12


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('name = "x"\n', "sources: Field required"),
        ('name = "x"\n[[sources]]\npath = "a.jsonl"\nformat = "xml"\n', "sources.0.format"),
        ('name = "x"\n[[sources]]\npath = "a.jsonl"\n[link]\nmax_df = 2\n', "link.max_df: Input should be less"),
        ('name = "x"\n[[sources]]\npath = "a.jsonl"\n[extract]\nspeed = 1\n', "extract.speed: Extra inputs"),
        ('name = "x"\n[[sources]]\npath = "a.jsonl"\n[viz]\nviews = ["maps"]\n', "viz.views.0"),
    ],
)
def test_pipeline_file_errors_name_file_and_key(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_pipeline_file(path)
    assert str(err.value).startswith(f"{path}: ") and message in str(err.value)


def test_cache_hits_incremental_add_and_invalidation(tmp_path, monkeypatch):
    path, _ = _pipeline(tmp_path, LINES[:40])
    first = run_pipeline(load_pipeline_file(path))
    assert first.cache == {"hits": 0, "extracted": 40}
    again = run_pipeline(load_pipeline_file(path))
    assert again.cache == {"hits": 40, "extracted": 0}
    assert again.mentions == first.mentions and again.graph == first.graph

    (tmp_path / "p.jsonl").write_text("".join(LINES[:50]), encoding="utf-8")  # ten new papers
    added = run_pipeline(load_pipeline_file(path))
    assert added.cache == {"hits": 40, "extracted": 10}
    fresh_path, _ = _pipeline(tmp_path, LINES[:50], name="fresh")
    fresh = run_pipeline(load_pipeline_file(fresh_path))
    assert added.mentions == fresh.mentions and added.graph == fresh.graph

    # a new title is a new text: its paper is extracted again, and its title mentions follow
    rows = [json.loads(line) for line in LINES[:50]]
    rows[3]["title"] = "Unsupervised Dependency Parsing with Neural Language Models"
    (tmp_path / "p.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    retitled = run_pipeline(load_pipeline_file(path))
    assert retitled.cache == {"hits": 49, "extracted": 1}
    lines = (tmp_path / "out-p" / "m.jsonl").read_text(encoding="utf-8").splitlines()
    titles = {r["id"]: r["title"] for r in rows}
    found = [(json.loads(line)["id"], m) for line in lines for m in json.loads(line)["mentions"]]
    in_titles = [(pid, m) for pid, m in found if m["field"] == "title"]
    assert in_titles and all(titles[pid][m["start"] : m["end"]] == m["text"] for pid, m in in_titles)
    assert any(pid == rows[3]["id"] for pid, _ in in_titles)  # the new title's mentions

    config = tmp_path / "config"
    shutil.copytree(ROOT / "config", config)
    with (config / "aliases.tsv").open("a", encoding="utf-8") as fh:
        fh.write("parsing\tsyntactic parsing\n")
    monkeypatch.setenv("KG_CONFIG_DIR", str(config))
    changed = run_pipeline(load_pipeline_file(path))
    assert changed.cache == {"hits": 0, "extracted": 50}  # a config change re-extracts everything


def test_the_cache_is_keyed_by_the_models_files_not_its_name_and_version(tmp_path):
    # kg's trainer stamps every model it makes with the same name and version: a retrained
    # model, or one set up otherwise, must not be served the extractions of the one before
    from kg.config import model_dir
    from kg.extract.pipeline import model_digest

    path, out = _pipeline(tmp_path, LINES[:10])
    assert run_pipeline(load_pipeline_file(path)).cache == {"hits": 0, "extracted": 10}
    shipped = (out / "m.jsonl").read_text(encoding="utf-8")
    model = tmp_path / "model2"
    shutil.copytree(model_dir(), model)
    assert model_digest(model) == model_digest(model_dir())  # a copy is the same model
    copied = run_pipeline(load_pipeline_file(path, [f"extract.model={model}"]))
    assert copied.cache == {"hits": 10, "extracted": 0}

    config = (model / "config.cfg").read_text(encoding="utf-8")
    (model / "config.cfg").write_text(config.replace("disabled = []", 'disabled = ["ner"]'), encoding="utf-8")
    other = run_pipeline(load_pipeline_file(path, [f"extract.model={model}"]))
    assert other.versions["model"] == copied.versions["model"]  # the same meta.json
    assert other.cache == {"hits": 0, "extracted": 10}
    mentions = [m for line in (out / "m.jsonl").read_text(encoding="utf-8").splitlines()
                for m in json.loads(line)["mentions"]]  # fmt: skip
    assert mentions and not [m for m in mentions if m["source"] == "model"]
    assert '"source": "model"' in shipped

    before = model_digest(model)
    with (model / "ner" / "model").open("r+b") as fh:  # retrained: other weights, the same meta.json
        fh.seek(-8, os.SEEK_END)
        fh.write(b"\x01" * 8)
    assert model_digest(model) != before


def test_a_damaged_cache_is_one_line_naming_the_file_and_what_to_do(tmp_path):
    path, out = _pipeline(tmp_path, LINES[:20])
    run_pipeline(load_pipeline_file(path))
    cache = out / "cache.sqlite"
    data = bytearray(cache.read_bytes())
    assert len(data) > 3 * 4096
    data[4096:] = os.urandom(len(data) - 4096)  # the schema page whole, the entries' pages garbage
    cache.write_bytes(bytes(data))
    with pytest.raises(InputError, match=r"^extraction cache .*cache\.sqlite is damaged \(database disk image is "
                                         r"malformed\): delete it .* or name another file"):  # fmt: skip
        run_pipeline(load_pipeline_file(path))

    cache.write_bytes(os.urandom(8192))  # not a database at all
    failed = subprocess.run([sys.executable, "-m", "kg", "run", "--quiet", str(path)], cwd=ROOT, capture_output=True,
                            text=True, timeout=600)  # fmt: skip
    assert failed.returncode == 1 and "Traceback" not in failed.stderr, failed.stderr
    assert len(failed.stderr.strip().splitlines()) == 1, failed.stderr
    assert failed.stderr.startswith(f"kg: error: extraction cache {cache} is damaged (file is not a database)")
    assert (out / "report.json").exists() and not [p for p in out.iterdir() if ".kg-" in p.name]

    cache.unlink()  # as the error says
    assert run_pipeline(load_pipeline_file(path)).cache == {"hits": 0, "extracted": 20}


def _state(out):
    G = read_embedded(out / "kg.lbug")
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    canon = ({n: dict(d) for n, d in G.nodes(data=True)}, {(u, v): dict(d) for u, v, d in G.edges(data=True)})
    return (out / "m.jsonl").read_text(encoding="utf-8"), canon, report["records"], report["mentions"], report["graph"]


def test_kill_9_then_resume_equals_an_uninterrupted_run(tmp_path):
    path, out = _pipeline(tmp_path, LINES, name="killed")
    clean_path, clean_out = _pipeline(tmp_path, LINES, name="clean")
    args = [sys.executable, "-m", "kg", "run", "--quiet", "--set", "extract.commit_every=10"]
    assert subprocess.run([*args, str(clean_path)], cwd=ROOT, capture_output=True, timeout=600).returncode == 0

    proc = subprocess.Popen([*args, str(path)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cache = out / "cache.sqlite"
    deadline = time.monotonic() + 300
    cached = 0
    while time.monotonic() < deadline and proc.poll() is None:
        if cache.exists():
            try:
                with sqlite3.connect(cache) as db:
                    cached = db.execute("SELECT count(*) FROM extractions").fetchone()[0]
            except sqlite3.OperationalError:
                cached = 0
            if cached >= 20:
                os.kill(proc.pid, signal.SIGKILL)
                break
        time.sleep(0.05)
    assert proc.wait(timeout=60) == -signal.SIGKILL, "the run ended before it could be killed"
    assert 0 < cached < len(LINES)

    resumed = subprocess.run([*args, str(path)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["cache"]["hits"] >= 20  # the work done before the kill was kept
    assert _state(out) == _state(clean_out)


def test_dask_cluster_gives_the_same_output_as_a_local_run(tmp_path):
    local_path, local_out = _pipeline(tmp_path, LINES[:60], name="local")
    dask_path, dask_out = _pipeline(tmp_path, LINES[:60], name="dask")
    local = run_pipeline(load_pipeline_file(local_path))
    # a real local cluster of two worker processes, shards of 25 papers
    on_dask = run_pipeline(load_pipeline_file(dask_path, ["extract.executor=dask", "extract.n_process=2",
                                                          "extract.shard_size=25"]))  # fmt: skip
    assert on_dask.cache == {"hits": 0, "extracted": 60}
    assert (dask_out / "m.jsonl").read_text(encoding="utf-8") == (local_out / "m.jsonl").read_text(encoding="utf-8")
    assert on_dask.graph == local.graph


def test_dask_scheduler_address(tmp_path):
    from dask.distributed import LocalCluster

    path, out = _pipeline(tmp_path, LINES[:30], name="remote")
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        report = run_pipeline(load_pipeline_file(path, ["extract.executor=dask",
                                                        f"extract.scheduler={cluster.scheduler_address}"]))  # fmt: skip
    assert report.records["kept"] == 30 and report.cache["extracted"] == 30
    assert len((out / "m.jsonl").read_text(encoding="utf-8").splitlines()) == 30


def test_same_paper_from_two_sources_is_merged_and_accounted_for(tmp_path):
    bib = ROOT / "tests" / "data" / "readers" / "zotero.bib"
    same = {"id": "acl:N19-1423", "title": "BERT (from the ACL export)", "doi": "https://doi.org/10.18653/V1/N19-1423",
            "abstract": "We introduce a new language representation model called BERT, which stands for ...",
            "year": 2019, "venue": "NAACL"}  # fmt: skip
    path, out = _pipeline(tmp_path, [json.dumps(same) + "\n", *LINES[:3]], name="two")
    text = path.read_text(encoding="utf-8").replace("[outputs]", f'[[sources]]\npath = "{bib}"\n[outputs]')
    path.write_text(text, encoding="utf-8")
    report = run_pipeline(load_pipeline_file(path))
    r = report.records
    assert r["read"] == r["kept"] + r["rejected"]
    assert r["rejected_by_reason"]["merged duplicate"] == 1
    rejects = [json.loads(line) for line in (out / "r.jsonl").read_text(encoding="utf-8").splitlines()]
    merged = [x for x in rejects if x["kind"] == "merged duplicate"]
    assert [(x["id"], x["reason"]) for x in merged] == [
        ("devlin2019bert", "same doi as acl:N19-1423 (10.18653/v1/n19-1423): merged into it")
    ]
    assert "Pre-training of Deep Bidirectional" in merged[0]["raw"]
    assert (merged[0]["source"], merged[0]["line"]) == (str(bib), 5)  # where it was read: the entry's "@"


@pytest.mark.parametrize("name", ["sample.toml", "acl-sample.toml", "acl-full.toml", "bibtex.toml"])
def test_shipped_pipelines_are_valid(name):
    spec = load_pipeline_file(ROOT / "pipelines" / name)
    assert spec.sources and spec.outputs.report


def test_bibtex_pipeline_runs_on_a_zotero_export(tmp_path, in_root):
    bib = ROOT / "tests" / "data" / "readers" / "zotero.bib"
    sets = [f"sources.0.path={bib}"] + [f"outputs.{k}={tmp_path / k}" for k in
                                         ("store", "html", "mentions", "rejects", "report", "cache", "report_html",
                                          "report_md")]  # fmt: skip
    report = run_pipeline(load_pipeline_file(ROOT / "pipelines" / "bibtex.toml", sets))
    assert (report.records["read"], report.records["kept"]) == (6, 2)
    assert report.records["rejected_by_reason"] == {"duplicate id": 1, "malformed BibTeX": 2, "undecodable text": 1}


def test_a_pipeline_writes_only_the_outputs_it_names(tmp_path, monkeypatch):
    # another run's results in out/, where the outputs would go by default
    monkeypatch.chdir(tmp_path)
    earlier = {"graph.html": "<html>the sample</html>", "concepts.html": "c", "mentions.jsonl": "{}\n",
               "rejects.jsonl": "", "report.json": "{}", "report.html": "r", "report.md": "# r",
               "cache/extract.sqlite": "not a database", "kg.lbug": "a store"}  # fmt: skip
    for name, text in earlier.items():
        (tmp_path / "out" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "out" / name).write_text(text, encoding="utf-8")
    before = {p: p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()}
    (tmp_path / "mine.jsonl").write_text("".join(LINES[:5]), encoding="utf-8")
    path = tmp_path / "mine.toml"
    path.write_text('name = "mine"\n[[sources]]\npath = "mine.jsonl"\n[outputs]\nstore = "mine/kg.lbug"\n')
    report = run_pipeline(load_pipeline_file(path))
    assert {p: p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()} == before
    assert set(report.outputs) == {"store"} and (tmp_path / "mine" / "kg.lbug").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine", "mine.jsonl", "mine.toml", "out"]


def test_an_empty_override_skips_an_output(tmp_path, monkeypatch):
    path, _ = _pipeline(tmp_path, LINES[:3])
    monkeypatch.setenv("KG__OUTPUTS__CACHE", "")
    spec = load_pipeline_file(path, ["outputs.html=", "outputs.report_md="])
    assert spec.outputs.html is None and spec.outputs.report_md is None and spec.outputs.cache is None
    assert spec.outputs.store == tmp_path / "out-p" / "kg.lbug"


def test_a_missing_source_names_its_key(tmp_path):
    path, _ = _pipeline(tmp_path, LINES[:3])
    spec = load_pipeline_file(path, [f"sources.0.path={tmp_path / 'gone.jsonl'}"])
    with pytest.raises(InputError, match=r"^sources\.0\.path: input file not found: .*gone\.jsonl"):
        run_pipeline(spec)


def test_the_report_of_a_run_has_its_time_and_every_concept_type(tmp_path):
    path, out = _pipeline(tmp_path, LINES[:10])
    report = run_pipeline(load_pipeline_file(path))
    html = (out / "report.html").read_text(encoding="utf-8")
    seconds = float(re.search(r"([0-9.]+) s in all", html).group(1))  # type: ignore[union-attr]
    assert 0 < seconds <= report.seconds
    by_type = html[html.index("<h3>Concepts by type</h3>") :].split("</table>")[0]
    md = (out / "report.md").read_text(encoding="utf-8")
    for t in ("Method", "Technique", "Problem", "Dataset", "Metric"):
        assert f"</span>{t}</td>" in by_type and f"| {t} concepts |" in md


def test_outputs_are_byte_identical_across_runs_and_hash_seeds(tmp_path):
    """Every page (and every data file) of two runs in processes with different PYTHONHASHSEED is the same.

    Only what a run measures differs: its times, peak memory and cache hits (report.json, the
    report's "how long" rows), and the store's file, which is compared by what it holds.
    """
    hashes = []
    for seed in ("1", "2"):
        (tmp_path / seed).mkdir()
        path, out = _pipeline(tmp_path / seed, LINES[:80])
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-m", "kg", "run", "--quiet", str(path)], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=600)  # fmt: skip
        assert done.returncode == 0, done.stderr
        files = {}
        for f in sorted(out.iterdir()):
            if f.name in ("kg.lbug", "cache.sqlite", "report.json") or f.is_dir():
                continue
            text = f.read_bytes()
            if f.name.startswith("report."):  # the times and peak memory of each stage and of the whole run
                measured = (
                    rb"stage \w+ \(s\) \| |stage \w+: peak memory \(MB\) \| |"
                    rb"<td class=\"num\">|took |peak memory "
                )
                text = re.sub(rb"(" + measured + rb")[\d.,]+|[\d.]+ s in all", rb"\1#", text)
                text = re.sub(rb"<b>[\d,]+</b><span>from the cache", b"#", text)
            files[f.name] = hashlib.sha256(text).hexdigest()
        hashes.append((files, sorted(read_embedded(out / "kg.lbug").nodes(data=True), key=str)))
    assert {"graph.html", "concepts.html", "papers.html", "report.html", "report.md", "m.jsonl"} <= set(hashes[0][0])
    assert hashes[0][0] == hashes[1][0]
    assert hashes[0][1] == hashes[1][1]


def test_the_store_lets_go_of_the_graph_before_its_copies(tmp_path, monkeypatch):
    # A COPY's memory came on top of the whole graph's (61,839 ACL papers: the run's peak, in the
    # store stage), then of the papers' titles and abstracts (160 MB; the build lets go of the
    # papers now). The pages are drawn first; the store writes the tables out, then lets go.
    from kg.pipeline import run as pipeline_run
    from kg.store import embedded

    runs: list = []
    held_at_copy: list[int] = []
    analysed = dict(pipeline_run.STAGES)["analyse"]

    def analyse(run):
        items = analysed(run)
        runs.append(run)
        return items

    copy = embedded._copy

    def copying(*args, **kwargs):
        held_at_copy.append(runs[0].G.number_of_nodes() + runs[0].G.number_of_edges() + len(runs[0].papers))
        return copy(*args, **kwargs)

    stages = [(name, analyse if name == "analyse" else stage) for name, stage in pipeline_run.STAGES]
    monkeypatch.setattr(pipeline_run, "STAGES", stages)
    monkeypatch.setattr(embedded, "_copy", copying)
    path, out = _pipeline(tmp_path, LINES[:20])
    report = run_pipeline(load_pipeline_file(path))
    assert held_at_copy and not any(held_at_copy)
    assert list(report.stages).index("visualise") < list(report.stages).index("store")
    stored = read_embedded(out / "kg.lbug")
    assert stored.number_of_nodes() == sum(report.graph["nodes"].values())
    assert "SHARES_CONCEPTS" in (out / "graph.html").read_text(encoding="utf-8")


def test_a_full_run_keeps_abstracts_and_sentences_on_disk_and_stores_and_shows_them_as_text(tmp_path, monkeypatch):
    # 150,965 arXiv ML papers: the graph held 207 MB of abstracts and 224 MB of evidence sentences
    # through the link, analyse and visualise stages, which read none of them but the pages
    from kg.pipeline import run as pipeline_run

    graphs: list = []
    analysed = dict(pipeline_run.STAGES)["analyse"]

    def analyse(run):
        items = analysed(run)
        graphs.append(run.G.copy())  # (the store empties the run's own)
        return items

    stages = [(name, analyse if name == "analyse" else stage) for name, stage in pipeline_run.STAGES]
    monkeypatch.setattr(pipeline_run, "STAGES", stages)
    path, out = _pipeline(tmp_path, LINES[:20])
    run_pipeline(load_pipeline_file(path))
    held = graphs[0]
    texts = [d.get("abstract") for _, d in held.nodes(data=True) if d["kind"] == "Paper"]
    texts += [d.get("sentence") for _, _, d in held.edges(data=True) if "sentence" in d]
    assert len(texts) > 100 and all(type(t) is int for t in texts)

    given = {(r := json.loads(line))["id"]: r["abstract"] for line in LINES[:20]}
    G = read_embedded(out / "kg.lbug")
    papers = {n: d for n, d in G.nodes(data=True) if d["kind"] == "Paper"}
    assert {d["id"]: d["abstract"] for d in papers.values()} == given
    stated = 0
    for u, _, d in G.edges(data=True):
        if d["rel"] == "MENTIONS":
            field = papers[u]["title" if d["field"] == "title" else "abstract"]
            assert isinstance(d["sentence"], str) and d["sentence"] in field and d["text"] in d["sentence"]
        elif "sentence" in d:
            stated += 1
            assert d["sentence"] in given[d["paper"]] or d["sentence"] in papers[f"paper:{d['paper']}"]["title"]
    assert stated
    # a mention's sentence on its edge, a relation's in its concepts' panels ("stated")
    shown = {page: (out / page).read_text(encoding="utf-8") for page in ("graph.html", "concepts.html")}
    assert '"sentence": "' in shown["graph.html"] and '"stated": [["' in shown["concepts.html"]
    for page in shown.values():
        assert not re.search(r'"sentence": \d|"stated": \[\["[^"]*", "[^"]*", \d', page)


def test_a_run_that_fails_after_forking_its_workers_leaves_none_behind(tmp_path, monkeypatch):
    import multiprocessing

    import kg.pipeline.run as running

    def fails(*args, **kwargs):
        raise InputError("the extraction's cache is unreadable")

    monkeypatch.setattr(running, "extract_cached", fails)
    path, _ = _pipeline(tmp_path, LINES[:12])
    with pytest.raises(InputError, match="unreadable"):
        run_pipeline(load_pipeline_file(path, ["extract.n_process=2"]))
    assert multiprocessing.active_children() == []


def test_the_build_lets_go_of_each_paper_once_its_node_is_in(tmp_path, monkeypatch):
    # 150,965 arXiv ML papers' abstracts (207 MB) were held until the whole graph was built,
    # though each is in the run's text file once its paper's node is in
    import kg.pipeline.run as running
    from kg.records import Paper

    class Watched(Paper):
        __slots__ = ("__weakref__",)

    real_read, real_build = running.read_records, running.build_graph
    held: list[int] = []  # as each paper after the first is asked for: how many before the last are alive

    def read(*args, **kwargs):
        for r in real_read(*args, **kwargs):
            yield Watched(**{k: getattr(r, k) for k in Paper.__slots__}) if isinstance(r, Paper) else r

    def build(papers, extractions, **kwargs):
        refs: list[weakref.ref] = []

        def watched():
            for p in papers:
                if refs:
                    held.append(sum(r() is not None for r in refs[:-1]))
                refs.append(weakref.ref(p))
                yield p
                del p

        return real_build(watched(), extractions, **kwargs)

    monkeypatch.setattr(running, "read_records", read)
    monkeypatch.setattr(running, "build_graph", build)
    path, _ = _pipeline(tmp_path, LINES[:6])
    report = run_pipeline(load_pipeline_file(path, ["extract.n_process=1"]))
    assert report.graph["nodes"]["Paper"] == 6 and held == [0] * 5


def test_a_stage_leaves_no_cyclic_garbage_behind(tmp_path, monkeypatch):
    # After each stage the run freezes what it built (gc.freeze), and frozen objects are never
    # collected: garbage cycles a stage left were kept for the rest of the run (61,839 ACL
    # papers: ~500 MB of the analyse stage's, through the store's peak)
    from kg.pipeline import run as pipeline_run

    class Node:
        pass

    watched: list[weakref.ref] = []
    seen_by_next: list[bool] = []

    def leaves_a_cycle(run):
        a, b = Node(), Node()
        a.other, b.other = b, a
        watched.append(weakref.ref(a))

    def looks(run):
        seen_by_next.append(watched[0]() is not None)

    monkeypatch.setattr(pipeline_run, "STAGES", [("first", leaves_a_cycle), ("second", looks)])
    path, _ = _pipeline(tmp_path, LINES[:1])
    run_pipeline(load_pipeline_file(path))
    assert seen_by_next == [False]
