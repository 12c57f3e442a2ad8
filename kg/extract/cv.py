"""Cross-validate the concept model's training on SciERC train+dev and pick its step count.

The 400 abstracts of SciERC train and dev are split into ``k`` seeded folds. Each fold's model
trains on the other folds with ``config/ner.cfg`` and is scored on its held-out fold at every
``eval_frequency`` step (spaCy's raw NER, ``ents_mt_f``), keeping a checkpoint at each. The step
with the best *mean* over the folds is chosen, unless the mean of the weights of a run's last
checkpoints (``AVERAGED``: the last 4, 7 or 11) scores better on the folds' mean; each fold's
chosen checkpoint is then scored the way ``kg eval`` scores, through the whole kg pipeline on its
held-out abstracts. The shipped model is the chosen checkpoint of a run on all 400 abstracts.
Every run trains for ``max_steps`` with early stopping off, so the checkpoint at step ``n`` is
what a run stopped at ``n`` would give.

    python -m kg.extract.train --cv 3 --work build/cv     # folds, final model, install
    python -m kg.extract.train --cv-score build/cv        # re-score the fold models
"""

from __future__ import annotations

import json
import logging
import random
import shutil
import statistics
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import IO, Any

from spacy.util import registry
from thinc.api import Config

from kg.config import config_path
from kg.errors import ConfigError

log = logging.getLogger(__name__)

#: The run on all abstracts, beside the folds ``fold-0`` ... ``fold-{k-1}``.
FINAL = "all"
SCORES = "scores.jsonl"
CHECKPOINTS = "checkpoints"
#: How many of a run's last checkpoints may be averaged into one model (see :func:`choose_checkpoint`).
AVERAGED = (4, 7, 11)


@registry.loggers("kg.checkpoint_logger.v1")
def checkpoint_logger(path: str) -> Callable[..., tuple[Callable[..., None], Callable[[], None]]]:
    """spaCy's console logger that also keeps every evaluated step: its scores and its pipeline.

    Each evaluation appends ``{"step", "seconds", "score", "ents_mt_f", "ents_per_type"}`` to
    ``path/scores.jsonl`` and copies the averaged pipeline spaCy has just saved as
    ``model-last`` to ``path/checkpoints/<step>``.
    """
    console = registry.get("loggers", "spacy.ConsoleLogger.v1")(progress_bar=False)
    root = Path(path)

    def setup(
        nlp: Any, stdout: IO = sys.stdout, stderr: IO = sys.stderr
    ) -> tuple[Callable[..., None], Callable[[], None]]:
        log_console, finalize = console(nlp, stdout, stderr)
        (root / CHECKPOINTS).mkdir(parents=True, exist_ok=True)
        (root / SCORES).unlink(missing_ok=True)

        def log_step(info: dict[str, Any] | None) -> None:
            log_console(info)
            if info is None or info.get("score") is None:
                return
            other = info["other_scores"]
            row = {
                "step": info["step"],
                "seconds": info["seconds"],
                "score": info["score"],
                "ents_mt_f": other.get("ents_mt_f"),
                "ents_per_type": other.get("ents_per_type"),
            }
            with (root / SCORES).open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(row) + "\n")
            dest = root / CHECKPOINTS / str(info["step"])
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(info["output_path"], dest)

        return log_step, finalize

    return setup


def split_folds(lines: list[str], k: int, *, seed: int = 0) -> list[list[str]]:
    """Deal SciERC records (JSON lines) into ``k`` folds, in a seeded order of their ``doc_key``.

    >>> folds = split_folds([json.dumps({"doc_key": str(i)}) for i in range(7)], 3)
    >>> [len(f) for f in folds]
    [3, 2, 2]
    """
    if k < 2 or k > len(lines):
        raise ConfigError(f"cannot split {len(lines)} abstracts into {k} folds")
    keyed = sorted(lines, key=lambda line: json.loads(line)["doc_key"])
    random.Random(seed).shuffle(keyed)
    return [keyed[i::k] for i in range(k)]


