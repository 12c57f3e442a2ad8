"""One type per concept: real abstract sentences through the shipped model, the gazetteer and the vote."""

from collections import defaultdict

import pytest

from kg.build import build_graph
from kg.extract import extract, load_pipeline
from kg.normalise.gazetteer import load_gazetteer
from kg.normalise.types import assign_types, decide_types
from kg.records import Extraction, Mention, Paper

# Sentences from arXiv ML and ACL Anthology abstracts; the comment says what the NER alone made of
# the concept where it gets it wrong.
SENTENCES = [
    "We conducted extensive experiments on three benchmark databases, including CIFAR-10, CIFAR-100, "
    "Tiny ImageNet, and two popular target models, WideResNet34-10 and PreActResNet18.",
    # SQuAD read as a Method:
    "We evaluate ATACompressor on three QA datasets: HotpotQA, MSMARCO, and SQUAD-showing that it "
    "outperforms existing methods in terms of both compression efficiency and task performance.",
    # GLUE read as a Metric, then as a Method:
    "On the GLUE benchmark, Matterhorn establishes a new state-of-the-art, surpassing existing SNNs by "
    "1.42% in average accuracy while delivering a 2.31 times improvement in energy efficiency.",
    "Experiments on various benchmarks, including GLUE, SuperGLUE, CLUE, and RussianSuperGLUE, demonstrate "
    "that a vast majority of NLP benchmarks could be at least 40% smaller in terms of the tasks included.",
    "Based on CER and BLEU, we demonstrate that LLMs outperform the conventional OCR/HTR methods.",
    "In the evaluation, Meta Engine consistently outperforms all baselines, yielding 3-6x higher F1 in most "
    "cases and up to 24x on specific datasets.",
    "I investigate whether BERT encodes abstract relational schemata by examining internal representations "
    "of concept pairs across taxonomic, mereological, and functional relations.",
    # ResNet read as a Dataset:
    "The study covers modern architectures, including ResNet, MobileNet, and EfficientNet, and demonstrates "
    "the effectiveness of transfer learning through real-world examples and experiments.",
    "The state-of-the-art (SOTA) DRL algorithms including DDPG, TD3, SAC, and PPO are utilized to deal with "
    "the formulated MDP with continuous actions.",
    "In FedE4RAG, knowledge distillation is employed for communication between the server and client models.",
    # "English" read as a Dataset:
    "Through the years, much work has been done on data augmentation for the English language.",
    "The methods based on reinforcement learning, such as inverse reinforcement learning and Generative "
    "Adversarial imitation learning (GAIL), can learn from only a few expert data.",
    "Our experiments on slot filling, machine translation, and structured text generation show consistent "
    "improvements in cross-lingual transfer, especially to lower-resource languages.",
    "The application of TensorFlow pre-trained models in deep learning is explored, with an emphasis on "
    "practical guidance for tasks such as image classification and object detection.",
    # word embeddings a Problem, by Papers with Code's task "Word Embeddings":
    "In this paper, we present our work on Most Frequent Sense (MFS) detection using Word Embeddings and "
    "BabelNet features.",
    # Large language models read as a Task:
    "With the recent advancement of Large Language Models (LLMs), generating functionally correct code has "
    "become less complicated for a wide array of developers.",
    # Named models read as Datasets (what experiments are "on"), a version of a family too:
    "To evaluate FairThinking, we create a dataset with a thousand items covering three fairness-related topics "
    "and conduct experiments on GPT-3.5, GPT-4, Llama2, and Mistral to demonstrate its superior performance.",
    "Fourteen interdisciplinary teams explored diverse nuclear science challenges using ChatGPT, Gemini, Claude, "
    "and other AI models over a single day.",
    "We introduce a novel framework for this approach and test it on movie and music recommendation datasets "
    "for GPT-4o, GPT-4o-mini, and Llama-3.1-8B-Instruct.",
    # agents of a family of models, named by its acronym alone, read as named Methods:
    "We propose a general game-testing framework using LLM agents and test it on two widely played strategy "
    "games: Wordle and Slay the Spire.",
    # an edition of a shared task, read as a Task:
    "In this paper, we describe the participation of team CLP in SemEval-2019 Task 3 that aims to classify "
    "emotion of user utterance in textual conversation.",
    # OpenAI's reasoning models, read as Datasets (22 of the 24 papers of "o4-mini" in arXiv ML):
    "We found that automated LLM-based evaluation with o1-preview and o3-mini perform at a similar level to "
    "the average user's performance.",
    "Our results reveal that o-[n] series, particularly later iterations like o3 and o4-mini, significantly "
    "outperform the GPT-[n] series and show strong scalability in multimodal reasoning.",
    # the measures of training and serving read as Methods (FLOPs):
    "xRAG not only significantly outperforms previous context compression methods but also matches the "
    "performance of uncompressed models on several datasets, while reducing overall FLOPs by a factor of 3.53.",
    "Our evaluations demonstrate that LoL-PIM significantly improves throughput and reduces latency for "
    "long-context LLM inference, outperforming both multi-GPU and GPU-PIM systems (up to 8.54x and 16.0x "
    "speedup, respectively), thereby enabling more efficient deployment of LLMs in real-world applications.",
    "Our method substantially boosts intra-node communication speed by more than 3x and reduces the "
    "time-to-first-token by 2x, with nearly no sacrifice in model accuracy.",
    # metrics spelled out, read as Methods (PSNR in 11 of 2,000 arXiv ML abstracts, SSIM in 8):
    "We evaluated the performance of the model using the peak signal-to-noise ratio (PSNR) and structural "
    "similarity index measure (SSIM) against ground truth generated from averaging multiple scans.",
    # hardware, read as a Dataset (what experiments run "on") and as Methods:
    "We perform a detailed empirical study of LLM inference energy and latency on NVIDIA H100 GPUs, analyzing "
    "the impact of quantization, batch size, and serving configuration.",
    "Our kernels run on A100 and MI300X accelerators, and offloading to the CPU frees GPU memory.",
    # families of techniques written with a name in them, read as Methods:
    "Although quantization-aware training (QAT) offers a solution by reducing memory consumption through "
    "low-bit representations with minimal accuracy loss, it is impractical due to substantial training resources.",
    "The major challenge in LLM quantization is that uneven and heavy-tailed data distributions can expand the "
    "quantization range, thereby reducing bit precision for most values.",
    # benchmarks of multimodal models read as Methods (MMMU in 75 of its 76 arXiv ML mentions, VideoMME
    # in 95 of 96), and a measure of compute too:
    "Extensive experiments show that our 7B model outperforms larger open-source models on MMMU, MathVista "
    "and VideoMME.",
    "The proposed backbone needs only 1.8 GFLOPs per image while matching the accuracy of larger models.",
    # how large models are trained and served, read as tasks:
    "We combine data parallelism and model parallelism with activation checkpointing and CPU offloading to "
    "train a 70B model.",
    "We address data parallelism, pipeline parallelism and KV caching in LLM serving systems.",
    # Papers with Code files both as tasks: what is done with a model, a representation of knowledge
    "Prompt engineering is critical for the development of LLM-based applications.",
    "A proposed solution is the integration of external knowledge bases, such as knowledge graphs, with LLMs.",
    # EEG read as a Method (52 of 30,000 arXiv ML papers): a signal a study records, its data
    "This paper aims to provide a comprehensive analysis of the current state of the use of EEG for monitoring "
    "physiological fatigue.",
    # social media read as a Technique (599 ACL papers): where a study collects its texts
    "The spread of hate speech on social media has become a serious problem for online communities.",
    # arXiv ML of 2025-2026 (records 120,001-130,000): "Fréchet Inception Distance" keyed apart from
    # the gazetteer's "Frechet Inception Distance", a Method of 21 papers; Papers with Code's
    # "Optical Character Recognition (OCR)" known only with its acronym, a Method of 22; LiDAR, a
    # sensor whose point clouds are a study's data, a Method of 25
    "For evaluation, we employ QualiCLIP for perceptual realism, and Fréchet Inception Distance (FID) for "
    "assessing both expression quality and realism.",
    "Optical Character Recognition (OCR) of eighteenth-century printed texts remains challenging due to degraded "
    "print quality, archaic glyphs, and non-standardized orthography.",
    "LiDAR sensors are a key modality for 3D perception, yet they are typically designed independently of "
    "downstream tasks such as point cloud registration.",
    # ... a way of prompting and a kind of network, read as named Methods from their capitals and
    # acronyms (62 and 36 papers), and "without retraining", read as a task (58 papers)
    "We compare this adaptive strategy against a standard Chain-of-Thought (CoT) baseline and a static "
    "retrieval approach on the GSM8K and MATH-500 benchmarks.",
    "Kolmogorov-Arnold Networks (KANs) have recently emerged as a compelling alternative to multilayer "
    "perceptrons, offering enhanced interpretability via functional decomposition.",
    "Post-training quantization (PTQ) is widely used to compress large language models without retraining.",
    # families named by their acronyms, read as named Methods (17, 31, 18 and 53 of those papers)
    "Generative Adversarial Networks (GANs) have recently demonstrated strong potential in synthesizing "
    "realistic visual data.",
    "Standard Physics-Informed Neural Networks (PINNs) often face challenges when modeling parameterized "
    "dynamical systems with sharp regime transitions, such as bifurcations.",
    "Spiking neural networks (SNNs) offer a biologically plausible and energy-efficient alternative.",
    "Recent vision-language-action (VLA) models offer a promising foundation for robotic laboratories.",
    # the data a study models, read as tasks from Papers with Code's rows (20 and 11 papers)
    "Causal discovery from time series is a fundamental task in machine learning.",
    "However, the large data size of point clouds poses challenges to transmission and storage, which "
    "influences the wide deployments.",
    # arXiv ML of 2026 (records 140,001-150,000): benchmarks read as Methods (16 and 10 papers), a
    # metric's acronym (12) and a scan a study records, named by its acronym after CT (9)
    "Empirically, on SWE-bench Verified, a single proposal solves 67.0% of tasks.",
    "With 64 Searchers it reaches 86.2 on BrowseComp, surpassing every proprietary agent we benchmark.",
    "Extensive experiments on multiple public defect datasets demonstrate that our approach consistently "
    "enhances the performance of baseline models in terms of accuracy and AP.",
    "Positron emission tomography (PET) and CT are important imaging modalities for diagnosing bone infections.",
    # ... and a task read as a Dataset in all its 27 mentions (16 papers)
    "With the rapid advancement of generative models, AI-generated image detection has become increasingly important.",
    # ... and a family of models named by what they map from and to, read as a named Method (18 papers)
    "Text-to-image (T2I) models generate images from prompts, and T2I models are hard to control.",
    # arXiv ML of 2026 (records 120,001-130,000): a knowledge base read as a Technique, a kind of
    # attention as a Problem (14 papers) and a disease as a Method (12)
    "Instead, we construct it using real-world SPARQL queries sent to the Wikidata Query Service and generate "
    "questions for them.",
    "Many training-free sparse attention methods are effective for accelerating diffusion models.",
    "As the prevalence of Alzheimer's disease (AD) rises, improving mechanistic insight from non-invasive "
    "biomarkers is increasingly critical.",
    # arXiv ML of 2025 (records 70,001-80,000): ways of training and of combining models read as
    # Problems ("flow matching" of 38 papers, "model merging" of 13, "continual pre-training" of 9)
    "Flow matching has emerged as a compelling generative modeling approach that is widely used across domains.",
    "Model merging techniques have emerged as particularly promising solutions in this domain.",
    "Finally, we outline open problems and future directions, including continual pre-training and compositional "
    "zero-shot learning.",
    # arXiv ML of 2026 (records 140,001-150,000): families of ways to train a policy read as Problems
    # ("policy optimization" of 38 papers, "preference optimization" of 31, "reward shaping" of 8)
    "Our results highlight preference optimization as a promising direction for enhancing multilingual model "
    "explanations.",
    "The Early-Step Focus strategy restricts policy optimization to the early denoising phase, reducing training "
    "latency by about 40% while preserving performance.",
    "Unlike reward shaping, MAVIC modifies the bootstrapping target itself.",
    # ACL of 2024 (records 35,001-40,000): languages studied, the material of a study as "Indic
    # languages" (a Dataset of 11 papers) is, had been Techniques ("low-resource languages" of 58
    # papers, the ACL report's top techniques), Methods and Metrics
    "Multilingual modelling can improve machine translation for low-resource languages, partly through shared "
    "subword representations.",
    "Secondly, we demonstrate a cost-efficient method to obtain datasets for under-resourced languages.",
    "We evaluate their performance on 5 tasks across 8 endangered Uralic languages and indigenous languages of "
    "the Americas.",
]


