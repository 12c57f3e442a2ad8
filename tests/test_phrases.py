"""``kg_phrases``: candidate phrases beside (and inside) the recogniser's concepts, on real abstracts."""

from __future__ import annotations

import math

import pytest
from spacy.tokens import Span

from kg.extract.components import SPANS_KEY
from kg.extract.phrases import Phrases
from kg.extract.pipeline import extract
from kg.records import Paper
from tests.conftest import with_entities

# From www.jsonl-style records: the title is the first line.
TITLE = "Collaborative filtering for orkut communities: discovery of user latent behavior"
ABSTRACT = (
    "Users of social networking services can connect with each other by forming communities for online "
    "interaction. Yet as the number of communities hosted by such websites grows over time, users have even "
    "greater need for effective community recommendations in order to meet more users. In this paper, we "
    "investigate two algorithms from very different domains and evaluate their effectiveness for personalized "
    "community recommendation. First is association rule mining (ARM), which discovers associations between "
    "sets of communities that are shared across many users. Second is latent Dirichlet allocation (LDA), which "
    "models user-community co-occurrences using latent aspects."
)
TEXT = f"{TITLE}\n{ABSTRACT}"


@pytest.fixture(scope="module")
def found(nlp):
    [x] = extract([Paper("orkut", "", TEXT)], nlp=nlp)
    return x.mentions


def test_phrases_add_concepts_up_to_the_budget(found, nlp):
    phrases = [m for m in found if m.source == "phrase"]
    assert phrases and any(m.source == "model" for m in found)
    assert len({m.concept for m in found}) <= nlp.get_pipe("kg_phrases").max_concepts
    assert all(TEXT[m.start : m.end] == m.text for m in phrases)
    assert {m.type for m in phrases} <= {"Problem", "Technique", "Method", "Dataset", "Metric"}


def test_a_candidate_is_found_in_the_title(found):
    assert any(m.end <= len(TITLE) for m in found if m.source == "phrase"), [m.text for m in found]


def test_phrases_are_trimmed_of_function_words_and_punctuation(found, nlp):
    function = nlp.get_pipe("kg_phrases").function
    for m in (m for m in found if m.source == "phrase"):
        for words in (m.text.lower().split(), m.concept.split()):
            assert words[0] not in function and words[-1] not in function, m.text
        assert m.text[0].isalnum() and m.text[-1].isalnum(), m.text


def test_a_phrase_ends_at_a_verb(nlp):
    # "survey offers" and "reduces errors" had been phrases, and "study explores" a concept of 11 arXiv ML papers
    doc = nlp("Our survey offers a taxonomy of decoding methods. Self-consistency reduces errors on math problems.")
    phrases = [s.text for s in doc.spans[SPANS_KEY] if s._.source == "phrase"]
    assert phrases and not any(w in ("offers", "reduces") for p in phrases for w in p.split()), phrases
    assert {"offers", "reduces"} <= nlp.get_pipe("kg_phrases").function


def test_no_phrase_opens_with_a_verb_but_a_hyphenated_name_keeps_it():
    # 30,000 arXiv ML papers: "offer insight", "mitigate hallucination", "holds promise", "learn
    # representations" and 1,400 more such phrases had been concepts
    keys = _every_phrase(
        "These results offer insight and help mitigate hallucination; the approach holds promise "
        "to learn representations. We calibrate Learn-then-Test with an Explore-then-Commit policy."
    )
    verbs = {"offer", "help", "mitigate", "hold", "holds", "learn"}
    assert not [k for k in keys if k.split()[0] in verbs and " then " not in k], keys
    assert {"insight", "hallucination", "learn then test", "explore then commit policy"} <= keys


def test_no_phrase_holds_what_a_sentence_says_of_a_concept():
    # 30,000 arXiv ML papers: "findings indicate", "models struggle", "tasks involving", "users
    # tend", "limitations inherent" and 2,500 more such phrase mentions had been concepts
    keys = _every_phrase(
        "Recent findings indicate that current models struggle on tasks involving long documents, "
        "and users tend to trust them. Limitations inherent to retrieval persist."
    )
    said = {"indicate", "struggle", "involving", "tend", "inherent", "persist"}
    assert not [k for k in keys if said & set(k.split())], keys
    assert {"finding", "long document", "retrieval"} <= keys


def test_no_phrase_crosses_a_concept_span(found):
    model = [m for m in found if m.source == "model"]
    for p in (m for m in found if m.source == "phrase"):
        for m in model:
            crosses = p.start < m.end and m.start < p.end and not (m.start <= p.start and p.end <= m.end)
            assert not crosses and (p.start, p.end) != (m.start, m.end), (p.text, m.text)


