"""Concept-to-concept relations: the pair classifier, and the patterns that decide where they match."""

from __future__ import annotations

import pytest

from kg.extract import extract
from kg.extract.pipeline import relations
from kg.records import Paper
from tests.conftest import with_entities


def _relations(nlp, text, ents):
    """kg's relations in ``text`` with the NER's entities given by hand (label, phrase)."""
    doc = with_entities(nlp, text, ents, disable=[name for name in nlp.pipe_names if name != "sentencizer"])
    for name in ("kg_concepts", "kg_roles", "kg_relations"):
        doc = nlp.get_pipe(name)(doc)
    return sorted((r.head_text, r.type, r.tail_text) for r in relations(doc))


# Sentences from SciERC train (what the patterns were tuned on) and from ACL abstracts, with
# what the patterns read in them.
CASES = [
    (
        "We present a syntax-based constraint, known as the cohesion constraint, that is useful for word alignment.",
        [("Method", "syntax-based constraint"), ("Task", "word alignment"), ("Method", "cohesion constraint")],
        [("cohesion constraint", "HYPONYM_OF", "syntax-based constraint")],
    ),
    (
        "Graphical models such as Bayesian networks, Markov random fields and conditional random fields "
        "are widely used.",
        [
            ("Method", "Graphical models"),
            ("Method", "Bayesian networks"),
            ("Method", "Markov random fields"),
            ("Method", "conditional random fields"),
        ],
        [
            ("Bayesian networks", "HYPONYM_OF", "Graphical models"),
            ("Markov random fields", "HYPONYM_OF", "Graphical models"),
            ("conditional random fields", "HYPONYM_OF", "Graphical models"),
        ],
    ),
    (
        "We improve low-resource machine translation using back-translation.",
        [("Task", "low-resource machine translation"), ("Method", "back-translation")],
        [("back-translation", "USED_FOR", "low-resource machine translation")],
    ),
    (
        "The parser is based on a maximum entropy model trained on the Penn Treebank.",
        [("Method", "parser"), ("Method", "maximum entropy model"), ("Material", "Penn Treebank")],
        [("Penn Treebank", "USED_FOR", "maximum entropy model"), ("maximum entropy model", "USED_FOR", "parser")],
    ),
    (
        "The translation system consists of a phrase table and a language model.",
        [("Method", "translation system"), ("Method", "phrase table"), ("Method", "language model")],
        [("language model", "PART_OF", "translation system"), ("phrase table", "PART_OF", "translation system")],
    ),
    (
        "Word segmentation is a component of Chinese information retrieval.",
        [("Task", "Word segmentation"), ("Task", "Chinese information retrieval")],
        [("Word segmentation", "PART_OF", "Chinese information retrieval")],
    ),
    (
        "Sentences are parsed via a standard CKY algorithm with probabilistic models (log-linear models).",
        [
            ("Task", "parsed"),
            ("Method", "CKY algorithm"),
            ("Method", "probabilistic models"),
            ("Method", "log-linear models"),
        ],
        [
            ("CKY algorithm", "USED_FOR", "parsed"),
            ("log-linear models", "HYPONYM_OF", "probabilistic models"),
            ("probabilistic models", "USED_FOR", "CKY algorithm"),
        ],
    ),
    (
        "Named entity recognition and other information extraction tasks are hard.",
        [("Task", "Named entity recognition"), ("Task", "information extraction tasks")],
        [("Named entity recognition", "HYPONYM_OF", "information extraction tasks")],
    ),
]


@pytest.mark.parametrize(("text", "ents", "expected"), CASES, ids=[c[0][:30] for c in CASES])
def test_patterns_decide_where_they_match(nlp, text, ents, expected):
    # The shipped model takes a pattern's reading over its own (chosen by cross-validation on
    # SciERC train); the classifier may add relations the patterns do not read.
    assert set(expected) <= set(_relations(nlp, text, ents))


