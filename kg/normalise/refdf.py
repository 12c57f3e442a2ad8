"""Build the reference document-frequency table shipped as ``config/refdf.tsv.gz``.

The table says in how many abstracts of two large reference corpora each candidate term key
occurs, so that :mod:`kg.normalise.specificity` knows that "downstream task" is in one abstract
of 40 in both fields and "knowledge distillation" in one of 100, whatever the run holds.

Terms are word n-grams (1 to 4 words) inside one sentence clause (punctuation breaks them),
neither starting nor ending with a stop word, folded like :meth:`Normaliser.surface` folds
mention text: lower case, dashes and punctuation to spaces, British spellings to American, the
last word singular (but for the object of "of": "mixture of experts"). Rebuild with ``make refdf``, that is::

    python -m kg.normalise.refdf --out config/refdf.tsv.gz \\
        --corpus acl=corpus/acl-anthology-abstracts.jsonl.gz@2016 \\
        --corpus arxiv=arxiv-ml/arxiv-ml-abstracts.jsonl.gz

(``@2016``: the ACL Anthology licenses its material CC BY 4.0 from 2016 on.) Counting drops the
terms seen in one document only every ``--block`` documents (the table would not fit in memory
otherwise), so a count may be low by at most the number of blocks of its corpus (3 and 8 here):
counts near ``--min-df`` are lower bounds, common terms are exact to within a fraction of a percent.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from functools import lru_cache
from pathlib import Path

from spacy.lang.en.stop_words import STOP_WORDS

from kg.normalise.keys import Normaliser, unaccented

#: Most words a term has.
MAX_WORDS = 4

# Clause breaks: n-grams never span them (a concept mention never holds a comma or a colon).
_CLAUSE = re.compile(r"[.,;:!?()\[\]{}\"<>=|]+(?:\s|$)|[()\[\]{}\"<>=|;]")
_DASHES = re.compile(r"[\u2010-\u2015\u2212_\-/]+")
_WORD = re.compile(r"[^\W_][\w+#]*")
_STOP = frozenset(STOP_WORDS) | {"et", "al", "i.e", "e.g", "ie", "eg", "via", "etc"}


class _Folder:
    """Folds one word like :meth:`Normaliser.surface` does, cached (the same words recur)."""

    def __init__(self) -> None:
        self._norm = Normaliser()

    @lru_cache(maxsize=1 << 20)  # noqa: B019 - one folder per build, freed with it
    def fold(self, word: str) -> tuple[str, str]:
        """The word spelled as in keys, and that spelling made singular and spelled again, as a
        key's last word is ("colours": "color")."""
        spelled = self._norm._spell(word)
        return spelled, self._norm._spell(self._norm._singular(spelled))


def doc_terms(text: str, folder: _Folder | None = None) -> set[str]:
    """The distinct term keys of one text.

    >>> sorted(t for t in doc_terms("Knowledge distillation, at lower computational costs.") if " " in t)
    ['computational cost', 'knowledge distillation', 'lower computational', 'lower computational cost']
    """
    folder = folder or _default_folder()
    text = unaccented(unicodedata.normalize("NFKC", text)).lower()  # as keys are ("Fréchet" is "Frechet")
    text = text.replace("pre-train", "pretrain").replace("pre train", "pretrain")
    terms: set[str] = set()
    for clause in _CLAUSE.split(_DASHES.sub(" ", text)):
        words = _WORD.findall(clause)
        folded = [folder.fold(w) for w in words]
        for i, first in enumerate(words):
            if _boundary_stop(first):
                continue
            for j in range(i, min(i + MAX_WORDS, len(words))):
                last = words[j]
                if _boundary_stop(last):
                    continue
                # "mixture of experts": the object of "of" keeps its number (``keeps_plural``)
                plural = j - i > 1 and words[j - 1] == "of"
                terms.add(" ".join([f[0] for f in folded[i:j]] + [folded[j][0 if plural else 1]]))
    return terms


def _boundary_stop(word: str) -> bool:
    # Single letters are mostly the pieces of "e.g." and "i.e." or variable names.
    return word in _STOP or len(word) == 1 or word.isdigit()


_FOLDER: list[_Folder] = []


def _default_folder() -> _Folder:
    if not _FOLDER:
        _FOLDER.append(_Folder())
    return _FOLDER[0]


def read_texts(path: Path, *, min_year: int | None = None) -> Iterator[str]:
    """Title and abstract of each record of a JSON-lines file (gzipped or not)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            if min_year is not None and int(rec.get("year") or 0) < min_year:
                continue
            yield f"{rec.get('title') or ''}. {rec.get('abstract') or ''}"


def count_df(texts: Iterable[str], *, block: int = 20_000) -> tuple[Counter[str], int]:
    """Document frequency of every term, pruned of single-document terms every ``block`` docs."""
    counts: Counter[str] = Counter()
    folder = _default_folder()
    n = 0
    for text in texts:
        counts.update(doc_terms(text, folder))
        n += 1
        if n % block == 0:
            for term in [t for t, c in counts.items() if c <= 1]:
                del counts[term]
    return counts, n


def write_table(out: Path, corpora: dict[str, tuple[Counter[str], int]], *, min_df: int, note: str) -> int:
    """Write ``key<TAB>df per corpus`` rows for terms with a total df of at least ``min_df``."""
    names = list(corpora)
    keys: set[str] = set()
    for counts, _ in corpora.values():
        keys.update(t for t, c in counts.items() if c >= 1)
    rows = []
    for key in keys:
        dfs = [corpora[name][0].get(key, 0) for name in names]
        if sum(dfs) >= min_df:
            rows.append((key, dfs))
    rows.sort()
    with gzip.open(out, "wt", encoding="utf-8", compresslevel=9) as fh:
        fh.write(f"# reference document frequencies of term keys; rebuild: python -m kg.normalise.refdf. {note}\n")
        fh.write("# docs\t" + "\t".join(f"{name}={corpora[name][1]}" for name in names) + f"\tmin_df={min_df}\n")
        fh.write("key\t" + "\t".join(names) + "\n")
        for key, dfs in rows:
            fh.write(key + "\t" + "\t".join(str(d) for d in dfs) + "\n")
    return len(rows)


def main(argv: list[str] | None = None) -> None:
    """Command line: count the corpora and write the table."""
    parser = argparse.ArgumentParser(prog="python -m kg.normalise.refdf", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="table to write (.tsv.gz)")
    parser.add_argument(
        "--corpus",
        action="append",
        required=True,
        metavar="NAME=PATH[@MIN_YEAR]",
        help="a JSON-lines corpus of title/abstract records; @YEAR keeps records from that year on",
    )
    parser.add_argument("--min-df", type=int, default=10, help="least total document frequency kept")
    parser.add_argument("--block", type=int, default=20_000, help="documents between prunes")
    parser.add_argument("--note", default="", help="provenance text for the header")
    args = parser.parse_args(argv)
    corpora: dict[str, tuple[Counter[str], int]] = {}
    for spec in args.corpus:
        name, _, rest = spec.partition("=")
        path, _, year = rest.partition("@")
        corpora[name] = count_df(read_texts(Path(path), min_year=int(year) if year else None), block=args.block)
    write_table(args.out, corpora, min_df=args.min_df, note=args.note)


if __name__ == "__main__":
    main()