def test_without_inside_concepts_no_phrase_overlaps_a_concept(nlp, tmp_path):
    from kg.config import config_path

    settings = tmp_path / "phrases.toml"
    text = config_path("phrases.toml").read_text(encoding="utf-8")
    settings.write_text(text.replace("inside_concepts = true", "inside_concepts = false"), encoding="utf-8")
    phrases = Phrases(settings=settings)
    assert not phrases.inside_concepts
    doc = phrases(nlp(TEXT, disable=["kg_phrases"]))
    model = [s for s in doc.spans[SPANS_KEY] if s._.source == "model"]
    added = [s for s in doc.spans[SPANS_KEY] if s._.source == "phrase"]
    assert added
    assert not any(p.start < m.end and m.start < p.end for p in added for m in model)


def test_recogniser_spans_keep_their_roles_and_source(nlp):
    with_phrases = nlp(TEXT)
    without = nlp(TEXT, disable=["kg_phrases"])
    model = [
        (s.start, s.end, s.label_, s.id_, s._.role) for s in with_phrases.spans[SPANS_KEY] if s._.source == "model"
    ]
    assert model == [(s.start, s.end, s.label_, s.id_, s._.role) for s in without.spans[SPANS_KEY]]


def test_phrases_are_deterministic(nlp):
    runs = [[(m.start, m.end, m.concept) for m in x.mentions] for x in extract([Paper("a", "", TEXT)] * 2, nlp=nlp)]
    assert runs[0] == runs[1]
    [again] = extract([Paper("b", "", TEXT)], nlp=nlp)
    assert [(m.start, m.end, m.concept) for m in again.mentions] == runs[0]


def test_remembered_words_and_frequencies_change_no_candidate(nlp, monkeypatch):
    # Phrases remembers each word's shape and each phrase's reference frequency across documents,
    # forgetting all when full: candidates are the same fresh, remembered and after forgetting.
    import kg.extract.phrases as phrases_module

    doc = nlp(TEXT, disable=["kg_phrases"])

    def seen(phrases: Phrases) -> tuple:
        c = phrases.candidates(doc)
        return c.words, c.occurrences, c.features.tolist(), c.tokens, c.spaces

    fresh = seen(Phrases())
    remembering = Phrases()
    assert seen(remembering) == fresh and seen(remembering) == fresh
    assert remembering._lexemes and remembering._dfs
    monkeypatch.setattr(phrases_module, "_LEXEMES", 3)
    monkeypatch.setattr(phrases_module, "_PHRASE_DFS", 3)
    forgetting = Phrases()
    assert seen(forgetting) == fresh and seen(forgetting) == fresh
    assert len(forgetting._lexemes) < len(remembering._lexemes)


