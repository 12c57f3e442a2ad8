"""The ``kg`` command line: thin commands over the library."""

from __future__ import annotations

import csv
import gc
import io
import json
import logging
import shlex
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from kg.config import NEO4J_BATCH, NEO4J_WORKERS, option_value
from kg.errors import InputError, KGError

app = typer.Typer(
    help="kg builds a knowledge graph of methods, techniques and problems from paper abstracts.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

F = TypeVar("F", bound=Callable[..., Any])
FORMAT_HELP = "Input format: auto, jsonl, csv, bibtex, ris, openalex, arxiv or s2."
INPUT_HELP = "Records file: .jsonl, .csv, .bib, .ris, or OpenAlex/arXiv/Semantic Scholar JSON; may be .gz."
N_PROCESS_HELP = "Worker processes: auto (every core) or a number; 1 extracts in this process."
DB_HELP = "Embedded database to use (default: out/kg.lbug, where the default pipeline writes)."


def _params(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise KGError(f"parameter {item!r}: expected name=value, e.g. --param key=bert")
        name, raw = item.split("=", 1)
        out[name] = option_value(raw, what=f"parameter {name}")
    return out


@contextmanager
def _progress_bar(quiet: bool) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr for extraction: papers, papers/s, time left. None when quiet or not a terminal
    (where the bar would leave a blank line before an error's one line)."""
    if quiet or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (
        TextColumn("extract"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]} papers/s"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("extract", total=None, rate="-")
        started = time.perf_counter()

        def update(done: int, total: int) -> None:
            rate = done / max(time.perf_counter() - started, 1e-6)
            bar.update(task, completed=done, total=total, rate=f"{rate:.0f}")

        yield update


def _command() -> str:
    """This command as typed: how the lock of its output folders names it to another run."""
    return shlex.join(["kg", *sys.argv[1:]])


def _setup_logging(quiet: bool) -> None:
    logging.basicConfig(
        level=logging.WARNING if quiet else logging.INFO,
        format="%(levelname)s %(message)s",
        stream=sys.stderr,
    )


@app.command()
def run(
    pipeline: Annotated[Path, typer.Argument(help="Pipeline file, e.g. pipelines/sample.toml.")],
    set_: Annotated[list[str], typer.Option("--set", help="Override a setting: section.key=value (repeatable).")] = [],  # noqa: B006
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only warnings and the summary.")] = False,
    wait: Annotated[
        bool, typer.Option("--wait", help="Wait for another kg run writing the same outputs instead of stopping.")
    ] = False,
) -> None:
    """Run a batch pipeline file: read, extract, build, link, analyse, visualise, store, report.

    Outputs are replaced only when every stage has finished; one run writes them at a time.

    Example: kg run pipelines/sample.toml --set extract.n_process=2
    """
    gc.disable()  # importing spaCy makes many objects that live on: collecting meanwhile re-scans them
    try:
        from kg.pipeline import load_pipeline_file, run_pipeline
    finally:
        gc.enable()
    _setup_logging(quiet)
    spec = load_pipeline_file(pipeline, set_)
    with _progress_bar(quiet) as progress:
        report = run_pipeline(spec, progress=progress, wait=wait, command=_command())
    r, u = report.records, report.update
    typer.echo(
        f"{spec.name}: {r['read']} records read, {r['kept']} kept, {r['rejected']} rejected; "
        f"{report.mentions['total']} mentions, {sum(report.concepts.values())} concepts; "
        f"{report.seconds:.1f}s"
    )
    if u["mode"] == "incremental":
        typer.echo(f"  incremental: {u['papers_added']} new papers added to the stored graph")
    elif spec.update.incremental:
        typer.echo(f"  full run: {u['reason']}")
    for name, where in report.outputs.items():
        typer.echo(f"  {name:13} {where}")


@app.command()
def extract(
    input: Annotated[Path, typer.Argument(help=INPUT_HELP)],
    output: Annotated[Path, typer.Option("--output", "-o", help="Where to write the mentions (JSON Lines).")],
    fmt: Annotated[str, typer.Option("--format", help=FORMAT_HELP)] = "auto",
    rejects: Annotated[Path | None, typer.Option(help="Where to write rejected records.")] = None,
    model: Annotated[Path | None, typer.Option(help="spaCy model folder (default: the shipped one).")] = None,
    n_process: Annotated[str, typer.Option(help=N_PROCESS_HELP)] = "auto",
    batch_size: Annotated[int, typer.Option(help="Texts per spaCy batch.")] = 64,
) -> None:
    """Extract concept mentions and relations: one JSON line per record, {"id", "mentions", "relations"}.

    Example: kg extract data/sample/acl-sample.jsonl -o out/mentions.jsonl
    """
    from kg.config import resolve_n_process
    from kg.extract import extract as run_extract
    from kg.extract import load_pipeline
    from kg.pipeline.run import write_mentions

    _setup_logging(quiet=True)
    processes = resolve_n_process(n_process)
    papers, bad = _read(input, fmt, rejects or output.with_name(output.stem + ".rejects.jsonl"))
    nlp = load_pipeline(model)
    extractions = list(run_extract(papers, nlp=nlp, batch_size=batch_size, n_process=processes))
    write_mentions(extractions, output)
    n = sum(len(x.mentions) for x in extractions)
    n_rel = sum(len(x.relations) for x in extractions)
    typer.echo(f"{len(papers)} records, {n} mentions, {n_rel} relations -> {output}; {bad} rejected")


def _read(input: Path, fmt: str, rejects: Path) -> tuple[list[Any], int]:
    from kg.outputs import replacing
    from kg.read import read_records, split_records

    with replacing(rejects) as tmp, tmp.open("w", encoding="utf-8") as fh:
        papers, kinds = split_records(read_records(input, fmt=fmt), fh)
    return papers, sum(kinds.values())


@app.command()
def build(
    input: Annotated[Path, typer.Argument(help=INPUT_HELP)],
    mentions: Annotated[
        Path | None, typer.Option(help="Output of `kg extract` for these records (extracts if omitted).")
    ] = None,
    db: Annotated[Path, typer.Option(help="Embedded database to write (replaced).")] = Path("out/kg.lbug"),
    html: Annotated[Path | None, typer.Option(help="Also write the HTML page here.")] = None,
    fmt: Annotated[str, typer.Option("--format", help=FORMAT_HELP)] = "auto",
    analyse_: Annotated[
        bool,
        typer.Option("--analyse/--no-analyse", help="Communities, rankings and trends, as `kg run` stores them."),
    ] = True,
    n_process: Annotated[str, typer.Option(help=N_PROCESS_HELP + " When it extracts.")] = "auto",
) -> None:
    """Build the knowledge graph from records (and their mentions) into the embedded store.

    Example: kg build data/sample/acl-sample.jsonl --mentions out/mentions.jsonl --db out/kg.lbug
    """
    from kg.config import resolve_n_process
    from kg.outputs import clean_leftovers, locked, refuse_folder
    from kg.store.embedded import check_target

    _setup_logging(quiet=True)
    processes = resolve_n_process(n_process)
    check_target(db)
    refuse_folder(db.with_name(db.stem + ".rejects.jsonl"), "the rejects file beside --db")
    if html:
        refuse_folder(html, "--html")
    folders = {db.parent, *([html.parent] if html else [])}
    with locked(folders, command=_command()):
        clean_leftovers(folders)
        _build(input, mentions, db, html, fmt, analyse_, processes)


def _build(
    input: Path, mentions: Path | None, db: Path, html: Path | None, fmt: str, analyse_: bool, processes: int
) -> None:
    from kg.build import build_graph, knowledge_graph
    from kg.extract import extract as run_extract
    from kg.link import cooccurrence, link_papers
    from kg.normalise.gazetteer import load_gazetteer
    from kg.normalise.run import normalise_run, run_tables
    from kg.normalise.types import assign_types, short_forms
    from kg.pipeline.run import read_mentions
    from kg.store import write_embedded
    from kg.viz import full_view, write_html

    papers, bad = _read(input, fmt, db.with_name(db.stem + ".rejects.jsonl"))
    if mentions:
        extractions = read_mentions(mentions, papers, n_process=processes)
    else:
        extractions = list(run_extract(papers, n_process=processes))
    # a mentions file of an earlier `kg run` holds final keys and types already: nothing changes there
    gazetteer = load_gazetteer()
    tables = run_tables(
        papers,
        extractions,
        metrics=gazetteer.keys_of("Metric"),
        names=gazetteer.names,
        datasets=gazetteer.keys_of("Dataset"),
    )
    extractions, _ = normalise_run(
        papers, extractions, known=gazetteer.keys, metrics=gazetteer.keys_of("Metric"), tables=tables
    )
    extractions = assign_types(extractions, gazetteer=gazetteer, short_forms=short_forms(tables.acronyms, gazetteer))
    B = build_graph(papers, extractions)
    G = knowledge_graph(B, link_papers(B), cooccurrence(B), copy=False)
    if analyse_:
        from kg.analyse import analyse, annotate

        G = annotate(G, analyse(G), copy=False)
    counts = write_embedded(G, db)
    typer.echo(f"{db}: " + ", ".join(f"{k} {v}" for k, v in counts.items()) + f"; {bad} records rejected")
    if not analyse_:
        typer.echo("no analytics: central_concepts, emerging_concepts, community_members and bridge_by_community "
                   "answer nothing until kg build runs without --no-analyse")  # fmt: skip
    if html:
        write_html(full_view(G), html, G=G)
        typer.echo(f"page: {html}")


@app.command()
def query(
    cypher: Annotated[
        str | None,
        typer.Argument(help="Cypher ($name for parameters), a .cypher file, or a cookbook query name (see --list)."),
    ] = None,
    db: Annotated[Path, typer.Option(help=DB_HELP)] = Path("out/kg.lbug"),
    param: Annotated[list[str], typer.Option("--param", "-p", help="Query parameter name=value.")] = [],  # noqa: B006
    fmt: Annotated[str, typer.Option("--format", "-f", help="table, json or csv.")] = "table",
    neo4j: Annotated[bool, typer.Option("--neo4j", help="Query Neo4j (NEO4J_URI, ...) instead.")] = False,
    write: Annotated[bool, typer.Option("--write", help="Allow writes (Neo4j only; default read-only).")] = False,
    timeout: Annotated[float, typer.Option(help="Seconds the query may run before it is stopped.")] = 60.0,
    uri: Annotated[str | None, typer.Option(help="Neo4j Bolt URI (default $NEO4J_URI).")] = None,
    user: Annotated[str | None, typer.Option(help="Neo4j user (default $NEO4J_USER or neo4j).")] = None,
    database: Annotated[str | None, typer.Option(help="Neo4j database (default $NEO4J_DATABASE).")] = None,
    list_: Annotated[
        bool, typer.Option("--list", help="List the cookbook queries with their parameters and defaults.")
    ] = False,
) -> None:
    """Run a read-only Cypher query against the embedded store (or Neo4j) and print the rows.

    One statement that reads the graph: writes, files, URLs, extensions, settings and
    administration are refused, and a query that runs longer than --timeout is stopped.
    The cookbook queries in config/queries run by name, each parameter with a default that -p
    overrides: kg query top_concepts -p type=Method. kg query --list shows them.

    Example: kg query "MATCH (c:Concept) RETURN c.name, c.paper_count ORDER BY c.paper_count DESC LIMIT 10"
    """
    from kg.store import cookbook, query_embedded

    if list_:
        typer.echo(cookbook.listing())
        return
    if cypher is None:
        raise KGError("give a query: Cypher, a .cypher file or a cookbook name (kg query --list shows the names)")
    if fmt not in ("table", "json", "csv"):
        raise KGError(f"unknown format {fmt!r}: use table, json or csv")
    if not timeout > 0:
        raise KGError(f"--timeout {timeout:g}: give the seconds a query may run, more than 0")
    if neo4j:
        from kg.store.neo4j import Neo4jSettings, query_neo4j

        settings = Neo4jSettings.from_env(uri=uri, user=user, database=database)
        text, values = cookbook.prepare(cypher, "neo4j", _params(param))
        result = query_neo4j(settings, text, values, write=write, timeout=timeout)
    elif write:
        raise KGError("--write needs --neo4j: the embedded store is written by `kg run` and `kg build` only")
    else:
        result = query_embedded(db, *cookbook.prepare(cypher, "ladybug", _params(param)), timeout=timeout)
    if fmt == "json":
        rows = [dict(zip(result.columns, row, strict=True)) for row in result.rows]
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=2, default=str))
    elif fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf)
        writer.writerow(result.columns)
        writer.writerows([[_cell(v) for v in row] for row in result.rows])
        typer.echo(buf.getvalue(), nl=False)
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table(*result.columns, show_lines=False)
        for row in result.rows:
            table.add_row(*(_cell(v) for v in row))
        Console(width=max(100, Console().width)).print(table)
        typer.echo(f"{len(result.rows)} rows")


