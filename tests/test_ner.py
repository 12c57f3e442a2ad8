"""kg_ner decodes the recogniser a batch at a time with numpy: the entities spaCy's own decoding finds."""

from __future__ import annotations

import pytest
import spacy
from spacy.tokens import Doc, Span

from kg.config import model_dir
from kg.extract.ner import BatchedEntityRecognizer
from kg.extract.pipeline import paper_doc, split_glued_brackets, use_numpy_blas
from kg.read import read_records
from kg.records import Paper
from tests.conftest import DEFAULT_SAMPLE, SAMPLE

#: Texts at the edges of the transition system: no token, whitespace tokens where an entity
#: could start or go on, one token, sentences that end right after a name, a long name.
EDGES = [
    "",
    " ",
    "BERT",
    "BERT.",
    "We train BERT  on\n\nSQuAD and  GLUE .",
    "Neural machine translation.\nBLEU scores improve.  Named entity recognition",
    "We propose a multilingual bidirectional long short-term memory conditional random field "
    "sequence labelling model for cross-lingual named entity recognition and relation extraction.",
    "\n\nquestion answering\n",
]


@pytest.fixture(scope="module")
def spacy_ner():
    """The shipped model as spaCy loads it, with spaCy's own decoding (and kg's tokenizer and sentences)."""
    nlp = spacy.load(model_dir())
    use_numpy_blas(nlp)
    split_glued_brackets(nlp)
    nlp.add_pipe("sentencizer", first=True)
    assert type(nlp.get_pipe("ner")) is not BatchedEntityRecognizer
    return nlp


def _texts() -> list[tuple[str, str]]:
    papers = [p for path in (SAMPLE, DEFAULT_SAMPLE) for p in read_records(path) if isinstance(p, Paper)]
    return [(p.title, p.abstract) for p in papers] + [("", text) for text in EDGES]


def _entities(nlp, texts: list[tuple[str, str]], batch_size: int, preset=None) -> list[list[tuple]]:
    docs = [paper_doc(nlp, title, abstract) for title, abstract in texts]
    for name in ("sentencizer", "tok2vec"):
        docs = list(nlp.get_pipe(name).pipe(docs, batch_size=64))
    if preset:
        for doc in docs:
            preset(doc)
    docs = list(nlp.get_pipe("ner").pipe(docs, batch_size=batch_size))
    return [[(t.i, t.ent_iob_, t.ent_type_) for t in doc] for doc in docs]


def test_the_pipeline_decodes_its_recogniser_a_batch_at_a_time(nlp):
    assert type(nlp.get_pipe("ner")) is BatchedEntityRecognizer


@pytest.mark.parametrize("batch_size", [1, 7, 64])
def test_batched_decoding_finds_the_entities_spacy_finds(nlp, spacy_ner, batch_size):
    texts = _texts()
    ours = _entities(nlp, texts, batch_size)
    assert ours == _entities(spacy_ner, texts, batch_size)
    # what the texts exercise: entities of one token, and of more than the five tokens a
    # state reads of an open entity
    lengths = [len(e) for doc in ours for e in _spans(doc)]
    assert 1 in lengths and max(lengths) > 5


def _spans(tokens: list[tuple]) -> list[list[int]]:
    spans: list[list[int]] = []
    for i, iob, _ in tokens:
        if iob == "B":
            spans.append([i])
        elif iob == "I":
            spans[-1].append(i)
    return spans


def test_entities_set_before_the_recogniser_are_kept_as_spacy_keeps_them(nlp, spacy_ner):
    def preset(doc: Doc) -> None:
        if len(doc) > 3:
            doc.set_ents([Span(doc, 1, 3, label="Method")], default="unmodified")

    texts = _texts()[:40]
    ours = _entities(nlp, texts, 16, preset)
    assert ours == _entities(spacy_ner, texts, 16, preset)
    assert all(doc[1][1:] == ("B", "Method") for doc in ours if len(doc) > 3)


def _untrained(factory: str, labels: list[str]):
    """A blank English pipeline with a small recogniser of ``labels`` (random weights, seed 0)."""
    from thinc.api import fix_random_seed

    fix_random_seed(0)
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    model = {
        "@architectures": "spacy.TransitionBasedParser.v2",
        "state_type": "ner",
        "extra_state_tokens": True,
        "hidden_width": 64,
        "maxout_pieces": 2,
        "use_upper": False,
        "tok2vec": {
            "@architectures": "spacy.HashEmbedCNN.v2",
            "pretrained_vectors": None,
            "width": 32,
            "depth": 1,
            "embed_size": 500,
            "window_size": 1,
            "maxout_pieces": 2,
            "subword_features": True,
        },
    }
    ner = nlp.add_pipe(factory, name="ner", config={"model": model})
    for label in labels:
        ner.add_label(label)
    nlp.initialize()
    # as after training: every move seen (an unseen one would send kg_ner to spaCy's decoding)
    ner.model.attrs["unseen_classes"] = set()
    return nlp


@pytest.mark.parametrize("weights", ["random", "zero"])
def test_every_valid_move_and_tie_is_decided_as_spacy_decides_it(weights):
    # A recogniser with random weights tries moves a trained one rarely does (an entity opened
    # on a whitespace token, run on across a sentence's end or the document's); with zero
    # weights every score but "O"'s ties, and the first valid move must win.
    labels = ["Method", "Task", "Material"]
    reference, batched = _untrained("ner", labels), _untrained("kg_ner", labels)
    batched.get_pipe("ner").from_bytes(reference.get_pipe("ner").to_bytes())
    if weights == "zero":
        for node in reference.get_pipe("ner").model.walk():
            for name in node.param_names:
                if node.has_param(name):
                    node.get_param(name)[...] = 0
        ner = reference.get_pipe("ner")
        out = [ner.moves.get_class_name(i) for i in range(ner.moves.n_moves)].index("O")
        ner.model.get_ref("lower").get_param("b")[out] = -1  # else "O", first of the ties, always wins
        batched.get_pipe("ner").from_bytes(reference.get_pipe("ner").to_bytes())
    texts = EDGES + [t for _, t in _texts()[:40]]
    assert batched.get_pipe("ner")._decodable([batched.make_doc(t) for t in texts])
    ours = [[(t.ent_iob_, t.ent_type_) for t in doc] for doc in batched.pipe(texts, batch_size=16)]
    assert ours == [[(t.ent_iob_, t.ent_type_) for t in doc] for doc in reference.pipe(texts, batch_size=16)]
    assert type(batched.get_pipe("ner")) is BatchedEntityRecognizer
    assert sum(iob == "B" for doc in ours for iob, _ in doc) > 10