@pytest.fixture(scope="module")
def typed():
    papers = [Paper(f"p{i}", "", text) for i, text in enumerate(SENTENCES)]
    raw = list(extract(papers, nlp=load_pipeline()))
    return papers, assign_types(raw, gazetteer=load_gazetteer())


def _types(extractions):
    types = defaultdict(set)
    for x in extractions:
        for m in x.mentions:
            types[m.concept].add(m.type)
    return types


@pytest.mark.parametrize(
    ("key", "kind"),
    [
        ("imagenet", "Dataset"),
        ("squad", "Dataset"),
        ("glue", "Dataset"),
        ("bleu", "Metric"),
        ("f1", "Metric"),
        ("bert", "Method"),
        ("resnet", "Method"),
        ("ppo", "Method"),
        ("knowledge distillation", "Technique"),
        ("data augmentation", "Technique"),
        ("data parallelism", "Technique"),
        ("model parallelism", "Technique"),
        ("pipeline parallelism", "Technique"),
        ("cpu offloading", "Technique"),
        ("kv caching", "Technique"),
        ("reinforcement learning", "Technique"),
        ("large language model", "Technique"),
        ("word embedding", "Technique"),
        ("machine translation", "Problem"),
        ("object detection", "Problem"),
        ("gpt 3.5", "Method"),
        ("llama2", "Method"),
        ("claude", "Method"),
        ("gpt 4o mini", "Method"),
        ("gpt 4o", "Method"),
        ("o1 preview", "Method"),
        ("semeval 2019", "Dataset"),
        ("llm agent", "Technique"),  # (the run-wide rules, not run here, key it "large language model agent")
        ("semeval 2019 task 3", "Dataset"),  # (the task, not "semeval 2019 task": see test_phrases)
        ("o3 mini", "Method"),
        ("o4 mini", "Method"),
        ("flop", "Metric"),
        ("throughput", "Metric"),
        ("latency", "Metric"),
        ("speedup", "Metric"),
        ("time to first token", "Metric"),
        ("peak signal to noise ratio", "Metric"),
        ("structural similarity index measure", "Metric"),
        ("nvidia h100 gpu", "Hardware"),
        ("a100", "Hardware"),
        ("cpu", "Hardware"),
        ("quantization aware training", "Technique"),
        ("llm quantization", "Technique"),  # (one paper: the run-wide rules do not expand "LLM")
        ("mmmu", "Dataset"),
        ("mathvista", "Dataset"),
        ("videomme", "Dataset"),  # (the gazetteer's "Video-MME", closed up)
        ("gflop", "Metric"),
        ("prompt engineering", "Technique"),
        ("knowledge graph", "Technique"),
        ("eeg", "Dataset"),
        ("wikidata", "Dataset"),
        ("sparse attention", "Technique"),
        ("flow matching", "Technique"),
        ("model merging", "Technique"),
        ("continual pretraining", "Technique"),
        ("preference optimization", "Technique"),
        ("policy optimization", "Technique"),
        ("reward shaping", "Technique"),
        ("low resource language", "Dataset"),
        ("under resourced language", "Dataset"),
        ("indigenous language", "Dataset"),
        ("uralic language", "Dataset"),
        ("alzheimer's disease", "Problem"),
        ("social media", "Dataset"),
        ("frechet inception distance", "Metric"),
        ("optical character recognition", "Problem"),
        ("lidar", "Dataset"),
        ("chain of thought", "Technique"),
        ("multilayer perceptron", "Technique"),
        ("retraining", "Technique"),
        ("generative adversarial network", "Technique"),
        ("physics informed neural network", "Technique"),
        ("spiking neural network", "Technique"),
        ("vision language action model", "Technique"),
        ("time series", "Dataset"),
        ("point cloud", "Dataset"),
        ("swe bench verified", "Dataset"),
        ("browsecomp", "Dataset"),
        ("ap", "Metric"),
        ("positron emission tomography", "Dataset"),
        ("ai generated image detection", "Problem"),
        ("text to image model", "Technique"),
    ],
)
def test_concept_types(typed, key, kind):
    _, extractions = typed
    assert _types(extractions)[key] == {kind}