def _cell(value: Any) -> str:
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, default=str)
    return "" if value is None else str(value)


@app.command()
def load(
    db: Annotated[Path, typer.Option(help=DB_HELP)] = Path("out/kg.lbug"),
    add: Annotated[
        bool, typer.Option("--add", help="Add to what Neo4j holds (relinking across both) instead of replacing it.")
    ] = False,
    batch_size: Annotated[int, typer.Option(help="Rows per write transaction.")] = NEO4J_BATCH,
    workers: Annotated[int, typer.Option(help="Sessions writing nodes and relationships at once.")] = NEO4J_WORKERS,
    uri: Annotated[
        str | None, typer.Option(help="Neo4j Bolt URI (default $NEO4J_URI or bolt://localhost:7687).")
    ] = None,
    user: Annotated[str | None, typer.Option(help="Neo4j user (default $NEO4J_USER or neo4j).")] = None,
    database: Annotated[str | None, typer.Option(help="Neo4j database (default $NEO4J_DATABASE).")] = None,
    admin: Annotated[
        bool, typer.Option("--admin", help="Offline: neo4j-admin import into a stopped Neo4j (replaces the database).")
    ] = False,
    home: Annotated[
        Path | None, typer.Option(help="--admin: the Neo4j home to import into (start.sh --data DIR).")
    ] = None,
    csv_dir: Annotated[
        Path | None, typer.Option("--csv", help="--admin: keep the CSVs in this folder (default: a temporary one).")
    ] = None,
) -> None:
    """Load the graph of an embedded store into Neo4j (password from $NEO4J_PASSWORD).

    Loading is idempotent: the same graph twice changes nothing. With --add, the papers in the
    store are added to those already in Neo4j (re-extracted papers replace their old version),
    and concept counts and paper-paper links are recomputed across both. With --admin, the
    graph replaces a stopped Neo4j's database through neo4j-admin import (fastest for big graphs).

    Example: kg load --db out/kg.lbug --uri bolt://localhost:7687

    Example: kg load --admin --home neo4j-home
    """
    from kg.store import read_embedded

    _setup_logging(quiet=False)  # each label and type as it is written: a big load takes minutes
    if admin:
        if add:
            raise KGError("--add works over Bolt only: neo4j-admin import replaces the whole database")
        _load_admin(read_embedded(db), home=home, database=database or "neo4j", csv_dir=csv_dir)
        return
    from kg.build import knowledge_graph, merge_graphs
    from kg.link import cooccurrence, link_papers
    from kg.store.neo4j import Neo4jSettings, check_neo4j, read_neo4j, write_neo4j
    from kg.store.schema import REL_TABLES

    settings = Neo4jSettings.from_env(uri=uri, user=user, database=database)
    check_neo4j(settings)  # a wrong password or address is said before the store is read
    G = read_embedded(db)
    if add:
        B = merge_graphs(read_neo4j(settings), G)
        G = knowledge_graph(B, link_papers(B), cooccurrence(B), copy=False)
    t0 = time.perf_counter()
    seconds: dict[str, float] = {}
    counts = write_neo4j(G, settings, batch_size=batch_size, workers=workers, seconds=seconds)
    secs = time.perf_counter() - t0
    typer.echo(f"{settings.uri}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    nodes, rels = G.number_of_nodes(), G.number_of_edges()
    rel_s = sum(seconds.get(rel, 0.0) for rel in REL_TABLES)
    node_s = sum(seconds.values()) - rel_s  # the key constraints too, when built after the nodes
    typer.echo(f"{nodes} nodes and {rels} relationships in {secs:.1f} s ({rels / max(secs, 1e-9):.0f} relationships/s; "
               f"nodes {node_s:.1f} s, relationships {rel_s:.1f} s)")  # fmt: skip


def _load_admin(G: Any, *, home: Path | None, database: str, csv_dir: Path | None) -> None:
    import tempfile

    from kg.store.export import admin_import, write_neo4j_admin

    with tempfile.TemporaryDirectory(prefix="kg-neo4j-admin-") as tmp:
        folder = csv_dir or Path(tmp)
        t0 = time.perf_counter()
        write_neo4j_admin(G, folder)
        t1 = time.perf_counter()
        summary = admin_import(folder, home=home, database=database)
        t2 = time.perf_counter()
    where = f"database {database} of {home}" if home else f"database {database}"
    typer.echo(f"{where}: {summary} (CSVs {t1 - t0:.1f} s, import {t2 - t1:.1f} s)")
    start = f"tools/neo4j/start.sh --data {home}" if home else "neo4j start"
    typer.echo(f"next: start Neo4j ({start}); the first `kg load` over Bolt adds kg's key constraints")


@app.command()
def export(
    output: Annotated[Path, typer.Option("--output", "-o", help="Folder (neo4j-admin) or file to write.")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="neo4j-admin, graphml or gexf.")] = "neo4j-admin",
    db: Annotated[Path, typer.Option(help=DB_HELP)] = Path("out/kg.lbug"),
) -> None:
    """Export the graph for other tools: neo4j-admin import CSVs (very large graphs), GraphML, GEXF (Gephi).

    Example: kg export --format neo4j-admin -o out/neo4j-import
    """
    from kg.store import read_embedded
    from kg.store.export import export as run_export

    for path in run_export(read_embedded(db), fmt, output):
        typer.echo(str(path))


