"""Reference document frequencies, specificity, generic concepts and the salience of a concept in a paper."""

from __future__ import annotations

import gzip

import pytest

from kg.build import build_graph, knowledge_graph
from kg.build.graph import salience
from kg.errors import ConfigError
from kg.link import cooccurrence, link_papers
from kg.link.index import LinkIndex
from kg.link.papers import concept_weights
from kg.normalise import Normaliser
from kg.normalise.keys import unaccented
from kg.normalise.refdf import _Folder, count_df, write_table
from kg.normalise.specificity import generic_terms, load_generic, load_reference_df, reference_df, specificity
from kg.records import Extraction, Mention, Paper
from tests.conftest import SHARED


def test_shipped_table_counts_both_corpora():
    ref = reference_df()
    assert ref.corpora == ("acl", "arxiv")
    assert ref.sizes == (56913, 150965)
    # concept keys look their term up directly: plural and hyphen folded as Normaliser.surface folds them
    key = Normaliser().surface("Large-Language Models")
    assert ref.df(key) > 40000
    assert 0 < ref.df("knowledge distillation", "acl") < ref.df("knowledge distillation", "arxiv")


def test_common_phrasings_are_less_specific_than_named_techniques():
    assert specificity("model") < specificity("computational cost") < specificity("knowledge distillation")
    assert specificity("never seen in any abstract at all") == 1.0


def test_run_frequency_lowers_specificity():
    alone = specificity("graph neural network")
    assert specificity("graph neural network", run_df=1500, run_docs=2000) < alone
    with pytest.raises(ValueError, match="run_docs"):
        specificity("graph neural network", run_df=3)


def test_built_table_reads_back(tmp_path):
    texts = ["Knowledge distillation compresses models.", "We apply knowledge distillation to BERT."] * 3
    out = tmp_path / "refdf.tsv.gz"
    write_table(out, {"x": count_df(texts)}, min_df=2, note="test")
    ref = load_reference_df(out)
    assert ref.sizes == (6,) and ref.df("knowledge distillation") == 6 and ref.df("bert") == 3


def test_a_file_that_is_not_a_table_names_itself(tmp_path):
    bad = tmp_path / "refdf.tsv.gz"
    with gzip.open(bad, "wt") as fh:
        fh.write("key\tacl\nbert\t3\n")
    with pytest.raises(ConfigError, match=r"refdf\.tsv\.gz"):
        load_reference_df(bad)


