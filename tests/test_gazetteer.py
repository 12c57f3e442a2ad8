"""The shipped gazetteer: known concepts and their kg types, keyed like mentions are."""

import pytest

from kg.errors import ConfigError
from kg.normalise import Normaliser
from kg.normalise.gazetteer import load_gazetteer


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("ImageNet", "Dataset"),
        ("SQuAD", "Dataset"),
        ("GLUE", "Dataset"),
        ("SVHN", "Dataset"),
        ("CIFAR-10", "Dataset"),
        ("BLEU", "Metric"),
        ("F1", "Metric"),
        ("ResNet", "Method"),
        ("BERT", "Method"),
        ("PPO", "Method"),
        ("knowledge distillation", "Technique"),
        ("Data augmentation", "Technique"),
        ("reinforcement learning", "Technique"),
        ("transfer learning", "Technique"),
        ("large language models", "Technique"),
        ("machine translation", "Problem"),
        ("object detection", "Problem"),
        ("English", None),
        ("Classification", None),
        # Papers with Code's "BASE", "ALIGN", "NODE": words, not names, in abstracts
        ("base", None),
        ("align", None),
        ("node", None),
        ("CLIP", "Method"),
        # families whose acronyms, written as names, read as Methods ("RAG", "MoE", "AI")
        ("retrieval-augmented generation", "Technique"),
        ("Mixture-of-Experts", "Technique"),
        ("artificial intelligence", "Technique"),
        ("Transformer", "Method"),
        # known by a row that names its acronym: Papers with Code's "Optical Character Recognition (OCR)"
        ("optical character recognition", "Problem"),
        ("Frechet Inception Distance", "Metric"),
        ("Fréchet Inception Distance", "Metric"),
        ("LiDAR", "Dataset"),
        ("computed tomography", "Dataset"),
        ("SRF", None),  # of "SRF (test)": no acronym in the brackets
        # a known name a run keys with a space more: "Multi-Layer Perceptron (MLP)" keyed the MLPs
        # of 10,000 arXiv ML papers "multi layer perceptron", a Method of 36 apart from the row
        ("Multi-Layer Perceptron", "Technique"),
    ],
)
def test_types_of_known_concepts(text, kind):
    assert load_gazetteer().type_of(Normaliser().key(text)) == kind


def test_keys_and_cache():
    g = load_gazetteer()
    assert g is load_gazetteer()
    assert "imagenet" in g.keys and isinstance(g.keys, frozenset)


def test_bad_row_names_the_line(tmp_path):
    path = tmp_path / "g.tsv"
    path.write_text("term\ttype\tsource\nImageNet\tCorpus\tcurated\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"g\.tsv:2"):
        load_gazetteer(path)


def test_names_in_capitals_written_as_words_are_no_names(tmp_path):
    import gzip
    import json

    from kg.normalise.gazetteer_build import common_words

    texts = ["We fine-tune the base model with BERT.", "A BASE layer routes tokens.", "The base rate of BERT."]
    corpus = tmp_path / "c.jsonl.gz"
    with gzip.open(corpus, "wt", encoding="utf-8") as f:
        f.writelines(json.dumps({"abstract": t}) + "\n" for t in texts)
    assert common_words(["BASE", "BERT", "Dropout", "GPT-2"], corpus) == {"BASE"}