@app.command()
def viz(
    view: Annotated[str, typer.Argument(help="graph, concepts, papers, ego or query.")] = "graph",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="HTML file (default out/VIEW.html).")] = None,
    db: Annotated[Path, typer.Option(help=DB_HELP)] = Path("out/kg.lbug"),
    neo4j: Annotated[bool, typer.Option("--neo4j", help="Read the graph from Neo4j (NEO4J_URI, ...).")] = False,
    around: Annotated[str | None, typer.Option(help="ego: the paper id, concept key or name at the centre.")] = None,
    depth: Annotated[int, typer.Option(help="ego: how many steps out from the centre.")] = 1,
    query: Annotated[
        str | None, typer.Option(help="query: Cypher (nodes, paths, or paper ids / concept names) or a cookbook name.")
    ] = None,
    param: Annotated[list[str], typer.Option("--param", "-p", help="query: parameter name=value.")] = [],  # noqa: B006
    max_nodes: Annotated[int, typer.Option(help="Most nodes to show; the most important are kept.")] = 2000,
    colour_by: Annotated[str, typer.Option(help="type or community (default: community for maps).")] = "",
    size_by: Annotated[str, typer.Option(help="degree or pagerank.")] = "degree",
    title: Annotated[str | None, typer.Option(help="Page title.")] = None,
) -> None:
    """Write one view of the graph as a self-contained, offline HTML page.

    Views: graph (papers and concepts), concepts (co-occurrence map), papers (papers linked by
    shared concepts), ego (--around X --depth N), query (--query "MATCH p=... RETURN p", or a
    cookbook name: --query top_concepts draws the concepts it lists and their links).

    Example: kg viz concepts -o out/concepts.html
    """
    from kg.viz import VIEWS, concept_map, ego_view, full_view, graph_from_rows, paper_map, write_html

    if view not in VIEWS:
        raise KGError(f"unknown view {view!r}: use one of {', '.join(VIEWS)}")
    if colour_by not in ("", "type", "community") or size_by not in ("degree", "pagerank"):
        raise KGError("--colour-by takes type or community, --size-by degree or pagerank")
    colour = colour_by or ("community" if view in ("concepts", "papers") else "type")
    out = output or Path("out") / f"{view}.html"
    if view in ("graph", "concepts") and size_by == "degree":
        # what the page shows, read from the store: fast however big the graph is
        from kg.viz.stored import page_graph

        if neo4j:
            from kg.store.neo4j import Neo4jSettings, query_neo4j

            settings = Neo4jSettings.from_env()
            pages = page_graph(lambda q, p: query_neo4j(settings, q, p).rows, max_nodes=max_nodes, views=[view])
        else:
            from kg.store import reader

            with reader(db, tuples=True) as run_query:
                pages = page_graph(lambda q, p: run_query(q, p).rows, max_nodes=max_nodes, views=[view])
        H, score, total = pages.views[view]
        result = write_html(H, out, G=pages.G, title=title or f"kg: {view} view", colour_by=colour,
                            max_nodes=max_nodes, score=score, total=total)  # fmt: skip
        typer.echo(f"{result.path}: {result.nodes} nodes, {result.edges} edges ({result.omitted_nodes} left out)")
        return
    if neo4j:
        from kg.store.neo4j import Neo4jSettings, query_neo4j, read_neo4j

        settings = Neo4jSettings.from_env()
        G = read_neo4j(settings)
    else:
        from kg.store import query_embedded, read_embedded

        G = read_embedded(db)
    if view == "ego":
        if not around:
            raise KGError("the ego view needs --around (a paper id, concept key or concept name)")
        H = ego_view(G, around, depth=depth)
    elif view == "query":
        if not query:
            raise KGError('the query view needs --query "MATCH p=... RETURN p"')
        from kg.store import cookbook

        text, args = cookbook.prepare(query, "neo4j" if neo4j else "ladybug", _params(param))
        rows = query_neo4j(settings, text, args).rows if neo4j else query_embedded(db, text, args).rows
        H = graph_from_rows(rows, G, params=args)
        if H.number_of_nodes() == 0:
            raise KGError(
                "the query returned no Paper or Concept nodes to draw: return nodes or paths, or columns of paper "
                "ids, concept keys or concept names"
            )
    else:
        H = {"graph": full_view, "concepts": concept_map, "papers": paper_map}[view](G)
    if view == "ego":
        d = G.nodes[H.graph["centre"]]
        name = d.get("name") or d.get("title") or H.graph["centre"]
        default = f"kg: ego view around {name}" + (f" (depth {depth})" if depth != 1 else "")
    elif view == "query":
        text = " ".join([*str(query).split(), *(f"({p})" for p in param)])
        default = f"kg: query view of {text if len(text) <= 110 else text[:109] + '…'}"
    else:
        default = f"kg: {view} view"
    result = write_html(
        H, out, G=G, title=title or default, colour_by=colour,
        size_by=size_by, max_nodes=max_nodes,
    )  # fmt: skip
    typer.echo(f"{result.path}: {result.nodes} nodes, {result.edges} edges ({result.omitted_nodes} left out)")