def test_a_language_is_not_a_dataset(typed):
    _, extractions = typed
    assert "english" not in _types(extractions)


def test_a_language_is_no_concept_whatever_the_ner_reads_it_as(nlp):
    # ACL: "Bulgarian" a Technique of 51 papers, "Japanese" of 58; arXiv ML: "English language" a Dataset of 27
    texts = ["Hate Speech Classification in Bulgarian", "Sentiment analysis of tweets in the English language."]
    papers = [Paper(f"p{i}", "", t) for i, t in enumerate(texts)]
    keys = {m.concept for x in extract(papers, nlp=nlp) for m in x.mentions}
    assert "bulgarian" not in keys and "english language" not in keys
    assert "sentiment analysis" in keys


def test_one_type_per_concept_in_mentions_and_graph(typed):
    papers, extractions = typed
    types = _types(extractions)
    assert all(len(t) == 1 for t in types.values())
    B = build_graph(papers, extractions)
    for key, (kind,) in types.items():
        assert B.nodes[f"concept:{key}"]["type"] == kind


def test_vote_weighs_confidence_and_the_gazetteer_is_a_strong_prior():
    # Three votes from context alone lose to two from the mention's own head word.
    votes = [("hindsight relabeling", "Problem", 0.5)] * 3 + [("hindsight relabeling", "Technique", 1.0)] * 2
    assert decide_types(votes) == {"hindsight relabeling": "Technique"}
    # A known dataset is a Dataset whatever the mentions say; a stored concept keeps its type.
    many = [("imagenet", "Method", 1.0)] * 20
    assert decide_types(many, gazetteer=load_gazetteer()) == {"imagenet": "Dataset"}
    assert decide_types(many, gazetteer=load_gazetteer(), known={"imagenet": "Method"}) == {"imagenet": "Method"}


