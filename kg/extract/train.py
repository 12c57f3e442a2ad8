"""Train the concept model and install it into the package (``make model``).

    python -m kg.extract.train --scierc ../shared/data/scierc \
        --corpus ../shared/data/corpus/acl-anthology-abstracts.jsonl.gz

Builds the domain vectors from the corpus (``kg.extract.vectors``, ``config/vectors.toml``),
converts SciERC train/dev to spaCy ``DocBin``, trains with ``config/ner.cfg`` on train (the
checkpoint kept is the best on dev), and copies it to ``kg/models/concepts`` with its name,
version and scores.
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

from kg.config import config_path, model_dir
from kg.extract.scierc import to_docbin
from kg.extract.vectors import build_vectors

MODEL_NAME = "kg_concepts"
MODEL_VERSION = "0.3.0"
#: The labels kg's target score is over: Method+Task micro F1 (kg eval's "micro").
TARGET_LABELS = ("Method", "Task")


@registry.scorers("kg.ner_scorer.v1")
def make_ner_scorer() -> Callable[..., dict[str, Any]]:
    """spaCy's NER scores plus ``ents_mt_f``, the micro F1 over Method and Task spans.

    Training keeps the checkpoint with the best ``ents_mt_f`` on dev (``config/ner.cfg``):
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
    corpus: Path,
    dest: Path | None = None,
    overrides: dict[str, object] | None = None,
) -> Path:
    """Build the vectors, convert, train, and copy the best pipeline to ``dest`` (default: the shipped model's)."""
    from spacy.cli.train import train as spacy_train
    from thinc.api import use_ops

    work.mkdir(parents=True, exist_ok=True)
    vectors = build_vectors(corpus, work / "vectors")
    train_path, dev_path = work / "train.spacy", work / "dev.spacy"
    to_docbin(scierc / "train.json", train_path)
    to_docbin(scierc / "dev.json", dev_path)
    out = work / "model"
    # numpy's BLAS multiplies matrices about three times faster than blis here (see load_pipeline)
    with use_ops("numpy", use_blis=False):
        spacy_train(
            config_path("ner.cfg"),
            out,
            overrides={
                "paths.train": str(train_path),
                "paths.dev": str(dev_path),
                "paths.vectors": str(vectors),
                **(overrides or {}),
            },
        )
    return install(out / "model-best", dest)


def install(best: Path, dest: Path | None = None) -> Path:
    """Copy a trained pipeline to ``dest`` (default: the shipped model's) with kg's name, version and sources."""
    meta_path = best / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta.update(
        name=MODEL_NAME,
        version=MODEL_VERSION,
        description="Method/Task/Metric/Material NER trained on SciERC train (Luan et al., 2018) by kg, "
        "with word vectors trained on ACL Anthology abstracts",
        sources=[
            {"name": "SciERC", "url": "http://nlp.cs.washington.edu/sciIE/", "license": "research use"},
            {
                "name": "ACL Anthology abstracts",
                "url": "https://aclanthology.org",
                "license": "CC BY 4.0 (2016 on), CC BY-NC-SA 3.0 (earlier)",
            },
        ],
    )
    meta_path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    # The shipped model scores with spaCy's own scorer, so that plain spacy.load reads it.
    config = Config().from_disk(best / "config.cfg", interpolate=False)
    config["components"]["ner"]["scorer"] = {"@scorers": "spacy.ner_scorer.v1"}
    config["training"]["score_weights"] = {"ents_f": 1.0, "ents_p": 0.0, "ents_r": 0.0, "ents_per_type": None}
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
        default=Path("../shared/data/corpus/acl-anthology-abstracts.jsonl.gz"),
        help="abstracts the word vectors are trained on",
    )
    parser.add_argument("--work", type=Path, default=Path("build/scierc"), help="working folder")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    print(f"model installed at {train(args.scierc, args.work, corpus=args.corpus)}")


if __name__ == "__main__":
    main()
