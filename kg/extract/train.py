"""Train the concept model and install it into the package (``make model``).

    python -m kg.extract.train --cv 3 --work build/cv \
        --scierc ../shared/data/scierc --corpus ../shared/data/corpus/acl-anthology-abstracts.jsonl.gz
    python -m kg.extract.train --cv-score build/cv     # re-score the fold models with today's kg

Builds the domain vectors from the corpus (``kg.extract.vectors``, ``config/vectors.toml``;
``--vectors`` reuses a built table), cross-validates ``config/ner.cfg`` on SciERC train+dev
(``kg.extract.cv``: the step count is the one best on the folds' mean), writes
``build/cv/cv.json``, and installs the checkpoint at that step of a run on all of train+dev
into ``kg/models/concepts`` with its name, version and cross-validated scores. Dev selects
nothing: it is training data.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from spacy.scorer import get_ner_prf
from spacy.training import Example
from spacy.util import registry
from thinc.api import Config

from kg.config import model_dir
from kg.extract.cv import checkpoint_steps, cross_validate, final_checkpoint, table, write_cv
from kg.extract.pretrain import PRETRAIN_DOCS, PRETRAIN_ROUNDS, pretrain_in_rounds, raw_text_files, write_raw_text
from kg.extract.vectors import build_vectors

MODEL_NAME = "kg_concepts"
MODEL_VERSION = "0.7.0"
#: The labels kg's target score is over: Method+Task micro F1 (kg eval's "micro").
TARGET_LABELS = ("Method", "Task")


@registry.scorers("kg.ner_scorer.v1")
def make_ner_scorer() -> Callable[..., dict[str, Any]]:
    """spaCy's NER scores plus ``ents_mt_f``, the micro F1 over Method and Task spans.

    Cross-validation chooses the step count on the folds' mean ``ents_mt_f`` (``kg.extract.cv``):
    kg is judged by Method+Task, and Metric and Material spans are a tenth of them.
    """

    def score(examples: Iterable[Example], **kwargs: Any) -> dict[str, Any]:
        examples = list(examples)
        scores = get_ner_prf(examples, **kwargs)
        tp = fp = fn = 0
        for eg in examples:
            gold = {(e.start_char, e.end_char, e.label_) for e in eg.reference.ents if e.label_ in TARGET_LABELS}
            pred = {(e.start_char, e.end_char, e.label_) for e in eg.predicted.ents if e.label_ in TARGET_LABELS}
            tp, fp, fn = tp + len(gold & pred), fp + len(pred - gold), fn + len(gold - pred)
        scores["ents_mt_f"] = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
        return scores

    return score


def train(
    scierc: Path,
    work: Path,
    *,
    corpus: Path | list[Path],
    k: int = 3,
    vectors: Path | None = None,
    dest: Path | None = None,
    overrides: dict[str, object] | None = None,
    jobs: int = 2,
    pretrain_corpus: list[Path] | None = None,
    pretrain_docs: int = PRETRAIN_DOCS,
    pretrain_rounds: int = PRETRAIN_ROUNDS,
    init_tok2vec: Path | None = None,
) -> Path:
    """Build the vectors, pretrain the tok2vec, cross-validate, and install the final run's checkpoint
    at the chosen step.

    ``init_tok2vec`` reuses pretrained weights; else ``pretrain_rounds`` rounds of ``pretrain_docs``
    abstracts of ``pretrain_corpus`` (default: ``corpus``) pretrain them (0: none).
    """
    vectors = vectors or build_vectors(corpus, work / "vectors")
    if init_tok2vec is None and pretrain_docs:
        raws = raw_text_files(work / "pretrain", pretrain_rounds)
        write_raw_text(pretrain_corpus or ([corpus] if isinstance(corpus, Path) else corpus), raws, docs=pretrain_docs)
        init_tok2vec = pretrain_in_rounds(raws, work / "pretrain", vectors=vectors)
    if init_tok2vec is not None:
        overrides = {**(overrides or {}), "paths.init_tok2vec": str(init_tok2vec)}
    result = cross_validate(scierc, work, k=k, vectors=vectors, overrides=overrides, jobs=jobs)
    return install(final_checkpoint(work, result["chosen"]), dest, cv=result)


def install(best: Path, dest: Path | None = None, *, cv: dict[str, Any] | None = None) -> Path:
    """Copy a trained pipeline to ``dest`` (default: the shipped model's) with kg's name, version and sources.

    ``cv`` (``build/cv/cv.json``) goes into the meta as ``kg_cv``: the held-out scores that stand
    for the model, since all of SciERC train+dev trained it.
    """
    meta_path = best / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta.update(
        name=MODEL_NAME,
        version=MODEL_VERSION,
        description="Method/Task/Metric/Material NER trained on SciERC train+dev (Luan et al., 2018) by kg, "
        "with word vectors trained on ACL Anthology abstracts and a tok2vec pretrained on ACL Anthology and "
        "arXiv ML abstracts; steps chosen by cross-validation",
        sources=[
            {"name": "SciERC", "url": "http://nlp.cs.washington.edu/sciIE/", "license": "research use"},
            {
                "name": "ACL Anthology abstracts",
                "url": "https://aclanthology.org",
                "license": "CC BY 4.0 (2016 on), CC BY-NC-SA 3.0 (earlier)",
            },
            {"name": "arXiv ML abstracts 2024-2026", "url": "https://arxiv.org", "license": "CC0"},
        ],
    )
    if cv is not None:
        meta["kg_cv"] = {key: cv[key] for key in ("settings", "chosen_step", "chosen", "summary", "folds")}
        # spaCy's own figures are on the final run's "held-out" abstracts, which it trained on.
        meta.pop("performance", None)
    meta_path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    # The shipped model scores with spaCy's own scorer, so that plain spacy.load reads it.
    config = Config().from_disk(best / "config.cfg", interpolate=False)
    config["components"]["ner"]["scorer"] = {"@scorers": "spacy.ner_scorer.v1"}
    config["training"]["score_weights"] = {"ents_f": 1.0, "ents_p": 0.0, "ents_r": 0.0, "ents_per_type": None}
    config["training"]["logger"] = {"@loggers": "spacy.ConsoleLogger.v1", "progress_bar": False}
    if cv is not None:
        # The config says how the shipped model was trained: this many steps, no early stop (a mean
        # of checkpoints: up to the last of them).
        config["training"]["max_steps"] = checkpoint_steps(str(cv["chosen"]))[1]
    config.to_disk(best / "config.cfg")
    dest = dest or model_dir()
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(best, dest)
    return dest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scierc", type=Path, default=Path("../shared/data/scierc"), help="SciERC folder")
    parser.add_argument(
        "--corpus",
        type=Path,
        nargs="+",
        default=[Path("../shared/data/corpus/acl-anthology-abstracts.jsonl.gz")],
        help="abstracts the word vectors are trained on (one or more files)",
    )
    parser.add_argument(
        "--vectors", type=Path, help="a spaCy pipeline folder whose vectors to use (default: build them)"
    )
    parser.add_argument(
        "--pretrain-corpus",
        type=Path,
        nargs="+",
        help="abstracts the tok2vec is pretrained on (default: --corpus)",
    )
    parser.add_argument(
        "--pretrain-docs", type=int, default=PRETRAIN_DOCS, help=f"how many (default {PRETRAIN_DOCS:,}; 0: none)"
    )
    parser.add_argument(
        "--pretrain-rounds", type=int, default=PRETRAIN_ROUNDS, help=f"rounds of them (default {PRETRAIN_ROUNDS})"
    )
    parser.add_argument("--init-tok2vec", type=Path, help="pretrained tok2vec weights to start from (no pretraining)")
    parser.add_argument("--work", type=Path, default=Path("build/cv"), help="working folder")
    parser.add_argument("--cv", type=int, default=3, metavar="K", help="number of folds (default 3)")
    parser.add_argument("--jobs", type=int, default=2, help="trainings at a time (default 2)")
    parser.add_argument("--max-steps", type=int, help="override training.max_steps of config/ner.cfg")
    parser.add_argument("--dest", type=Path, help="where to install the model (default: inside the package)")
    parser.add_argument("--cv-score", type=Path, metavar="WORK", help="only re-score the fold models in WORK")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    if args.cv_score:
        cv = json.loads((args.cv_score / "cv.json").read_text(encoding="utf-8"))
        result = write_cv(args.cv_score, settings=cv["settings"])
        print(f"checkpoint {result['chosen']}\n{table(result)}")
        return
    overrides = {"training.max_steps": args.max_steps} if args.max_steps else {}
    dest = train(
        args.scierc,
        args.work,
        corpus=args.corpus,
        k=args.cv,
        vectors=args.vectors,
        dest=args.dest,
        overrides=overrides,
        jobs=args.jobs,
        pretrain_corpus=args.pretrain_corpus,
        pretrain_docs=args.pretrain_docs,
        pretrain_rounds=args.pretrain_rounds,
        init_tok2vec=args.init_tok2vec,
    )
    print(f"{table(json.loads((args.work / 'cv.json').read_text(encoding='utf-8')))}\nmodel installed at {dest}")


if __name__ == "__main__":
    main()
