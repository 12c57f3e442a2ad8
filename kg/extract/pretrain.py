"""Pretrain the concept model's tok2vec on abstracts before it learns from SciERC (``make model``).

The recogniser learns from a few hundred SciERC abstracts. Before that, its tok2vec (the same
layers, ``config/ner.cfg``) learns to predict each word's first and last characters from its
context in unlabelled abstracts — spaCy's ``pretrain`` with the characters objective, over
records of the ML corpora in ``../shared`` (titles included, as kg reads a paper), shuffled with a
seed. It goes in ``rounds`` of ``docs`` records, each one pass over the next ``docs`` and each
resumed from the weights of the last. Training then starts from the last weights
(``paths.init_tok2vec``); the pretrained file is not shipped, the trained model is.

    python -m kg.extract.pretrain --corpus A.jsonl.gz B.jsonl.gz --docs 45000 --rounds 3 --out build/pretrain
"""

from __future__ import annotations

import argparse
import json
import logging
import random
from collections.abc import Iterable, Sequence
from pathlib import Path

from kg.config import config_path
from kg.extract.pipeline import TITLE_SEPARATOR
from kg.read import read_records
from kg.records import Paper

log = logging.getLogger(__name__)

#: Abstracts a round, and rounds: chosen by 3-fold CV (one round of 45,000 against none, then a
#: second round against one, a third against two).
PRETRAIN_DOCS = 45_000
PRETRAIN_ROUNDS = 3


def write_raw_text(corpora: Iterable[Path], out: Path | Sequence[Path], *, docs: int, seed: int = 0) -> int:
    """Write ``docs`` records of ``corpora`` in a seeded order as spaCy's JSONL raw text
    (``{"text": title + separator + abstract}``): to ``out``, or to each of several files the next
    ``docs`` records (fewer when the corpora run out); return how many in all."""
    texts = [
        f"{p.title}{TITLE_SEPARATOR}{p.abstract}" if p.title.strip() else p.abstract
        for p in read_records(list(corpora))
        if isinstance(p, Paper)
    ]
    texts.sort()  # the order the seed shuffles does not depend on the files' order
    random.Random(seed).shuffle(texts)
    outs = [out] if isinstance(out, Path) else list(out)
    for i, path in enumerate(outs):
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8") as fh:
            for text in texts[i * docs : (i + 1) * docs]:
                fh.write(json.dumps({"text": text}, ensure_ascii=False) + "\n")
    return min(docs * len(outs), len(texts))


def raw_text_files(out: Path, rounds: int) -> list[Path]:
    """The raw text of each round in the working folder, beside the weights ``model<round>.bin``."""
    return [out / f"raw{r}.jsonl" for r in range(rounds)]


def pretrain_in_rounds(raws: Sequence[Path], out: Path, *, vectors: Path) -> Path:
    """Pretrain one pass over each raw text file in turn, each round resumed from the last; return the
    last weights file."""
    weights: Path | None = None
    for r, raw in enumerate(raws):
        weights = pretrain(raw, out, vectors=vectors, resume=weights, epoch=r)
    if weights is None:
        raise ValueError("no raw text to pretrain on")
    return weights


def pretrain(raw: Path, out: Path, *, vectors: Path, resume: Path | None = None, epoch: int = 0) -> Path:
    """Pretrain ``config/ner.cfg``'s tok2vec one pass over ``raw`` (from the weights ``resume``, as
    epoch ``epoch``); return the weights file ``out/model<epoch>.bin``."""
    from spacy.training.pretrain import pretrain as spacy_pretrain
    from spacy.util import load_config
    from thinc.api import use_ops

    from kg.extract import train as _registers_ner_scorer  # noqa: F401  (the config names kg's scorer)

    overrides = {"paths.raw_text": str(raw), "paths.vectors": str(vectors), "pretraining.max_epochs": epoch + 1}
    config = load_config(config_path("ner.cfg"), overrides=overrides, interpolate=True)
    out.mkdir(parents=True, exist_ok=True)
    # numpy's BLAS multiplies matrices about three times faster than blis here (see load_pipeline)
    with use_ops("numpy", use_blis=False):
        # Resumed, spaCy loads the tok2vec's weights only; the output layer starts afresh.
        spacy_pretrain(
            config, out, resume_path=resume, epoch_resume=epoch if resume else None, use_gpu=-1, silent=False
        )
    return out / f"model{epoch}.bin"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, nargs="+", required=True, help="records files to read abstracts from")
    parser.add_argument("--vectors", type=Path, required=True, help="a spaCy pipeline folder whose vectors to use")
    parser.add_argument("--docs", type=int, default=PRETRAIN_DOCS, help=f"abstracts a round (default {PRETRAIN_DOCS})")
    parser.add_argument("--rounds", type=int, default=PRETRAIN_ROUNDS, help=f"rounds (default {PRETRAIN_ROUNDS})")
    parser.add_argument("--out", type=Path, default=Path("build/pretrain"), help="working folder")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    raws = raw_text_files(args.out, args.rounds)
    n = write_raw_text(args.corpus, raws, docs=args.docs)
    log.info("pretraining on %d abstracts in %d rounds", n, args.rounds)
    print(pretrain_in_rounds(raws, args.out, vectors=args.vectors))


if __name__ == "__main__":
    main()
