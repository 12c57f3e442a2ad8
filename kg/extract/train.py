"""Train the concept model on SciERC and install it into the package (``make model``).

    python -m kg.extract.train --scierc ../shared/data/scierc

Converts train/dev to spaCy ``DocBin``, trains with ``config/ner.cfg`` (selection on dev),
and copies the best pipeline to ``kg/models/concepts`` with its name, version and scores.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from kg.config import config_path, model_dir
from kg.extract.scierc import to_docbin

MODEL_NAME = "kg_concepts"
MODEL_VERSION = "0.1.0"


def train(scierc: Path, work: Path, *, dest: Path | None = None, overrides: dict[str, object] | None = None) -> Path:
    """Convert, train, and copy the best pipeline to ``dest`` (default: the package's model folder)."""
    from spacy.cli.train import train as spacy_train

    work.mkdir(parents=True, exist_ok=True)
    train_path, dev_path = work / "train.spacy", work / "dev.spacy"
    to_docbin(scierc / "train.json", train_path)
    to_docbin(scierc / "dev.json", dev_path)
    out = work / "model"
    spacy_train(
        config_path("ner.cfg"),
        out,
        overrides={"paths.train": str(train_path), "paths.dev": str(dev_path), **(overrides or {})},
    )
    best = out / "model-best"
    meta_path = best / "meta.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta.update(
        name=MODEL_NAME,
        version=MODEL_VERSION,
        description="Method/Task/Metric/Material NER trained on SciERC train (Luan et al., 2018) by kg",
        sources=[{"name": "SciERC", "url": "http://nlp.cs.washington.edu/sciIE/", "license": "research use"}],
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
    parser.add_argument("--work", type=Path, default=Path("build/scierc"), help="working folder")
    args = parser.parse_args()
    print(f"model installed at {train(args.scierc, args.work)}")


if __name__ == "__main__":
    main()