@pytest.mark.parametrize(
    "key, forms",
    [
        ("computational cost", ["computational costs"]),
        ("downstream task", ["downstream tasks"]),
        ("theoretical analysis", ["theoretical analysis"]),
        ("experimental result", ["Experimental results"]),
        ("deep learning model", ["deep learning models"]),
        ("complexity", ["complexity"]),
        ("state of the art", ["state-of-the-art"]),
        # ACL's 50 concepts with most papers: the abbreviation of a general phrase names nothing,
        # and what any model does or has is no technique
        ("state of the art", ["State-of-the-Art", "SOTA", "SoTA models", "SOTAs"]),
        # ACL: "SOA" and "SotA" among its 52 forms had kept "state of the art" (818 papers) from it
        ("state of the art", ["state-of-the-art", "SOA", "SotA models", "state-of-the-art methods"]),
        ("inference", ["Inference"]),
        ("generation", ["generation"]),
        ("robustness", ["Robustness"]),
        ("classifier", ["classifiers"]),
        ("inference cost", ["inference costs"]),
        ("model accuracy", ["model accuracy"]),
        # arXiv ML's 120 concepts with most papers: a kind of artefact named by a property only
        ("training free framework", ["training-free framework"]),
        ("large language model based framework", ["large language model-based framework", "LLM-based framework"]),
        ("data driven approach", ["data-driven approaches"]),
        ("diffusion based method", ["diffusion-based methods"]),
        ("open source framework", ["open-source framework"]),
        ("large scale dataset", ["large-scale datasets"]),
        # 2,000 random arXiv ML abstracts, among their 120 concepts with most papers: the
        # understanding, prediction and deployment of what?
        ("understanding", ["understanding"]),
        ("prediction", ["Prediction"]),
        ("prediction accuracy", ["prediction accuracy"]),
        ("generalizability", ["generalizability"]),
        ("real world deployment", ["real-world deployment"]),
        ("data collection", ["data collection"]),
        # names of the whole field, however written: on the same sample they were all 2,199 of
        # 20,943 paper links shared ("AI, Global Governance, and Digital Sovereignty" and
        # "Insights into DeepSeek-V3: Scaling Challenges and Reflections on Hardware for AI")
        ("artificial intelligence", ["artificial intelligence", "AI"]),
        ("machine learning", ["Machine Learning", "ML"]),
        ("deep learning", ["deep learning", "DL"]),
        # and what any work optimizes, adapts, benchmarks, pretrains
        ("optimization", ["optimization"]),
        ("adaptation", ["Adaptation"]),
        ("benchmark dataset", ["benchmark datasets"]),
        ("pretrained model", ["pre-trained models", "pretrained models"]),
        ("limited data", ["limited data"]),
        # the model a study starts from (64 of 10,000 arXiv ML papers of 2025-2026), a doing alone
        # (of what?) and a claim
        ("base model", ["base model", "base models", "Base models"]),
        ("mitigation", ["mitigation"]),
        ("refinement", ["Refinement"]),
        ("faster convergence", ["faster convergence"]),
        ("curated dataset", ["curated datasets"]),
        ("reliability", ["reliability"]),
        # what any method is praised for ("flexibility" in 94 arXiv ML papers)
        ("flexibility", ["flexibility"]),
        ("real world applicability", ["real-world applicability"]),
        ("computational feasibility", ["computational feasibility"]),
        ("sub task", ["sub-tasks", "Subtask"]),
        # a compound adjective alone, named so by its papers: it qualifies a concept, names none
        # ("end-to-end" in 75 ACL papers, "rule-based" 42)
        ("end to end", ["end-to-end", "End-to-End"]),
        ("vision language", ["vision-language"]),
        ("feed forward", ["feed-forward", "Feed-Forward"]),
        ("closed loop", ["closed-loop"]),
        ("rule based", ["rule-based"]),
        ("domain specific", ["domain-specific"]),
        # 10,000 arXiv ML papers of 2025: "parameter-efficient", "real-time" had been concepts of 13 and
        # 10 papers; 5,000 ACL papers: "cross-lingual" of 15, "in-domain" of 6
        ("parameter efficient", ["parameter-efficient"]),
        ("structure preserving", ["structure-preserving"]),
        ("real time", ["real-time"]),
        ("multi task", ["multi-task"]),
        ("cross lingual", ["cross-lingual"]),
        ("in domain", ["in-domain"]),
        # a general word in capitals, as titles of the ACL corpus's first decades write it: no
        # acronym ("QUALITY" had kept "quality", 605 ACL papers, from being generic)
        ("classifier", ["classifiers", "CLASSIFIERS", "CLASSIFIER"]),
        ("quality", ["quality", "QUALITY"]),
        # a body of text, as data: bare "corpus" was a Dataset of 449 ACL papers
        ("corpus", ["corpus", "corpora"]),
        ("text corpus", ["text corpora"]),
        ("textual data", ["textual data"]),
        # what any paper of the field does: "human evaluation" was a concept of 1,016 ACL papers
        ("human evaluation", ["human evaluation"]),
        ("error analysis", ["Error Analysis"]),
        ("shared task", ["shared tasks"]),
        # places, where a study's data comes from: "India" was a Dataset of 116 ACL mentions
        ("india", ["India"]),
        ("hong kong", ["Hong Kong"]),
        # organisations, platforms, venues: "GitHub" was a Dataset of 404 arXiv ML papers ("code is
        # available on GitHub"), "OpenAI" a Method of 209, "huggingface" a Method of 62 ACL papers
        ("github", ["GitHub", "Github"]),
        ("openai", ["OpenAI"]),
        ("hugging face", ["Hugging Face", "HuggingFace"]),
        ("huggingface", ["huggingface"]),
        ("google deepmind", ["Google DeepMind"]),
        ("university", ["University"]),
        ("iclr", ["ICLR"]),
        # praise and blame: "sub-optimal performance" was a Metric of 37 arXiv ML papers, one of its
        # fading concepts; "optimal strategy" a Technique of 42, "impressive capabilities" of 19
        ("sub optimal performance", ["sub-optimal performance"]),
        ("optimal strategy", ["optimal strategies"]),
        ("impressive capability", ["impressive capabilities"]),
        ("remarkable ability", ["remarkable abilities"]),
        # how, not what: "end-to-end manner" was a Technique of 133 arXiv ML papers
        ("end to end manner", ["end-to-end manner"]),
        ("self supervised fashion", ["self-supervised fashion"]),
        # how work is organised, not which: each the only concept 400-900 arXiv ML paper links shared
        ("hierarchical framework", ["hierarchical framework"]),
        ("hybrid approach", ["hybrid approaches"]),
        ("modular framework", ["modular frameworks"]),
        ("probabilistic framework", ["probabilistic framework"]),
        ("end to end framework", ["end-to-end framework"]),
        ("two stage pipeline", ["two-stage pipeline"]),
        ("off the shelf", ["off-the-shelf"]),
        ("bottom up", ["bottom-up"]),
        # a kind of paper, a phrase of prose, a noun without its complement (arXiv ML: 363, 2,347,
        # 3,871 links rested on them alone)
        ("comprehensive survey", ["comprehensive survey"]),
        ("position", ["Position"]),  # "Position: ..." titles ICML's position papers
        ("lens", ["lens"]),
        ("vice versa", ["vice versa"]),
        ("plug and play", ["plug-and-play"]),
        ("dynamics", ["Dynamics"]),
        # what introductions say of any field: 30,000 arXiv ML papers, 662 links rested on these alone
        ("widespread adoption", ["widespread adoption"]),
        ("decision maker", ["decision-makers"]),
        ("real time application", ["real-time applications"]),
        ("iterative process", ["iterative process"]),
        ("pivotal role", ["pivotal role"]),
        # an adjective alone, cut from what it qualified ("autoregressive" of 326 arXiv ML papers
        # had been "autoregressive approaches", "autoregressive frameworks" and "Autoregressive")
        ("autoregressive", ["autoregressive", "Autoregressive approaches", "AR"]),
        ("robust", ["Robust"]),
        ("hybrid", ["hybrids"]),
        # adjectives only, cut from what they qualified (arXiv ML: "unified multi-modal" 201 papers,
        # "large-scale multimodal" 107, a Dataset of "large-scale multimodal datasets")
        ("unified multi modal", ["unified multi-modal"]),
        ("large scale multimodal", ["large-scale multimodal"]),
        ("medical multimodal", ["medical multimodal"]),
        ("real world clinical", ["real-world clinical"]),
        ("visual autoregressive", ["visual autoregressive"]),
        # praise and place, cut from what they qualified (arXiv ML: "groundbreaking approach",
        # "useful tools", "exact methods", "local datasets"), and "on average"
        ("groundbreaking", ["groundbreaking"]),
        ("fast", ["Fast"]),
        ("useful", ["useful"]),
        ("exact", ["Exact"]),
        ("local", ["local"]),
        ("average", ["average"]),
        ("scalability", ["scalability"]),
        ("decoder only", ["decoder-only"]),
        ("neural model", ["neural models"]),
        ("efficacy", ["efficacy"]),
        # the name of the whole field and general words: nothing more (30,000 arXiv ML papers: 55, 37
        # and 24 had these concepts)
        ("artificial intelligence research", ["artificial intelligence research", "AI research"]),
        ("artificial intelligence development", ["artificial intelligence development"]),
        ("machine learning solution", ["machine learning solutions", "ML solutions"]),
        # an adverb and its adjective qualify, and name nothing (10,000 arXiv ML papers of late 2025:
        # "fully automated" was a Technique of 19, 114 paper links resting on it alone; "fully
        # automated pipelines" and "frameworks" were cut down to it), nor a way of working so qualified
        ("fully automatic", ["fully automated"]),
        ("differentially private", ["differentially private"]),
        ("statistically optimal", ["statistically optimal"]),
        ("cognitively demanding", ["cognitively demanding"]),
        ("fully automatic pipeline", ["fully automated pipeline"]),
        ("theoretically grounded framework", ["theoretically grounded framework"]),
        # where any system runs: "real-world environments" (34 of those papers)
        ("real world environment", ["real-world environments"]),
        ("deployment environment", ["deployment environments"]),
        # a kind, size, praise or source without a technique (10,000 arXiv ML papers of late 2025: 16 to 22 each)
        ("hybrid model", ["hybrid models"]),
        ("statistical analysis", ["statistical analysis"]),
        ("intelligent system", ["intelligent systems"]),
        ("lightweight model", ["lightweight models"]),
        # 10,000 arXiv ML papers of 2026: "open-weight models" had been cut to "open weight", a
        # Technique of 63 papers and the only concept 348 paper links shared; it is a licence, as
        # "open-source" is
        ("open weight", ["open-weight"]),
        ("open weight model", ["open-weight models"]),
        # ... and other compound adjectives alone, or a kind of artefact named by one
        ("privacy preserving framework", ["privacy-preserving framework"]),
        ("fine grained", ["fine-grained"]),
        ("time consuming", ["time-consuming"]),
        # ... and a score, or what is done without people, of what? (23 and 28 papers)
        ("average score", ["average scores"]),
        ("automatic metric", ["automatic metrics"]),
        ("automatic detection", ["automatic detection"]),
        ("construction", ["construction"]),
        ("dataset construction", ["dataset construction"]),
        # ... or a class of models so qualified: "general-purpose LLMs" had been the only concept
        # 323 paper links of 10,000 arXiv ML papers of 2026 shared, "open-weight LLMs" 160
        ("general purpose large language model", ["general-purpose large language models", "general-purpose LLMs"]),
        ("open weight large language model", ["open-weight large language models", "open-weight LLMs"]),
        ("closed source vision language model", ["closed-source vision-language models"]),
        ("general purpose", ["general-purpose"]),
        # ... or a dataset written in two words (27 of 5,000 ACL papers of the 2010s: "dataset" alone was
        # flagged, "data set" not)
        ("data set", ["data set"]),
        ("large data set", ["large data sets"]),
        # what a paper compares against and how it writes itself up: 5,000 ACL papers of 2016-2019, 121
        # links rested on "state-of-the-art baselines" alone, 35 on "system description"
        ("state of the art baseline", ["state-of-the-art baselines"]),
        ("strong baseline", ["strong baselines"]),
        ("system description", ["system description"]),
        ("best system", ["best system"]),
    ],
)
def test_general_academic_phrasings_are_generic(key, forms):
    assert Normaliser().surface(forms[0]) == key
    assert generic_terms().is_generic(key, forms)


