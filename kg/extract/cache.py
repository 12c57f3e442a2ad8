"""Extraction results cached by content: a paper's text and everything that shapes the result.

A cache entry's key is a hash of the model's files (:func:`kg.extract.pipeline.model_digest`),
kg's version, the config files the extractor reads, the relation classifier's weights, and the
paper's title and abstract (:func:`paper_text`). A re-run extracts only texts it has not seen; a
new or retrained model or changed config misses on everything. Entries are committed in batches
in SQLite, so a run killed at any point keeps what it had finished and loses nothing else.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import tomllib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kg.config import config_path, relations_model_dir
from kg.errors import InputError
from kg.records import Extraction, Paper

#: The config files whose content changes what extraction returns.
EXTRACTION_CONFIG = (
    *("normalise.toml", "aliases.tsv", "stoplist.txt", "roles.toml", "relations.toml"),
    *("phrases.toml", "generic.toml", "gazetteer.tsv", "refdf.tsv.gz"),
)
#: Of these, the TOML files extraction reads a part of, and the keys of that part: the lists of
#: ``generic.toml`` decide after extraction which concepts are generic, and only its
#: ``adjectives`` shape the phrases (``kg_phrases``), so adding a place or an organisation there
#: does not extract a corpus again.
EXTRACTION_KEYS = {"generic.toml": ("adjectives",)}
#: The relation classifier's files (``kg/models/relations``): retraining it changes the relations.
RELATION_MODEL_FILES = ("meta.json", "weights.npz")
#: The shape of a cached value and what it is keyed by; a new one misses on old entries
#: (2: relations beside the mentions; 3: keyed by title and abstract, mentions name their field;
#: 4: the key rules that fired, keys made by the rules of README "Concept keys", each mention's
#: confidence; 5: what the extraction code decides changed, as "-ing" verbs taking an object left
#: the concepts: bump it whenever a change to kg's components changes what they return; 6: keys
#: without LaTeX formatting commands; 7: a run of words on both sides of a dash keyed once, spans
#: that run on through "to" dropped; 8: an acronym defined in the plural read in the singular too;
#: 9: candidate phrases keyed as written, and opened by a function word glued by a hyphen; 10: a
#: candidate phrase written as a name is a Method; 11: such a glued function word starts a run;
#: 12: no one-letter phrase; 13: no definition expands an acronym an alias names a concept by;
#: 14: no web address is a concept, "X and Contrastive X" leaves X whole; 15: no phrase ends in an
#: adjective, "Mixture-of-Experts Large" of "Mixture-of-Experts Large Language Models"; 16: no key
#: repeats a run of its words through a shared head or a definition of two phrases; 17: a number
#: glued by a hyphen opens a phrase, "4-bit quantization", not "bit quantization"; 18: no phrase cuts a
#: known two-word concept, "Mixture-of-Experts Language" of "... Language Model"; 19: a coordination
#: shares no head that opens with a function word, "a pseudo-document and encodes the full ..."; 20:
#: a possessor that opens a mention leaves it, "NVIDIA's Triton server"; 21: a mention that starts a
#: defined long form is the long form, "Bidirectional Encoder Representations" of "... from
#: Transformers (BERT)", and "X (SHORT) models" is keyed with X's key; 22: such a long form trimmed
#: like any mention, "large language model’s"; 23: a verb that frames a concept leaves its mention,
#: "Accelerating LLM Inference", and a head shared after a comma is a word: "cnn model", not "cnnmodel";
#: 24: a mention starts where its hyphenated word starts, "low-[precision]" is "low-precision"; 25:
#: a model's size alone, "7B", is no concept; 26: a framing verb alone, "Enhancing", is no concept,
#: and a processor's key says which, not how many, "2,048 NVIDIA H800 GPUs" is "nvidia h800 gpu"; 27:
#: an aside in brackets leaves the key, "sequence-to-sequence (seq2seq) models", a phrase is keyed with
#: its spaces as written, "GSM8K", names and words in s keep it, "OntoNotes", "Naive Bayes", and a
#: fragment of a longer term is no phrase, "entity recognition" of "named entity recognition"; 28: a
#: name that opens the title before a colon is proposed, "PRISM: Efficient Long-Range Reasoning"; 29: an
#: acronym's X may be the x of "ex", "eXplainable AI (XAI)", a mention that ends a defined long form is the
#: long form, "artificial intelligence (XAI) methods", no mention opens with a possessive ending, "'s
#: accuracy", "despite" ends a phrase, and a typographic apostrophe keys as the apostrophe, "Alzheimer’s"; 30:
#: a finite verb inside a mention cuts it in two, "AMS-KV reduces KV cache usage"; 31: a name spelled out
#: after it is defined by it, "RASD (Retrieval-Augmented Speculative Decoding)", "GFPO: Group Filtered ..."; 32:
#: a defined name read whole that repeats its mention's words is left as written, "LR-Drop layer-wise regularizes"; 33:
#: a formula is no phrase, "1-δ"; 34: words that write one concept two ways are spelled one way,
#: "recommender systems" as "recommendation systems"; 35: a mention ends where its hyphenated word
#: ends, "plug-and-play", a letter is no concept, "R", "calling for" is a verb, and a language is no
#: concept, "Bulgarian"; 36: a Latin letter's accent leaves the key, "Fréchet" as "Frechet"; 37: a
#: measure ends before its value, "ROC-AUC of 0.983"; 38: a first part left hanging on its hyphen
#: shares the last one's word, "pre- and post-processing"; 39: a word left hanging on its hyphen is
#: no phrase, "short-"; 40: a number of dimensions makes no name, "3D representations"; 41: a measure
#: ends before a value the span stops short of, "F1 of up"; 42: a long form's last word before the same
#: word is read once, "VLA models" of a vision-language-action model; 43: a placeholder that ends an
#: abstract gives no concept, "No contact information provided yet."; 44: a count leaves a mention,
#: "33 models", "2,875 editing tasks", a 2 in a short form says "to", "text-to-image (T2I)", and no
#: phrase starts or ends inside a word the tokenizer splits, "T generation" of "D2T generation"; 45: a
#: time that says when is no concept, "at inference time"; 46: a disease is a problem, "Alzheimer's
#: disease"; 47: an acronym in brackets before a hyphen is a word of its own, "(LLM)-based agents";
#: 48: a candidate phrase ending in the acronym of a family is a Technique, "agentic AI"; 49: a
#: numbered task of a shared task is one phrase, "SemEval-2024 Task 5", and the team a title names
#: as taking part in one no concept, "YNU-HPCC at SemEval-2024 Task 7"; the unit of a number no word
#: of a phrase, "K tokens" of "128K tokens"; 50: gerunds in a coordination share the last one's head,
#: "training and testing data"; 51: the authors a citation names are no concept, "Bengio et al."; 52: a
#: colon or a spaced dash cuts a mention in two, "SAD-Flower: Flow Matching"; 53: a variable is no word
#: of a phrase, "size n"; 54: a team is cut from the recogniser's mentions and no word of a phrase, so
#: it takes none of the paper's concepts, "YNU-HPCC retrieval system"; 55: what a paper does without it
#: does not use, "without retraining"; 56: a team inside a mention cuts it, "Task 6 as CN-HIT-MI.T team"; 57: a
#: coordination whose conjuncts share a word is the mention of each of its concepts; 58: a mention ends
#: before the space between the title and the abstract, "Federated Learning\n\n"; 59: a task read as a
#: Material is a Problem, "French language modeling").
CACHE_FORMAT = 59


def paper_text(paper: Paper) -> str:
    """What a paper's cache entry belongs to: its title and its abstract.

    >>> paper_text(Paper("p1", "Sparse Experts", "We route tokens.")) == paper_text(Paper("p2", "", "We route tokens."))
    False
    """
    return f"{paper.title}\0{paper.abstract}"


def namespace(model: str, kg_version: str) -> str:
    """A digest of everything besides the text that decides what extraction returns.

    ``model`` is the concept model's digest (:func:`kg.extract.pipeline.model_digest`), not its name.
    """
    h = hashlib.sha256(f"{model}\0{kg_version}\0{CACHE_FORMAT}".encode())
    for name in EXTRACTION_CONFIG:
        data = config_path(name).read_bytes()
        if name in EXTRACTION_KEYS:
            conf = tomllib.loads(data.decode("utf-8"))
            data = json.dumps({k: conf.get(k) for k in EXTRACTION_KEYS[name]}, sort_keys=True).encode()
        h.update(b"\0" + data)
    for name in RELATION_MODEL_FILES:
        h.update(b"\0" + (relations_model_dir() / name).read_bytes())
    return h.hexdigest()[:16]


#: SQLite's codes for a file that is no database, or a damaged one (SQLITE_CORRUPT, SQLITE_NOTADB).
_DAMAGED = {11, 26}


class ExtractionCache:
    """Mentions and relations by text (a paper's :func:`paper_text`), in one SQLite file.

    An entry belongs to a text, not to a paper: what ``get`` returns has an empty ``id``.

    >>> import tempfile, pathlib
    >>> cache = ExtractionCache(pathlib.Path(tempfile.mkdtemp()) / "c.sqlite", namespace="n1")
    >>> cache.put([("We use BERT.", Extraction("p1", []))])
    >>> cache.get(["We use BERT.", "Other."])
    {'We use BERT.': Extraction(id='', mentions=[], relations=[], rules={})}

    A file that is no SQLite database, or a damaged one, is an :class:`~kg.errors.InputError`:

    >>> bad = pathlib.Path(tempfile.mkdtemp()) / "c.sqlite"
    >>> _ = bad.write_bytes(b"not a database" * 600)
    >>> ExtractionCache(bad, namespace="n1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kg.errors.InputError: extraction cache .../c.sqlite is damaged (file is not a database): delete it ...
    """

    def __init__(self, path: str | Path, *, namespace: str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.namespace = namespace
        self._db = sqlite3.connect(self.path)
        try:
            with self._sqlite():
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("CREATE TABLE IF NOT EXISTS extractions (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        except InputError:
            self._db.close()
            raise

    @contextmanager
    def _sqlite(self) -> Iterator[None]:
        """SQLite's errors as an :class:`~kg.errors.InputError` naming the file: a damaged one says to delete it."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            what = f"extraction cache {self.path}"
            if getattr(exc, "sqlite_errorcode", None) not in _DAMAGED:
                raise InputError(f"{what}: {exc}") from None
            raise InputError(f"{what} is damaged ({exc}): delete it (the next run extracts every paper again) "
                             "or name another file (outputs.cache)") from None  # fmt: skip

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.namespace}\0{text}".encode()).hexdigest()

    def get(self, texts: Iterable[str]) -> dict[str, Extraction]:
        """What extraction found in those ``texts`` that are in the cache."""
        keys = {self._key(t): t for t in texts}
        found: dict[str, Extraction] = {}
        items = list(keys.items())
        for i in range(0, len(items), 500):
            chunk = dict(items[i : i + 500])
            marks = ",".join("?" * len(chunk))
            query = f"SELECT key, value FROM extractions WHERE key IN ({marks})"
            with self._sqlite():
                rows = self._db.execute(query, list(chunk)).fetchall()
            for key, value in rows:
                data = json.loads(value)
                # one string per sentence, as extraction made them: JSON decodes each mention's apart
                sentences: dict[str, str] = {}
                for item in (*data["mentions"], *data["relations"]):
                    item["sentence"] = sentences.setdefault(item["sentence"], item["sentence"])
                found[chunk[key]] = Extraction.from_dict({"id": "", **data})
        return found

    def put(self, results: Iterable[tuple[str, Extraction]]) -> None:
        """Store results in one transaction: all of them or, if the process dies, none."""
        rows = [(self._key(t), json.dumps(_value(x), ensure_ascii=False)) for t, x in results]
        with self._sqlite(), self._db:
            self._db.executemany("INSERT OR REPLACE INTO extractions (key, value) VALUES (?, ?)", rows)

    def close(self) -> None:
        self._db.close()


def _value(x: Extraction) -> dict[str, Any]:
    return {
        "mentions": [m.to_dict() for m in x.mentions],
        "relations": [r.to_dict() for r in x.relations],
        "rules": x.rules,
    }
