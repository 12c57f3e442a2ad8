"""The domain vectors of `make model`: floret on a corpus of abstracts, frozen into a spaCy table."""

from __future__ import annotations

import json

import pytest
import spacy

from kg.config import CONFIG_ENV
from kg.extract.vectors import build_vectors
from tests.conftest import SAMPLE

pytest.importorskip("floret")

SMALL = """
[floret]
model = "skipgram"
mode = "floret"
dim = 16
bucket = 2000
hashCount = 2
minn = 3
maxn = 5
epoch = 1
minCount = 2
thread = 1

[table]
rows = 500
name = "test_table"
cased_keys = 100
"""


def test_build_vectors_table(tmp_path, monkeypatch):
    conf = tmp_path / "config"
    conf.mkdir()
    (conf / "vectors.toml").write_text(SMALL, encoding="utf-8")
    monkeypatch.setenv(CONFIG_ENV, str(conf))
    dest = build_vectors(SAMPLE, tmp_path / "vectors")
    nlp = spacy.load(dest)
    vectors = nlp.vocab.vectors
    # (spaCy stores identical vectors once, so rows may be fewer than keys)
    assert (vectors.n_keys, vectors.shape[1], vectors.mode, vectors.name) == (600, 16, "default", "test_table")
    assert nlp.vocab["the"].has_vector
    # spaCy looks vectors up by exact text: a sentence-initial "The" shares the row of "the"
    assert nlp.vocab["The"].vector.tolist() == nlp.vocab["the"].vector.tolist()
    # a second build with the same corpus and settings reuses the first
    stamp = (dest / "kg-vectors.json").stat().st_mtime_ns
    build_vectors(SAMPLE, dest)
    assert (dest / "kg-vectors.json").stat().st_mtime_ns == stamp


def test_build_vectors_from_several_corpora(tmp_path, monkeypatch):
    conf = tmp_path / "config"
    conf.mkdir()
    (conf / "vectors.toml").write_text(SMALL, encoding="utf-8")
    monkeypatch.setenv(CONFIG_ENV, str(conf))
    other = tmp_path / "other.jsonl"
    abstract = "Zyxwordnet embeddings beat zyxwordnet baselines. " * 20
    other.write_text(json.dumps({"id": "x:1", "title": "T", "abstract": abstract}) + "\n", encoding="utf-8")
    dest = build_vectors([SAMPLE, other], tmp_path / "vectors")
    vocab = spacy.load(dest).vocab
    # a word of the second corpus only, and its capitalised spelling on the same row
    assert vocab["zyxwordnet"].has_vector and vocab["the"].has_vector
    assert vocab["Zyxwordnet"].vector.tolist() == vocab["zyxwordnet"].vector.tolist()
    assert json.loads((dest / "kg-vectors.json").read_text(encoding="utf-8"))["corpus"][1] == str(other.resolve())