@pytest.mark.parametrize(
    "key, forms",
    [
        ("knowledge distillation", ["knowledge distillation"]),
        ("large language model", ["large language models", "LLMs"]),
        # in Inspec's papers on neural nets it is their method: flagged, they would not link
        ("neural network", ["neural networks"]),
        ("graph neural network", ["graph neural networks", "GNNs"]),
        ("computer vision", ["computer vision", "CV"]),
        ("reinforcement learning", ["reinforcement learning"]),
        ("machine translation", ["machine translation"]),
        ("bleu", ["BLEU"]),
        ("bert", ["BERT"]),
        ("accuracy", ["accuracy"]),  # a metric the gazetteer knows, unlike "model accuracy"
        ("natural language inference", ["natural language inference"]),
        ("text generation", ["text generation"]),
        ("adversarial robustness", ["adversarial robustness"]),
        # what the adjective qualifies, named
        ("autoregressive model", ["autoregressive models", "AR models"]),
        ("adversarial training", ["adversarial training"]),
        ("multimodal large language model", ["multimodal large language models", "MLLMs"]),
        # an acronym defines it: "Deep Learning Models (DLMs)" is a named thing in that paper
        ("deep learning model", ["deep learning models", "DLMs"]),
        # the field and a word of its own names a part of it
        ("artificial intelligence safety", ["AI safety"]),
        ("artificial intelligence agent", ["AI agents"]),
        # a body of text of a kind
        ("parallel corpus", ["parallel corpora"]),
        ("speech corpus", ["speech corpus"]),
        # what a paper studies, not how it checks its work
        ("human feedback", ["human feedback"]),
        ("annotation scheme", ["annotation scheme"]),
        # named after a place, not a place
        ("indian language", ["Indian languages"]),
        ("hong kong cantonese", ["Hong Kong Cantonese"]),
        # techniques named by general words only, known to the gazetteer (29, 31 and 78 arXiv ML
        # papers had been kept specific by an acronym one paper wrote)
        ("factor analysis", ["factor analysis"]),
        ("next scale prediction", ["next-scale prediction"]),
        ("deep research", ["Deep Research"]),
        # made by an organisation, not the organisation
        ("github copilot", ["GitHub Copilot"]),
        ("google translate", ["Google Translate"]),
        ("openai gym", ["OpenAI Gym"]),
        ("mistral", ["Mistral"]),
        # what dynamics, and what survey
        ("training dynamics", ["training dynamics"]),
        ("vehicle dynamics", ["vehicle dynamics"]),
        ("survey generation", ["survey generation"]),
        # a noun names the work a framework does; kinds of artefact keep their adjective
        ("agent framework", ["agent framework"]),
        ("diffusion framework", ["diffusion framework"]),
        ("neuro symbolic framework", ["neuro-symbolic framework"]),
        ("generative model", ["generative models"]),
        ("genetic algorithm", ["genetic algorithms"]),
        ("decoding strategy", ["decoding strategies"]),
        # compound adjectives inside names, or before a head that names no kind of artefact
        ("retrieval augmented generation", ["Retrieval-Augmented Generation"]),
        ("model free reinforcement learning", ["model-free reinforcement learning"]),
        ("knowledge graph based question answering", ["knowledge graph-based question answering"]),
        ("physics informed neural network", ["physics-informed neural networks"]),
        # a level a paper works at, a model's size, a stage: nouns; a setting research studies
        ("sentence level", ["sentence level", "sentence-level"]),
        ("few shot", ["few-shot"]),
        # named by a compound with a noun: "parameter-efficient fine-tuning", "multi-task learning"
        ("parameter efficient fine tuning", ["parameter-efficient fine-tuning"]),
        ("multi task learning", ["multi-task learning"]),
        ("cross lingual transfer", ["cross-lingual transfer"]),
        ("zero shot", ["zero-shot"]),
        ("bert large", ["BERT-large"]),
        ("pretraining stage", ["pre-training stage"]),
        # two general words that name one thing of the field (model-based reinforcement learning)
        ("world model", ["world models"]),
        ("link prediction", ["link prediction"]),
        ("natural language understanding", ["natural language understanding"]),
        ("edge deployment", ["edge deployment"]),
        ("bayesian optimization", ["Bayesian optimization"]),
        ("domain adaptation", ["domain adaptation"]),
        ("synthetic data", ["synthetic data"]),
        ("labeled data", ["labeled data"]),
        ("pretrained language model", ["pre-trained language models", "PLMs"]),
        ("training stability", ["training stability"]),
        ("optimal transport", ["optimal transport"]),
        ("optimal control", ["optimal control"]),
        ("hallucination mitigation", ["hallucination mitigation"]),
        ("iterative refinement", ["iterative refinement"]),
        ("vision language model", ["vision-language models"]),
        ("feed forward network", ["feed-forward networks"]),
        ("feedback loop", ["feedback loop"]),
        ("convergence", ["convergence"]),
        # adjectives that end in a noun: a setting, a class of models
        ("open world", ["open-world"]),
        ("real world traffic", ["real-world traffic"]),
        ("visual autoregressive model", ["visual autoregressive models"]),
        ("multimodal large language model", ["multimodal large language models"]),
        # words in -ly that are no adverbs, and an adverb inside a name
        ("anomaly detection", ["anomaly detection"]),
        ("early stopping", ["early stopping"]),
        ("supply chain", ["supply chain"]),
        ("fully sharded data parallel", ["Fully Sharded Data Parallel", "FSDP"]),
        ("weakly supervised learning", ["weakly supervised learning"]),
        ("fully connected layer", ["fully connected layers"]),
        ("simulation environment", ["simulation environments"]),
        ("statistical machine translation", ["statistical machine translation", "SMT"]),
        ("hybrid attention", ["hybrid attention"]),
        ("intelligent tutoring system", ["intelligent tutoring systems"]),
        ("clean accuracy", ["clean accuracy"]),
        ("rapid adaptation", ["rapid adaptation"]),
        ("historical text", ["historical texts"]),
        ("massive", ["MASSIVE"]),
        ("dynamic environment", ["dynamic environments"]),
        ("weight decay", ["weight decay"]),
        ("diffusion large language model", ["diffusion LLMs"]),
        ("small language model", ["small language models"]),
        ("medical vision language model", ["medical VLMs"]),
        ("knowledge graph based question answering", ["KG-based question answering"]),
        ("diffusion based language model", ["diffusion-based language models"]),
        ("speech aware large language model", ["speech-aware large language models"]),
        ("english centric large language model", ["English-centric large language models"]),
        ("automatic speech recognition", ["automatic speech recognition"]),
        ("anomaly score", ["anomaly scores"]),
        ("score matching", ["score matching"]),
        ("knowledge graph construction", ["knowledge graph construction"]),
        # an agent's use of tools, in general words (10,000 arXiv ML papers of 2026: 8 "tool use")
        ("tool use", ["tool use", "tool-use"]),
        ("tool learning", ["tool learning"]),
        ("privacy preserving machine learning", ["privacy-preserving machine learning"]),
        ("fine grained visual classification", ["fine-grained visual classification"]),
        ("large language model generated text", ["LLM-generated text"]),
        ("parallel data set", ["parallel data sets"]),
        ("transformer baseline", ["Transformer baseline"]),
        ("image description", ["image description"]),
        ("best arm identification", ["best arm identification"]),
        ("minimum description length", ["minimum description length"]),
    ],
)
def test_research_concepts_are_not_generic_however_common(key, forms):
    assert not generic_terms().is_generic(key, forms)