def test_old_mentions_load_with_full_confidence():
    old = {"text": "BERT", "type": "Method", "start": 0, "end": 4, "sentence": "", "role": "uses", "concept": "bert"}
    m = Mention(**old)
    assert m.confidence == 1.0


def test_a_key_ending_in_a_model_word_is_no_problem():
    # the default sample: "MLLMs" (its head is no model word) made "multimodal large language model" a Problem
    votes = [("multimodal large language model", "Problem", 0.5)] * 3 + [
        ("multimodal large language model", "Technique", 1.0), ("federated learning", "Problem", 0.5),
        ("machine translation", "Problem", 0.5), ("question answering dataset", "Dataset", 1.0)]  # fmt: skip
    assert decide_types(votes) == {
        "multimodal large language model": "Technique", "federated learning": "Technique",
        "machine translation": "Problem", "question answering dataset": "Dataset"}  # fmt: skip


def test_an_edition_of_a_shared_task_is_a_dataset():
    # "SemEval-2025" (46 arXiv ML papers) and "SemEval-2019 task" (18 of the ACL sample's 2,000) were Problems
    votes = [("semeval 2025", "Problem", 1.0)] * 3 + [("semeval 2019 task", "Problem", 0.5),
             ("wmt14", "Method", 0.5), ("semeval 2025 task 3 mu shroom", "Problem", 1.0),
             ("trec covid", "Problem", 1.0)]  # fmt: skip
    assert decide_types(votes) == {"semeval 2025": "Dataset", "semeval 2019 task": "Dataset", "wmt14": "Dataset",
                                   "semeval 2025 task 3 mu shroom": "Problem", "trec covid": "Problem"}  # fmt: skip
    # one held at a venue: "LT-EDI-ACL2022" had been a Method of 26 of 5,000 ACL papers of 2022-2023, "SocialDisNER"
    # and "MEDIQA-Chat" of 11; "editor" is no edition
    votes = [
        ("edi acl2022", "Method", 0.5),
        ("lt edi acl2022", "Method", 0.5),
        ("socialdisner", "Method", 0.5),
        ("mediqa chat", "Method", 0.5),
        ("sigmorphon 2022 shared task", "Problem", 0.5),
        ("bangla language processing 2023 task", "Problem", 0.5),
        ("editor", "Method", 0.5),
    ]
    assert decide_types(votes) == {"edi acl2022": "Dataset", "lt edi acl2022": "Dataset", "socialdisner": "Dataset",
                                   "mediqa chat": "Dataset", "sigmorphon 2022 shared task": "Dataset",
                                   "bangla language processing 2023 task": "Dataset",
                                   "editor": "Method"}  # fmt: skip


