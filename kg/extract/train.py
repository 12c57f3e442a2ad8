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
from pathlib import Path

from kg.config import config_path, model_dir
from kg.extract.scierc import to_docbin
from kg.extract.vectors import build_vectors

MODEL_NAME = "kg_concepts"
MODEL_VERSION = "0.2.0"


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
    best = out / "model-best"
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