def test_a_general_word_must_be_common_in_every_reference_corpus(tmp_path):
    conf = tmp_path / "generic.toml"
    conf.write_text('min_rate = 0.005\nheads = ["cost", "tradeoff"]\nmodifiers = ["computational"]\n')
    g = load_generic(conf)
    assert g.is_generic("computational cost")
    assert not g.is_generic("tradeoff")  # in fewer than 1 ACL abstract of 200


def _spec(n, mentioning, start=0):
    """``n`` papers from number ``start``, ``mentioning`` {concept text: how many of them, the first}."""
    return {f"p{start + i:04d}": [(t, "uses") for t, k in mentioning.items() if i < k] for i in range(n)}


def _many(n, mentioning, start=0):
    return _papers(_spec(n, mentioning, start))


def test_a_common_word_the_run_seldom_makes_a_concept_alone_is_generic():
    # arXiv ML: "human" (in 18% of the reference abstracts) was a concept of 224 papers, from "human
    # models", "Humans", "human strategies" cut down to it, and carried their links
    # (ACL: "HUMAN" of a title in capitals is no acronym)
    B = _many(2000, {"humans": 2, "HUMAN": 1, "reasoning": 20, "PRISM": 1, "knowledge distillation": 1})
    assert B.nodes["concept:human"]["generic"]  # 2 papers, where 365 have the word
    assert not B.nodes["concept:reasoning"]["generic"]  # 20 of the ~280 with the word
    assert not B.nodes["concept:prism"]["generic"]  # an acronym names something
    assert not B.nodes["concept:knowledge distillation"]["generic"]  # (one word only)
    # 300 papers: 55 are expected to have "human" at all, too few to tell
    assert not _many(300, {"humans": 1}).nodes["concept:human"]["generic"]