def test_a_key_ending_in_a_benchmark_word_is_a_dataset():
    # 2,000 held-out arXiv ML abstracts: of 160 concepts ending in "bench" or "benchmark" ("MT-Bench",
    # "ToolBench", "retrieval benchmark"), 18 were Datasets, the rest Methods, Techniques, Problems
    votes = [("mt bench", "Method", 1.0)] * 3 + [("toolbench", "Method", 0.5),
             ("retrieval benchmark", "Technique", 1.0), ("gamma ray dataset", "Problem", 1.0),
             ("high quality german corpus", "Technique", 1.0), ("benchmarking", "Problem", 1.0)]  # fmt: skip
    assert decide_types(votes, gazetteer=load_gazetteer()) == {
        "mt bench": "Dataset", "toolbench": "Dataset", "retrieval benchmark": "Dataset", "gamma ray dataset": "Dataset",
        "high quality german corpus": "Dataset", "benchmarking": "Problem"}  # fmt: skip


def test_the_gazetteer_tells_a_named_method_from_a_family():
    # arXiv ML: "CNNs", written as a name, made "convolutional neural network" a Method in 33 of
    # 2,000 papers; the mentions still decide between a technique and a problem
    g = load_gazetteer()
    cnn = [("convolutional neural network", "Method", 1.0)] * 30
    bert = [("bert", "Technique", 1.0)] * 30
    mt = [("machine translation", "Method", 1.0)] * 30
    assert decide_types(cnn + bert + mt, gazetteer=g) == {
        "convolutional neural network": "Technique", "bert": "Method", "machine translation": "Method"}  # fmt: skip