def test_classifier_reads_beyond_the_patterns(nlp):
    # No pattern matches "X trained on Y", nor a relation two hops away.
    text = "The parser is based on a maximum entropy model trained on the Penn Treebank."
    ents = [("Method", "parser"), ("Method", "maximum entropy model"), ("Material", "Penn Treebank")]
    assert _relations(nlp, text, ents) == [
        ("Penn Treebank", "USED_FOR", "maximum entropy model"),
        ("Penn Treebank", "USED_FOR", "parser"),
        ("maximum entropy model", "USED_FOR", "parser"),
    ]


def test_no_relation_across_sentences(nlp):
    text = "We study parsing. Neural networks are popular. Parsing of speech with BLEU is rare."
    ents = [("Task", "parsing"), ("Method", "Neural networks"), ("Task", "speech"), ("Metric", "BLEU")]
    # Only the last sentence has two concepts (the classifier reads "speech with BLEU" as USED_FOR).
    assert all({head, tail} == {"speech", "BLEU"} for head, _, tail in _relations(nlp, text, ents))


def test_model_is_reproducible_and_small():
    from kg.config import relations_model_dir
    from kg.extract.relations import RelationModel

    model = RelationModel.load()
    assert model.meta["trained_on"] == "SciERC train"
    assert sum(f.stat().st_size for f in relations_model_dir().iterdir()) < 2_000_000


def test_relations_carry_keys_offsets_and_sentence(nlp):
    text = "Deep learning is popular. We use a convolutional neural network for image classification."
    [x] = extract([Paper("p", "", text)], nlp=nlp)
    [r] = [r for r in x.relations if r.type == "USED_FOR"]
    assert (r.head, r.tail) == ("convolutional neural network", "image classification")
    assert text[r.head_start : r.head_end] == r.head_text and text[r.tail_start : r.tail_end] == r.tail_text
    assert r.sentence == "We use a convolutional neural network for image classification."


def test_the_generic_lists_leave_the_cache_alone_but_its_adjectives(tmp_path, monkeypatch):
    # generic.toml's lists decide which concepts are generic after extraction: adding an
    # organisation must not extract a corpus of 150,965 abstracts again; its adjectives shape phrases
    import shutil

    from kg.config import CONFIG_ENV, config_dir
    from kg.extract import cache

    before = cache.namespace("kg_concepts-0.1.0", "0.1.0")
    conf = tmp_path / "config"
    shutil.copytree(config_dir(), conf)
    monkeypatch.setenv(CONFIG_ENV, str(conf))
    generic = conf / "generic.toml"
    text = generic.read_text(encoding="utf-8")
    generic.write_text(text.replace('organisations = ["github", ', 'organisations = ["gitee", "github", '),
                       encoding="utf-8")  # fmt: skip
    assert generic.read_text(encoding="utf-8") != text
    assert cache.namespace("kg_concepts-0.1.0", "0.1.0") == before
    generic.write_text(text.replace('adjectives = ["better", ', 'adjectives = ["bigger", "better", '), encoding="utf-8")
    assert generic.read_text(encoding="utf-8") != text
    assert cache.namespace("kg_concepts-0.1.0", "0.1.0") != before


def test_retrained_relation_model_misses_the_cache(tmp_path, monkeypatch):
    import json
    import shutil

    from kg.config import relations_model_dir
    from kg.extract import cache

    before = cache.namespace("kg_concepts-0.1.0", "0.1.0")
    model = tmp_path / "relations"
    shutil.copytree(relations_model_dir(), model)
    meta = json.loads((model / "meta.json").read_text(encoding="utf-8"))
    (model / "meta.json").write_text(json.dumps({**meta, "threshold": 0.5}), encoding="utf-8")
    monkeypatch.setattr(cache, "relations_model_dir", lambda: model)
    assert cache.namespace("kg_concepts-0.1.0", "0.1.0") != before