def test_an_update_decides_a_seldom_concept_on_the_whole_index():
    # 50 new papers, one with "humans": too few alone to tell (9 expected to have the word), but with
    # the 900 papers of the index it is a concept of 1 of ~175 that have the word, as a full run finds
    old, new = _many(900, {"graph neural networks": 50}), _many(50, {"humans": 1}, start=900)
    assert not new.nodes["concept:human"]["generic"]
    index = LinkIndex.from_graph(knowledge_graph(old, link_papers(old, max_df=1.0), cooccurrence(old)), top_k=5)
    index.add(new, max_df=1.0)
    full = _papers({**_spec(900, {"graph neural networks": 50}), **_spec(50, {"humans": 1}, start=900)})
    assert full.nodes["concept:human"]["generic"]
    assert "concept:human" in index.generic
    # ... and 600 papers more with "humans" 30 times make it a concept again
    index.add(_many(600, {"humans": 30}, start=950), max_df=1.0)
    assert "concept:human" not in index.generic


def _named(pid, title, abstract, name, role):
    """A paper that mentions ``name`` in its title (when there) and in its abstract with ``role``."""
    mentions = [Mention(name, "Method", abstract.index(name), abstract.index(name) + len(name), abstract, role,
                        Normaliser().surface(name))]  # fmt: skip
    if name in title:
        at = title.index(name)
        # (extraction: a name that opens the title before a colon is the paper's own)
        role = "proposes" if title.startswith(f"{name}:") else "mentions"
        mentions.append(Mention(name, "Method", at, at + len(name), title, role, Normaliser().surface(name),
                                field="title"))  # fmt: skip
    return Paper(pid, title, abstract, 2025), Extraction(pid, mentions)