def test_a_long_form_takes_the_gazetteer_s_word_on_its_acronym():
    # ACL: "General Language Understanding Evaluation (GLUE) benchmark" keyed the benchmark by its
    # long form, which the gazetteer does not know: a Method of 269 papers in the top list
    from kg.normalise.run import run_tables
    from kg.normalise.types import short_forms

    glue, mae, htc = (
        "general language understanding evaluation",
        "masked autoencoder",
        "hierarchical text classification",
    )
    papers = [
        Paper("a", "", "Results on the General Language Understanding Evaluation (GLUE) benchmark improve."),
        Paper("b", "", "We pre-train a masked autoencoder (MAE) on images."),
        Paper("c", "", "Hierarchical text classification (HTC) assigns labels from a taxonomy."),
    ]
    tables = run_tables(papers, [Extraction(p.id, []) for p in papers])
    forms = short_forms(tables.acronyms, load_gazetteer())
    assert forms == {glue: "glue", mae: "mae", htc: "htc"}
    votes = [(glue, "Method", 1.0)] * 20 + [(mae, "Method", 1.0)] * 3 + [(htc, "Problem", 1.0)] * 3
    # the dataset GLUE; a masked autoencoder is no metric though the gazetteer's MAE is one, and
    # hierarchical text classification no method for its HTC
    typed = decide_types(votes, gazetteer=load_gazetteer(), short_forms=forms)
    assert typed == {glue: "Dataset", mae: "Method", htc: "Problem"}


