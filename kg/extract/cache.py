"""Extraction results cached by content: the abstract's text and everything that shapes the result.

A cache entry's key is a hash of the model's name and version, kg's version, the config files
the extractor reads, and the abstract. A re-run extracts only texts it has not seen; a new
model or changed config misses on everything. Entries are committed in batches in SQLite, so
a run killed at any point keeps what it had finished and loses nothing else.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from kg.config import config_path
from kg.records import Mention

#: The config files whose content changes what extraction returns.
EXTRACTION_CONFIG = ("normalise.toml", "aliases.tsv", "stoplist.txt", "roles.toml")


def namespace(model: str, kg_version: str) -> str:
    """A digest of everything besides the text that decides what extraction returns."""
    h = hashlib.sha256(f"{model}\0{kg_version}".encode())
    for name in EXTRACTION_CONFIG:
        h.update(b"\0" + config_path(name).read_bytes())
    return h.hexdigest()[:16]


class ExtractionCache:
    """Mentions by text, in one SQLite file.

    >>> import tempfile, pathlib
    >>> cache = ExtractionCache(pathlib.Path(tempfile.mkdtemp()) / "c.sqlite", namespace="n1")
    >>> cache.put([("We use BERT.", [])])
    >>> cache.get(["We use BERT.", "Other."])
    {'We use BERT.': []}
    """

    def __init__(self, path: str | Path, *, namespace: str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.namespace = namespace
        self._db = sqlite3.connect(self.path)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS mentions (key TEXT PRIMARY KEY, value TEXT NOT NULL)")

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.namespace}\0{text}".encode()).hexdigest()

    def get(self, texts: Iterable[str]) -> dict[str, list[Mention]]:
        """The cached mentions of those ``texts`` that are in the cache."""
        keys = {self._key(t): t for t in texts}
        found: dict[str, list[Mention]] = {}
        items = list(keys.items())
        for i in range(0, len(items), 500):
            chunk = dict(items[i : i + 500])
            marks = ",".join("?" * len(chunk))
            for key, value in self._db.execute(f"SELECT key, value FROM mentions WHERE key IN ({marks})", list(chunk)):
                found[chunk[key]] = [Mention(**m) for m in json.loads(value)]
        return found

    def put(self, results: Iterable[tuple[str, list[Mention]]]) -> None:
        """Store results in one transaction: all of them or, if the process dies, none."""
        rows = [(self._key(t), json.dumps([m.to_dict() for m in ms], ensure_ascii=False)) for t, ms in results]
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO mentions (key, value) VALUES (?, ?)", rows)

    def close(self) -> None:
        self._db.close()