def test_a_name_that_many_papers_each_give_their_own_thing_links_none():
    # arXiv ML: 67 of the 116 papers with PRISM open their title with a PRISM of their own, and were
    # linked through it
    written = [
        _named("a", "PRISM: Efficient Long-Range Reasoning With Short-Context LLMs",
               "PRISM processes information as a stream of chunks.", "PRISM", "uses"),
        _named("b", "PRISM: A Methodology for Auditing Biases in Large Language Models",
               "We propose PRISM, a methodology for auditing biases.", "PRISM", "proposes"),
        _named("c", "PRISM: Distributed Inference for Foundation Models at Edge",
               "We present PRISM, a communication-efficient inference strategy.", "PRISM", "proposes"),
        _named("d", "Property Specification for Probabilistic RoboChart Models",
               "The models are checked with PRISM.", "PRISM", "uses"),
        # CLIP: one paper's, used by the others
        _named("e", "CLIP: Learning Transferable Visual Models", "We propose CLIP, trained on image-text pairs.",
               "CLIP", "proposes"),
        *(_named(f"f{i}", f"Zero-shot study {i}", "We fine-tune CLIP for retrieval.", "CLIP", "uses")
          for i in range(4)),
        # a language that papers propose a corpus of ("a new Turkish corpus") is no name of theirs
        *(_named(f"t{i}", f"A corpus {i}", "We present a new Turkish corpus.", "Turkish", "proposes")
          for i in range(4)),
    ]  # fmt: skip
    B = build_graph([p for p, _ in written], [x for _, x in written])
    assert B.nodes["concept:prism"]["generic"]  # 3 of its 4 papers open their title with it
    assert B.edges["paper:b", "concept:prism"]["field"] == "title"  # (the evidence of a paper's own name)
    assert not B.nodes["concept:clip"]["generic"]  # 1 of 5
    assert not B.nodes["concept:turkish"]["generic"]
    P = link_papers(B, max_df=1.0)
    assert not P.has_edge("paper:a", "paper:b") and not P.has_edge("paper:b", "paper:d")
    assert P.has_edge("paper:e", "paper:f0") and P.has_edge("paper:t0", "paper:t1")


def test_an_update_counts_the_papers_that_introduce_a_name_over_the_whole_index(tmp_path):
    def graph(titles):
        written = [_named(pid, title, f"Here PRISM is {pid}.", "PRISM", "uses") for pid, title in titles.items()]
        return build_graph([p for p, _ in written], [x for _, x in written])

    old_titles = {"a": "PRISM: One", "b": "On b", "c": "On c", "d": "On d", "g": "On g", "h": "On h",
                  "i": "On i", "j": "On j"}  # fmt: skip
    old = graph(old_titles)
    index = LinkIndex.from_graph(knowledge_graph(old, link_papers(old, max_df=1.0), cooccurrence(old)), top_k=5)
    assert "concept:prism" not in index.generic  # 1 of 8 papers introduces it
    index.save(tmp_path)
    index = LinkIndex.load(tmp_path)
    new = graph({"e": "PRISM: Two", "f": "PRISM: Three"})
    assert not new.nodes["concept:prism"]["generic"]  # 2 alone: too few to tell
    index.add(new, max_df=1.0)
    assert "concept:prism" in index.generic  # 3 of 10
    assert graph({**old_titles, "e": "PRISM: Two", "f": "PRISM: Three"}).nodes["concept:prism"]["generic"]  # as in full


def test_salience_ranks_a_proposed_title_concept_over_a_passing_mention():
    text = "We propose knowledge distillation for parsing. Training is fast. Parsing needs no GPU."
    mentions = [
        Mention("knowledge distillation", "Technique", 11, 33, text[:46], "proposes", "knowledge distillation"),
        Mention("knowledge distillation", "Technique", 11, 33, text[:46], "proposes", "knowledge distillation"),
        Mention("GPU", "Method", 81, 84, text[65:], "mentions", "gpu"),
    ]
    B = build_graph([Paper("p1", "Distilled parsers", text, 2022)], [Extraction("p1", mentions)])
    proposed = B.edges["paper:p1", "concept:knowledge distillation"]["salience"]
    passing = B.edges["paper:p1", "concept:gpu"]["salience"]
    assert 0 < passing < proposed <= 1
    title = salience("proposes", place=1.0, count=1, specificity=0.3)
    assert title > salience("proposes", place=0.5, count=1, specificity=0.3) > salience("mentions", specificity=0.3)


