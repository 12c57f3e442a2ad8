"""Pretrain the concept model's tok2vec on abstracts before it learns from SciERC (``make model``).

The recogniser learns from a few hundred SciERC abstracts. Before that, its tok2vec (the same
layers, ``config/ner.cfg``) learns to predict each word's first and last characters from its
context in unlabelled abstracts — spaCy's ``pretrain`` with the characters objective, over
``docs`` records of the ML corpora in ``../shared`` (titles included, as kg reads a paper),
shuffled with a seed, in one pass. Training then starts from those weights
(``paths.init_tok2vec``); the pretrained file is not shipped, the trained model is.

    python -m kg.extract.pretrain --corpus A.jsonl.gz B.jsonl.gz --docs 45000 --out build/pretrain
"""

from __future__ import annotations

import argparse
import json
import logging
import random
from collections.abc import Iterable
from pathlib import Path

from kg.config import config_path
from kg.extract.pipeline import TITLE_SEPARATOR
from kg.read import read_records
from kg.records import Paper

log = logging.getLogger(__name__)

#: The raw text file written in the working folder (``--out``), beside the weights of each epoch.
RAW_TEXT = "raw.jsonl"


def write_raw_text(corpora: Iterable[Path], out: Path, *, docs: int, seed: int = 0) -> int:
    """Write ``docs`` records of ``corpora`` (all of them when fewer), in a seeded order, as spaCy's
    JSONL raw text (``{"text": title + separator + abstract}``); return how many."""
    texts = [
        f"{p.title}{TITLE_SEPARATOR}{p.abstract}" if p.title.strip() else p.abstract
        for p in read_records(list(corpora))
        if isinstance(p, Paper)
    ]
    texts.sort()  # the order the seed shuffles does not depend on the files' order
    random.Random(seed).shuffle(texts)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as fh:
        for text in texts[:docs]:
            fh.write(json.dumps({"text": text}, ensure_ascii=False) + "\n")
    return min(docs, len(texts))


def pretrain(raw: Path, out: Path, *, vectors: Path, epochs: int = 1) -> Path:
    """Pretrain ``config/ner.cfg``'s tok2vec on ``raw`` for ``epochs`` passes; return the weights file."""
    from spacy.training.pretrain import pretrain as spacy_pretrain
    from spacy.util import load_config
    from thinc.api import use_ops

    from kg.extract import train as _registers_ner_scorer  # noqa: F401  (the config names kg's scorer)

    overrides = {"paths.raw_text": str(raw), "paths.vectors": str(vectors), "pretraining.max_epochs": epochs}
    config = load_config(config_path("ner.cfg"), overrides=overrides, interpolate=True)
    out.mkdir(parents=True, exist_ok=True)
    # numpy's BLAS multiplies matrices about three times faster than blis here (see load_pipeline)
    with use_ops("numpy", use_blis=False):
        spacy_pretrain(config, out, use_gpu=-1, silent=False)
    return out / f"model{epochs - 1}.bin"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, nargs="+", required=True, help="records files to read abstracts from")
    parser.add_argument("--vectors", type=Path, required=True, help="a spaCy pipeline folder whose vectors to use")
    parser.add_argument("--docs", type=int, default=45_000, help="abstracts to pretrain on (default 45,000)")
    parser.add_argument("--out", type=Path, default=Path("build/pretrain"), help="working folder")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    n = write_raw_text(args.corpus, args.out / RAW_TEXT, docs=args.docs)
    log.info("pretraining on %d abstracts", n)
    print(pretrain(args.out / RAW_TEXT, args.out, vectors=args.vectors))


if __name__ == "__main__":
    main()
