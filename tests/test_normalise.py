"""Concept keys and acronyms, on real phrasings from abstracts."""

from __future__ import annotations

import pytest

from kg.normalise import Normaliser, find_acronyms
from kg.normalise.keys import load_aliases


@pytest.fixture(scope="module")
def norm():
    return Normaliser()


@pytest.mark.parametrize(
    ("variants", "key"),
    [
        (
            ["Neural Machine Translation", "neural machine-translation", "neural machine translations"],
            "neural machine translation",
        ),
        (
            ["pre-trained language models", "pretrained language model", "the Pre-Trained Language Models"],
            "pretrained language model",
        ),
        (["tokenisation", "Tokenization"], "tokenization"),
        (["dialogue systems", "dialog system"], "dialog system"),
        (["word embeddings", "Word-Embeddings"], "word embedding"),
        (["strategies", "strategy"], "strategy"),
        (["LLMs", "LLM", "large language models"], "large language model"),
    ],
)
def test_variants_share_one_key(norm, variants, key):
    assert {norm.key(v) for v in variants} == {key}


@pytest.mark.parametrize("word", ["analysis", "corpus", "semantics", "bias", "syntax"])
def test_words_ending_in_s_that_are_not_plurals(norm, word):
    assert norm.key(word) == word


def test_generic_terms_are_not_concepts(norm):
    assert norm.is_generic("approach")
    assert norm.is_generic("method")
    assert norm.is_generic("this")
    assert norm.is_generic("123")
    assert not norm.is_generic("attention mechanism")


def test_acronym_definitions_in_real_sentences():
    text = (
        "We introduce Bidirectional Encoder Representations from Transformers (BERT), and compare it to "
        "conditional random fields (CRFs) for named entity recognition (NER). Results (see Table 2) improve."
    )
    found = {(a.short, a.long) for a in find_acronyms(text)}
    assert found == {
        ("BERT", "Bidirectional Encoder Representations from Transformers"),
        ("CRFs", "conditional random fields"),
        ("NER", "named entity recognition"),
    }
    for a in find_acronyms(text):
        assert text[a.long_start : a.long_end] == a.long


def test_alias_file_forces_and_forbids(tmp_path):
    path = tmp_path / "aliases.tsv"
    path.write_text("# comment\nsota\tstate of the art\n!sa\tsentiment analysis\n", encoding="utf-8")
    norm = Normaliser(aliases=path)
    assert norm.key("SOTA") == "state of the art"
    # an abstract that defines SA as "sentiment analysis" cannot merge it: the alias file forbids it
    assert norm.resolve("SA", "sentiment analysis") == "sa"
    assert norm.resolve("MT", "machine translation") == "machine translation"


def test_bad_alias_line_names_file_and_line(tmp_path):
    from kg.errors import ConfigError

    path = tmp_path / "aliases.tsv"
    path.write_text("just one column\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"aliases.tsv:1: expected 'variant<TAB>concept'"):
        load_aliases(path)


def test_keys_do_not_depend_on_order_or_instance():
    a, b = Normaliser(), Normaliser()
    words = ["Transformers", "BERT", "graph neural networks", "GNNs"]
    assert [a.key(w) for w in words] == [b.key(w) for w in reversed(words)][::-1]