def _papers(spec):
    papers = [Paper(pid, f"On {pid}", f"Abstract of {pid} about several things.", 2021) for pid in spec]
    extractions = [
        Extraction(pid, [Mention(text, "Technique", 0, len(text), "", role, Normaliser().surface(text))
                         for text, role in ms])
        for pid, ms in spec.items()
    ]  # fmt: skip
    return build_graph(papers, extractions)


def test_papers_sharing_only_generic_concepts_are_not_linked():
    B = _papers({
        "a": [("computational cost", "addresses"), ("downstream tasks", "uses"),
              ("knowledge distillation", "proposes")],
        "b": [("computational costs", "addresses"), ("downstream tasks", "uses")],
        "c": [("knowledge distillation", "uses"), ("speech recognition", "addresses")],
        "d": [("speech recognition", "addresses")],
    })  # fmt: skip
    P = link_papers(B, max_df=1.0)
    assert not P.has_edge("paper:a", "paper:b")
    assert P.edges["paper:a", "paper:c"]["shared"] == ["knowledge distillation"]
    assert link_papers(B, max_df=1.0, include_generic=True).has_edge("paper:a", "paper:b")
    C = cooccurrence(B, min_papers=1)
    assert C.degree("concept:computational cost") == 0 and C.has_edge("concept:knowledge distillation",
                                                                      "concept:speech recognition")  # fmt: skip


def test_a_numbered_part_of_a_shared_task_links_no_papers():
    # 5,000 ACL papers of 2022-2023: "HW-TSC at SemEval-2022 Task 7" and "McRock at SemEval-2022 Task 4"
    # had been linked by "sub-task 2" alone, 50 such links resting on labels of different tasks
    B = _papers({
        "a": [("sub-task 2", "addresses"), ("Subtask B", "addresses"), ("plausible clarifications", "addresses")],
        "b": [("Sub-task 2", "addresses"), ("subtask B", "addresses"), ("patronizing language detection", "addresses")],
        "c": [("Task 1a", "addresses"), ("subtasks 1A and 1B", "addresses"), ("Task7", "addresses")],
        "d": [("task 1A", "addresses"), ("task vectors", "uses"), ("Track 3", "addresses")],
    })  # fmt: skip
    generic = {c: B.nodes[c].get("generic") for c in B if c.startswith("concept:")}
    assert all(generic[f"concept:{k}"] for k in ("sub task 2", "subtask b", "task 1a", "subtasks 1a and 1b", "task7",
                                                   "track 3"))  # fmt: skip
    assert not generic["concept:task vector"] and not generic["concept:plausible clarification"]
    assert link_papers(B, max_df=1.0).number_of_edges() == 0


def test_an_edition_of_a_campaign_of_shared_tasks_alone_links_no_papers():
    # 5,000 ACL papers of 2024: "SemEval-2024" (of "NLU-STR at SemEval-2024 Task 1", "RiddleMasters at
    # SemEval-2024 Task 9", ...) had been a concept of 193 papers, the only one 801 paper links shared,
    # between papers of different tasks; a task of the edition and "WMT14", a benchmark, still link
    B = _papers({
        "a": [("SemEval-2024", "addresses"), ("SemEval-2024 Task 8", "addresses"), ("NTCIR-18", "uses")],
        "b": [("SemEval 2024", "addresses"), ("SemEval-2024 Task 8", "addresses"), ("SemEval", "uses")],
        "c": [("SemEval-2024", "addresses"), ("SemEval 2024 competition", "addresses"), ("WMT14", "uses"),
              ("SemEval'24 shared task", "uses"), ("CLEF 2024", "uses"), ("IberLEF 2023", "uses")],
        "d": [("SemEval-2024 shared task", "addresses"), ("WMT14", "uses"), ("NTCIR-18", "uses")],
    })  # fmt: skip
    generic = {c[len("concept:") :]: B.nodes[c].get("generic") for c in B if c.startswith("concept:")}
    assert all(generic[k] for k in ("semeval 2024", "semeval", "semeval 2024 competition", "semeval 2024 shared task",
                                    "clef 2024", "iberlef 2023", "ntcir 18")), generic  # fmt: skip
    assert not generic["semeval 2024 task 8"] and not generic["wmt14"], generic
    P = link_papers(B, max_df=1.0)
    assert sorted(map(sorted, P.edges)) == [["paper:a", "paper:b"], ["paper:c", "paper:d"]]
    assert P.edges["paper:a", "paper:b"]["shared"] == ["semeval 2024 task 8"]