def prepare(scierc: Path, work: Path, k: int, *, seed: int = 0) -> list[Path]:
    """Write each run's ``train.spacy``, ``heldout.spacy`` and ``heldout.json``; return the run folders."""
    from kg.extract.scierc import to_docbin

    lines = [
        line
        for name in ("train.json", "dev.json")
        for line in (scierc / name).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    folds = split_folds(lines, k, seed=seed)
    runs = []
    for i in range(k + 1):
        run = work / (f"fold-{i}" if i < k else FINAL)
        run.mkdir(parents=True, exist_ok=True)
        # The final run trains on everything; its "held-out" set is only there because spaCy wants one.
        heldout = folds[i] if i < k else folds[0]
        train = [line for j, fold in enumerate(folds) if j != i for line in fold] if i < k else lines
        (run / "train.json").write_text("\n".join(train) + "\n", encoding="utf-8")
        (run / "heldout.json").write_text("\n".join(heldout) + "\n", encoding="utf-8")
        to_docbin(run / "train.json", run / "train.spacy")
        to_docbin(run / "heldout.json", run / "heldout.spacy")
        runs.append(run)
    return runs


def train_run(run: Path, vectors: Path, overrides: dict[str, Any]) -> Path:
    """Train one run (a fold, or the final run) to ``max_steps``, keeping every evaluated checkpoint."""
    from spacy.cli.train import train as spacy_train
    from thinc.api import use_ops

    from kg.extract import train as _registers_ner_scorer  # noqa: F401  (a spawned worker has not imported it)

    config = Config().from_disk(config_path("ner.cfg"), interpolate=False)
    config["training"]["logger"] = {"@loggers": "kg.checkpoint_logger.v1", "path": str(run)}
    cfg = run / "config.cfg"
    config.to_disk(cfg)
    # numpy's BLAS multiplies matrices about three times faster than blis here (see load_pipeline)
    with use_ops("numpy", use_blis=False):
        spacy_train(
            cfg,
            run / "model",
            overrides={
                "paths.train": str(run / "train.spacy"),
                "paths.dev": str(run / "heldout.spacy"),
                "paths.vectors": str(vectors),
                # Every run goes to max_steps: the step count is chosen on the folds' mean, not here.
                "training.patience": 0,
                **overrides,
            },
        )
    return run


def curves_of(run: Path) -> dict[int, float]:
    """A run's raw NER Method+Task F1 by step."""
    rows = [json.loads(line) for line in (run / SCORES).read_text(encoding="utf-8").splitlines()]
    return {row["step"]: row["ents_mt_f"] for row in rows}


def curves(work: Path) -> dict[str, dict[int, float]]:
    """Each fold's held-out raw NER Method+Task F1 by step."""
    return {run.name: curves_of(run) for run in sorted(work.glob("fold-*"))}


def choose_step(work: Path) -> tuple[int, dict[int, float]]:
    """The step whose mean held-out raw NER Method+Task F1 over the folds is best (earliest on ties)."""
    by_fold = curves(work)
    if not by_fold:
        raise ConfigError(f"no fold runs in {work}")
    steps = set.intersection(*(set(c) for c in by_fold.values()))
    mean = {step: statistics.fmean(c[step] for c in by_fold.values()) for step in sorted(steps)}
    return max(mean, key=lambda step: (mean[step], -step)), mean


def average_checkpoints(run: Path, steps: list[int]) -> Path:
    """A pipeline whose weights are the mean of ``run``'s checkpoints at ``steps``: ``checkpoints/mean-FIRST-LAST``.

    Each array of the tok2vec and the recogniser is averaged over the checkpoints (the first one's
    config, vocabulary and moves): on the SciERC folds the mean of the last 7 of 21 checkpoints scored
    0.589 Method+Task through kg against 0.583 for the best single one, at no cost when it runs.
    """
    import numpy as np
    import spacy

    from kg.extract import train as _registers_ner_scorer  # noqa: F401  (the checkpoints' scorer)

    dest = run / CHECKPOINTS / f"mean-{steps[0]}-{steps[-1]}"
    nlps = [spacy.load(run / CHECKPOINTS / str(step)) for step in steps]
    for name in ("tok2vec", "ner"):
        models: list[Any] = [nlp.get_pipe(name).model for nlp in nlps]  # type: ignore[attr-defined]
        for nodes in zip(*(model.walk() for model in models), strict=True):
            for param in nodes[0].param_names:
                if nodes[0].has_param(param):
                    arrays = [node.get_param(param) for node in nodes]
                    nodes[0].set_param(param, np.mean(arrays, axis=0, dtype=np.float64).astype(arrays[0].dtype))
    if dest.exists():
        shutil.rmtree(dest)
    nlps[0].to_disk(dest)
    return dest


def raw_f1(model: Path, heldout: Path) -> float:
    """The recogniser's own Method+Task F1 (``ents_mt_f``) of ``model`` on the gold docs of ``heldout`` (.spacy)."""
    import spacy
    from spacy.tokens import DocBin
    from spacy.training import Example

    from kg.extract import train as _registers_ner_scorer  # noqa: F401

    nlp = spacy.load(model)
    gold = DocBin().from_disk(heldout).get_docs(nlp.vocab)
    return float(nlp.evaluate([Example(nlp.make_doc(doc.text), doc) for doc in gold])["ents_mt_f"])


def choose_checkpoint(work: Path, step: int, by_step: dict[int, float]) -> tuple[str, dict[str, float]]:
    """The best single ``step`` (:func:`choose_step`, with its folds' mean ``by_step``) or the mean of
    the folds' last checkpoints (``AVERAGED``), whichever is best on the folds' mean raw NER
    Method+Task F1 (the single step on a tie): its checkpoint name, and each mean's score by name."""
    steps = sorted(by_step)
    folds = sorted(work.glob("fold-*"))
    means = {}
    for n in AVERAGED:
        if n <= len(steps):
            scores = [raw_f1(average_checkpoints(run, steps[-n:]), run / "heldout.spacy") for run in folds]
            means[f"mean-{steps[-n]}-{steps[-1]}"] = statistics.fmean(scores)
    best = max(means, key=lambda name: means[name], default=None)
    return (best if best is not None and means[best] > by_step[step] else str(step)), means


def final_checkpoint(work: Path, chosen: str) -> Path:
    """The final run's checkpoint named ``chosen`` (a step, or a mean made here as on the folds)."""
    run = work / FINAL
    if chosen.startswith("mean-"):
        first, last = checkpoint_steps(chosen)
        return average_checkpoints(run, [s for s in sorted(curves_of(run)) if first <= s <= last])
    return run / CHECKPOINTS / chosen


def checkpoint_steps(chosen: str) -> tuple[int, int]:
    """The first and last steps a checkpoint name stands for: "3200" one, "mean-2800-4000" a mean.

    >>> checkpoint_steps("3200"), checkpoint_steps("mean-2800-4000")
    ((3200, 3200), (2800, 4000))
    """
    steps = [int(s) for s in chosen.removeprefix("mean-").split("-")]
    return steps[0], steps[-1]


def score_folds(work: Path, checkpoint: int | str, *, n_process: int = 1) -> dict[str, Any]:
    """Score each fold's ``checkpoint`` (a step or a mean) on its held-out abstracts with the kg pipeline."""
    from kg.extract.evaluate import evaluate

    folds: dict[str, dict[str, Any]] = {}
    for run in sorted(work.glob("fold-*")):
        s = evaluate(run / "heldout.json", model=run / CHECKPOINTS / str(checkpoint), n_process=n_process)
        folds[run.name] = {name: s.exact[name].as_dict() for name in ("micro", "Method", "Task", "Metric", "Material")}
        folds[run.name]["overlap_micro"] = s.overlap["micro"].as_dict()
        folds[run.name]["docs"] = s.docs
    summary = {}
    for name in ("micro", "Method", "Task", "Metric", "Material", "overlap_micro"):
        f1 = [fold[name]["f1"] for fold in folds.values()]
        summary[name] = {
            "mean": round(statistics.fmean(f1), 4),
            "std": round(statistics.stdev(f1), 4) if len(f1) > 1 else 0.0,
            "min": min(f1),
            "max": max(f1),
        }
    return {"step": checkpoint, "folds": folds, "summary": summary}


def cross_validate(
    scierc: Path,
    work: Path,
    *,
    k: int,
    vectors: Path,
    overrides: dict[str, Any] | None = None,
    seed: int = 0,
    jobs: int = 2,
) -> dict[str, Any]:
    """Train the ``k`` folds and the final run (``jobs`` at a time), choose the step, score the folds.

    Writes and returns ``work/cv.json``; the final run's checkpoint at the chosen step is in
    ``work/all/checkpoints/<step>``.
    """
    overrides = overrides or {}
    folds_and_final = prepare(scierc, work, k, seed=seed)
    # The final run first: with two workers it trains beside the first fold.
    runs = folds_and_final[-1:] + folds_and_final[:-1]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for run in pool.map(train_run, runs, [vectors] * len(runs), [overrides] * len(runs)):
            log.info("trained %s", run)
    # The vectors table as spaCy describes it: rows, keys (with the cased spellings) and name.
    described = json.loads((vectors / "meta.json").read_text(encoding="utf-8")).get("vectors")
    settings = {"k": k, "seed": seed, "config": "config/ner.cfg", "overrides": overrides, "vectors": described}
    return write_cv(work, settings=settings)


def write_cv(work: Path, *, settings: dict[str, Any]) -> dict[str, Any]:
    """Choose the checkpoint, score the folds' at it, and write ``work/cv.json``."""
    step, mean = choose_step(work)
    chosen, means = choose_checkpoint(work, step, mean)
    result = {
        "settings": settings,
        "chosen_step": step,
        "chosen": chosen,
        "raw_ner_mean_by_step": {str(s): round(f, 4) for s, f in mean.items()},
        "raw_ner_mean_by_average": {name: round(f, 4) for name, f in means.items()},
        **score_folds(work, chosen),
    }
    seconds = [_last(run)["seconds"] for run in sorted(work.glob("fold-*"))]
    result["seconds_per_run"] = seconds
    (work / "cv.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result


def _last(run: Path) -> dict[str, Any]:
    lines = (run / SCORES).read_text(encoding="utf-8").splitlines()
    return dict(json.loads(lines[-1]))


def table(result: dict[str, Any]) -> str:
    """The CV scores as a Markdown table: exact F1 per fold, then mean, std, min and max."""
    names = ("micro", "Method", "Task", "overlap_micro")
    rows = ["| fold | Method+Task | Method | Task | overlap Method+Task |", "|---|---|---|---|---|"]
    for fold, s in result["folds"].items():
        rows.append(f"| {fold} | " + " | ".join(f"{s[n]['f1']:.3f}" for n in names) + " |")
    for stat in ("mean", "std", "min", "max"):
        rows.append(f"| {stat} | " + " | ".join(f"{result['summary'][n][stat]:.3f}" for n in names) + " |")
    return "\n".join(rows)