def test_unknown_feature_weight_is_a_config_error(tmp_path):
    from kg.errors import ConfigError

    settings = tmp_path / "phrases.toml"
    settings.write_text("[weights]\nbias = 1.0\nlength = 2.0\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="length"):
        Phrases(settings=settings)


def test_phrase_types_read_from_the_key():
    # the default sample typed "quantization" a Problem by its -tion ending alone
    phrases = Phrases()
    assert [phrases._type(k) for k in ("quantization", "post training quantization", "knowledge distillation",
                                       "semantic segmentation", "recommendation task", "latent aspect")] == [
        "Technique", "Technique", "Technique", "Problem", "Problem", "Technique"]  # fmt: skip
    # arXiv ML: "GPT-4" and "DeepSeek-R1", found as phrases, were Techniques like families of methods
    written = [("gpt 4", "GPT-4"), ("deepseek r1", "DeepSeek-R1"), ("heterogeneous cluster", "Heterogeneous Clusters"),
               ("gpt 4 evaluation", "GPT-4 evaluation"), ("kv cache", "KV cache")]  # fmt: skip
    assert [phrases._type(k, t) for k, t in written] == ["Method", "Method", "Technique", "Problem", "Technique"]
    # 10,000 arXiv ML papers of 2025: "agentic AI", written with the family acronym AI, had been a Method of
    # 28 papers, as the recogniser's spans no longer make such a family (``family_acronyms``)
    families = [("agentic artificial intelligence", "Agentic AI"), ("video large language model", "video LLMs"),
                ("trustworthy artificial intelligence", "trustworthy AI"), ("graphrag", "GraphRAG")]  # fmt: skip
    assert [phrases._type(k, t) for k, t in families] == ["Technique", "Technique", "Technique", "Method"]


def _every_phrase(doc) -> set[str]:
    """The keys of every candidate phrase of ``doc`` (a text is read with a blank pipeline), with no score floor."""
    import spacy

    doc = spacy.blank("en")(doc) if isinstance(doc, str) else doc
    phrases = Phrases()
    phrases.min_score = -math.inf
    return {key for _, key in phrases.select(phrases.candidates(doc), set())}


def test_a_phrase_is_keyed_as_written():
    # the default sample keyed the phrase "geo-distributed GPUs" as "geo distributed gpus": read
    # in lower case, "gpus" kept its s like "corpus"; so did "DARTS", a name, lose its S
    import spacy

    nlp = spacy.blank("en")
    doc = nlp("We train on geo-distributed GPUs with DARTS cells.")
    phrases = Phrases()
    phrases.min_score = -math.inf
    found = phrases.candidates(doc)
    keys = {found.words[i]: key for i, key in phrases.select(found, set())}
    assert keys[("geo", "-", "distributed", "gpus")] == "geo distributed gpu"
    assert keys[("darts", "cells")] == "darts cell"
    # the ACL corpus: "GSM8K", two tokens of one word, was keyed "gsm8 k" (64 mentions)
    doc = nlp("Results on GSM8K improve.")
    found = phrases.candidates(doc)
    assert "gsm8k" in {key for _, key in phrases.select(found, set())}


def test_a_function_word_glued_by_a_hyphen_opens_the_phrase():
    # arXiv ML abstracts: "In-Context Learning" gave the phrase "context learning", a concept
    # of its own beside the recogniser's "in context learning"
    keys = _every_phrase("We study In-Context Learning with on-policy distillation in large models.")
    assert {"in context learning", "on policy distillation"} <= keys
    assert not keys & {"context learning", "policy distillation", "in large model", "study in context learning"}


def test_a_number_glued_by_a_hyphen_opens_the_phrase():
    # the default sample: "4-bit quantization", "1-bit quantization" and "ultra-low bit
    # quantization" all gave the phrase "bit quantization" (7 papers)
    keys = _every_phrase("We compare 1.58-bit, 2-bit, and 3-bit quantization; 4-bit quantization is widely used.")
    assert {"3 bit quantization", "4 bit quantization"} <= keys
    assert "bit quantization" not in keys


def test_a_numbered_task_of_a_shared_task_is_one_phrase():
    # 5,000 ACL papers of 2024: "YNU-HPCC at SemEval-2024 Task 5" gave "SemEval-2024" and "SemEval-2024
    # Task" (the edition: 338 mentions of 193 papers), never the task the paper was written for
    keys = _every_phrase("YNU-HPCC at SemEval-2024 Task 5: Regularized Legal-BERT. We study Task 2 and Track 3.")
    assert "semeval 2024 task 5" in keys, keys
    assert not keys & {"semeval 2024 task", "task 5", "task 2", "track 3"}, keys


def test_the_unit_of_a_number_is_no_word_of_a_phrase():
    # the default sample: "K tokens" of "contexts of up to 128K tokens" and "from 2K to 50K tokens" had
    # been a concept of 4 papers ("k token")
    keys = _every_phrase("It reads contexts of up to 128K tokens, from 2K to 50K tokens, and 1M tokens of 3D scenes.")
    assert not {k for k in keys if k.split()[0] in ("k", "m")}, keys
    assert "3d scene" in keys, keys


def test_no_phrase_starts_or_ends_inside_a_word_the_tokenizer_splits():
    # the ACL sample: "D2T" is the tokens "D2" and "T", and "D2T generation models" gave the phrase
    # "T generation" once the run read "data-to-text (D2T)" as a definition (and arXiv ML "LL4" of "LL4G")
    keys = _every_phrase("We benchmark D2T generation models in the biomedical domain.")
    assert "d2t generation" in keys, keys
    assert not {k for k in keys if k.startswith("t ") or k.endswith(" d2") or k == "d2"}, keys


def test_a_word_left_hanging_on_its_hyphen_is_no_phrase():
    # the 4,000 arXiv ML and ACL sample abstracts: "short-" of "short- and long-term", "Context-",
    # "mid-" had been phrases of their own ("short", "context")
    keys = _every_phrase("We model short- and long-term memory with mid- and late-fusion features.")
    assert "long term memory" in keys, keys
    assert not keys & {"short", "mid", "short and long term memory"}, keys


def test_no_phrase_cuts_a_known_two_word_concept(nlp):
    # the default sample's titles: inside the recogniser's "Mixture-of-Experts Language Model",
    # the phrase "Mixture-of-Experts Language" (3 papers); "knowledge graph" stays, a concept of its own
    title = "DeepSeek-V2: A Strong, Economical, and Efficient Mixture-of-Experts Language Model"
    abstract = "We present a new model trained on large corpora of text and code for knowledge graph embedding."
    [x] = extract([Paper("deepseek", title, abstract)], nlp=nlp)
    keys = {m.concept for m in x.mentions}
    assert {"mixture of experts", "language model", "knowledge graph"} <= keys
    assert not {k for k in keys if k.split()[-1] == "language"}, keys


def test_a_letter_is_no_phrase():
    # arXiv ML: "B" of "( B = f(A) )" and "b" of "(b) ..." were concepts
    keys = _every_phrase("If one learns ( B = f(A) ) from one source, (b) then transfer learning helps.")
    assert "transfer learning" in keys and not {k for k in keys if len(k) < 2}


def test_a_variable_is_no_word_of_a_phrase():
    # 10,000 arXiv ML abstracts of 2025: 69 candidate phrase mentions held one ("n online vertices", "size n",
    # "k clusters", "step t"); the letter of a hyphenated word is none
    keys = _every_phrase("We match n online vertices in k clusters of size n with k-means and top-k routing at step t.")
    assert {"online vertex", "k means", "top k routing"} <= keys, keys
    assert not keys & {"n online vertex", "k cluster", "size n", "step t", "match n"}, keys


def test_a_formula_is_no_phrase():
    # the arXiv ML sample: "1-δ" and "Eτ" (of "$1-\\delta$", "$\\mathbb{E}\\tau$") were concepts, and
    # "1-δ" named a community of the concepts page
    keys = _every_phrase(
        "We find a qualified arm with probability at least 1-δ and expected total pulling times Eτ as small "
        "as possible, unlike ε-greedy exploration. G2M fits m x n matrices in 8K-128K contexts."
    )
    assert {"qualified arm", "ε greedy exploration", "g2m"} <= keys, keys
    assert not keys & {"1 δ", "eτ", "δ", "m x", "8k 128k"}, keys


def test_an_adjective_before_a_concept_is_no_phrase():
    # the default sample's titles: "Mixture-of-Experts Large Language Models" gave the phrase
    # "Mixture-of-Experts Large"; with the recogniser finding "Language Models", "Personalized
    # Large Language Models" gave "Personalized Large"
    import spacy

    doc = spacy.blank("en")("Mixture-of-Experts Large Language Models beat Personalized Large Language Models.")
    i = [t.i for t in doc if t.text == "Language"][1]
    doc.spans[SPANS_KEY] = [Span(doc, i, i + 2, label="Technique")]
    keys = _every_phrase(doc)
    assert "mixture of experts" in keys
    assert not {k for k in keys if k.split()[-1] == "large"}, keys


def test_a_fragment_of_a_longer_term_is_no_phrase():
    # the ACL corpus: "entity recognition" (654 mentions, 617 inside "named entity recognition"),
    # "sense disambiguation" and "speech detection" were concepts of their own
    keys = _every_phrase(
        "We study named entity recognition systems and natural language processing techniques for "
        "hate speech detection and word sense disambiguation with 3D Gaussian splatting."
    )
    assert {"named entity recognition", "natural language processing", "hate speech detection",
            "word sense disambiguation", "hate speech", "gaussian splatting"} <= keys  # fmt: skip
    assert not keys & {"entity recognition", "language processing", "speech detection", "sense disambiguation"}


def test_no_phrase_is_a_conjunct_whose_concept_the_coordination_mentions(nlp):
    # "Patronizing and Condescending Language Detection" is the mention of both its concepts
    # (kg_concepts): "Patronizing" alone had become a phrase, and a concept, of its own
    text = "We take part in Patronizing and Condescending Language Detection with a new method."
    off = ["tok2vec", "ner", "kg_concepts", "kg_roles", "kg_relations", "kg_phrases"]
    doc = with_entities(nlp, text, [("Task", "Patronizing and Condescending Language Detection")], disable=off)
    for name in ("kg_concepts", "kg_roles", "kg_phrases"):
        doc = nlp.get_pipe(name)(doc)
    spans = doc.spans[SPANS_KEY]
    assert [(s.text, s.id_) for s in spans if s._.source == "model"] == [
        ("Patronizing and Condescending Language Detection", "patronizing language detection"),
        ("Patronizing and Condescending Language Detection", "condescending language detection"),
    ]
    assert "patronizing" not in {s.id_ for s in spans}