@app.command()
def report(
    output: Annotated[Path, typer.Option("--output", "-o", help="HTML file to write.")] = Path("out/report.html"),
    markdown: Annotated[Path | None, typer.Option(help="Markdown file (default: beside the HTML).")] = None,
    db: Annotated[Path, typer.Option(help=DB_HELP)] = Path("out/kg.lbug"),
    neo4j: Annotated[bool, typer.Option("--neo4j", help="Read the graph from Neo4j (NEO4J_URI, ...).")] = False,
    run_report: Annotated[
        Path | None, typer.Option(help="The run's JSON report, for the data-quality figures (default out/report.json).")
    ] = None,
) -> None:
    """Write what the graph tells a researcher: communities, rankings, trends, with charts (HTML and Markdown).

    Example: kg report -o out/report.html
    """
    from kg.analyse import analyse
    from kg.report import write_report

    if neo4j:
        from kg.store.neo4j import Neo4jSettings, read_neo4j

        G = read_neo4j(Neo4jSettings.from_env())
    else:
        from kg.store import read_embedded

        G = read_embedded(db)
    run_path = run_report or Path("out/report.json")
    run = json.loads(run_path.read_text(encoding="utf-8")) if run_path.is_file() else None
    pages = {f"{name} view": name + ".html" for name in ("graph", "concepts", "papers")
             if (output.parent / f"{name}.html").is_file()}  # fmt: skip
    result = write_report(G, analyse(G), run, output, markdown or output.with_suffix(".md"), links=pages)
    typer.echo(f"{result.html}\n{result.markdown}")