def test_a_property_research_studies_is_a_problem():
    # The NER reads them as metrics or as other terms: on the ACL corpus "gender bias" was a Technique
    # in 401 mentions, "explainability" a Metric in 130; on 2,000 arXiv ML abstracts "fairness" a
    # Metric in all of its 13 mentions, "individual fairness" and "national security" Techniques
    g = load_gazetteer()
    votes = [("fairness", "Metric", 1.0)] * 13 + [("gender bias", "Technique", 1.0)] * 9 + [
        ("explainability", "Metric", 0.5), ("individual fairness", "Technique", 1.0),
        ("large language model safety", "Dataset", 1.0), ("object hallucination", "Problem", 1.0),
        # a technique, and a property a model is built with: not problems
        ("differential privacy", "Method", 1.0), ("local differential privacy", "Technique", 1.0),
        ("inductive bias", "Technique", 1.0),
        # a quality a paper claims, not a field of study: the mentions decide
        ("scalability", "Metric", 1.0)]  # fmt: skip
    assert decide_types(votes, gazetteer=g) == {
        "fairness": "Problem", "gender bias": "Problem", "explainability": "Problem", "individual fairness": "Problem",
        "large language model safety": "Problem", "object hallucination": "Problem",
        "differential privacy": "Method", "local differential privacy": "Technique", "inductive bias": "Technique",
        "scalability": "Metric"}  # fmt: skip


def test_a_phenomenon_research_studies_is_a_problem():
    # the ACL corpus: "hate speech" was a Technique in 1,213 mentions, "code-switching" a Metric in
    # 142, "COVID-19" a Method in 407; "hate speech detection" is a Problem by its head, and
    # "speech" alone is none of these
    g = load_gazetteer()
    votes = [("hate speech", "Technique", 1.0)] * 9 + [("online hate speech", "Technique", 1.0),
        ("code switching", "Metric", 1.0), ("covid 19", "Method", 1.0), ("catastrophic forgetting", "Technique", 1.0),
        ("speech", "Technique", 1.0), ("hate speech dataset", "Dataset", 1.0),
        ("task oriented dialog", "Technique", 1.0)]  # fmt: skip
    assert decide_types(votes, gazetteer=g) == {
        "hate speech": "Problem", "online hate speech": "Problem", "code switching": "Problem", "covid 19": "Problem",
        "catastrophic forgetting": "Problem", "speech": "Technique", "hate speech dataset": "Dataset",
        "task oriented dialog": "Problem"}  # fmt: skip


def test_what_a_model_reasons_about_is_a_problem():
    # 10,000 arXiv ML papers of 2025: keys ending in "reasoning" were 39 Problems and 30 Techniques
    g = load_gazetteer()
    votes = [("large language model reasoning", "Technique", 0.5)] * 9 + [("mathematical reasoning", "Problem", 1.0),
        ("causal reasoning", "Technique", 1.0), ("symbolic reasoning", "Technique", 0.5),
        # ways of reasoning that are methods stay what their mentions say
        ("chain of thought reasoning", "Technique", 1.0), ("tree of thought reasoning", "Technique", 1.0),
        ("case based reasoning", "Method", 1.0)]  # fmt: skip
    assert decide_types(votes, gazetteer=g) == {
        "large language model reasoning": "Problem", "mathematical reasoning": "Problem", "causal reasoning": "Problem",
        "symbolic reasoning": "Problem", "chain of thought reasoning": "Technique",
        "tree of thought reasoning": "Technique", "case based reasoning": "Method"}  # fmt: skip