def test_an_acronym_names_a_concept_of_general_words_only_if_its_papers_write_it():
    # the arXiv ML corpus: one paper's "classification (CFC)" had kept "classification" (3,240
    # papers) from being generic, a few "pre-trained models (PTMs)" "pretrained model" (1,907)
    written = {**{f"p{i}": ["pre-trained models"] for i in range(10)}, "ptm": ["pre-trained models (PTMs)", "PTMs"],
               **{f"d{i}": ["deep learning models"] for i in range(3)},
               **{f"dlm{i}": ["Deep Learning Models (DLMs)", "DLMs"] for i in range(2)}}  # fmt: skip
    key = {"p": "pretrained model", "d": "deep learning model"}
    papers, extractions = [], []
    for pid, texts in written.items():
        abstract = " and ".join(texts)
        papers.append(Paper(pid, "", abstract))
        extractions.append(Extraction(pid, [Mention(t, "Method", abstract.index(t), abstract.index(t) + len(t), "",
                                                    "uses", key[pid[0]]) for t in texts]))  # fmt: skip
    B = build_graph(papers, extractions)
    assert "PTMs" in B.nodes["concept:pretrained model"]["aliases"]
    assert B.nodes["concept:pretrained model"]["generic"]  # 1 paper of 11 writes the acronym
    assert not B.nodes["concept:deep learning model"]["generic"]  # 2 of 5 do: a named thing


def test_shared_concepts_are_ordered_by_what_they_add_to_the_weight():
    B = _papers({
        "a": [("knowledge distillation", "proposes"), ("speech recognition", "mentions")],
        "b": [("knowledge distillation", "proposes"), ("speech recognition", "mentions")],
        "c": [("graph neural networks", "uses")],
    })  # fmt: skip
    link = link_papers(B, max_df=1.0).edges["paper:a", "paper:b"]
    assert link["shared"] == ["knowledge distillation", "speech recognition"]
    # salience below 1 scales each concept's weight down
    assert link["weight"] < sum(concept_weights(["knowledge distillation", "speech recognition"], [2, 2], 3))


def test_new_papers_link_in_the_index_as_in_a_full_run(tmp_path):
    spec = {
        "a": [("computational cost", "addresses"), ("knowledge distillation", "proposes")],
        "b": [("computational costs", "addresses"), ("speech recognition", "uses")],
        "c": [("knowledge distillation", "uses"), ("speech recognition", "addresses")],
    }
    old = _papers(spec)
    index = LinkIndex.from_graph(knowledge_graph(old, link_papers(old, max_df=1.0), cooccurrence(old)), top_k=5)
    index.save(tmp_path)
    index = LinkIndex.load(tmp_path)
    assert index.generic == {"concept:computational cost"}
    added = {"d": [("computational cost", "addresses"), ("speech recognition", "proposes")]}
    delta = index.add(_papers(added), max_df=1.0, min_cooccurrence=1)
    full = link_papers(_papers({**spec, **added}), max_df=1.0, top_k=5)
    got = {(u, v): (d["weight"], d["shared"]) for u, v, d in delta.links}
    want = {(u, v): (d["weight"], d["shared"]) for u, v, d in full.edges(data=True) if "paper:d" in (u, v)}
    assert got == {tuple(sorted(k)): v for k, v in want.items()}
    assert all("concept:computational cost" not in (u, v) for u, v, _ in delta.cooccurs_new)


def test_the_shipped_reference_table_is_folded_as_keys_are_now():
    # The table is built once (make refdf) and kept while the keys' folding changes: at 6a16661 it
    # had "promizing", "denoizing", "len" and "dynamic" (folded before verbs spelt -ise everywhere
    # and "lens", "dynamics" kept their s) but not "promising", "denoising", "lens", "dynamics", so
    # "denoising diffusion probabilistic model" counted as a term no abstract has; and 120 rows
    # ("corpora", "colour") were no keys at all.
    from collections import Counter

    from kg.normalise.refdf import doc_terms, read_texts

    fold = _Folder().fold

    def again(key: str) -> str:
        words = unaccented(key).split()  # ("fréchet" is "frechet" since CACHE_FORMAT 36)
        last = 0 if len(words) > 2 and words[-2] == "of" else 1  # "mixture of experts" (doc_terms)
        return " ".join([fold(w)[0] for w in words[:-1]] + [fold(words[-1])[last]])

    table = reference_df().counts
    stale = [key for key in table if again(key) != key]
    assert not stale, f"{len(stale)} rows of config/refdf.tsv.gz are folded otherwise now, e.g. {stale[:5]}: make refdf"
    # The 2,000 arXiv ML sample abstracts are of the table's corpus: a term in 21 of them is in 10
    # of its abstracts at least, counted low by at most one a block of 20,000 (11 blocks), so a row.
    df: Counter[str] = Counter()
    for text in read_texts(SHARED / "arxiv-ml" / "arxiv-ml-sample2k.jsonl"):
        df.update(doc_terms(text))
    missing = [term for term, n in df.items() if n >= 21 and term not in table]
    assert not missing, f"terms of the reference corpora missing from config/refdf.tsv.gz: {missing[:5]}: make refdf"
