"""Domain word vectors for the concept model, trained on corpora of abstracts (``make model``).

Abstracts (of one corpus or several) -> spaCy tokens, one abstract a line -> floret vectors
of the lower-cased tokens (skipgram with hashed character n-grams) -> the vectors of the most
frequent tokens frozen into a plain spaCy vectors table. spaCy looks a token's vector up by its
exact text (a table's ``LOWER`` attribute is not saved), so the most frequent other spellings
("BERT", "The") are extra keys on the row of their lower-cased form. Settings: ``config/vectors.toml``.
"""

from __future__ import annotations

import json
import logging
import tomllib
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from kg.config import config_path
from kg.errors import ConfigError, InputError
from kg.read import read_records
from kg.records import Paper

log = logging.getLogger(__name__)

#: Changes when a build from the same corpus and settings would give other vectors.
FORMAT = 3


def settings() -> dict[str, Any]:
    """The ``[floret]`` and ``[table]`` settings of ``config/vectors.toml``."""
    return tomllib.loads(config_path("vectors.toml").read_text(encoding="utf-8"))


def corpus_text(corpora: Sequence[str | Path], dest: str | Path) -> int:
    """Write the abstracts of ``corpora`` as spaCy tokens, one abstract a line; returns the count."""
    import spacy

    from kg.extract.pipeline import split_glued_brackets

    nlp = spacy.blank("en")
    split_glued_brackets(nlp)
    n = 0
    Path(dest).parent.mkdir(parents=True, exist_ok=True)
    with Path(dest).open("w", encoding="utf-8") as out:
        for doc in nlp.pipe((a for corpus in corpora for a in _abstracts(corpus)), batch_size=1000):
            out.write(" ".join(t.text for t in doc if not t.is_space) + "\n")
            n += 1
    return n


def _abstracts(corpus: str | Path) -> Iterator[str]:
    for record in read_records(corpus):
        if isinstance(record, Paper) and record.abstract.strip():
            yield record.abstract


def _counts(text: Path) -> Counter[str]:
    counts: Counter[str] = Counter()
    with text.open(encoding="utf-8") as fh:
        for line in fh:
            counts.update(line.split())
    return counts


def add_cased_keys(vectors: Any, counts: Counter[str], n: int) -> int:
    """Give the ``n`` most frequent spellings in ``counts`` that are not lower-case the row of their lower-cased form.

    Returns how many keys were added; spellings whose lower-cased form has no row get none.

    >>> import numpy
    >>> from spacy.vectors import Vectors
    >>> v = Vectors(strings=None, data=numpy.ones((1, 2), dtype="f"), keys=["bert"])
    >>> add_cased_keys(v, Counter({"BERT": 3, "Bert": 1, "ELMo": 2}), 10), v.find(key="Bert")
    (2, 0)
    """
    added = 0
    for word, _ in counts.most_common():
        if added == n:
            break
        lower = word.lower()
        if word == lower or vectors.find(key=word) >= 0:
            continue
        row = vectors.find(key=lower)
        if row >= 0:
            vectors.add(word, row=row)
            added += 1
    return added


def build_vectors(
    corpus: str | Path | Sequence[str | Path], dest: str | Path, *, work: str | Path | None = None
) -> Path:
    """Train floret vectors on ``corpus`` (one file or several) and write them as a spaCy vectors table to ``dest``.

    Skips the work when ``dest`` was built from the same corpora with the same settings.
    """
    try:
        import floret
    except ImportError as exc:
        raise ConfigError("building the vectors needs floret: pip install 'kg[model]'") from exc
    import spacy
    from spacy.training.initialize import convert_vectors

    dest = Path(dest)
    conf = settings()
    corpora = [corpus] if isinstance(corpus, (str, Path)) else list(corpus)
    # One corpus keeps the stamp of the builds before several could be given.
    names = [str(Path(c).resolve()) for c in corpora]
    stamp = json.dumps({"corpus": names[0] if len(names) == 1 else names, "format": FORMAT, **conf}, sort_keys=True)
    if (dest / "kg-vectors.json").is_file() and (dest / "kg-vectors.json").read_text(encoding="utf-8") == stamp:
        log.info("vectors in %s are up to date", dest)
        return dest
    for c in corpora:
        if not Path(c).is_file():
            raise InputError(f"corpus not found: {c}")
    work = Path(work) if work else dest.parent
    cased, text = work / "corpus-cased.txt", work / "corpus.txt"
    log.info("tokenising %s", ", ".join(map(str, corpora)))
    n = corpus_text(corpora, cased)
    with cased.open(encoding="utf-8") as src, text.open("w", encoding="utf-8") as out:
        for line in src:
            out.write(line.lower())
    log.info("training floret on %d abstracts", n)
    model = floret.train_unsupervised(str(text), verbose=0, **conf["floret"])
    # Rare words are left out of floret's vocabulary but get a vector from their n-grams.
    words = [word for word, _ in _counts(text).most_common(conf["table"]["rows"])]
    table = work / "vectors.txt"
    with table.open("w", encoding="utf-8") as fh:
        fh.write(f"{len(words)} {model.get_dimension()}\n")
        for word in words:
            fh.write(word + " " + " ".join(f"{x:.5f}" for x in model.get_word_vector(word)) + "\n")
    nlp = spacy.blank("en")
    convert_vectors(nlp, table, truncate=0, prune=-1, name=conf["table"]["name"])
    added = add_cased_keys(nlp.vocab.vectors, _counts(cased), conf["table"]["cased_keys"])
    log.info("%d rows, %d other spellings", len(words), added)
    nlp.to_disk(dest)
    (dest / "kg-vectors.json").write_text(stamp, encoding="utf-8")
    for path in (cased, text, table):
        path.unlink()
    return dest
