"""Extraction: the output contract of `kg extract`, roles and acronym resolution."""

from __future__ import annotations

import json
import re

from spacy.tokens import Span

from kg.extract import extract, mentions
from kg.extract.components import RULES
from kg.extract.pipeline import paper_doc
from kg.normalise import Normaliser
from kg.normalise.keys import repeats_words
from kg.normalise.run import normalise_run
from kg.records import RELATION_TYPES, Extraction, Mention, PackedExtractions, Paper, Relation
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
    records = {r["id"]: r for r in map(json.loads, SAMPLE.read_text(encoding="utf-8").splitlines())}
    lines = (out / "mentions.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(records)
    fields = set()
    for line in lines:
        row = json.loads(line)
        assert set(row) == {"id", "mentions", "relations", "rules"}
        record = records[row["id"]]
        for m in row["mentions"]:
            keys = {"text", "type", "start", "end", "sentence", "role", "concept", "field", "confidence", "source"}
            assert set(m) == keys
            assert m["source"] in {"model", "phrase"}
            text = record[m["field"]]
            assert text[m["start"] : m["end"]] == m["text"]
            assert m["text"] in m["sentence"] and m["sentence"] in text
            if m["field"] == "title":
                assert m["sentence"] == record["title"]
            assert m["type"] in {"Method", "Technique", "Problem", "Dataset", "Metric", "Hardware"}
            assert m["role"] in {"proposes", "uses", "addresses", "mentions"}
            assert m["concept"] and m["concept"] == m["concept"].lower()
            fields.add(m["field"])
        # (a coordination is the mention of each of its concepts over the same characters)
        spans = {(m["field"], m["start"], m["end"], m["concept"]) for m in row["mentions"]}
        for r in row["relations"]:
            text = record[r["field"]]
            assert r["type"] in RELATION_TYPES and r["head"] != r["tail"]
            assert (r["field"], r["head_start"], r["head_end"], r["head"]) in spans
            assert (r["field"], r["tail_start"], r["tail_end"], r["tail"]) in spans
            assert text[r["head_start"] : r["head_end"]] == r["head_text"]
            assert text[r["tail_start"] : r["tail_end"]] == r["tail_text"]
            assert r["head_text"] in r["sentence"] and r["tail_text"] in r["sentence"] and r["sentence"] in text
    assert fields == {"title", "abstract"}


MOE_TITLE = "Mixture-of-Experts Layers for Efficient Large Language Model Training"
MOE = (
    "We propose sparse Mixture-of-Experts (MoE) layers that scale large language models (LLMs) to "
    "trillions of parameters. Our approach uses expert parallelism and reduces the communication overhead "
    "of training on the GLUE benchmark."
)


def test_title_adds_mentions_with_offsets_into_the_title(nlp):
    [alone] = extract([Paper("p", "", MOE)], nlp=nlp)
    paper = Paper("p", "Reinforcement Learning for Neural Machine Translation with Sparse Mixture-of-Experts", MOE)
    [x] = extract([paper], nlp=nlp)
    title = [m for m in x.mentions if m.field == "title"]
    assert {m.text for m in title} >= {"Neural Machine Translation"}
    for m in title:
        assert paper.title[m.start : m.end] == m.text and m.sentence == paper.title
    # title case is no sign of a name: spans stop before "for", a general technique stays one
    moe = Paper("q", "Sparse Mixture-of-Experts for Neural Machine Translation", MOE)
    [y] = extract([moe], nlp=nlp)
    title = [m for m in y.mentions if m.field == "title"]
    assert title and not any(m.text.split()[-1] in {"for", "of", "with"} for m in title), title
    [rl] = [m for m in x.mentions if m.field == "title" and m.concept == "reinforcement learning"]
    assert rl.text == "Reinforcement Learning" and rl.type == "Technique"

    # the recogniser's mentions in the abstract keep their offsets, their sentences and what they
    # are (candidate phrases are scored over the whole paper: a title may change which are kept)
    def recognised(ms):
        return [m for m in ms if m.field == "abstract" and m.source == "model"]

    assert recognised(x.mentions) == recognised(alone.mentions)
    assert all(m.field == "abstract" for m in alone.mentions) and alone.relations == [
        r for r in x.relations if r.field == "abstract"
    ]


def test_title_is_a_sentence_of_its_own(nlp):
    from kg.extract.pipeline import paper_doc

    # no final full stop: without the forced break the title would run into the abstract's first sentence
    doc = nlp(paper_doc(nlp, MOE_TITLE, MOE))
    title, abstract = list(doc.sents)[:2]
    # without a title the model reads the abstract alone, as before titles were read
    assert paper_doc(nlp, "", MOE).text == MOE and paper_doc(nlp, " ", MOE)._.title is None
    assert title.start_char == 0 and abstract.start_char == len(MOE_TITLE + "\n\n")
    [x] = extract([Paper("p", MOE_TITLE, MOE)], nlp=nlp)
    for m in x.mentions:
        assert getattr(Paper("p", MOE_TITLE, MOE), m.field)[m.start : m.end] == m.text
    assert all(r.sentence != MOE_TITLE or r.field == "title" for r in x.relations)


def test_an_acronym_the_title_defines_serves_the_abstract(nlp):
    title = "Neural Machine Translation (NMT) for Low-Resource Languages"
    abstract = "We train NMT models with back-translation and report BLEU on WMT14."
    [x] = extract([Paper("p", title, abstract)], nlp=nlp)
    nmt = [m for m in x.mentions if m.field == "abstract" and m.text.startswith("NMT")]
    assert nmt and all(m.concept.startswith("neural machine translation") for m in nmt), x.mentions


def test_a_name_spelled_out_after_it_is_defined_by_it(nlp):
    # arXiv ML abstracts name what they propose first and spell it out after: 2,052 of the 150,965
    # do, and a title opens with the name in 431. Both were left bare, so these two unrelated
    # papers were linked through one concept, "rasd".
    papers = [
        Paper("rasd", "RASD: Retrieval-Augmented Speculative Decoding",
              "This paper proposes RASD (Retrieval-Augmented Speculative Decoding), which adopts retrieval "
              "methods to enhance model-based speculative decoding. Experimental results demonstrate that RASD "
              "achieves state-of-the-art inference acceleration across tasks."),
        Paper("rasd-2", "Free Lunch in Medical Image Foundation Model Pre-training",
              "Here, we propose RaSD (Randomized Synthesis and Disentanglement), a scalable framework for "
              "pre-training MIFMs entirely on synthetic data. We pre-trained RaSD on 1.2 million 3D volumes."),
        Paper("gfpo", "GFPO: Group Filtered Policy Optimization", "We train reasoning models with GFPO."),
        Paper("kg-rag", "", "This paper introduces a KG-RAG (Knowledge Graph-Retrieval Augmented Generation) "
              "pipeline. The KG-RAG pipeline constructs a knowledge graph."),
        Paper("lr-drop", "Layer-wise Regularized Dropout for Neural Language Models",
              "In this paper, we propose a novel Layer-wise Regularized Dropout (LR-Drop), which is specially "
              "designed for Transformer-based Language models. Specifically, LR-Drop layer-wise regularizes each "
              "Transformer layer using the consistency training strategy."),
    ]  # fmt: skip
    xs, _ = normalise_run(papers, list(extract(papers, nlp=nlp)))
    keys = {x.id: {m.text: m.concept for m in x.mentions if re.search("RASD|RaSD|GFPO|KG-RAG", m.text)} for x in xs}
    assert keys["rasd"] and set(keys["rasd"].values()) == {"retrieval augmented speculative decoding"}, keys
    assert keys["rasd-2"] and all("randomized synthesis and disentanglement" in k for k in keys["rasd-2"].values())
    assert keys["gfpo"] and set(keys["gfpo"].values()) == {"group filtered policy optimization"}, keys
    # ... unless the mention spells its long form out already: "LR-Drop layer-wise regularizes"
    assert not [m.concept for x in xs for m in x.mentions if repeats_words(m.concept)]
    # a name of several parts is read whole: not "knowledge graph rag pipeline"
    assert keys["kg-rag"] and all(k.startswith("knowledge graph retrieval augmented generation")
                                  for k in keys["kg-rag"].values()), keys  # fmt: skip


def test_lines_without_field_still_load():
    from kg.records import Extraction

    old = {"id": "p1", "mentions": [{"text": "BERT", "type": "Method", "start": 7, "end": 11,
                                     "sentence": "We use BERT.", "role": "uses", "concept": "bert"}],
           "relations": [{"type": "USED_FOR", "head": "bert", "tail": "parsing", "head_text": "BERT",
                          "tail_text": "parsing", "head_start": 7, "head_end": 11, "tail_start": 16,
                          "tail_end": 23, "sentence": "We use BERT for parsing."}]}  # fmt: skip
    x = Extraction.from_dict(old)
    assert x.mentions[0].field == "abstract" and x.relations[0].field == "abstract"
    defaults = {"field": "abstract", "confidence": 1.0, "source": "model"}
    assert x.to_dict()["mentions"][0] == {**old["mentions"][0], **defaults}


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
    # the default sample: defined in the plural, used in the singular ("an MoE LLM")
    text = "Large language models (LLMs) with a Mixture-of-Experts (MoE) layer. Turning a dense LLM into an MoE LLM."
    ms = _annotated(nlp, text, [("Method", "MoE LLM")])
    assert ms["MoE LLM"].concept == "mixture of experts large language model"


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
    # a disease is what a study diagnoses, not a method (10,000 arXiv ML abstracts of 2026: "Alzheimer's
    # disease" a Method of 12 papers)
    ms = _annotated(nlp, "We detect Alzheimer's disease and Parkinson's disease from speech.",
                    [("Method", "Alzheimer's disease"), ("Method", "Parkinson's disease")])  # fmt: skip
    assert {m.type for m in ms.values()} == {"Problem"}


def test_what_a_paper_does_without_it_does_not_use(nlp):
    # 10,000 arXiv ML abstracts of 2025: 30 of the 44 papers of "retraining" wrote "without retraining",
    # and 33 mentions after "without" had been "uses"; a problem a paper does without is still its own
    text = (
        "Using LoRA, we adapt the model without retraining and w/o any extra annotation. "
        "We reason without hallucinations."
    )
    ms = _annotated(nlp, text, [("Method", "LoRA"), ("Method", "retraining"), ("Method", "annotation"),
                                ("Task", "hallucinations")])  # fmt: skip
    assert {t: m.role for t, m in ms.items()} == {
        "LoRA": "uses",
        "retraining": "mentions",
        "annotation": "mentions",
        "hallucinations": "addresses",
    }


def test_a_finite_verb_inside_a_mention_cuts_it_in_two(nlp):
    # arXiv ML abstracts: the recogniser glued a sentence's subject to its object, 13 mentions of
    # 4,000 sample abstracts, each a concept of its own ("ams kv reduces kv cache usage")
    text = "AMS-KV reduces KV cache usage by half, and PromptGNN-sim outperforms classical GNNs."
    ms = _annotated(nlp, text, [("Method", "AMS-KV reduces KV cache usage"),
                                ("Method", "PromptGNN-sim outperforms classical GNNs")])  # fmt: skip
    assert set(ms) == {"AMS-KV", "KV cache usage", "PromptGNN-sim", "classical GNNs"}
    # a verb inside a hyphenated word, or written with a capital, is part of a name
    text = "We train Learns-to-Rank models and score them on the Alternative Uses Test."
    ms = _annotated(nlp, text, [("Method", "Learns-to-Rank models"), ("Material", "Alternative Uses Test")])
    assert set(ms) == {"Learns-to-Rank models", "Alternative Uses Test"}


def test_a_task_read_as_a_material_is_a_problem_not_dropped(nlp):
    # 17 of 2,000 ACL and arXiv ML abstracts: a Material that names no dataset had been dropped
    text = "We study machine-generated text detection and French language modeling."
    ents = [("Material", "machine-generated text detection"), ("Material", "French language modeling")]
    ms = _annotated(nlp, text, ents)
    assert {t: (m.type, m.concept) for t, m in ms.items()} == {
        "machine-generated text detection": ("Problem", "machine generated text detection"),
        "French language modeling": ("Problem", "french language modeling"),
    }


def test_a_colon_or_a_spaced_dash_inside_a_mention_cuts_it_in_two(nlp):
    # 10,000 arXiv ML abstracts of 2025: the recogniser read 1 title in 40 across its colon, each a
    # concept of its own ("sad flower flow matching", "kv car kv cache compression")
    text = "SAD-Flower: Flow Matching for Safe Planning"
    ms = _annotated(nlp, text, [("Method", "SAD-Flower: Flow Matching")])
    assert set(ms) == {"SAD-Flower", "Flow Matching"}
    assert ms["Flow Matching"].concept == "flow matching"
    text = "It serves scientific computing – AUTO needs no tuning – and HIT-ROCKET: Hadamard transforms."
    ms = _annotated(nlp, text, [("Task", "scientific computing – AUTO"), ("Method", "HIT-ROCKET: Hadamard")])
    assert set(ms) == {"scientific computing", "AUTO", "HIT-ROCKET", "Hadamard"}
    # a colon inside brackets gives a value, and a hyphen inside a word joins it
    text = "It keeps the Structural Similarity Index Measure (SSIM: 0.82) of Bi-LSTM-CRF models."
    ms = _annotated(nlp, text, [("Metric", "Structural Similarity Index Measure (SSIM: 0.82)"),
                                ("Method", "Bi-LSTM-CRF models")])  # fmt: skip
    assert {m.concept for m in ms.values()} == {"structural similarity index measure", "bi lstm crf model"}


def test_a_dimension_makes_no_name(nlp):
    # 10,000 arXiv ML papers of 2025-2026: 336 concepts opening with "3D" or "2D" were Methods, 36
    # Techniques ("3D representations" 17 papers, "3D segmentation", "3D encoder"): the digit beside
    # a letter had read as a name's ("ResNet-50", "T5")
    text = "We learn 3D representations with a 2D encoder, unlike 3D Gaussian Splatting and ResNet-50."
    ms = _annotated(nlp, text, [("Method", "3D representations"), ("Method", "2D encoder"),
                                ("Method", "3D Gaussian Splatting"), ("Method", "ResNet-50")])  # fmt: skip
    assert {t: m.type for t, m in ms.items()} == {
        "3D representations": "Technique", "2D encoder": "Technique",
        "3D Gaussian Splatting": "Method", "ResNet-50": "Method",
    }  # fmt: skip


def test_a_measure_ends_before_its_value(nlp):
    # arXiv ML of 2025-2026 (10,000 papers): 150 mentions were a result, each a concept of its own
    # ("ROC-AUC of 0.983" a Method, "learning rate of 0.0001" a Metric)
    text = "The model reaches a ROC-AUC of 0.983 and a macro F1 of 0.69 with a learning rate of 0.0001."
    ms = _annotated(nlp, text, [("Metric", "ROC-AUC of 0.983"), ("Metric", "macro F1 of 0.69"),
                                ("Method", "learning rate of 0.0001")])  # fmt: skip
    assert set(ms) == {"ROC-AUC", "macro F1", "learning rate"}
    # ... and a value the span stops short of (ACL: "f1 of up", "success rates of up" were concepts)
    text = "We reach an F1 of up to 0.85 and success rates of about 90%."
    ms = _annotated(nlp, text, [("Metric", "F1 of up"), ("Metric", "success rates of about 90%")])
    assert set(ms) == {"F1", "success rates"}
    # a number that names a thing is a word of the name ("3D", "4D"), and so is a year ("Q3 of 2025"
    # is a quarter, no value)
    text = "We study the Generation of 3D Objects and Super-Resolution of 4D Flow MRI."
    ms = _annotated(nlp, text, [("Task", "Generation of 3D Objects"), ("Task", "Super-Resolution of 4D Flow MRI")])
    assert set(ms) == {"Generation of 3D Objects", "Super-Resolution of 4D Flow MRI"}


def test_a_time_that_says_when_is_no_concept(nlp):
    # 10,000 arXiv ML abstracts of 2026: 76 of 109 "inference time" mentions said when ("at inference
    # time"), and "inference time" was a concept of 124 papers
    assert _annotated(nlp, "At inference time, our method steers generation.", [("Metric", "inference time")]) == {}
    assert _annotated(nlp, "We train it during test time.", [("Metric", "test time")]) == {}
    assert set(_annotated(nlp, "It cuts inference time by 31%.", [("Metric", "inference time")])) == {"inference time"}
    # ... nor is it one of the candidate phrases
    text = "At inference time, our method steers generation. Guided decoding during test time helps."
    (found,) = extract([Paper("a", "", text)], nlp=nlp)
    assert [m.text for m in found.mentions if "time" in m.text] == []


def test_the_authors_a_citation_names_are_no_concept(nlp):
    # 5,000 ACL papers of 2021-2022: "Abu Farha" (3 papers), "Bengio", "Miller" had been Techniques,
    # candidate phrases of the abstracts' citations
    text = (
        "We follow Abu Farha et al. (2022) and the Transformer (Vaswani et al., 2017). Sarcasm detection "
        "(Miller, 2018; Bengio, 2019) remains hard for BERT (2019)."
    )
    (found,) = extract([Paper("a", "", text)], nlp=nlp)
    texts = {m.text for m in found.mentions}
    assert not [t for t in texts if any(name in t for name in ("Abu", "Farha", "Vaswani", "Miller", "Bengio"))]
    assert {"Sarcasm detection", "BERT"} <= texts
    assert _annotated(nlp, "As Abu Farha et al. show, it works.", [("Method", "Abu Farha")]) == {}


def test_a_name_that_opens_the_title_is_the_papers_own(nlp):
    papers = [
        Paper("a", "PRISM: Efficient Long-Range Reasoning With Short-Context LLMs",
              "PRISM processes information as a stream of chunks."),
        Paper("b", "Federated Learning: Challenges and Opportunities", "Federated learning trains models on devices."),
        Paper("c", "", "PRISM: we check the models with PRISM."),
    ]  # fmt: skip
    a, b, c = (x.mentions for x in extract(papers, nlp=nlp))
    assert [m.role for m in a if m.text == "PRISM" and m.field == "title"] == ["proposes"]
    assert all(m.role != "proposes" for m in b)  # a field, not a name
    assert all(m.role != "proposes" for m in c)  # no title: an abstract that opens with a name


def test_a_team_that_took_part_in_a_shared_task_is_no_concept(nlp):
    # 5,000 ACL papers of 2024: 376 titles name a team and the shared task it took part in; 242
    # teams had become concepts ("YNU-HPCC" a Method of 7 papers of different tasks, "UMUTeam" a
    # Metric, "HW-TSC" spelled out as "Huawei Translation Services Center")
    papers = [
        Paper("a", "YNU-HPCC at SemEval-2024 Task 7: Instruction Fine-tuning Models for Numerical Understanding",
              "This paper describes the system of YNU-HPCC for SemEval-2024 Task 7. YNU-HPCC fine-tunes "
              "large language models with LoRA."),
        Paper("b", "KEC AI DSNLP@LT-EDI-2024: Caste and Migration Hate Speech Detection using Machine Learning",
              "We detect hate speech with support vector machines."),
        Paper("c", "Team AT at SemEval-2024 Task 8: Machine-Generated Text Detection with Semantic Embeddings",
              "Team AT uses semantic embeddings to detect machine-generated text."),
        Paper("d", "BERT at Work: Probing Pretrained Language Models", "We probe BERT with diagnostic classifiers."),
    ]  # fmt: skip
    a, b, c, d = extract(papers, nlp=nlp)
    assert not [m for m in a.mentions if "YNU" in m.text or "ynu" in m.concept], a.mentions
    assert "semeval 2024 task 7" in {m.concept for m in a.mentions}
    assert {"large language model", "lora"} <= {m.concept for m in a.mentions}
    assert not [m for m in b.mentions if "KEC" in m.text or "DSNLP" in m.text], b.mentions
    assert "hate speech detection" in {m.concept for m in b.mentions if m.field == "title"}
    assert not [m for m in c.mentions if m.text in ("AT", "Team AT")], c.mentions
    assert not [r for x in (a, b, c) for r in x.relations if "ynu" in r.head + r.tail or "kec" in r.head + r.tail]
    assert [m.concept for m in d.mentions if m.field == "title" and m.start == 0] == ["bert"]  # no shared task


def test_a_team_leaves_the_mentions_it_opens_and_no_phrase_holds_it(nlp):
    # the recogniser's "YNU-HPCC at SemEval-2024 Task 7" and "YNU-HPCC retrieval system" had been
    # dropped whole, after taking two of the paper's 15 concepts from its candidate phrases
    from kg.extract.pipeline import TITLE_SEPARATOR

    title = "YNU-HPCC at SemEval-2024 Task 7: Numeral Understanding"
    text = (
        title
        + TITLE_SEPARATOR
        + ("We build the YNU-HPCC retrieval system. YNU-HPCC Numeral Tagger ranks first in Task 7 as YNU-HPCC team.")
    )
    ents = [("Method", "YNU-HPCC at SemEval-2024 Task 7"), ("Method", "YNU-HPCC retrieval system"),
            ("Method", "Task 7 as YNU-HPCC team")]  # fmt: skip
    doc = with_entities(nlp, text, ents, disable=["tok2vec", "ner", "sentencizer", "kg_concepts", "kg_roles",
                                                 "kg_relations", "kg_phrases"])  # fmt: skip
    doc._.title = title
    for name in ("sentencizer", "kg_concepts", "kg_roles", "kg_phrases"):
        doc = nlp.get_pipe(name)(doc)
    found = {m.text: m for m in mentions(doc)}
    assert {"SemEval-2024 Task 7", "retrieval system", "Task 7"} <= set(found), found
    assert not [t for t in found if "YNU" in t or "HPCC" in t or "team" in t], found
    assert doc.user_data[RULES]["a team, not a concept"] == 3


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


def _spans(nlp, text, ents):
    """(text, concept) of each mention, in order, and the rules that fired."""
    doc = with_entities(nlp, text, ents, disable=["tok2vec", "ner", "sentencizer", "kg_concepts", "kg_roles"])
    for name in ("sentencizer", "kg_concepts", "kg_roles"):
        doc = nlp.get_pipe(name)(doc)
    found = mentions(doc)
    assert all(text[m.start : m.end] == m.text for m in found)
    return [(m.text, m.concept) for m in found], doc.user_data[RULES]


def test_a_title_keeps_its_last_concept_where_the_recogniser_runs_into_the_space_after_it(nlp):
    # 16 of 1,000 arXiv ML titles: "... Federated Learning" read with the space between the title
    # and the abstract ran from the title into the abstract, and was no mention of either
    doc = paper_doc(nlp, "Privacy Attacks on Federated Learning", "We attack clients.")
    for name in ("sentencizer", "tok2vec"):
        doc = nlp.get_pipe(name)(doc)
    doc.ents = [Span(doc, 3, 6, label="Method")]
    assert doc[3:6].text == "federated learning\n\n"
    found = mentions(nlp.get_pipe("kg_roles")(nlp.get_pipe("kg_concepts")(doc)))
    assert [(m.field, m.text, m.concept) for m in found] == [("title", "Federated Learning", "federated learning")]


def test_acronym_in_brackets_is_not_read_twice(nlp):
    text = "Reinforcement learning (RL) algorithms learn from rewards. Other reinforcement learning algorithms fail."
    found, rules = _spans(nlp, text, [("Method", "Reinforcement learning (RL) algorithms"),
                                      ("Method", "reinforcement learning algorithms")])  # fmt: skip
    assert [k for _, k in found] == ["reinforcement learning algorithm"] * 2
    assert rules == {"acronym in brackets": 1}
    text = "Large language models have advanced natural language processing (NLP) tasks such as summarization."
    found, _ = _spans(nlp, text, [("Task", "natural language processing (NLP) tasks")])
    assert found == [("natural language processing (NLP) tasks", "natural language processing task")]


def test_an_acronym_in_brackets_before_a_hyphen_is_a_word_of_its_own(nlp):
    # 114 of 10,000 arXiv ML abstracts of 2026 write "(LLM)-based agents": the tokenizer had made
    # "LLM)-based" one word, and the agents were lost ("large language model" alone)
    text = "Although large language model (LLM)-based agents are strong, (DRL)-driven control fails."
    assert [t.text for t in nlp.make_doc(text)][4:10] == ["(", "LLM", ")", "-", "based", "agents"]
    (found,) = extract([Paper("a", "", text)], nlp=nlp)
    keys = {m.concept for m in found.mentions}
    assert "large language model based agent" in keys
    # the end of such a word opens no phrase: no "based agents", no "driven control"
    assert not any(k.startswith(("based", "driven")) for k in keys)
    # ... nor a mention: "based design" of "BIM (Building Information Modeling)-based design" is a design
    text = "BIM (Building Information Modeling)-based design drives the sector."
    assert set(_annotated(nlp, text, [("Method", "based design")])) == {"design"}


def test_an_aside_in_brackets_is_no_part_of_the_key(nlp):
    # the ACL corpus: "sequence-to-sequence (seq2seq) models" was keyed "sequence to sequence
    # seq2seq model" (57 mentions): "seq2seq" spells no initials, so it is no definition
    text = "We train sequence-to-sequence (seq2seq) models and report accuracy (%) on parsing."
    found, rules = _spans(nlp, text, [("Method", "sequence-to-sequence (seq2seq) models"),
                                      ("Metric", "accuracy (%)")])  # fmt: skip
    assert [k for _, k in found] == ["sequence to sequence model", "accuracy"]
    assert rules == {"aside in brackets dropped": 2}


def test_a_lone_ing_word_taking_an_object_is_a_verb_not_a_concept(nlp):
    # arXiv ML abstracts: "highlighting" was among the 50 concepts with most papers
    text = "The ensemble surpasses the single-LLM approach, highlighting its efficacy. Clustering helps parsing."
    found, rules = _spans(nlp, text, [("Task", "highlighting"), ("Method", "Clustering"), ("Task", "parsing")])
    assert found == [("Clustering", "clustering"), ("parsing", "parsing")]
    assert rules == {"verb with its object": 1}
    # ... and its complement: "calling for" (a Problem of 19 of 30,000 arXiv ML papers); "tool calling" is a concept
    found, _ = _spans(nlp, "Our findings show drawbacks, calling for a nuanced understanding.", [("Task", "calling")])
    assert found == []
    found, _ = _spans(nlp, "Tool calling for agents.", [("Task", "Tool calling")])
    assert found == [("Tool calling", "tool calling")]


def test_a_span_running_on_through_to_into_an_argument_is_no_concept(nlp):
    # ACL 2021.iwslt-1.2: "extends conventional RNN-T to sequence-to-sequence tasks" came out as one
    # Problem; of the 382 ACL mentions with a "to" of their own, most run on into a verb's argument
    text = "It extends conventional RNN-T to sequence-to-sequence tasks. We translate Natural Language to SQL."
    found, rules = _spans(nlp, text, [("Task", "RNN-T to sequence-to-sequence tasks"),
                                      ("Task", "Natural Language to SQL")])  # fmt: skip
    assert found == [("Natural Language to SQL", "natural language to sql")]
    assert rules == {"runs on through to": 1}
    text = "Sequence-to-sequence models and small VLMs (up to 7B parameters) help."
    found, rules = _spans(nlp, text, [("Method", "Sequence-to-sequence models"),
                                      ("Method", "small VLMs (up to 7B parameters)")])  # fmt: skip
    assert [t for t, _ in found] == ["Sequence-to-sequence models", "small VLMs (up to 7B parameters)"]
    assert "runs on through to" not in rules


def test_function_and_naming_words_leave_mention_edges(nlp):
    text = "We propose a differentiable architecture search called DARTS. It is evaluated on CIFAR-10 and ImageNet."
    found, rules = _spans(nlp, text, [("Method", "called DARTS"), ("Material", "CIFAR-10 and")])
    assert found == [("DARTS", "darts"), ("CIFAR-10", "cifar 10")]
    assert rules == {"naming word": 1, "function word trimmed": 1}
    text = "Recognition of proper nouns in Japanese text is hard, and in-context learning a remedy."
    found, _ = _spans(nlp, text, [("Task", "Recognition of proper nouns in"), ("Method", "in-context learning a")])
    assert found == [("Recognition of proper nouns", "recognition of proper noun"),
                     ("in-context learning", "in context learning")]  # fmt: skip
    found, _ = _spans(nlp, "A named entity recognition model.", [("Task", "named entity recognition")])
    assert found == [("named entity recognition", "named entity recognition")]


def test_a_mention_starts_where_its_hyphenated_word_starts(nlp):
    # 446 held-out arXiv abstracts on large models: the NER read "low-[precision]" and
    # "mixed-[precision] quantization", and "precision" was a Metric of 20 papers; ACL:
    # "encoder-[decoder]" (40), "semi-[supervised]" (33), "Few-[Shot Named Entity Recognition]"
    text = "We quantize weights to low-precision formats with mixed-precision quantization (DL-QAT) and Bi-LSTM."
    found, rules = _spans(nlp, text, [("Metric", "precision"), ("Method", "precision quantization"),
                                      ("Method", "QAT"), ("Method", "LSTM")])  # fmt: skip
    assert found == [("low-precision", "low precision"),
                     ("mixed-precision quantization", "mixed precision quantization"),
                     ("DL-QAT", "dl qat"), ("Bi-LSTM", "bi lstm")]  # fmt: skip
    assert rules == {"hyphenated word completed": 4}
    # a word the NER found on its own keeps it
    found, _ = _spans(nlp, "An encoder-decoder model.", [("Method", "encoder"), ("Method", "decoder model")])
    assert [t for t, _ in found] == ["encoder", "decoder model"]


def test_a_mention_ends_where_its_hyphenated_word_ends(nlp):
    # 30,000 arXiv ML papers: the NER stopped at the function word of "plug-and-[play]" 13 times,
    # keyed "plug", and the rest of the word became "play nature", "play codes"
    text = "The modular and plug-and-play nature of LoRA. We reach state-of-the-art results end-to-end."
    found, rules = _spans(nlp, text, [("Method", "plug-and"), ("Method", "play nature"), ("Method", "LoRA"),
                                      ("Method", "state-of"), ("Method", "end-to")])  # fmt: skip
    assert [t for t, _ in found] == ["plug-and-play", "LoRA", "state-of-the-art", "end-to-end"]
    assert rules["hyphenated word completed"] == 3
    # a name the NER found whole keeps its end: "GPT-4-based" is no name
    found, _ = _spans(nlp, "A GPT-4-based judge.", [("Method", "GPT-4")])
    assert [t for t, _ in found] == ["GPT-4"]


def test_a_count_leaves_its_mention(nlp):
    # 10,000 arXiv ML papers of 2026: 268 recogniser mentions opened with a count or a factor ("33
    # models", "2,875 editing tasks", "4.4× expansion", "1,474-pair Maharashtri Prakrit parallel
    # corpus"), each a concept of one paper
    text = (
        "We test 33 models on 2,875 editing tasks with a 4.4× speedup, and release a 1,474-pair Maharashtri "
        "Prakrit parallel corpus."
    )
    found, rules = _spans(nlp, text, [("Method", "33 models"), ("Task", "2,875 editing tasks"),
                                      ("Metric", "4.4× speedup"),
                                      ("Material", "1,474-pair Maharashtri Prakrit parallel corpus")])  # fmt: skip
    # ("models" alone is no concept)
    assert found == [("editing tasks", "editing task"), ("speedup", "speedup"),
                     ("Maharashtri Prakrit parallel corpus", "maharashtri prakrit parallel corpus")]  # fmt: skip
    assert rules == {"count trimmed": 4}
    # a number that is part of the name stays: a width, a unit, a version, a dimension
    text = "4-bit quantization, 4 bit quantization, 3D reconstruction, 2-hop reasoning and 10-K filings."
    found, _ = _spans(nlp, text, [("Method", "4-bit quantization"), ("Method", "4 bit quantization"),
                                  ("Task", "3D reconstruction"), ("Task", "2-hop reasoning"),
                                  ("Material", "10-K filings")])  # fmt: skip
    assert [t for t, _ in found] == ["4-bit quantization", "4 bit quantization", "3D reconstruction",
                                     "2-hop reasoning", "10-K filings"]  # fmt: skip


def test_a_letter_is_no_concept(nlp):
    # 30,000 arXiv ML papers: "R" (14 papers: "R(eference)-Out-of-Model-Scope", "the prefix R"),
    # "N", "Q", "H", "Δ" were concepts
    found, rules = _spans(
        nlp, "We use the prefix R and a recurrent decoder.", [("Method", "R"), ("Method", "recurrent decoder")]
    )
    assert [t for t, _ in found] == ["recurrent decoder"]
    assert rules["one letter"] == 1


def test_a_verb_that_frames_a_concept_leaves_its_mention(nlp):
    # 446 held-out arXiv abstracts on large models: titles gave "enhancing large language model",
    # "accelerating large language model inference" and "transferring knowledge" as concepts
    # apart from the large language models and their inference they are about
    text = "Accelerating LLM Inference with Staged Speculative Decoding. We study how leveraging LoRA helps."
    found, rules = _spans(nlp, text, [("Task", "Accelerating LLM Inference"), ("Method", "leveraging LoRA")])
    assert found == [("LLM Inference", "llm inference"), ("LoRA", "lora")]  # (the run expands LLM)
    assert rules == {"framing word": 2}
    # as the name's own first word it stays; alone it is no concept ("Enhancing" had been one of 3
    # of 2,000 arXiv ML papers)
    found, _ = _spans(nlp, "Boosting algorithms and accelerating.", [("Method", "Boosting algorithms"),
                                                                      ("Task", "accelerating")])  # fmt: skip
    assert [t for t, _ in found] == ["Boosting algorithms"]


def test_a_verb_the_sentence_says_of_a_concept_leaves_its_mention(nlp):
    # arXiv ML: "Speculative decoding accelerates" had been a concept of 26 papers; ACL: "corpus
    # consists" of 52, "human evaluation shows" of 18
    text = (
        "Speculative decoding accelerates inference. Replay mitigates catastrophic forgetting; "
        "human evaluation shows it."
    )
    found, rules = _spans(nlp, text, [("Method", "Speculative decoding accelerates"),
                                      ("Task", "mitigates catastrophic forgetting"),
                                      ("Metric", "human evaluation shows")])  # fmt: skip
    assert found == [("Speculative decoding", "speculative decoding"),
                     ("catastrophic forgetting", "catastrophic forgetting"),
                     ("human evaluation", "human evaluation")]  # fmt: skip
    assert rules == {"verb trimmed": 3}
    # plural nouns that read like verbs stay
    text = "We report uncertainty estimates, convergence guarantees and Fourier transforms."
    found, _ = _spans(nlp, text, [("Method", "uncertainty estimates"), ("Method", "convergence guarantees"),
                                  ("Method", "Fourier transforms")])  # fmt: skip
    assert [t for t, _ in found] == ["uncertainty estimates", "convergence guarantees", "Fourier transforms"]


def test_coordinations_split_into_their_concepts(nlp):
    text = (
        "We train on CIFAR-10 and ImageNet with data and model parallelism. The loss combines supervised and "
        "unsupervised learning; we compare Stochastic Gradient Descent and Adam and report BLEU, METEOR and ROUGE."
    )
    found, rules = _spans(nlp, text, [
        ("Material", "CIFAR-10 and ImageNet"), ("Method", "data and model parallelism"),
        ("Method", "supervised and unsupervised learning"), ("Method", "Stochastic Gradient Descent and Adam"),
        ("Metric", "BLEU, METEOR and ROUGE")])  # fmt: skip
    assert found == [
        ("CIFAR-10", "cifar 10"), ("ImageNet", "imagenet"),
        # a conjunct that shares the last one's head is named by the whole coordination only, and
        # so is each concept of it: one mention of each over the coordination, as SciERC marks it
        ("data and model parallelism", "data parallelism"), ("data and model parallelism", "model parallelism"),
        ("supervised and unsupervised learning", "supervised learning"),
        ("supervised and unsupervised learning", "unsupervised learning"),
        ("Stochastic Gradient Descent", "stochastic gradient descent"), ("Adam", "adam"),
        ("BLEU", "bleu"), ("METEOR", "meteor"), ("ROUGE", "rouge"),
    ]  # fmt: skip
    assert rules == {"coordination split": 6, "coordination shared": 2}


def test_a_shared_head_after_a_comma_is_a_word_of_its_own(nlp):
    # the default sample: "creating smaller, high-performing LLMs" keyed "smaller" as
    # "smallerlarge language model", the comma's missing space kept
    text = "We compare CNN, RNN and LSTM models, and build smaller, faster networks."
    found, _ = _spans(nlp, text, [("Method", "CNN, RNN and LSTM models"), ("Method", "smaller, faster networks")])
    assert [k for _, k in found] == ["cnn model", "rnn model", "lstm model", "smaller network", "faster network"]


def test_a_first_part_left_hanging_on_its_hyphen_shares_the_last_ones_word(nlp):
    # 241 of 10,000 arXiv ML abstracts of 2025-2026 write such a coordination; "feature- and
    # learning-based methods" had made the concept "feature method", "on- and off-policy gradient
    # methods" "on gradient method", "pre- and post-processing" the concept "pre"
    text = ("We compare pre- and post-processing methods with on- and off-policy gradient methods, and "
            "feature- and learning-based methods in single- and multi-turn settings.")  # fmt: skip
    found, rules = _spans(nlp, text, [
        ("Method", "pre- and post-processing methods"), ("Method", "on- and off-policy gradient methods"),
        ("Method", "feature- and learning-based methods"), ("Task", "single- and multi-turn settings")])  # fmt: skip
    assert found == [
        ("pre- and post-processing methods", "pre processing method"),
        ("pre- and post-processing methods", "post processing method"),
        ("on- and off-policy gradient methods", "on policy gradient method"),
        ("on- and off-policy gradient methods", "off policy gradient method"),
        ("feature- and learning-based methods", "feature based method"),
        ("feature- and learning-based methods", "learning based method"),
        ("single- and multi-turn settings", "single turn setting"),
        ("single- and multi-turn settings", "multi turn setting"),
    ]  # fmt: skip
    assert rules["hanging hyphen completed"] == 4


def test_coordinations_that_name_one_thing_stay_whole(nlp):
    text = (
        "Funding for research and development grew. There is a trade-off between accuracy and efficiency. "
        "We address forecasting and anomaly detection with a pick-and-place robot."
    )
    found, _ = _spans(nlp, text, [("Task", "research and development"),
                                  ("Metric", "trade-off between accuracy and efficiency"),
                                  ("Task", "forecasting and anomaly detection"),
                                  ("Task", "pick-and-place robot")])  # fmt: skip
    assert found == [
        ("research and development", "research and development"),
        ("trade-off between accuracy and efficiency", "trade off between accuracy and efficiency"),
        # a gerund names a task of its own: no shared head
        ("forecasting", "forecasting"), ("anomaly detection", "anomaly detection"),
        ("pick-and-place robot", "pick and place robot"),
    ]  # fmt: skip


def test_gerunds_in_a_coordination_share_what_the_last_one_takes(nlp):
    # SemEval-2022 Task 4's "Patronizing and Condescending Language Detection" had left "Patronizing"
    # (21 ACL papers), "training and testing data" "training" (generic) beside "testing data"
    text = (
        "We study Patronizing and Condescending Language Detection. We split training and testing data. "
        "Pretraining and fine-tuning stages differ. We address forecasting and anomaly detection. We focus "
        "on detecting and mitigating hallucinations."
    )
    found, _ = _spans(nlp, text, [("Task", "Patronizing and Condescending Language Detection"),
                                  ("Material", "training and testing data"),
                                  ("Method", "Pretraining and fine-tuning stages"),
                                  ("Task", "forecasting and anomaly detection"),
                                  ("Task", "detecting and mitigating hallucinations")])  # fmt: skip
    assert found == [
        ("Patronizing and Condescending Language Detection", "patronizing language detection"),
        ("Patronizing and Condescending Language Detection", "condescending language detection"),
        ("training and testing data", "training data"), ("training and testing data", "testing data"),
        ("Pretraining and fine-tuning stages", "pretraining stage"),
        ("Pretraining and fine-tuning stages", "fine tuning stage"),
        # a gerund before a noun names a task of its own: no shared head; nor does a verb's object
        ("forecasting", "forecasting"), ("anomaly detection", "anomaly detection"),
        ("detecting", "detecting"), ("hallucinations", "hallucination"),
    ]  # fmt: skip


def test_an_acronym_inside_a_mention_that_spells_it_out_is_not_expanded_twice(nlp):
    # ACL abstracts: "question-answering dataset SQuAD" after "Stanford Question Answering Dataset (SQuAD)"
    text = (
        "We evaluate on the Stanford Question Answering Dataset (SQuAD). Results on the question-answering "
        "dataset SQuAD improve."
    )
    found, rules = _spans(nlp, text, [("Material", "question-answering dataset SQuAD")])
    assert found == [("question-answering dataset SQuAD", "question answering dataset squad")]
    assert rules == {"acronym left (long form in the mention)": 1}


def test_lists_of_hyphenated_and_prepositional_concepts_split(nlp):
    # ACL abstracts: comma lists without a conjunction, a "to" inside hyphenated words, and
    # conjuncts that each carry their own preposition
    text = (
        "We submitted English-to-French, English-to-German systems and English-to-German and English-to-Chinese "
        "translation outputs. Features are bag-of-words, bag-of-characters. We compare Chain of Thought, Program "
        "of Thought prompting. Tasks include identification of proper nouns, identification of collocations."
    )
    found, rules = _spans(nlp, text, [
        ("Task", "English-to-French, English-to-German"),
        ("Task", "English-to-German and English-to-Chinese translation"),
        ("Method", "bag-of-words, bag-of-characters"),
        ("Method", "Chain of Thought, Program of Thought"),
        ("Task", "identification of proper nouns, identification of collocations")])  # fmt: skip
    assert found == [
        ("English-to-French", "english to french"), ("English-to-German", "english to german"),
        ("English-to-German and English-to-Chinese translation", "english to german translation"),
        ("English-to-German and English-to-Chinese translation", "english to chinese translation"),
        ("bag-of-words", "bag of words"), ("bag-of-characters", "bag of characters"),
        ("Chain of Thought", "chain of thought"), ("Program of Thought", "program of thought"),
        ("identification of proper nouns", "identification of proper noun"),
        ("identification of collocations", "identification of collocations"),
    ]  # fmt: skip
    assert rules == {"coordination split": 5, "coordination shared": 1}


def test_a_preposition_over_the_whole_coordination_keeps_it_whole(nlp):
    text = "We study the trade-off between accuracy and efficiency, and the speed and accuracy of inference."
    found, _ = _spans(nlp, text, [("Metric", "trade-off between accuracy and efficiency"),
                                  ("Metric", "speed and accuracy of inference")])  # fmt: skip
    assert [k for _, k in found] == ["trade off between accuracy and efficiency", "speed and accuracy of inference"]


def test_a_mention_cut_short_before_its_acronym_takes_the_long_form(nlp):
    # the default sample: the NER read only the end of the long form, which the mention now is
    text = "We align models with Reinforcement Learning from Human Feedback (RLHF)."
    found, _ = _spans(nlp, text, [("Method", "Human Feedback (RLHF)")])
    assert found == [
        ("Reinforcement Learning from Human Feedback (RLHF)", "reinforcement learning from human feedback")
    ]
    # arXiv ML: "artificial intelligence (XAI) methods" had been keyed "artificial intelligence method"
    text = "We survey explainable artificial intelligence (XAI) methods for clinicians."
    found, rules = _spans(nlp, text, [("Method", "artificial intelligence (XAI) methods")])
    assert found == [
        ("explainable artificial intelligence (XAI) methods", "explainable artificial intelligence method")
    ]
    assert rules["long form completed"] == 1
    # ... unless the start of the long form is a mention of its own
    found, _ = _spans(nlp, text, [("Task", "survey explainable"), ("Method", "artificial intelligence (XAI) methods")])
    assert found[-1][0] == "artificial intelligence (XAI) methods"
    # a longer name built on the acronym keeps its own words: "document-level MT (MT)" is no cut
    text = "We study machine translation (MT) and document-level machine translation (MT) systems."
    found, _ = _spans(nlp, text, [("Task", "document-level machine translation (MT)")])
    assert found == [("document-level machine translation (MT)", "document level machine translation")]


def test_a_shared_head_is_what_follows_the_repeated_first_conjunct(nlp):
    # ACL abstracts
    text = (
        "We compare R-CNN and Faster R-CNN networks in the Flat Fine-Grained and Nested Fine-Grained Subtasks, "
        "with data and model parallelism."
    )
    found, _ = _spans(nlp, text, [("Method", "R-CNN and Faster R-CNN networks"),
                                  ("Task", "Fine-Grained and Nested Fine-Grained Subtasks"),
                                  ("Method", "data and model parallelism")])  # fmt: skip
    assert found == [
        ("R-CNN and Faster R-CNN networks", "r cnn network"),
        ("R-CNN and Faster R-CNN networks", "faster r cnn network"),
        ("Fine-Grained and Nested Fine-Grained Subtasks", "fine grained subtask"),
        ("Fine-Grained and Nested Fine-Grained Subtasks", "nested fine grained subtask"),
        ("data and model parallelism", "data parallelism"), ("data and model parallelism", "model parallelism"),
    ]  # fmt: skip
    # an ACL abstract: the first conjunct is the last one's head, and nothing follows it
    text = "We prompt models using Chain-Of-Thought and Contrastive Chain-Of-Thought."
    found, _ = _spans(nlp, text, [("Method", "Chain-Of-Thought and Contrastive Chain-Of-Thought")])
    assert found == [("Chain-Of-Thought", "chain of thought"),
                     ("Contrastive Chain-Of-Thought", "contrastive chain of thought")]  # fmt: skip


def test_a_web_address_is_no_concept(nlp):
    # an ACL abstract's LaTeX markup, which the recogniser read as a Metric
    markup = "href{https://youtu.be/TuirftxciNE}{https://youtu.be/TuirftxciNE}} footnote Live Link"
    text = f"Code and annotations: footnote Demo: {{{markup}, at www.example.org."
    found, rules = _spans(nlp, text, [("Metric", markup), ("Method", "www.example.org")])
    assert found == [] and rules == {"web address": 2}


def test_a_span_that_repeats_a_run_of_words_is_two_mentions(nlp):
    # ACL abstracts: the NER glued neighbours into one span
    text = (
        "We study Opinion Mining Opinion mining tools and large-scale industrial document analysis document "
        "analysis, from Statistical Machine Translation to Neural Machine Translation. We train a "
        "Sequence-to-Sequence-to-Sequence Autoencoder on the digital library of the National Library of France "
        "and a clinical description of the findings of the radiologist. A Convolutional Neural Network (CNN) "
        "based deep neural network model. We used Llama-3-8b (QLF-Llama-3)."
    )
    found, rules = _spans(nlp, text, [
        ("Task", "Opinion Mining Opinion mining"),
        ("Task", "large-scale industrial document analysis document analysis"),
        ("Method", "Statistical Machine Translation to Neural Machine Translation"),
        ("Method", "Sequence-to-Sequence-to-Sequence Autoencoder"),
        ("Task", "digital library of the National Library of France"),
        ("Task", "clinical description of the findings of the radiologist"),
        ("Method", "Convolutional Neural Network (CNN) based deep neural network model"),
        ("Method", "Llama-3-8b (QLF-Llama-3)")])  # fmt: skip
    assert found == [
        ("Opinion Mining", "opinion mining"), ("Opinion mining", "opinion mining"),
        ("large-scale industrial document analysis", "large scale industrial document analysis"),
        ("document analysis", "document analysis"),
        ("Statistical Machine Translation", "statistical machine translation"),
        ("Neural Machine Translation", "neural machine translation"),
        # a repeat inside one hyphenated word is a name, one of function words is grammar
        ("Sequence-to-Sequence-to-Sequence Autoencoder", "sequence to sequence to sequence autoencoder"),
        ("digital library", "digital library"), ("National Library of France", "national library of france"),
        ("clinical description of the findings of the radiologist",
         "clinical description of the findings of the radiologist"),
        # the bracket of the first is left out of both
        ("Convolutional Neural Network", "convolutional neural network"),
        ("based deep neural network model", "based deep neural network model"),
        # hyphenated names with digits are one token each: their parts still count
        ("Llama-3-8b", "llama 3 8b"), ("QLF-Llama-3", "qlf llama 3"),
    ]  # fmt: skip
    assert rules["repeat split"] == 6


def test_mentions_read_back_share_their_repeated_strings(tmp_path):
    # A million mentions each with its own "Method", "uses" and concept key cost ~200 MB on the ACL
    # corpus: the cache and worker results give one string object to each distinct value.
    from kg.extract.cache import ExtractionCache

    def found(pid: str) -> Extraction:
        mention = Mention("BERT", "".join(["Meth", "od"]), 0, 4, "We use BERT.", "".join(["us", "es"]), "bert")
        return Extraction(pid, [mention])

    cache = ExtractionCache(tmp_path / "c.sqlite", namespace="n")
    cache.put([("a", found("a")), ("b", found("b"))])
    got = cache.get(["a", "b"])
    a, b = got["a"].mentions[0], got["b"].mentions[0]
    assert (a.type, a.role, a.concept) == ("Method", "uses", "bert")
    assert a.type is b.type and a.role is b.role and a.concept is b.concept
    # worker results are packed for the run (kg.records.PackedExtractions), which shares them too
    x, y = (m for x in PackedExtractions([found("a"), found("b")]) for m in x.mentions)
    assert x == found("a").mentions[0] and x.type is y.type and x.role is y.role


def test_packed_extractions_give_back_what_they_were_given():
    # a run holds its extractions packed from the extract stage to the build (kg.records)
    sentence = "We use BERT for parsing."
    x = Extraction(
        "p1",
        [Mention("BERT", "Method", 7, 11, sentence, "uses", "bert"),
         Mention("parsing", "Problem", 16, 23, sentence, "addresses", "parsing", confidence=0.5, source="phrase"),
         Mention("Parsing", "Problem", 0, 7, "Parsing", "mentions", "parsing", field="title")],
        [Relation("USED_FOR", "bert", "parsing", "BERT", "parsing", 7, 11, 16, 23, sentence)],
        {"acronym from the run": 2},
    )  # fmt: skip
    packed = PackedExtractions([x, Extraction("p2", [])])
    assert len(packed) == 2 and list(packed) == [x, Extraction("p2", [])] and list(packed) == list(packed)
    got = next(iter(packed))
    assert got.mentions[0].sentence is got.mentions[1].sentence is got.relations[0].sentence  # one copy a paper
    assert [y.id for y in packed.drain()] == ["p1", "p2"] and len(packed) == 0


def test_no_key_repeats_a_run_of_its_words():
    # Two ACL abstracts: a head shared with a conjunct that is no concept, and a bracketed name
    # read as the acronym of the two phrases before it.
    from kg.normalise.keys import repeats_words

    papers = [
        Paper("p1", "", "These methods extend the translation unit from a single sentence to a pseudo-document and "
              "encodes the full pseudo-document, avoiding the redundant computation problem in context."),
        Paper("p2", "", "The method depends on three significant resources for each language: a corpus of "
              "conventionalized metaphors, a table of conventionalized conceptual metaphors (CCM table), and a "
              "set of extraction rules. For each metaphor, the CCM table contains the source domain word."),
    ]  # fmt: skip
    keys = {m.text: m.concept for x in extract(papers) for m in x.mentions}
    assert keys["pseudo-document"] == "pseudo document"
    assert not [k for k in keys.values() if repeats_words(k)], keys


def test_a_possessor_written_as_a_name_is_cut_from_what_it_possesses():
    # Held-out arXiv abstracts: "NVIDIA's Triton server", "MoE's multi-expert architecture" and
    # "PMQ's static bit-width optimization" were concepts of their own, and "QuIP's" one apart from
    # QuIP; an eponym stays whole ("Relaxed Word Mover's Distance")
    papers = [
        Paper("p1", "", "Our scheduler serves 2x more requests under SLOs, when compared to NVIDIA's Triton server. "
              "Adaptation modules should incorporate routing mechanisms to align with MoE's multi-expert "
              "architecture. First, QuIP# improves QuIP's incoherence processing."),
        Paper("p2", "", "By combining PMQ's static bit-width optimization with OTP's dynamic routing, MC# achieves "
              "extreme compression. RoPE-LIME incorporates a locality kernel based on Relaxed Word Mover's "
              "Distance computed in RoPE embedding space."),
    ]  # fmt: skip
    keys = {m.concept for x in extract(papers) for m in x.mentions}
    assert not [k for k in keys if "'s" in k and "mover" not in k], keys
    assert {"triton server", "multi expert architecture", "static bit width optimization"} <= keys
    # arXiv ML: organisations written like a person's name ("Google's Gemini Pro" had been a concept
    # beside "Gemini Pro"), and eponyms that stay whole
    papers = [
        Paper("p3", "", "To generate the answers we used the OpenAI's gpt-4, gpt-4-1106-preview, "
              "gpt-3.5-turbo-1106, and Google's Gemini Pro. Notably, TechGPT-2.0 is trained on Huawei's Ascend "
              "server. We solve it with Newton's method and Dijkstra's algorithm."),
    ]  # fmt: skip
    keys = {m.concept for x in extract(papers) for m in x.mentions if m.source == "model"}
    assert {"gemini pro", "ascend server", "newton's method", "dijkstra's algorithm"} <= keys, keys
    assert not {"google's gemini pro", "huawei's ascend server"} & keys


def test_an_acronym_s_x_is_the_x_of_ex_and_a_possessive_ending_opens_no_mention(nlp):
    # arXiv ML: "Explainable AI (XAI)" and "eXtreme Gradient Boosting (XGBoost)" defined nothing (X is
    # no word's first letter), so XAI (363 papers), "explainable artificial intelligence" (459) and
    # "explainable AI" (142) were three concepts; "the system's accuracy" gave "'s accuracy"
    text = "We use XAI with XGBoost. Explainable AI (XAI) and eXtreme Gradient Boosting (XGBoost) help."
    found, _ = _spans(nlp, text, [("Method", "XAI"), ("Method", "XGBoost"), ("Method", "Explainable AI (XAI)")])
    assert [k for _, k in found] == ["explainable ai", "extreme gradient boosting", "explainable ai"]
    doc = nlp("Messages improve the system's accuracy.", disable=["tok2vec", "ner", "sentencizer", "kg_concepts"])
    doc.ents = [doc.char_span(len("Messages improve the system"), len(doc.text) - 1, label="Metric")]
    doc = nlp.get_pipe("kg_concepts")(nlp.get_pipe("sentencizer")(doc))
    assert [(m.text, m.concept) for m in mentions(doc)] == [("accuracy", "accuracy")]


def test_a_mention_that_starts_a_defined_long_form_is_the_long_form():
    # ACL: the recogniser stopped at "Reinforcement Learning" of "Reinforcement Learning from AI
    # Feedback (RLAIF)" and at "Bidirectional Encoder Representation" of "... from Transformer
    # (BERT)", whose "Transformer (BERT)" it read as a concept of its own; a long form with a
    # possessive ("large language model's (LLM)") gave the key "large language model s"
    text = ("We compare Reinforcement Learning from AI Feedback (RLAIF) with supervised fine-tuning. Recent advances "
            "in large language model\u2019s (LLM) abilities are large. Bidirectional Encoder Representation from "
            "Transformer (BERT) is strong.")  # fmt: skip
    (found,) = extract([Paper("p1", "", text)])
    keys = [m.concept for m in found.mentions if m.source == "model"]
    assert "reinforcement learning from ai feedback" in keys, keys
    assert "bert" in keys and "transformer" not in keys and "large language model" in keys, keys
    assert not [k for k in keys if k.endswith(" s")], keys
    assert found.rules["long form completed"] >= 2


def test_sentences_and_texts_read_from_the_token_table_are_spacys(nlp):
    # mentions and roles read sentence bounds and texts from the token table once per Doc
    # (kg.extract.components.SentenceBounds): the same as span.sent and span.text, for spans
    # inside a sentence, at its edges and across its end.
    from spacy.tokens import Span

    from kg.extract.components import SentenceBounds
    from kg.extract.pipeline import _Texts

    doc = nlp(
        "We train BERT on SQuAD.  Then  we evaluate it.\n\nFinally, GPT-4 (a large language model) answers questions."
    )
    bounds, texts = SentenceBounds(doc), _Texts(doc)
    assert len(bounds.starts) == len(list(doc.sents)) == 3
    for start in range(len(doc)):
        for end in range(start + 1, min(start + 8, len(doc)) + 1):
            span = Span(doc, start, end)
            assert bounds.of(span) == (span.sent.start, span.sent.end)
            assert (texts.span(span), texts.sentence(span)) == (span.text, span.sent.text)