@app.command(name="eval")
def eval_(
    gold: Annotated[
        Path | None, typer.Argument(help="SciERC-format gold file, e.g. ../shared/data/scierc/dev.json.")
    ] = None,
    keyphrases: Annotated[
        Path | None,
        typer.Option(help="Score recall of the `keywords` of a keyphrase JSONL file instead of SciERC spans."),
    ] = None,
    predictions: Annotated[
        Path | None, typer.Option(help="A `kg extract`-format file keyed by doc_key (default: run the model).")
    ] = None,
    model: Annotated[Path | None, typer.Option(help="spaCy model folder (default: the shipped one).")] = None,
    n_process: Annotated[str, typer.Option(help=N_PROCESS_HELP)] = "auto",
    fmt: Annotated[str, typer.Option("--format", "-f", help="table or json.")] = "table",
) -> None:
    """Score extraction against gold: spans and relations, per type and micro P/R/F1, and speed.

    SciERC scores the entity recogniser's spans only; ``--keyphrases`` scores every concept
    (recogniser and candidate phrases) by the recall of each record's keywords.

    Example: kg eval ../shared/data/scierc/dev.json

    Example: kg eval --keyphrases ../shared/data/keyphrases/www.jsonl
    """
    from kg.config import resolve_n_process
    from kg.extract.evaluate import evaluate, evaluate_keyphrases

    processes = resolve_n_process(n_process)
    if keyphrases is not None:
        kp = evaluate_keyphrases(keyphrases, model=model, n_process=processes).as_dict()
        if fmt == "json":
            typer.echo(json.dumps(kp, indent=2))
            return
        typer.echo(f"{kp['records']} records, {kp['abstracts_per_second']} abstracts/s, "
                   f"{kp['concepts_per_record']} concepts/record")  # fmt: skip
        typer.echo(f"{'keywords':10} {'n':>6} {'exact':>6} {'normalised':>10}")
        for part in ("in_text", "all"):
            c = kp[part]
            typer.echo(f"{part:10} {c['keywords']:6} {c['exact']:6.3f} {c['normalised']:10.3f}")  # type: ignore[index]
        return
    if gold is None:
        raise InputError("kg eval needs a SciERC gold file or --keyphrases FILE")
    scores = evaluate(gold, model=model, predictions=predictions, n_process=processes).as_dict()
    if fmt == "json":
        typer.echo(json.dumps(scores, indent=2))
        return
    typer.echo(f"{scores['docs']} abstracts, {scores['abstracts_per_second']} abstracts/s")
    typer.echo(f"{'match':8} {'type':8} {'P':>6} {'R':>6} {'F1':>6}")
    for match in ("exact", "overlap"):
        for label, c in scores[match].items():  # type: ignore[attr-defined]
            typer.echo(f"{match:8} {label:8} {c['p']:6.3f} {c['r']:6.3f} {c['f1']:6.3f}")
    typer.echo(f"\n{'relations':22} {'type':10} {'P':>6} {'R':>6} {'F1':>6} {'tp':>4} {'fp':>4} {'fn':>4}")
    for setting, name in (("relations", "end to end"), ("relations_gold_entities", "given gold entities")):
        for label, c in scores.get(setting, {}).items():  # type: ignore[attr-defined]
            typer.echo(f"{name:22} {label:10} {c['p']:6.3f} {c['r']:6.3f} {c['f1']:6.3f} "
                       f"{c['tp']:4} {c['fp']:4} {c['fn']:4}")  # fmt: skip


def main() -> None:
    """Entry point: user mistakes become one line on stderr and exit code 1."""
    try:
        app()
    except KGError as exc:
        typer.echo(f"kg: error: {exc}", err=True)
        sys.exit(1)
    except OSError as exc:
        typer.echo(f"kg: error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), err=True)
        sys.exit(1)
    finally:
        # The process ends here: spare the interpreter its last full garbage collection on the
        # way out (0.3 s with spaCy loaded, for nothing: the memory goes back to the system anyway).
        gc.freeze()


if __name__ == "__main__":
    main()