def test_a_field_of_study_is_a_problem():
    # as "natural language processing" and "computer vision" are: on the arXiv ML corpus
    # "robotics" (184 papers), "ethics" (116), "governance" (80), "mathematics" (77) and
    # "cybersecurity" (60) had been Techniques, "computational linguistics" a Metric; "scalable
    # vector graphics" is a file format, and "demographics" no "graphics"
    g = load_gazetteer()
    votes = [("robotics", "Technique", 1.0), ("soft robotics", "Technique", 1.0), ("artificial intelligence ethics",
        "Technique", 1.0), ("governance", "Technique", 1.0), ("mathematics", "Technique", 1.0),
        ("cybersecurity", "Technique", 1.0), ("computational linguistics", "Metric", 1.0),
        ("scalable vector graphics", "Method", 1.0), ("demographics", "Technique", 1.0)]  # fmt: skip
    assert decide_types(votes, gazetteer=g) == {
        "robotics": "Problem", "soft robotics": "Problem", "artificial intelligence ethics": "Problem",
        "governance": "Problem", "mathematics": "Problem", "cybersecurity": "Problem",
        "computational linguistics": "Problem", "scalable vector graphics": "Method",
        "demographics": "Technique"}  # fmt: skip


def test_what_an_evaluation_measures_is_a_metric():
    # 10,000 arXiv ML abstracts of 2025: "signal-to-noise ratio" had been a Problem of 8 papers,
    # "worst-group accuracy" a Problem, "in-domain accuracy" a Technique; of 2026: "pass rate" a
    # Technique. Settings of training and number formats are no measures, and a word alone says
    # nothing of what it measures.
    g = load_gazetteer()
    votes = [("signal to noise ratio", "Problem", 1.0)] * 8 + [("worst group accuracy", "Problem", 1.0),
        ("in domain accuracy", "Technique", 1.0), ("pass rate", "Technique", 1.0),
        ("mixed precision", "Technique", 1.0), ("dropout rate", "Technique", 1.0), ("rate", "Technique", 1.0),
        ("ratio", "Problem", 1.0)]  # fmt: skip
    assert decide_types(votes, gazetteer=g) == {
        "signal to noise ratio": "Metric", "worst group accuracy": "Metric", "in domain accuracy": "Metric",
        "pass rate": "Metric", "mixed precision": "Technique", "dropout rate": "Technique", "rate": "Technique",
        "ratio": "Problem"}  # fmt: skip


def test_a_number_format_is_a_technique():
    # 10,000 arXiv ML abstracts of 2025: "FP16", "FP32", "FP8" and "W4A8" had been Methods, "INT4" a
    # Problem, "MXFP4" a Dataset; the default sample's "INT8" a Metric. Not what only starts like one.
    votes = [("fp16", "Method", 1.0)] * 3 + [("int4", "Problem", 1.0), ("mxfp4", "Dataset", 1.0),
        ("w4a16", "Method", 1.0), ("int8", "Metric", 1.0), ("bf16", "Dataset", 1.0), ("w8a8kv4", "Method", 1.0),
        ("fp8 kernel", "Method", 1.0), ("interval 2", "Method", 1.0), ("tf32", "Metric", 1.0)]  # fmt: skip
    assert decide_types(votes, gazetteer=load_gazetteer()) == {
        "fp16": "Technique", "int4": "Technique", "mxfp4": "Technique", "w4a16": "Technique", "int8": "Technique",
        "bf16": "Technique", "w8a8kv4": "Technique", "fp8 kernel": "Method", "interval 2": "Method",
        "tf32": "Technique"}  # fmt: skip
