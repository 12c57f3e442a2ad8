"""Extraction: the output contract of `kg extract`, roles and acronym resolution."""

from __future__ import annotations

import json

from kg.extract import extract, mentions
from kg.normalise import Normaliser
from kg.records import RELATION_TYPES, Paper
from tests.conftest import SAMPLE, with_entities

BTM = (
    "We propose Branch-Train-Merge (BTM), a communication-efficient algorithm for embarrassingly parallel "
    "training of large language models (LLMs). BTM learns a set of independent expert LMs. We use knowledge "
    "distillation and data parallelism to reduce communication overhead."
)
NMT = (
    "Neural machine translation (NMT) has achieved great success. In this paper, we address low-resource "
    "machine translation by using back-translation with a Transformer model. Our NMT system outperforms "
    "strong baselines on WMT14."
)


def _mentions(nlp, text):
    [x] = extract([Paper("p", "", text)], nlp=nlp)
    return x.mentions


def test_contract_offsets_types_roles(nlp, sample_run):
    out, _ = sample_run
    abstracts = {r["id"]: r["abstract"] for r in map(json.loads, SAMPLE.read_text(encoding="utf-8").splitlines())}
    lines = (out / "mentions.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(abstracts)
    for line in lines:
        row = json.loads(line)
        assert set(row) == {"id", "mentions", "relations"}
        abstract = abstracts[row["id"]]
        for m in row["mentions"]:
            assert set(m) == {"text", "type", "start", "end", "sentence", "role", "concept", "source"}
            assert m["source"] in {"model", "phrase"}
            assert abstract[m["start"] : m["end"]] == m["text"]
            assert m["text"] in m["sentence"] and m["sentence"] in abstract
            assert m["type"] in {"Method", "Technique", "Problem", "Dataset", "Metric"}
            assert m["role"] in {"proposes", "uses", "addresses", "mentions"}
            assert m["concept"] and m["concept"] == m["concept"].lower()
        spans = {(m["start"], m["end"]): m["concept"] for m in row["mentions"]}
        for r in row["relations"]:
            assert r["type"] in RELATION_TYPES and r["head"] != r["tail"]
            assert spans[(r["head_start"], r["head_end"])] == r["head"]
            assert spans[(r["tail_start"], r["tail_end"])] == r["tail"]
            assert abstract[r["head_start"] : r["head_end"]] == r["head_text"]
            assert r["head_text"] in r["sentence"] and r["tail_text"] in r["sentence"] and r["sentence"] in abstract


def _annotated(nlp, text, ents):
    """Run kg's own components on ``text`` with the NER's entities given by hand (label, phrase)."""
    doc = with_entities(nlp, text, ents, disable=["tok2vec", "ner", "sentencizer", "kg_concepts", "kg_roles"])
    for name in ("sentencizer", "kg_concepts", "kg_roles"):
        doc = nlp.get_pipe(name)(doc)
    return {m.text: m for m in mentions(doc)}


def test_acronyms_resolve_to_long_form(nlp):
    ms = _annotated(nlp, NMT, [("Task", "Neural machine translation"), ("Task", "NMT"), ("Method", "NMT system")])
    assert ms["Neural machine translation"].concept == "neural machine translation"
    assert ms["NMT"].concept == "neural machine translation"
    assert ms["NMT system"].concept == "neural machine translation system"
    ms = _annotated(nlp, BTM, [("Method", "Branch-Train-Merge (BTM)"), ("Method", "BTM learns"), ("Method", "LMs")])
    assert ms["Branch-Train-Merge (BTM)"].concept == "branch train merge"
    assert ms["LMs"].concept == "language model"  # alias file: lm -> language model
    text = "We study document-level machine translation (MT). MT systems translate sentences one by one."
    ms = _annotated(nlp, text, [("Task", "document-level machine translation (MT)"), ("Method", "MT systems")])
    # the span names more than the acronym's long form ("machine translation"): its own key
    longer = Normaliser().key("document-level machine translation")
    assert ms["document-level machine translation (MT)"].concept == longer
    assert ms["MT systems"].concept == "machine translation system"


def test_model_output_resolves_acronyms(nlp):
    for text, short, key in ((NMT, "NMT", "neural machine translation"), (BTM, "BTM", "branch train merge")):
        found = [m for m in _mentions(nlp, text) if short in m.text]
        assert found and all(m.concept.startswith(key) for m in found), found


def test_types_and_roles_from_real_sentences(nlp):
    ms = _annotated(
        nlp,
        BTM + " " + NMT,
        [("Method", "Branch-Train-Merge"), ("Method", "knowledge distillation"), ("Method", "Transformer model"),
         ("Task", "low-resource machine translation"), ("Method", "data parallelism"),
         ("Task", "communication overhead")],
    )  # fmt: skip
    assert (ms["Branch-Train-Merge"].type, ms["Branch-Train-Merge"].role) == ("Method", "proposes")
    assert (ms["knowledge distillation"].type, ms["knowledge distillation"].role) == ("Technique", "uses")
    assert (ms["data parallelism"].type, ms["data parallelism"].role) == ("Technique", "uses")
    assert (ms["Transformer model"].type, ms["Transformer model"].role) == ("Method", "uses")
    assert (ms["low-resource machine translation"].type, ms["low-resource machine translation"].role) == (
        "Problem", "addresses")  # fmt: skip
    assert ms["communication overhead"].type == "Problem"
    ms = _annotated(nlp, "Parsing is studied a lot. In this paper we tackle dependency parsing for Korean.",
                    [("Task", "Parsing"), ("Task", "dependency parsing")])  # fmt: skip
    assert ms["dependency parsing"].role == "addresses"
    assert ms["Parsing"].role == "mentions"


def test_generic_mentions_and_determiners(nlp):
    text = "Our approach uses the attention mechanism of a novel model."
    ms = _annotated(nlp, text, [("Method", "Our approach"), ("Method", "the attention mechanism"),
                                ("Method", "a novel model")])  # fmt: skip
    assert list(ms) == ["attention mechanism"]  # "approach" and "model" are generic; "the" is trimmed
    assert ms["attention mechanism"].start == text.index("attention")


def test_spans_never_carry_unbalanced_brackets(nlp, sample_run):
    out, _ = sample_run
    for line in (out / "mentions.jsonl").read_text(encoding="utf-8").splitlines():
        for m in json.loads(line)["mentions"]:
            assert m["text"].count("(") == m["text"].count(")"), m["text"]


def test_two_processes_give_the_same_output(nlp):
    papers = [Paper(str(i), "", t) for i, t in enumerate([BTM, NMT] * 4)]
    one = [x.to_dict() for x in extract(papers, nlp=nlp, n_process=1)]
    two = [x.to_dict() for x in extract(papers, nlp=nlp, n_process=2, batch_size=2)]
    assert one == two
