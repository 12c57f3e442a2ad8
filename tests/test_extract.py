"""Extraction: the output contract of `kg extract`, roles and acronym resolution."""

from __future__ import annotations

import json

from kg.extract import extract
from kg.records import Paper
from tests.conftest import SAMPLE

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
        assert set(row) == {"id", "mentions"}
        abstract = abstracts[row["id"]]
        for m in row["mentions"]:
            assert set(m) == {"text", "type", "start", "end", "sentence", "role", "concept"}
            assert abstract[m["start"] : m["end"]] == m["text"]
            assert m["text"] in m["sentence"] and m["sentence"] in abstract
            assert m["type"] in {"Method", "Technique", "Problem"}
            assert m["role"] in {"proposes", "uses", "addresses", "mentions"}
            assert m["concept"] and m["concept"] == m["concept"].lower()


def test_acronyms_resolve_to_long_form(nlp):
    keys = {m.text: m.concept for m in _mentions(nlp, NMT)}
    assert keys["Neural machine translation"] == "neural machine translation"
    assert keys["NMT"] == "neural machine translation"
    assert keys["NMT system"] == "neural machine translation system"
    btm = {m.text: m.concept for m in _mentions(nlp, BTM)}
    assert btm["BTM"] == "branch train merge"  # defined in the abstract, used bare later
    assert btm["LMs"] == "language model"


def test_roles_from_real_sentences(nlp):
    roles = {m.text: m.role for m in _mentions(nlp, BTM + " " + NMT)}
    assert roles["knowledge distillation"] == "uses"
    assert roles["Transformer model"] == "uses"
    assert roles["low-resource machine translation"] in ("addresses", "mentions")
    roles = {
        m.text: (m.type, m.role)
        for m in _mentions(nlp, "In this paper we tackle the problem of dependency parsing for Korean.")
    }
    assert roles["dependency parsing"] == ("Problem", "addresses")


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
