"""Concept keys and acronyms, on real phrasings from abstracts."""

from __future__ import annotations

import pytest

from kg.normalise import Normaliser, find_acronyms
from kg.normalise.keys import keeps_final_s, load_aliases


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
        # arXiv ML: "F1 score" (23 papers of 2,000) and "F1" (11) were two metrics
        (["F1 score", "F1-score", "F1", "F-measure", "F1 measure"], "f1"),
        (["BLEU score", "BLEU scores", "BLEU"], "bleu"),
        # ACL: a typographic apostrophe had made "beck s depression inventory" beside "beck's ..."
        (["Beck\u2019s Depression Inventory", "Beck's Depression Inventory"], "beck's depression inventory"),
    ],
)
def test_variants_share_one_key(norm, variants, key):
    assert {norm.key(v) for v in variants} == {key}


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Tokenisation strategies", "tokenization strategy"),
        ("characterising", "characterizing"),
        ("criticising", "criticizing"),
        ("normaliser", "normalizer"),
        # verbs spelt -ise everywhere: 2,000 arXiv abstracts had "denoizing diffusion probabilistic model"
        ("denoising diffusion probabilistic models", "denoising diffusion probabilistic model"),
        ("a denoiser", "denoiser"),
        ("supervising", "supervising"),
        ("promising", "promising"),
        ("comprising", "comprising"),
        ("advertising", "advertising"),
        ("improvisation", "improvisation"),
    ],
)
def test_british_spellings_and_verbs_spelt_ise_everywhere(norm, text, key):
    assert norm.key(text) == key


@pytest.mark.parametrize(
    "variants",
    [
        # 30,000 arXiv ML papers: each pair had been two concepts ("recommender systems" 170 papers,
        # "recommendation systems" 150)
        ["recommender systems", "recommendation systems"],
        ["distributional shift", "distribution shift"],
        ["dimensionality reduction", "dimension reduction"],
        ["positional encodings", "position encoding"],
        ["foundational models", "foundation models"],
        ["behavioral cloning", "behaviour cloning", "behavior cloning"],
        ["dynamical systems", "dynamic systems"],
        ["root mean squared error", "root mean square error"],
        ["jailbreaking attacks", "jailbreak attacks"],
        ["unlabelled data", "unlabeled data"],
        ["sequential recommendation", "sequence recommendation"],
        ["electroencephalogram signals", "electroencephalography signals"],
        # arXiv ML, records 120,001-130,000: "Fréchet Inception Distance" (21 papers) was a concept of
        # its own beside the gazetteer's "Frechet Inception Distance"; the 150,965 abstracts write
        # "Fréchet" 69 times and "Frechet" 83, "Rényi" 47 and "Renyi" 32, "Schrödinger" 92 and
        # "Schrodinger" 27
        ["Fréchet Inception Distance", "Frechet Inception Distance"],
        ["Rényi divergence", "Renyi divergence"],
        ["Naïve Bayes", "naive Bayes", "Nai\u0308ve Bayes"],
        ["Schrödinger bridge", "Schrodinger bridges"],
        ["Erdős–Rényi graphs", "Erdos-Renyi graph"],
    ],
)
def test_one_concept_written_two_ways_is_one_key(norm, variants):
    assert len({norm.key(v) for v in variants}) == 1


def test_letters_of_other_scripts_keep_their_marks(norm):
    # Only a Latin letter loses its accent: a Japanese kana's voicing mark makes another word
    # ("ガウス", Gauss, is no "カウス"), Greek and Cyrillic letters stay as written.
    assert norm.key("ガウス過程") != norm.key("カウス過程")
    assert norm.key("Łukasiewicz logic") == "łukasiewicz logic"
    assert norm.key("β-VAE") == norm.key("β VAE") != norm.key("b-VAE")


def test_words_whose_forms_name_different_things_stay_apart(norm):
    pairs = [("continual learning", "continuous learning"), ("generative model", "generation model"),
             ("pretrained model", "pretraining model"), ("critic model", "critical model")]  # fmt: skip
    assert all(norm.key(a) != norm.key(b) for a, b in pairs)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("sentiment analyses", "sentiment analysis"),
        ("competing hypotheses", "competing hypothesis"),
        ("social biases", "social bias"),
        ("sparse matrices", "sparse matrix"),
        ("input sizes", "input size"),
        ("KV caches", "kv cache"),
        ("RKHS", "rkhs"),  # reproducing kernel Hilbert space: the S is no plural
        ("DARTS", "darts"),
        ("GPUs", "gpu"),
        # the ACL corpus: names with a capital inside that end in s, and words in s that are no plurals
        ("OntoNotes", "ontonotes"),
        ("NiuTrans", "niutrans"),
        ("the WikiNews corpus", "wikinews corpus"),
        ("WinoBias", "winobias"),
        ("Naive Bayes", "naive bayes"),
        ("Quantum Mechanics", "quantum mechanics"),
        ("training dynamics", "training dynamics"),
        ("Bioinformatics", "bioinformatics"),  # ends in an invariant word
        ("parallel corpora", "parallel corpus"),
        ("ResNets", "resnets"),  # (the run folds it into "resnet" where it has that)
        ("topics", "topic"),
        ("metrics", "metric"),
        # 10,000 arXiv ML abstracts of 2025: "K-means" had been "k mean", beside "k means clustering"
        ("K-means", "k means"),
        ("kernel power k-means", "kernel power k means"),
    ],
)
def test_plurals_of_words_in_s_and_acronyms_in_s(norm, text, key):
    assert norm.key(text) == key


@pytest.mark.parametrize(
    ("text", "key"),
    [
        # held-out arXiv ML abstracts: how many and what sort of GPU, each a concept of its own
        ("2,048 NVIDIA H800 GPUs", "nvidia h800 gpu"),
        ("8K Ascend NPUs", "ascend npu"),
        ("multiple high-end GPUs", "gpu"),
        ("bandwidth-constrained GPUs", "gpu"),
        ("single-core CPU", "cpu"),  # the ACL corpus
        ("graphics processing units", "gpu"),  # (an alias)
        ("NVIDIA A100-80GB GPU", "nvidia a100 gpu"),
        ("4 A100 GPUs", "a100 gpu"),
        # which hardware stays; no hardware, no change
        ("multi-instance GPU", "multi instance gpu"),
        ("high-end GPU clusters", "high end gpu cluster"),
        ("multiple languages", "multiple language"),
    ],
)
def test_hardware_is_keyed_by_which_not_how_many(norm, text, key):
    assert norm.key(text) == key


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("CIFAR-10 and", "cifar 10"),
        ("learning a", "learning"),
        ("Recognition of proper nouns in", "recognition of proper noun"),
        ("a new architecture called DARTS", "architecture called darts"),
        ("called DARTS", "darts"),
        ("named ConvBERT", "convbert"),
        # held-out arXiv titles: a verb that frames what a paper does to a concept
        ("Enhancing Large Language Models", "large language model"),
        ("mitigating hallucinations", "hallucination"),
        ("Revisiting analysing bias", "bias"),
        ("enhancing", "enhancing"),
        ("load balancing loss", "load balancing loss"),
        ("named entity recognition", "named entity recognition"),
        ("in-context learning", "in context learning"),
        ("fine-tuning them", "fine tuning"),  # pronouns too (ACL abstracts)
        ("pre-training it", "pretraining"),
        # ACL keys that ended in closed-class words
        ("cross-entropy objective throughout", "cross entropy objective"),
        ("NMT during", "neural machine translation"),
        ("fine-tuning various", "fine tuning"),
        ("lexicon-based ones", "lexicon based"),
        ("bottom-up", "bottom up"),  # a particle that ends a hyphenated word stays
        ("trade-off", "trade off"),
    ],
)
def test_function_and_naming_words_leave_the_edges(norm, text, key):
    assert norm.key(text) == key


@pytest.mark.parametrize(
    "text",
    ["sentiment analyses", "the models of", "Pre-Trained Language Models (PLMs)", "a set of hypotheses",
     "biases", "modellings", "learning a", "NMT systems", "behaviours", "Tokenisation strategies"],
)  # fmt: skip
def test_a_key_is_its_own_key(norm, text):
    assert norm.key(norm.key(text)) == norm.key(text)


def test_keys_are_idempotent_on_any_text(norm):
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies
    vocabulary = ("the a of and in named called models analyses biases LLMs BERT pre trained - ( ) , . / data set "
                  "sets learning modelling Tokenisation classes entity neural "
                  "\\textbf{J}oint \\emph{a} { } \\alpha")  # fmt: skip
    words = st.sampled_from(vocabulary.split())
    texts = st.one_of(
        st.lists(words, max_size=8).map(" ".join),
        st.text(alphabet="abcesyAEBSLM- ().,/&'0123456789éü\\{}", max_size=30),
    )

    @hypothesis.settings(max_examples=400, deadline=None)
    @hypothesis.given(texts)
    def check(text):
        hypothesis.assume(not keeps_final_s(text))
        assert norm.key(norm.key(text)) == norm.key(text)

    check()


@pytest.mark.parametrize("word", ["analysis", "corpus", "semantics", "bias", "syntax"])
def test_words_ending_in_s_that_are_not_plurals(norm, word):
    assert norm.key(word) == word


def test_generic_terms_are_not_concepts(norm):
    assert norm.is_generic("approach")
    assert norm.is_generic("method")
    assert norm.is_generic("this")
    assert norm.is_generic("and") and norm.is_generic("into")  # ACL: the NER's spans of one word
    assert norm.is_generic("123")
    # a verb that frames what a paper does, alone (3 of 2,000 arXiv ML papers had "enhancing")
    assert norm.is_generic("enhancing") and norm.is_generic(norm.key("Leveraging"))
    assert not norm.is_generic("attention mechanism")
    # parts and notes of a paper: "WARNING: this paper contains offensive text" (45 arXiv ML papers)
    assert all(norm.is_generic(norm.key(part)) for part in ("WARNING", "Introduction", "an overview"))
    assert not any(norm.is_generic(norm.key(term)) for term in ("early warning", "warning signals"))
    # a model's size alone: the default sample's "models from 7B to 32B parameters" made "7B" a Dataset
    assert all(norm.is_generic(norm.key(size)) for size in ("7B", "1.5B", "8x7B", "128K"))
    assert not any(norm.is_generic(norm.key(name)) for name in ("T5", "Llama-2-7B", "Mistral 7B", "GPT-4"))
    # who took part in a shared task: 5,000 ACL papers of 2016-2019 had "team" as a concept of 17
    assert all(norm.is_generic(norm.key(t)) for t in ("team", "teams", "participating team", "our submissions"))
    assert not any(norm.is_generic(norm.key(t)) for t in ("human-AI teams", "team formation"))
    # "this means that", "by means of": a phrase of 28 of those papers ("k-means" stays)
    assert norm.is_generic(norm.key("means")) and not norm.is_generic(norm.key("k-means"))


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


def test_remembered_surfaces_are_the_surfaces(monkeypatch):
    # a Normaliser remembers the surfaces it made, and forgets them all once it holds _SURFACES
    import kg.normalise.keys as keys

    monkeypatch.setattr(keys, "_SURFACES", 3)
    norm = Normaliser()
    texts = ["LLMs", "the pre-trained language models", "Tokenisation strategies", "GPUs", "LLMs", "DARTS"]
    assert [norm.surface(t) for t in texts] == [Normaliser()._surface(t) for t in texts]
    assert [norm.surface(t) for t in texts] == ["llm", "pretrained language model", "tokenization strategy", "gpu",
                                                "llm", "darts"]  # fmt: skip
    assert len(norm._surfaces) <= 3


def test_alias_targets_are_keys(norm):
    # a forced concept that were not its own key would change when keyed again
    assert {v: norm.key(v) for v in norm.aliases.force.values() if norm.key(v) != v} == {}


def test_acronym_long_forms_spelled_by_initials():
    text = (
        "Agents trained with proximal policy optimization (PPO) fit functions in a reproducing kernel Hilbert "
        "space (RKHS); we align them by reinforcement learning from human feedback (RLHF)."
    )
    found = {(a.short, a.long) for a in find_acronyms(text)}
    assert found == {
        ("PPO", "proximal policy optimization"),  # the shortest window would be "policy optimization"
        ("RKHS", "reproducing kernel Hilbert space"),
        ("RLHF", "reinforcement learning from human feedback"),
    }
    for a in find_acronyms(text):
        assert text[a.long_start : a.long_end] == a.long


def _paper(pid, abstract, *phrases, relations=()):
    """A paper and its extraction: a mention for each (phrase, key) where the phrase first occurs."""
    from kg.records import Extraction, Mention, Paper, Relation

    ms = []
    for phrase, key, *kind in phrases:  # (a third item: the mention's type, else Method)
        start = abstract.index(phrase)
        ms.append(Mention(phrase, kind[0] if kind else "Method", start, start + len(phrase), abstract, "uses", key))
    spans = {m.concept: m for m in ms}
    rs = [Relation("USED_FOR", h, t, spans[h].text, spans[t].text, spans[h].start, spans[h].end, spans[t].start,
                   spans[t].end, abstract) for h, t in relations]  # fmt: skip
    return Paper(pid, "", abstract), Extraction(pid, ms, rs)


def _run(*pairs, known=frozenset(), metrics=frozenset(), names=frozenset(), datasets=frozenset()):
    from kg.normalise.run import normalise_run

    papers, extractions = zip(*pairs, strict=True)
    out, rules = normalise_run(list(papers), list(extractions), known=known, metrics=metrics, names=names,
                               datasets=datasets)  # fmt: skip
    return {x.id: [m.concept for m in x.mentions] for x in out}, rules, out


def test_run_acronyms_serve_every_abstract():
    keys, rules, _ = _run(
        _paper("a", "Agents trained with proximal policy optimization (PPO) learn fast.",
               ("proximal policy optimization (PPO)", "proximal policy optimization")),
        _paper("b", "We show that PPO agents and DARTS cells overfit.", ("PPO agents", "ppo agent"),
               ("DARTS", "darts")),
        _paper("c", "Differentiable architecture search (DARTS) is cheap.",
               ("Differentiable architecture search (DARTS)", "differentiable architecture search")),
        # an abstract's own definition wins for it
        _paper("d", "Parallel prefix operations (PPO) and PPO trees.",
               ("Parallel prefix operations (PPO)", "parallel prefix operation"),
               ("PPO trees", "parallel prefix operation tree")),
        _paper("e", "Using proximal policy optimization (PPO) again.",
               ("proximal policy optimization (PPO)", "proximal policy optimization")),
    )  # fmt: skip
    assert keys["b"] == ["proximal policy optimization agent", "differentiable architecture search"]
    assert keys["d"] == ["parallel prefix operation", "parallel prefix operation tree"]
    assert rules["acronym from the run"] == 2


@pytest.mark.parametrize("long", ["Bi-Lingual", "Bilin-gual"])
def test_a_metric_keeps_its_acronym_whatever_an_abstract_defines(long):
    # the ACL corpus: "BLEU" (830 papers) and "BLEU score" (594) were keyed "bi lingual evaluation
    # understudy (score)" by one abstract's definition, apart from the papers that wrote "BLEU";
    # then, with that spelling aliased, BLEU (819 papers) was keyed by the only definition the
    # aliases left: "bilin gual evaluation understudy", a long form broken at a line end
    keys, _, _ = _run(
        _paper("a", f"We report {long} Evaluation Understudy (BLEU). BLEU scores rise.",
               (f"{long} Evaluation Understudy (BLEU)", "bleu"), ("BLEU scores", "bleu")),
        _paper("b", "BLEU improves by 2 points; the BLEU score is 30.", ("BLEU", "bleu"), ("BLEU score", "bleu")),
    )  # fmt: skip
    assert keys == {"a": ["bleu", "bleu"], "b": ["bleu", "bleu"]}


def test_a_known_metric_is_defined_for_the_run_only_as_a_metric():
    # the ACL corpus: one abstract's "COMmonsEnse Transformers (COMET)" keyed the MT metric COMET,
    # written bare in 106 mentions, "commonsense transformer"; "TER" is still translation edit rate
    keys, _, _ = _run(
        _paper("a", "We train COMmonsEnse Transformers (COMET) on ATOMIC.",
               ("COMmonsEnse Transformers (COMET)", "commonsense transformer")),
        _paper("b", "Translation edit rate (TER) is a metric.",
               ("Translation edit rate (TER)", "translation edit rate")),
        _paper("c", "We report COMET and TER.", ("COMET", "comet"), ("TER", "ter")),
        metrics=frozenset({"comet", "ter", "bleu"}),
    )  # fmt: skip
    assert keys == {"a": ["commonsense transformer"], "b": ["translation edit rate"],
                    "c": ["comet", "translation edit rate"]}  # fmt: skip


def test_a_known_name_of_a_dataset_or_model_keys_its_concept():
    # the arXiv ML corpus: two abstracts' "Constrained Online Convex Optimization (COCO)" had keyed
    # COCO in 216 papers, and two "Chat Generative Pre-trained Transformer (ChatGPT)" 1,501 mentions
    # of ChatGPT; 16 abstracts define MMLU (243 mentions) as "Massive Multitask Language Understanding"
    bare = [_paper(f"b{i}", "Detectors trained on COCO are scored on MMLU by ChatGPT.", ("COCO", "coco"),
                   ("MMLU", "mmlu"), ("ChatGPT", "chatgpt")) for i in range(25)]  # fmt: skip
    keys, rules, _ = _run(
        _paper("a", "We study constrained online convex optimization (COCO) with long-term constraints. COCO is hard.",
               ("constrained online convex optimization (COCO)", "constrained online convex optimization"),
               ("COCO is", "constrained online convex optimization")),
        *bare,
        _paper("c", "Chat Generative Pre-trained Transformer (ChatGPT) answers questions.",
               ("Chat Generative Pre-trained Transformer (ChatGPT)", "chat generative pretrained transformer")),
        *[_paper(f"d{i}", "On Massive Multitask Language Understanding (MMLU) and the MMLU-Pro benchmark.",
                 ("Massive Multitask Language Understanding (MMLU)", "massive multitask language understanding"))
          for i in range(2)],
        _paper("e", "Results on the massive multitask language understanding benchmark.",
               ("massive multitask language understanding", "massive multitask language understanding")),
        names=frozenset({"coco", "mmlu", "chatgpt"}),
    )  # fmt: skip
    assert keys["b0"] == ["coco", "mmlu", "chatgpt"]
    # a long form that two abstracts, and one in 20 of those naming it, define it by is the name
    # there; written out elsewhere it is itself
    assert keys["d0"] == ["mmlu"] and keys["e"] == ["massive multitask language understanding"]
    # a rarer one keys its abstract's mentions only
    assert keys["a"] == ["constrained online convex optimization"] * 2
    assert keys["c"] == ["chat generative pretrained transformer"]
    assert rules["long form of a known name"] == 2
    # and one abstract's long form is its own, however few name it
    keys, _, _ = _run(
        _paper("visa", "A voice interactive surgical agent (VISA) helps surgeons.",
               ("voice interactive surgical agent (VISA)", "voice interactive surgical agent")),
        _paper("b", "Results on VISA.", ("VISA", "visa")),
        names=frozenset({"visa"}),
    )  # fmt: skip
    assert keys == {"visa": ["voice interactive surgical agent"], "b": ["visa"]}
    # nor is a technique's long form that of a known dataset: 10,000 arXiv ML abstracts of 2025, four
    # KV-cache papers defining "Grouped Query Attention (GQA)" had shared the VQA dataset GQA with four
    # others evaluated on it
    keys, _, _ = _run(
        *[_paper(f"kv{i}", "Heads in Grouped Query Attention (GQA) share keys. GQA saves memory.",
                 ("Grouped Query Attention (GQA)", "grouped query attention"), ("GQA saves", "grouped query attention"))
          for i in range(4)],
        *[_paper(f"vqa{i}", "We evaluate on GQA and A-OKVQA.", ("GQA", "gqa")) for i in range(4)],
        names=frozenset({"gqa"}), datasets=frozenset({"gqa"}),
    )  # fmt: skip
    assert keys["kv0"] == ["grouped query attention"] * 2 and keys["vqa0"] == ["gqa"]


def test_the_runs_long_form_of_an_acronym_is_its_most_frequent():
    # the arXiv ML corpus: 88 abstracts define GAT as "graph attention network(s)" and one as
    # "gated attention transformer", which had won for spelling GAT with its initials; 44 define
    # AE as "autoencoder", 21 as "adversarial example"
    gat = "Graph attention networks (GAT) weigh neighbours."
    ae = "An autoencoder (AE) compresses inputs."
    keys, _, _ = _run(
        *[_paper(f"gat{i}", gat, ("Graph attention networks (GAT)", "graph attention network")) for i in range(3)],
        _paper("gated", "A gated attention transformer (GAT) reads video.",
               ("gated attention transformer (GAT)", "gated attention transformer")),
        *[_paper(f"ae{i}", ae, ("autoencoder (AE)", "autoencoder")) for i in range(3)],
        _paper("adv", "We craft an adversarial example (AE) for each image.",
               ("adversarial example (AE)", "adversarial example")),
        # as frequent, the long form spelled by the initials wins: Schwartz-Hearst's shortest
        # window "policy optimization (PPO)" is no name for PPO
        _paper("ppo", "We use proximal policy optimization (PPO).",
               ("proximal policy optimization (PPO)", "proximal policy optimization")),
        _paper("po", "Agents learn by policy optimization (PPO).",
               ("policy optimization (PPO)", "policy optimization")),
        _paper("bare", "GAT layers and an AE help PPO agents.", ("GAT layers", "gat layer"), ("AE", "ae"),
               ("PPO agents", "ppo agent")),
    )  # fmt: skip
    assert keys["bare"] == ["graph attention network layer", "autoencoder", "proximal policy optimization agent"]
    assert keys["gated"] == ["gated attention transformer"]


def test_a_short_form_many_papers_write_and_few_define_is_a_name():
    # the arXiv ML corpus: one abstract's "Concept-based Unsupervised Domain Adaptation (CUDA)" keyed
    # the CUDA of 172 papers, and one of eleven long forms of PRISM the PRISM of 117, which then
    # linked 1,422 pairs of papers through it alone
    keys, rules, _ = _run(
        _paper("cuda", "We propose Concept-based Unsupervised Domain Adaptation (CUDA) for images.",
               ("Concept-based Unsupervised Domain Adaptation (CUDA)", "concept based unsupervised domain adaptation")),
        *[_paper(f"gpu{i}", "Our attention kernels are written in CUDA for H100 GPUs.", ("CUDA", "cuda"))
          for i in range(25)],
        # two abstracts, two long forms: no two agree on one
        _paper("prism1", "We introduce the Personality-Refracted Intelligent Simulation Model (PRISM).",
               ("Personality-Refracted Intelligent Simulation Model (PRISM)",
                "personality refracted intelligent simulation model")),
        _paper("prism2", "Prompt Refinement by Iterative Search and Merging (PRISM) writes prompts.",
               ("Prompt Refinement by Iterative Search and Merging (PRISM)",
                "prompt refinement by iterative search and merging")),
        *[_paper(f"bare{i}", "PRISM outperforms strong agents.", ("PRISM", "prism")) for i in range(25)],
        # two abstracts that agree serve every other; one serves a few (a small run)
        *[_paper(f"lidar{i}", "Light detection and ranging (LiDAR) scans roads.",
                 ("Light detection and ranging (LiDAR)", "light detection and ranging")) for i in range(2)],
        *[_paper(f"scan{i}", "We fuse LiDAR and cameras.", ("LiDAR", "lidar")) for i in range(25)],
        _paper("lora", "Low-rank adaptation (LoRA) trains adapters.",
               ("Low-rank adaptation (LoRA)", "low rank adaptation")),
        *[_paper(f"l{i}", "We fine-tune with LoRA.", ("LoRA", "lora")) for i in range(20)],
    )  # fmt: skip
    assert keys["gpu0"] == ["cuda"] and keys["bare0"] == ["prism"]
    assert keys["cuda"] == ["concept based unsupervised domain adaptation"]
    assert keys["prism2"] == ["prompt refinement by iterative search and merging"]
    assert keys["scan0"] == ["light detection and ranging"] and keys["l0"] == ["low rank adaptation"]
    assert rules["acronym from the run"] == 45


def test_one_abstracts_long_form_of_two_letters_or_of_its_titles_name_serves_no_other():
    # 10,000 arXiv ML abstracts of 2025: one abstract's "expected utility (EU)" had keyed the EU of
    # 19 others (the European Union's AI Act), "talking face (TF)" 15, "cognitive distortion (CD)" 12;
    # "PRISM: Robust VLM Alignment with Principled Reasoning for Integrated Safety in Multimodality"
    # names its own system, and its long form had keyed the PRISM of 7 others
    from kg.records import Paper

    eu = "A decision maker maximises expected utility (EU) under risk."
    prism_paper, prism = _paper("prism", "We propose Principled Reasoning for Integrated Safety in Multimodality "
                                "(PRISM), an alignment method.", ("PRISM", "principled reasoning for integrated safety "
                                                                  "in multimodality"))  # fmt: skip
    prism_paper = Paper("prism", "PRISM: Robust VLM Alignment", prism_paper.abstract)
    keys, _, _ = _run(
        _paper("eu", eu, ("expected utility (EU)", "expected utility")),
        _paper("act", "The EU AI Act regulates high-risk AI systems.", ("EU AI Act", "eu ai act"), ("EU", "eu")),
        (prism_paper, prism),
        _paper("bare", "PRISM segments cells in microscopy.", ("PRISM", "prism")),
        # an abstract's long form of three letters and more serves the others, as two agreeing abstracts do
        _paper("ecg", "The electrocardiogram (ECG) records the heart.",
               ("electrocardiogram (ECG)", "electrocardiogram")),
        _paper("wear", "ECG signals from wearables.", ("ECG signals", "ecg signal")),
        *[_paper(f"td{i}", "Temporal difference (TD) learning bootstraps.",
                 ("Temporal difference (TD) learning", "temporal difference learning")) for i in range(2)],
        _paper("rl", "TD targets are noisy.", ("TD targets", "td target")),
        # nor, however many define it, an acronym of everyday language: two abstracts' "Universal
        # Reinforcement Learning (URL)" had keyed the URLs of 7 others
        *[_paper(f"url{i}", "We study Universal Reinforcement Learning (URL) in coalgebras.",
                 ("Universal Reinforcement Learning (URL)", "universal reinforcement learning")) for i in range(2)],
        _paper("code", "Code is available at the following URL.", ("URL", "url")),
        # 10,000 arXiv ML abstracts of 2026: two "first-person shooter (FPS)" games had keyed 9 papers'
        # frames per second ("sustains 19.7 FPS at 480p")
        *[_paper(f"fps{i}", "Interactive world models for first-person shooter (FPS) games.",
                 ("first-person shooter (FPS)", "first person shooter")) for i in range(2)],
        _paper("video", "Our student sustains 19.7 FPS at 480p.", ("FPS", "fps")),
    )  # fmt: skip
    assert keys["code"] == ["url"] and keys["video"] == ["fps"]
    assert keys["act"] == ["eu ai act", "eu"] and keys["bare"] == ["prism"]
    assert keys["eu"] == ["expected utility"]
    assert keys["prism"] == ["principled reasoning for integrated safety in multimodality"]
    assert keys["wear"] == ["electrocardiography signal"] and keys["rl"] == ["temporal difference target"]


def test_a_long_form_that_writes_an_aliased_short_form_is_keyed_with_it_spelled_out():
    # 10,000 arXiv ML abstracts of 2025: the six that define "multimodal LLMs (MLLMs)" had keyed their
    # MLLMs "multimodal llm", apart from the "multimodal large language models" of 263 papers
    keys, _, _ = _run(
        _paper("a", "Recent advances have catalyzed multimodal LLMs (MLLMs). As MLLMs evolve, they fail.",
               ("multimodal LLMs (MLLMs)", "multimodal llm"), ("MLLMs evolve", "multimodal llm")),
        _paper("b", "We evaluate multimodal LLMs on charts.", ("multimodal LLMs", "multimodal llm")),
    )  # fmt: skip
    assert keys["a"] == ["multimodal large language model", "multimodal large language model"]
    assert keys["b"] == ["multimodal large language model"]


def test_no_definition_expands_an_acronym_an_alias_names_a_concept_by():
    norm = Normaliser()
    assert norm.resolve("BLEU", "bilin gual evaluation understudy") == "bleu"
    assert norm.resolve("ROUGE", "recall oriented understudy") == "rouge"
    assert norm.resolve("PPO", "proximal policy optimization") == "proximal policy optimization"


def test_run_folds_compounds_to_one_key():
    keys, rules, _ = _run(
        _paper("a", "A new data set for parsing.", ("data set", "data set")),
        _paper("b", "This data-set is large.", ("data-set", "data set")),
        _paper("c", "A dataset of tweets.", ("dataset", "dataset")),
        _paper("d", "Meta-learning helps. So does metalearning with an auto encoder and an autoencoder.",
               ("Meta-learning", "meta learning"), ("metalearning", "metalearning"), ("auto encoder", "auto encoder"),
               ("autoencoder", "autoencoder")),
        _paper("e", "We use a dat aset.", ("dat aset", "dat aset")),
    )  # fmt: skip
    assert keys["c"] == ["data set"]  # the most frequent form
    assert keys["d"] == ["metalearning", "metalearning", "autoencoder", "autoencoder"]  # a tie: the closed form
    assert keys["e"] == ["data set"]  # (the same letters: folding cannot tell)
    assert rules["compound folded"] == 4


def test_a_letter_glued_on_a_name_makes_no_common_word():
    # arXiv ML: the benchmark MultiPL-E ("multipl e") had taken "multiple datasets", "multiple
    # models" and 20 other "multiple ..." of 33 papers, as a known name they were cut down to
    keys, _, _ = _run(
        _paper("a", "We evaluate on MultiPL-E and HumanEval.", ("MultiPL-E", "multipl e")),
        _paper("b", "Results on multiple datasets and multiple models.", ("multiple datasets", "multiple dataset"),
               ("multiple models", "multiple model")),
        _paper("c", "We plot t-SNE and tSNE maps.", ("t-SNE", "t sne"), ("tSNE", "tsne")),
        known=frozenset({"multipl e"}),
    )  # fmt: skip
    assert keys["a"] == ["multipl e"] and keys["b"] == ["multiple dataset", "multiple model"]
    assert len(set(keys["c"])) == 1  # (a letter of a name that makes no word still folds)


def test_an_aside_in_brackets_does_not_make_a_word_a_name():
    # 2,000 arXiv abstracts: "synthetic (TRIP-PD)", keyed "synthetic", made "synthetic" a name
    # of the run, and every "synthetic dataset" and "synthetic benchmark" became "synthetic"
    keys, _, _ = _run(
        _paper("a", "We evaluate on synthetic (TRIP-PD) scenes.", ("synthetic (TRIP-PD)", "synthetic")),
        _paper("b", "Results on synthetic datasets.", ("synthetic datasets", "synthetic dataset")),
    )  # fmt: skip
    assert keys["b"] == ["synthetic dataset"]


def test_run_folds_the_number_a_name_decides():
    # the ACL corpus: "chain of thoughts" (14 mentions) beside "chain of thought" (199); a few
    # "WordNets" beside "WordNet"; "OntoNotes" is never written without its s
    keys, rules, _ = _run(
        _paper("a", "Chain of thoughts and WordNets.", ("Chain of thoughts", "chain of thoughts"),
               ("WordNets", "wordnets")),
        _paper("b", "Chain of thought prompting on WordNet.", ("Chain of thought", "chain of thought"),
               ("WordNet", "wordnet")),
        _paper("c", "Chain of thought on WordNet and OntoNotes.", ("Chain of thought", "chain of thought"),
               ("WordNet", "wordnet"), ("OntoNotes", "ontonotes")),
        _paper("d", "A mixture of experts, not a mixture of expert.", ("mixture of experts", "mixture of experts"),
               ("mixture of experts", "mixture of experts"), ("mixture of expert", "mixture of expert")),
    )  # fmt: skip
    assert keys["a"] == ["chain of thought", "wordnet"]
    assert keys["c"] == ["chain of thought", "wordnet", "ontonotes"]
    assert keys["d"] == ["mixture of experts"] * 3
    assert rules["number of a name folded"] == 3


def test_a_short_form_the_run_agrees_on_is_spelled_out_inside_a_long_form():
    # 30,000 arXiv ML abstracts: XAI defined as "Explainable AI" and as "explainable artificial
    # intelligence" made two concepts of one, and bare XAI went to either
    keys, rules, _ = _run(
        _paper("a", "Explainable AI (XAI) helps. XAI methods.", ("Explainable AI (XAI)", "explainable ai"),
               ("XAI methods", "explainable ai method")),
        _paper("b", "Explainable artificial intelligence (XAI) helps. XAI.",
               ("Explainable artificial intelligence (XAI)", "explainable artificial intelligence"),
               ("XAI.", "explainable artificial intelligence")),
        *(_paper(f"ai{i}", "Artificial intelligence (AI) is big.", ("Artificial intelligence (AI)",
                 "artificial intelligence")) for i in range(2)),
        _paper("e", "We use XAI tools and explainable AI.", ("XAI tools", "xai tool"),
               ("explainable AI", "explainable ai")),
        # a long form whose short form the run does not agree on stays as written
        _paper("f", "Stable diffusion (SD) models and speculative decoding (SD); SD-based XAI (SDX).",
               ("SD-based XAI (SDX)", "sd based xai")),
    )  # fmt: skip
    assert keys["a"] == ["explainable artificial intelligence"] * 2
    assert keys["e"] == ["explainable artificial intelligence"] * 2
    assert keys["f"] == ["sd based xai"]
    assert rules["acronym in a long form spelled out"] == 2


def test_a_digit_that_says_to_spells_a_short_form():
    # 10,000 arXiv ML papers of 2026: "T2I models" (25 mentions) had stood apart from the
    # "text-to-image (T2I) models" other abstracts define: no initial spelled the 2
    keys, rules, _ = _run(
        _paper("a", "Diffusion-based text-to-image (T2I) models and image-to-video (I2V) generation.",
               ("text-to-image (T2I) models", "text to image model"),
               ("image-to-video (I2V) generation", "image to video generation")),
        _paper("b", "We fine-tune T2I models for I2V generation.", ("T2I models", "t2i model"),
               ("I2V generation", "i2v generation")),
    )  # fmt: skip
    assert keys["b"] == ["text to image model", "image to video generation"]
    assert rules["acronym from the run"] == 2


def test_run_strips_generic_heads_from_names_of_the_run():
    keys, rules, out = _run(
        _paper("a", "We fine-tune the BERT model with a neural network model.", ("BERT model", "bert model"),
               ("neural network model", "neural network model"), relations=[("bert model", "neural network model")]),
        _paper("b", "BERT and neural networks are language models.", ("BERT", "bert"),
               ("neural networks", "neural network"), ("language models", "language model")),
        _paper("c", "The language of a ResNet architecture.", ("language", "language"),
               ("ResNet architecture", "resnet architecture")),
        known=frozenset({"resnet"}),
    )  # fmt: skip
    assert keys["a"] == ["bert", "neural network"]
    assert keys["b"] == ["bert", "neural network", "language model"]  # "language" is one common word
    assert keys["c"] == ["language", "resnet"]  # the gazetteer knows ResNet
    assert (out[0].relations[0].head, out[0].relations[0].tail) == ("bert", "neural network")
    assert rules["generic head stripped"] == 3


def test_a_process_keeps_no_head_that_names_a_way_of_doing_it():
    # 446 held-out arXiv abstracts on large models: "quantization" (25 mentions) stood apart from
    # "quantization method" (18), "quantization technique" (7), "quantization approach" (5) and
    # "quantization algorithm" (5); "distillation" and "pruning" the same
    keys, rules, _ = _run(
        _paper("a", "Existing quantization methods and quantization techniques degrade; quantization helps.",
               ("quantization methods", "quantization method"), ("quantization techniques", "quantization technique"),
               ("quantization", "quantization")),
        _paper("b", "A distillation framework, a pruning strategy and the attention mechanism; distillation, "
               "pruning and attention.", ("distillation framework", "distillation framework"),
               ("pruning strategy", "pruning strategy"), ("attention mechanism", "attention mechanism"),
               ("distillation,", "distillation"), ("pruning and", "pruning"), ("attention.", "attention")),
        # an artefact named after a process is no process: reasoning models are models
        _paper("c", "Reasoning models and a retrieval system; reasoning and retrieval.",
               ("Reasoning models", "reasoning model"), ("retrieval system", "retrieval system"),
               ("reasoning and", "reasoning"), ("retrieval.", "retrieval")),
        # nor is a word that names no process: "kernel methods" are no GPU kernels
        _paper("d", "Kernel methods and a fused kernel.", ("Kernel methods", "kernel method"),
               ("kernel.", "kernel")),
        # ACL: an annotation scheme is a scheme, not annotation
        _paper("e", "An annotation scheme guides annotation.", ("annotation scheme", "annotation scheme"),
               ("annotation.", "annotation")),
    )  # fmt: skip
    assert keys["a"] == ["quantization", "quantization", "quantization"]
    assert keys["b"] == ["distillation", "pruning", "attention", "distillation", "pruning", "attention"]
    assert keys["c"] == ["reasoning model", "retrieval system", "reasoning", "retrieval"]
    assert keys["d"] == ["kernel method", "kernel"]
    assert keys["e"] == ["annotation scheme", "annotation"]
    assert rules["generic head stripped"] == 5


def test_a_process_is_its_process_but_a_named_process_keeps_its_head():
    # arXiv ML: "reasoning process" (638 papers) stood beside "reasoning" (2,404), "decoding process"
    # beside "decoding", "decision-making processes" beside "decision-making"
    keys, rules, _ = _run(
        _paper("a", "The reasoning process and the decoding process; reasoning and decoding.",
               ("reasoning process", "reasoning process"), ("decoding process", "decoding process"),
               ("reasoning and", "reasoning"), ("decoding.", "decoding")),
        _paper("b", "Decision-making processes, and decision-making.", ("Decision-making processes",
               "decision making process"), ("decision-making.", "decision making")),
        # a process named by what it is not: a Gaussian process, a business process
        _paper("c", "A Gaussian process for business processes; Gaussian noise, business.",
               ("Gaussian process", "gaussian process"), ("business processes", "business process"),
               ("Gaussian", "gaussian"), ("business.", "business")),
        # a process the run hardly writes alone: "data annotation" in one mention against three
        *(_paper(f"m{i}", "A data annotation process.", ("data annotation process", "data annotation process"))
          for i in range(3)),
        _paper("n", "Data annotation.", ("Data annotation", "data annotation")),
        # a kind of process named so: a robust Markov decision process, whatever the run writes alone
        _paper("r", "A robust Markov decision process; robust Markov decision.",
               ("robust Markov decision process", "robust markov decision process"),
               ("robust Markov decision.", "robust markov decision")),
    )  # fmt: skip
    assert keys["a"] == ["reasoning", "decoding", "reasoning", "decoding"]
    assert keys["b"] == ["decision making", "decision making"]
    assert keys["c"] == ["gaussian process", "business process", "gaussian", "business"]
    assert keys["m0"] == ["data annotation process"]
    assert keys["r"] == ["robust markov decision process", "robust markov decision"]
    assert rules["generic head stripped"] == 3


def test_a_technology_or_an_application_of_a_name_is_the_name():
    # 30,000 arXiv ML papers: 851 paper links rested on "AI technologies" alone, 784 on "AI
    # applications", 598 on "LLM applications"
    keys, rules, _ = _run(
        _paper("a", "AI technologies and LLM applications; AI and LLMs.",
               ("AI technologies", "artificial intelligence technology"),
               ("LLM applications", "large language model application"), ("AI", "artificial intelligence"),
               ("LLMs.", "large language model")),
        # a kind of application keeps its head, and so does one of a compound adjective
        _paper("b", "Clinical applications and cutting-edge technologies; clinical, cutting-edge.",
               ("Clinical applications", "clinical application"), ("cutting-edge technologies",
               "cutting edge technology"), ("clinical,", "clinical"), ("cutting-edge.", "cutting edge")),
        # ACL: a field that ends in a head's name keeps it
        _paper("c", "Human language technology; human language.", ("Human language technology",
               "human language technology"), ("human language.", "human language")),
    )  # fmt: skip
    assert keys["a"] == ["artificial intelligence", "large language model"] * 2
    assert keys["b"] == ["clinical application", "cutting edge technology", "clinical", "cutting edge"]
    assert keys["c"] == ["human language technology", "human language"]
    assert rules["generic head stripped"] == 2


def test_a_backbone_of_a_name_is_the_name():
    # 10,000 arXiv ML papers of 2026: "LLM backbone" was a concept of its own, the only one 254
    # paper links shared (papers built on some LLM), beside "large language model"
    keys, rules, _ = _run(
        _paper("a", "An LLM backbone and a ResNet backbone; LLMs.", ("LLM backbone", "large language model backbone"),
               ("ResNet backbone", "resnet backbone"), ("LLMs.", "large language model")),
        # a backbone of what names no thing of the run, or only a property, keeps its head
        _paper("b", "A vision backbone, a frozen backbone and a lightweight backbone; vision, frozen.",
               ("vision backbone", "vision backbone"), ("frozen backbone", "frozen backbone"),
               ("lightweight backbone", "lightweight backbone"), ("vision,", "vision"), ("frozen.", "frozen")),
        known=frozenset({"resnet"}),
    )  # fmt: skip
    assert keys["a"] == ["large language model", "resnet", "large language model"]
    assert keys["b"] == ["vision backbone", "frozen backbone", "lightweight backbone", "vision", "frozen"]
    assert rules["generic head stripped"] == 2


def test_an_ability_or_a_setting_of_a_concept_is_the_concept():
    # 30,000 arXiv ML papers: "generalization ability" (127 mentions) stood beside "generalization"
    # (599), "reasoning capabilities" beside "reasoning", "federated learning settings" beside
    # "federated learning"
    keys, rules, _ = _run(
        _paper("a", "Generalization ability and reasoning capabilities in federated learning settings; "
                    "generalization, reasoning, federated learning.",
               ("Generalization ability", "generalization ability"), ("reasoning capabilities", "reasoning capability"),
               ("federated learning settings", "federated learning setting"), ("generalization,", "generalization"),
               ("reasoning,", "reasoning"), ("federated learning.", "federated learning")),
        # a kind of setting, and the ability of what names no process, keep their heads
        _paper("b", "In clinical settings, cognitive abilities and few-shot settings; clinical, cognitive, few-shot.",
               ("clinical settings", "clinical setting"), ("cognitive abilities", "cognitive ability"),
               ("few-shot settings", "few shot setting"), ("clinical,", "clinical"), ("cognitive,", "cognitive"),
               ("few-shot.", "few shot")),
        # a prefix is no name, whatever the run writes in capitals: "multi-perspective" had become "multi"
        _paper("c", "A multi-perspective view; MULTI and MULTI.", ("multi-perspective", "multi perspective"),
               ("MULTI and", "multi"), ("MULTI.", "multi")),
    )  # fmt: skip
    assert keys["a"] == ["generalization", "reasoning", "federated learning"] * 2
    kept = ["clinical setting", "cognitive ability", "few shot setting"]
    assert keys["b"] == [*kept, "clinical", "cognitive", "few shot"]
    assert keys["c"] == ["multi perspective", "multi", "multi"]
    assert rules["generic head stripped"] == 3


def test_a_head_that_names_what_another_names_is_keyed_by_it():
    # arXiv ML: "synthetic datasets" (1,415 papers) stood beside "synthetic data" (1,945), "labeled
    # datasets" beside "labeled data"; "the inference stage" beside "the inference phase", "KV
    # caching" beside "KV cache"
    keys, rules, _ = _run(
        _paper("a", "Synthetic datasets and labeled datasets; synthetic data, labeled data.",
               ("Synthetic datasets", "synthetic dataset", "Dataset"),
               ("labeled datasets", "labeled dataset", "Dataset"), ("synthetic data,", "synthetic data", "Dataset"),
               ("labeled data.", "labeled data", "Dataset")),
        _paper("b", "The inference stage and KV caching; the inference phase, the KV cache.",
               ("inference stage", "inference stage"), ("KV caching", "key value caching"),
               ("inference phase", "inference phase"), ("KV cache", "key value cache")),
        # a dataset whose data the run does not name keeps its head; a named one is its name
        _paper("c", "The Waymo Open Dataset and the MNIST dataset; MNIST.",
               ("Waymo Open Dataset", "waymo open dataset", "Dataset"), ("MNIST dataset", "mnist dataset", "Dataset"),
               ("MNIST.", "mnist", "Dataset")),
        # ACL: "language meta-datasets" are no "language metadata"
        _paper("d", "Language meta-datasets and language metadata.",
               ("Language meta-datasets", "language meta dataset"), ("language metadata", "language metadata")),
        # the default sample: "Communication Compression for Tensor Parallel LLM Inference" beside
        # "tensor parallelism" (5 papers)
        _paper("e", "Tensor Parallel inference and tensor parallelism.",
               ("Tensor Parallel", "tensor parallel"), ("tensor parallelism", "tensor parallelism")),
    )  # fmt: skip
    assert keys["a"] == ["synthetic data", "labeled data"] * 2
    assert keys["b"] == ["inference phase", "key value cache"] * 2
    assert keys["c"] == ["waymo open dataset", "mnist", "mnist"]
    assert keys["d"] == ["language meta dataset", "language metadata"]
    assert keys["e"] == ["tensor parallelism"] * 2
    assert rules["head of the same meaning"] == 5


def test_a_phase_of_doing_is_named_by_the_doing():
    # arXiv ML: "decode phase" (11 papers) beside "decoding phase" (78), "prefill phase" and "the
    # pre-filling stage" beside "prefilling phase", "test phase" beside "testing phase"; "prefill"
    # alone is prefilling (config/aliases.tsv)
    keys, rules, _ = _run(
        _paper("a", "The decode phase is memory-bound; the prefill stage is not.",
               ("decode phase", "decode phase"), ("prefill stage", "prefill stage")),
        _paper("b", "The decoding phase follows the prefilling phase and the testing phase.",
               ("decoding phase", "decoding phase"), ("prefilling phase", "prefilling phase"),
               ("testing phase", "testing phase")),
        # a phase the run never writes as a doing keeps its word; so does another head
        _paper("c", "The warmup phase and the decode time.", ("warmup phase", "warmup phase"),
               ("decode time", "decode time")),
    )  # fmt: skip
    assert keys["a"] == ["decoding phase", "prefilling phase"]
    assert keys["b"] == ["decoding phase", "prefilling phase", "testing phase"]
    assert keys["c"] == ["warmup phase", "decode time"]
    assert rules["head of the same meaning"] == 2
    assert Normaliser().key("prefill") == Normaliser().key("pre-fill") == "prefilling"


def test_a_phase_of_a_process_is_the_process():
    # 10,000 arXiv ML abstracts of 2025: "post-training phase" (6 papers, a bridge of the report) beside
    # "post-training" (48); 5,000 ACL papers of 2021: "fine-tuning stage" (9) beside "fine-tuning" (76)
    keys, rules, _ = _run(
        _paper("a", "Post-training, in the post-training phase.", ("Post-training", "post training"),
               ("post-training phase", "post training phase")),
        _paper("b", "Fine-tuning, at the fine-tuning stage.", ("Fine-tuning", "fine tuning"),
               ("fine-tuning stage", "fine tuning stage")),
        # a phase named by its verb is the doing's phase, and so the doing where the run writes it
        _paper("c", "The decode phase, the decoding phase and decoding.", ("decode phase", "decode phase"),
               ("decoding phase", "decoding phase"), ("decoding.", "decoding")),
        # a phase of no process, or of one the run does not write alone, keeps its head
        _paper("d", "The warmup phase and the exploration phase.", ("warmup phase", "warmup phase"),
               ("exploration phase", "exploration phase")),
    )  # fmt: skip
    assert keys["a"] == ["post training"] * 2
    assert keys["b"] == ["fine tuning"] * 2
    assert keys["c"] == ["decoding"] * 3
    assert keys["d"] == ["warmup phase", "exploration phase"]
    assert rules["generic head stripped"] == 3 and rules["head of the same meaning"] == 1


def test_a_general_modifier_with_one_word_is_no_name_to_strip_a_head_to():
    # arXiv ML abstracts: "large-scale datasets", "large-scale models" and "large-scale
    # benchmarks" all became "large scale", a top-50 concept
    keys, rules, _ = _run(
        _paper("a", "Large-scale datasets and large-scale models need large-scale compute.",
               ("Large-scale datasets", "large scale dataset"), ("large-scale models", "large scale model"),
               ("large-scale", "large scale")),
        _paper("b", "Deep learning models beat deep learning.", ("Deep learning models", "deep learning model"),
               ("deep learning", "deep learning")),
        known=frozenset({"deep learning"}),
    )  # fmt: skip
    assert keys["a"] == ["large scale dataset", "large scale model", "large scale"]
    assert keys["b"] == ["deep learning", "deep learning"]  # a known name
    assert rules["generic head stripped"] == 1
    # nor is a property: "training-free framework" had become "training free" (1,280 papers)
    keys, _, _ = _run(
        _paper("c", "A training-free framework, and training-free.",
               ("training-free framework", "training free framework"), ("training-free", "training free")),
    )  # fmt: skip
    assert keys["c"] == ["training free framework", "training free"]  # the first is then flagged generic
    # arXiv ML: "open-source framework" had become "open source" (17 of 2,000 papers)
    keys, _, _ = _run(
        _paper("d", "An open-source framework, open-source.",
               ("open-source framework", "open source framework"), ("open-source", "open source")),
    )  # fmt: skip
    assert keys["d"] == ["open source framework", "open source"]
    # nor a licence of weights: "open-weight models" had become "open weight" (63 of 10,000 arXiv ML papers of 2026)
    keys, _, _ = _run(
        _paper("d2", "Open-weight models and open-weight LLMs, open-weight.",
               ("Open-weight models", "open weight model"), ("open-weight LLMs", "open weight large language model"),
               ("open-weight", "open weight")),
    )  # fmt: skip
    assert keys["d2"] == ["open weight model", "open weight large language model", "open weight"]
    # nor a compound adjective with a prefix: arXiv ML's "multi-agent systems" had become
    # "multi agent" (24 of 2,000 papers)
    keys, _, _ = _run(
        _paper("e", "Multi-agent systems and multi-agent setups.",
               ("Multi-agent systems", "multi agent system"), ("multi-agent", "multi agent")),
    )  # fmt: skip
    assert keys["e"] == ["multi agent system", "multi agent"]
    # nor a bound prefix that a name of the run spells: 10,000 arXiv ML papers of 2025, one of them on
    # the benchmark SUB, had made the "sub-models" of 6 others "sub"
    keys, _, _ = _run(
        _paper("e2", "We introduce SUB, a benchmark. SUB tests concept models.", ("SUB", "sub")),
        _paper("e3", "Split learning trains sub-models in parallel and merges sub-models.",
               ("sub-models", "sub model")),
    )  # fmt: skip
    assert keys["e2"] == ["sub"] and keys["e3"] == ["sub model"]
    # nor what ends in an adjective: on ACL, "end-to-end models", "fine-tuned models", "zero-shot
    # models", "recurrent neural models" and "multilingual large models" had become "end to end"
    # (478 papers), "fine tuned" (300), "zero shot" (281), "recurrent neural" and "multilingual large"
    keys, _, _ = _run(
        _paper("f", "End-to-end models, end-to-end. Fine-tuned models, fine-tuned. Zero-shot models, zero-shot.",
               ("End-to-end models", "end to end model"), ("end-to-end", "end to end"),
               ("Fine-tuned models", "fine tuned model"), ("fine-tuned", "fine tuned"),
               ("Zero-shot models", "zero shot model"), ("zero-shot", "zero shot")),
        _paper("g", "Recurrent neural models, recurrent neural. Multilingual large models, multilingual large.",
               ("Recurrent neural models", "recurrent neural model"), ("recurrent neural", "recurrent neural"),
               ("Multilingual large models", "multilingual large model"), ("multilingual large", "multilingual large")),
    )  # fmt: skip
    assert keys["f"] == ["end to end model", "end to end", "fine tuned model", "fine tuned", "zero shot model",
                         "zero shot"]  # fmt: skip
    assert keys["g"] == ["recurrent neural model", "recurrent neural", "multilingual large model", "multilingual large"]
    # while a name stays one: "sequence-to-sequence models" is "sequence to sequence"
    keys, _, _ = _run(
        _paper("h", "Sequence-to-sequence models, sequence-to-sequence.",
               ("Sequence-to-sequence models", "sequence to sequence model"),
               ("sequence-to-sequence", "sequence to sequence")),
    )  # fmt: skip
    assert keys["h"] == ["sequence to sequence", "sequence to sequence"]


@pytest.mark.parametrize(
    "text, key",
    [
        # arXiv ML abstracts: 1.8% of the papers write LaTeX inside a mention
        (r"\textbf{\underline{J}}oint \textbf{\underline{M}}ulti", "joint multi"),
        (r"\textit{Policy-Augmented Monte Carlo tree search}", "policy augmented monte carlo tree search"),
        (
            r"\underline{E}nd-to-end \underline{L}earnable \underline{C}lustering framework",
            "end to end learnable clustering framework",
        ),
        (r"dropout-based \emph{binary} Bayesian Neural Networks", "dropout based binary bayesian neural network"),
        (r"\textcolor{red}{\textbf{S}}parse \textsc{Attention}", "sparse attention"),
        (r"$\alpha$-divergence", "alpha divergence"),
    ],
)
def test_latex_that_only_formats_leaves_no_word_in_a_key(text, key):
    norm = Normaliser()
    assert norm.key(text) == key
    assert norm.key(key) == key


def test_a_word_a_few_mentions_write_in_capitals_is_no_name():
    # arXiv ML abstracts: "generative models" became "generative" (3,710 papers), because one
    # mention somewhere wrote "GENERATIVE"; BERT is written so by most of its mentions
    keys, _, _ = _run(
        _paper("a", "Generative models and BERT models.", ("Generative models", "generative model"),
               ("BERT models", "bert model")),
        _paper("b", "GENERATIVE AI: generative and more generative.", ("GENERATIVE", "generative"),
               ("generative and", "generative")),
        _paper("c", "A generative step. BERT, BERT and bert.", ("generative", "generative"), ("BERT,", "bert"),
               ("BERT", "bert"), ("bert", "bert")),
    )  # fmt: skip
    assert keys["a"] == ["generative model", "bert"]


def test_a_word_half_its_mentions_write_in_capitals_is_no_name():
    # 2,000 arXiv ML abstracts: a title "VISion On Request" and one "Vision" made "vision" a name,
    # so "vision models", "vision tasks" and "vision benchmarks" all became "vision"
    keys, _, _ = _run(
        _paper("a", "VISion On Request for Vision.", ("VISion", "vision"), ("Vision", "vision")),
        _paper("b", "How vision models encode it, on vision benchmarks.", ("vision models", "vision model"),
               ("vision benchmarks", "vision benchmark")),
    )  # fmt: skip
    assert keys["b"] == ["vision model", "vision benchmark"]


def test_a_closed_compound_is_one_word_whatever_spelling_the_run_keys_it_by():
    # 2,000 arXiv ML abstracts: "autoregressive models" became "auto regressive" (an adjective,
    # typed Method), as the run spells "autoregressive" "auto-regressive" more often
    keys, rules, _ = _run(
        _paper("a", "Advanced autoregressive models and auto-regressive models.",
               ("autoregressive models", "autoregressive model"), ("auto-regressive models", "auto regressive model")),
        _paper("b", "Auto-regressive, auto-regressive and autoregressive decoding.",
               ("Auto-regressive", "auto regressive"), ("auto-regressive", "auto regressive"),
               ("autoregressive", "autoregressive")),
        # a compound that names a process still loses the head: "fine-tuning method" is fine-tuning
        _paper("c", "A fine-tuning method; finetuning and fine-tuning.", ("fine-tuning method", "fine tuning method"),
               ("finetuning", "finetuning"), ("fine-tuning", "fine tuning")),
    )  # fmt: skip
    assert keys["a"] == ["autoregressive model", "autoregressive model"]  # a tie: the closed form
    assert keys["c"] == ["finetuning", "finetuning", "finetuning"]
    assert rules["generic head stripped"] == 1


def test_a_name_based_thing_is_the_thing_the_run_names_without_based():
    # 446 held-out arXiv abstracts on large models: "MoE-based LLMs" (7 mentions) stood apart from
    # "MoE LLMs" (11); ACL: "LLM-based agents" (71) from "LLM agents" (174), "BERT-based models" (221)
    keys, rules, _ = _run(
        _paper("a", "MoE-based LLMs and MoE LLMs; LLM-based agents and LLM agents: a mixture of experts, a large "
               "language model.",
               ("MoE-based LLMs", "mixture of experts based large language model"),
               ("MoE LLMs", "mixture of experts large language model"),
               ("LLM-based agents", "large language model based agent"), ("LLM agents", "large language model agent"),
               ("mixture of experts", "mixture of experts"), ("large language model", "large language model")),
        _paper("b", "BERT-based models and BERT models; BERT.", ("BERT-based models", "bert based model"),
               ("BERT models", "bert model"), ("BERT", "bert")),
        # not what a common word is the base of: aspect-based sentiment analysis is a task of its own,
        # a rule-based system no "rule system"
        _paper("c", "Aspect-based sentiment analysis, aspect sentiment analysis, aspect; a rule-based system, a rule "
               "system.", ("Aspect-based sentiment analysis", "aspect based sentiment analysis"),
               ("aspect sentiment analysis", "aspect sentiment analysis"), ("aspect", "aspect"),
               ("rule-based system", "rule based system"), ("rule system", "rule system")),
    )  # fmt: skip
    # "MoE LLMs" are mixture of experts (the model class rule), "MoE-based LLMs" too
    assert keys["a"][:4] == ["mixture of experts"] * 2 + ["large language model agent"] * 2
    assert keys["b"] == ["bert", "bert", "bert"]
    assert keys["c"][0] == "aspect based sentiment analysis" and keys["c"][3] == "rule based system"
    assert rules["based dropped"] == 3


def test_a_known_metric_loses_its_score_metric_or_points():
    # ACL Anthology: "bleu point" (58 papers, typed Technique), "rouge metric" (36), "accuracy
    # score" (56), "f1 point" (20) were concepts apart from BLEU, ROUGE, accuracy and F1
    keys, rules, _ = _run(
        _paper("a", "It gains 2 BLEU points and 1.5 ROUGE-L scores over the baseline.",
               ("BLEU points", "bleu point"), ("ROUGE-L scores", "rouge l score")),
        _paper("b", "We report the ROUGE metric and accuracy scores, and 3 F1 points.",
               ("ROUGE metric", "rouge metric"), ("accuracy scores", "accuracy score"), ("F1 points", "f1 point")),
        # ...by an alias of its own: "macro averaged f1" is "macro f1"
        _paper("d", "Macro-averaged F1 scores and F1-macro scores.", ("Macro-averaged F1 scores",
               "macro averaged f1 score"), ("F1-macro scores", "f1 macro score")),
        # no known metric: "average score", "similarity score" and "false positive rate" stay
        _paper("c", "The average score, a similarity score and the false positive rate.",
               ("average score", "average score"), ("similarity score", "similarity score"),
               ("false positive rate", "false positive rate")),
        metrics=frozenset({"bleu", "rouge", "rouge l", "accuracy", "f1", "false positive", "macro f1"}),
    )  # fmt: skip
    assert keys["a"] == ["bleu", "rouge l"]
    assert keys["d"] == ["macro f1", "macro f1"]
    assert keys["b"] == ["rouge", "accuracy", "f1"]
    assert keys["c"] == ["average score", "similarity score", "false positive rate"]  # "rate" is no such word
    assert rules["generic head stripped"] == 7


def test_a_modifier_cut_from_its_head_is_no_name():
    # arXiv ML: "massive datasets" (99 mentions) and "massive models" were "massive", a Dataset
    # of 164 papers, as a few titles and the dataset MASSIVE write the word as a name; "diverse
    # datasets" were "diverse", "human-annotated datasets" "human annotated" (108 papers), and
    # "out-of-distribution datasets" out-of-distribution (OOD), typed a Dataset by them
    keys, rules, _ = _run(
        _paper("a", "Massive Tools. Training on massive datasets and massive datasets.", ("Massive", "massive"),
               ("massive datasets", "massive dataset"), ("massive datasets", "massive dataset")),
        _paper("b", "The MASSIVE benchmark, and human-annotated datasets.", ("MASSIVE", "massive"),
               ("human-annotated datasets", "human annotated dataset")),
        _paper("c", "Human-annotated, out-of-distribution (OOD) inputs and OOD datasets.",
               ("Human-annotated", "human annotated"), ("out-of-distribution", "out of distribution"),
               ("OOD datasets", "out of distribution dataset")),
        # and an on-device model is no "on device"
        _paper("d", "On-device models run on-device.", ("On-device models", "on device model"),
               ("on-device", "on device")),
    )  # fmt: skip
    assert keys["a"] == ["massive", "massive dataset", "massive dataset"]
    assert keys["b"] == ["massive", "human annotated dataset"]
    assert keys["c"] == ["human annotated", "out of distribution", "out of distribution dataset"]
    assert keys["d"] == ["on device model", "on device"]
    # no name ends in an adjective alone: "visual autoregressive models" (VAR) are no "visual autoregressive"
    keys, _, _ = _run(
        _paper("g", "Visual Autoregressive. Visual autoregressive models.", ("Visual Autoregressive",
               "visual autoregressive"), ("Visual autoregressive models", "visual autoregressive model")),
    )  # fmt: skip
    assert keys["g"] == ["visual autoregressive", "visual autoregressive model"]
    keys, _, _ = _run(
        _paper("f", "An on-policy self-distillation method; on-policy self-distillation.",
               ("on-policy self-distillation method", "on policy self distillation method"),
               ("on-policy self-distillation", "on policy self distillation")),
    )  # fmt: skip
    assert keys["f"] == ["on policy self distillation"] * 2
    assert rules["generic head stripped"] == 0
    # while a name written alone as often as with its head loses it: the BERT model is BERT
    keys, _, _ = _run(
        _paper("e", "BERT, and the BERT model.", ("BERT", "bert"), ("BERT model", "bert model")),
    )  # fmt: skip
    assert keys["e"] == ["bert", "bert"]


def test_a_metric_head_is_stripped_for_the_gazetteer_s_metrics():
    from kg.normalise.gazetteer import load_gazetteer

    metrics = load_gazetteer().keys_of("Metric")
    assert {"bleu", "rouge", "rouge l", "accuracy", "f1", "perplexity", "exact match"} <= metrics
    assert "machine translation" not in metrics


def test_a_key_ending_in_a_known_name_keeps_its_head():
    # the default sample: a phrase cut short ("Mixture-of-Experts Large Language") is a concept of
    # the run, and "MoE LLMs" would lose the "model" of "language model" to it
    keys, _, _ = _run(
        _paper("a", "Mixture-of-Experts Large Language Models route tokens.",
               ("Mixture-of-Experts Large Language Models", "mixture of experts large language model")),
        _paper("b", "Mixture-of-Experts Large Language is cut.",
               ("Mixture-of-Experts Large Language", "mixture of experts large language")),
        _paper("c", "An n-gram language model and n-grams.", ("n-gram language model", "n gram language model"),
               ("n-grams", "n gram")),
        known=frozenset({"language model"}),
    )  # fmt: skip
    assert keys["a"] == ["mixture of experts large language model"]  # no "mixture of experts" in this run
    assert keys["c"][0] == "n gram language model"  # "language model" names kinds of its own


def test_a_large_language_model_of_a_named_kind_is_that_kind():
    # 446 held-out arXiv abstracts on large models: "mixture of experts large language model" (13
    # papers) stood apart from "mixture of experts" (42), "long context large language model" (6)
    # from "long context" (10), "fine tuning large language model" (4) from "fine tuning" (8)
    keys, rules, _ = _run(
        _paper("a", "Serving MoE LLMs and long-context LLMs; fine-tuning LLMs.",
               ("MoE LLMs", "mixture of experts large language model"),
               ("long-context LLMs", "long context large language model"),
               ("fine-tuning LLMs", "fine tuning large language model")),
        _paper("b", "A mixture of experts with a long context, by fine-tuning.",
               ("mixture of experts", "mixture of experts"), ("long context", "long context"),
               ("fine-tuning", "fine tuning")),
        # one word is a kind of LLM; a general modifier or a property names none
        _paper("c", "Multimodal LLMs, diffusion LLMs, open-source LLMs and general-purpose LLMs.",
               ("Multimodal LLMs", "multimodal large language model"),
               ("diffusion LLMs", "diffusion large language model"),
               ("open-source LLMs", "open source large language model"),
               ("general-purpose LLMs", "general purpose large language model")),
        _paper("d", "Multimodal, diffusion, open source and general purpose.", ("Multimodal", "multimodal"),
               ("diffusion", "diffusion"), ("open source", "open source"), ("general purpose", "general purpose")),
    )  # fmt: skip
    assert keys["a"] == ["mixture of experts", "long context", "fine tuning"]
    assert keys["c"] == ["multimodal large language model", "diffusion large language model",
                         "open source large language model", "general purpose large language model"]  # fmt: skip
    assert rules["model class stripped"] == 3


def test_x_of_y_is_y_x_where_the_run_says_so():
    # 446 held-out arXiv abstracts on large models: "inference of large language model" (3 mentions)
    # stood apart from "large language model inference" (60), "distillation of knowledge" from
    # "knowledge distillation"
    keys, rules, _ = _run(
        _paper("a", "Inference of LLMs is slow; distillation of knowledge helps.",
               ("Inference of LLMs", "inference of large language model"),
               ("distillation of knowledge", "distillation of knowledge")),
        _paper("b", "LLM inference and knowledge distillation.", ("LLM inference", "large language model inference"),
               ("knowledge distillation", "knowledge distillation")),
        # no "Y X" in the run, or a name with "of" in it: it stays
        _paper("c", "A mixture of experts, a bag of words, the analysis of variance.",
               ("mixture of experts", "mixture of experts"), ("bag of words", "bag of words"),
               ("analysis of variance", "analysis of variance")),
    )  # fmt: skip
    assert keys["a"] == ["large language model inference", "knowledge distillation"]
    assert keys["c"] == ["mixture of experts", "bag of words", "analysis of variance"]
    assert rules["of inverted"] == 2


def test_x_of_y_stays_where_the_run_writes_it_so_more_often():
    # the ACL corpus: a few "thought chains" made "chain of thought" (CoT, 97 papers) "thought chain"
    keys, rules, _ = _run(
        _paper("a", "Chain-of-thought prompting helps.", ("Chain-of-thought", "chain of thought")),
        _paper("b", "We elicit a chain of thought.", ("chain of thought", "chain of thought")),
        _paper("c", "Each thought chain is scored.", ("thought chain", "thought chain")),
    )  # fmt: skip
    assert keys == {"a": ["chain of thought"], "b": ["chain of thought"], "c": ["thought chain"]}
    assert rules["of inverted"] == 0


def test_a_gerund_and_its_object_are_the_object_and_the_gerunds_noun():
    # 10,000 held-out arXiv ML abstracts of 2026: "quantifying uncertainty" (2 papers) stood apart from
    # "uncertainty quantification" (48), "learning representations" from "representation learning" (52)
    keys, rules, _ = _run(
        _paper("a", "Quantifying uncertainty and learning representations for detecting anomalies.",
               ("Quantifying uncertainty", "quantifying uncertainty"),
               ("learning representations", "learning representation"), ("detecting anomalies", "detecting anomaly")),
        _paper("b", "Uncertainty quantification meets representation learning.",
               ("Uncertainty quantification", "uncertainty quantification"),
               ("representation learning", "representation learning")),
        _paper("c", "Uncertainty quantification and representation learning again.",
               ("Uncertainty quantification", "uncertainty quantification"),
               ("representation learning", "representation learning")),
        # a thing named by what it does stays: "reasoning models" are no "model reasoning", however
        # often the run writes that; a "learning rate" no "rate learning", which the run writes less
        _paper("d", "Reasoning models tune the learning rate; model reasoning and rate learning.",
               ("Reasoning models", "reasoning model"), ("learning rate", "learning rate"),
               ("model reasoning", "model reasoning"), ("rate learning", "rate learning")),
        _paper("e", "Model reasoning and the learning rate once more.", ("Model reasoning", "model reasoning"),
               ("learning rate", "learning rate")),
        known=frozenset({"anomaly detection"}),
    )  # fmt: skip
    assert keys["a"] == ["uncertainty quantification", "representation learning", "anomaly detection"]
    assert keys["d"][:2] == ["reasoning model", "learning rate"]
    assert rules["object of a gerund turned"] == 3


def test_a_gerund_and_its_object_stay_where_the_run_writes_them_so_as_often():
    keys, rules, _ = _run(
        _paper("a", "We study detecting jailbreaks.", ("detecting jailbreaks", "detecting jailbreak")),
        _paper("b", "Jailbreak detection is hard.", ("Jailbreak detection", "jailbreak detection")),
    )  # fmt: skip
    assert keys == {"a": ["detecting jailbreak"], "b": ["jailbreak detection"]}
    assert rules["object of a gerund turned"] == 0


def test_an_aliased_acronym_is_read_inside_longer_mentions():
    # the default sample had "llm inference" beside "large language model inference"
    keys, rules, _ = _run(
        _paper("a", "Fast LLM inference on GPUs.", ("LLM inference", "llm inference")),
        _paper("b", "Large language model inference is slow.",
               ("Large language model inference", "large language model inference")),
    )  # fmt: skip
    assert keys["a"] == keys["b"] == ["large language model inference"]
    assert rules["acronym from the run"] == 1


def test_run_keys_expand_an_alias_written_in_capitals_inside_a_mention(tmp_path):
    from kg.normalise.run import normalise_run

    aliases = tmp_path / "aliases.tsv"
    aliases.write_text("GQA\tgrouped query attention\n", encoding="utf-8")
    paper, x = _paper("a", "Fast GQA kernels.", ("GQA kernels", "gqa kernel"))
    out, rules = normalise_run([paper], [x], normaliser=Normaliser(aliases=aliases))
    assert [m.concept for m in out[0].mentions] == ["grouped query attention kernel"]
    assert rules["acronym from the run"] == 1


def test_no_run_long_form_inside_a_name_of_several_parts_or_for_a_numeral():
    # the arXiv ML corpus: with IV defined as instrumental variable (17 abstracts) and VI as
    # variational inference (15 of 33), "MIMIC-IV" (74 papers) was keyed "mimic instrumental variable",
    # "BCI Competition IV" "... competition instrumental variable" and "VI-ReID" (visible-infrared
    # re-identification) "variational inference re identification"
    keys, _, _ = _run(
        _paper("a", "We estimate effects with instrumental variables (IV). IV regression helps.",
               ("instrumental variables (IV)", "instrumental variable"), ("IV regression", "iv regression")),
        _paper("b", "Mean-field variational inference (VI) is fast.", ("variational inference (VI)",
                                                                        "variational inference")),
        _paper("b2", "Stochastic variational inference (VI) scales.", ("variational inference (VI)",
                                                                        "variational inference")),
        _paper("b3", "Value iteration (VI) converges.", ("Value iteration (VI)", "value iteration")),
        *(_paper(f"b{i}", "Low-rank adaptation (LoRA) of a mixture of experts.", ("Low-rank adaptation (LoRA)",
                                                                                   "low rank adaptation"))
          for i in (4, 5)),
        _paper("c", "We train on MIMIC-IV and on SEED IV.", ("MIMIC-IV", "mimic iv"), ("SEED IV", "seed iv")),
        _paper("d", "Results on BCI Competition IV and on grade IV tumours.", ("BCI Competition IV",
               "bci competition iv"), ("grade IV tumours", "grade iv tumour")),
        _paper("e", "Unsupervised VI-ReID matches people; VI-based methods and VI methods.",
               ("Unsupervised VI-ReID", "unsupervised vi reid"), ("VI-based methods", "vi based method"),
               ("VI methods", "vi method")),
        _paper("f", "A CNN-LSTM model and MoE-LoRA.", ("CNN-LSTM model", "cnn lstm model"),
               ("MoE-LoRA", "moe lora")),
        # a name of several parts the run defines whole is read whole; joined to a word, a part is read
        _paper("g", "A vector quantized variational autoencoder (VQ-VAE) for artificial intelligence (AI).",
               ("vector quantized variational autoencoder (VQ-VAE)", "vector quantized variational autoencoder"),
               ("artificial intelligence (AI)", "artificial intelligence")),
        _paper("h", "VQ-VAE tokenizers and AI-Generated Content.", ("VQ-VAE tokenizers", "vq vae tokenizer"),
               ("AI-Generated Content", "ai generated content")),
    )  # fmt: skip
    assert keys["a"] == ["instrumental variable", "instrumental variable regression"]
    assert keys["c"] == ["mimic iv", "seed iv"]
    assert keys["d"] == ["bci competition iv", "grade iv tumour"]
    # a name's parts are the paper's to define; joined to words, or alone, the run's long form serves
    assert keys["e"] == ["unsupervised vi reid", "variational inference", "variational inference"]
    # an alias serves inside a name too, and a long form two abstracts give and the run agrees on (VI
    # is two things in it)
    assert keys["f"] == ["convolutional neural network long short term memory model", "moe low rank adaptation"]
    assert keys["h"] == [
        "vector quantized variational autoencoder tokenizer",
        "artificial intelligence generated content",
    ]


def test_a_known_name_of_several_parts_takes_no_long_form_for_its_parts():
    # 10,000 arXiv ML abstracts of 2026: with CXR agreed on as chest X-ray and MT as machine translation,
    # "MIMIC-CXR" (12 papers) was keyed "mimic chest x ray", a Method, and "MT-Bench" "machine translation bench"
    defining = [
        _paper(f"a{i}", "Chest X-ray (CXR) reports and machine translation (MT).",
               ("Chest X-ray (CXR)", "chest x ray"), ("machine translation (MT)", "machine translation"))
        for i in range(2)
    ]  # fmt: skip
    using = _paper("b", "We train on MIMIC-CXR, score on MT-Bench, and read CXR images.",
                   ("MIMIC-CXR", "mimic cxr"), ("MT-Bench", "mt bench"), ("CXR images", "cxr image"))  # fmt: skip
    keys, _, _ = _run(*defining, using, known=frozenset({"mimic cxr", "mt bench"}))
    assert keys["b"] == ["mimic cxr", "mt bench", "chest x ray image"]
    # a name the gazetteer does not know is read as before
    keys, _, _ = _run(*defining, using)
    assert keys["b"][:2] == ["mimic chest x ray", "machine translation bench"]


def test_a_name_of_several_parts_many_write_bare_is_not_one_abstracts_long_form():
    # the ACL corpus: one abstract's "recall-oriented understudy for gisting evaluation (ROUGE-L)" keyed
    # the ROUGE-L of every other abstract by that long form; the papers that wrote "ROUGE-L" without
    # defining it were not counted, as a name of several parts
    text = "Models attained recall-oriented understudy for gisting evaluation (ROUGE-L) scores of 0.4."
    keys, _, _ = _run(
        _paper("a", text, ("recall-oriented understudy for gisting evaluation (ROUGE-L)", "rouge")),
        *(_paper(f"p{i}", "ROUGE-L improves.", ("ROUGE-L", "rouge l")) for i in range(25)),
    )  # fmt: skip
    assert keys["p0"] == ["rouge l"]


def test_an_expansion_does_not_double_the_word_after_it():
    # arXiv ML: "LoRA-based adaptation" was keyed "low rank adaptation adaptation" (42 mentions),
    # "CAD designs" "computer aided design design", "CNN networks"; "drug-drug interaction" is written so
    keys, rules, _ = _run(
        *(_paper(f"d{i}", "Computer-aided design (CAD) is old.",
                 ("Computer-aided design (CAD)", "computer aided design")) for i in range(2)),
        *(_paper(f"i{i}", "Drug-drug interactions (DDIs) harm.", ("Drug-drug interactions (DDIs)",
                                                                   "drug drug interaction")) for i in range(2)),
        _paper("a", "CAD designs and CNN networks predict drug-drug interactions and DDIs.",
               ("CAD designs", "cad design"), ("CNN networks", "cnn network"),
               ("drug-drug interactions", "drug drug interaction"), ("DDIs", "ddi")),
    )  # fmt: skip
    assert keys["a"] == ["computer aided design", "convolutional neural network"] + ["drug drug interaction"] * 2
    assert rules["doubled word dropped"] == 2


def test_a_mention_keyed_with_its_papers_acronyms_takes_the_runs_too():
    # the default sample: "MoE LLMs" in an abstract that defines MoE but not LLM was keyed
    # "mixture of experts llm" at extraction, beside "mixture of experts large language model"
    keys, rules, _ = _run(
        _paper("a", "Mixture-of-Experts (MoE) models scale. MoE LLMs route tokens.",
               ("MoE LLMs", "mixture of experts llm")),
        _paper("b", "Serving MoE LLMs is hard.", ("MoE LLMs", "moe llm")),
        _paper("c", "Mixture of experts (MoE) layers.", ("Mixture of experts (MoE)", "mixture of experts")),
    )  # fmt: skip
    assert keys["a"] == keys["b"] == ["mixture of experts"]  # "MoE LLMs" are a mixture of experts
    assert rules["acronym from the run"] == 2


def test_run_keys_do_not_depend_on_order():
    pairs = [
        _paper("a", "A data set.", ("data set", "data set")),
        _paper("b", "A dataset.", ("dataset", "dataset")),
        _paper("c", "Meta learning.", ("Meta learning", "meta learning")),
        _paper("d", "Metalearning.", ("Metalearning", "metalearning")),
    ]
    forward, _, _ = _run(*pairs)
    backward, _, _ = _run(*reversed(pairs))
    assert forward == backward == {"a": ["dataset"], "b": ["dataset"], "c": ["metalearning"], "d": ["metalearning"]}


def test_relations_within_one_concept_are_dropped():
    _, rules, out = _run(
        _paper("a", "We use the data set to build a dataset.", ("data set", "data set"), ("dataset", "dataset"),
               relations=[("data set", "dataset")]),
    )  # fmt: skip
    assert out[0].relations == [] and rules["relation within one concept dropped"] == 1


def test_new_papers_get_the_keys_of_the_stored_run():
    from kg.normalise.run import RunTables, normalise_run, run_tables

    old = [
        _paper("a", "Agents trained with proximal policy optimization (PPO) learn fast.",
               ("proximal policy optimization (PPO)", "proximal policy optimization")),
        _paper("b", "A data set and a data set.", ("data set", "data set")),
        _paper("c", "The BERT encoder.", ("BERT", "bert")),
    ]  # fmt: skip
    new = [_paper("d", "PPO agents fine-tune a BERT model on a dataset.", ("PPO agents", "ppo agent"),
                  ("BERT model", "bert model"), ("dataset", "dataset"))]  # fmt: skip
    papers, extractions = zip(*old, strict=True)
    stored = RunTables.from_dict(run_tables(papers, extractions).to_dict())  # as the state keeps them
    papers, extractions = zip(*new, strict=True)
    tables = run_tables(papers, extractions, prior=stored)
    out, _ = normalise_run(papers, list(extractions), tables=tables, stored=stored)
    # "dataset" ties with "data set": a full run would key both papers "dataset", the update keeps "data set"
    assert [m.concept for m in out[0].mentions] == ["proximal policy optimization agent", "bert", "data set"]
    assert stored.moved_by(tables, Normaliser().generic_heads) == ["'data set' is now 'dataset'"]


def test_candidate_phrases_take_their_papers_own_acronyms():
    # the model's mention was keyed with the abstract's definition at extraction; a candidate
    # phrase over the same words was not, and split "key value cache" from "kv cache"
    abstract = ("Storing the Key-Value (KV) cache is costly. Existing KV cache compression methods are "
                "effective for LLMs.")  # fmt: skip
    keys, _, _ = _run(
        _paper("a", abstract, ("Key-Value (KV) cache", "key value cache"),
               ("KV cache compression methods", "key value cache compression method"),
               ("KV cache compression", "kv cache compression")),
    )  # fmt: skip
    assert keys["a"] == ["key value cache", "key value cache compression", "key value cache compression"]


def test_run_acronyms_are_acronyms():
    # a capitalised word in brackets is no short form for the whole run to expand
    abstract = ("This year we focus on the Arabic-English, Chinese-Spanish and pivot Chinese-(English)-Spanish "
                "translation tasks.")  # fmt: skip
    keys, rules, _ = _run(
        _paper("a", abstract, ("Arabic-English", "arabic english")),
        _paper("b", "English text simplification is hard.",
               ("English text simplification", "english text simplification")),
    )  # fmt: skip
    assert keys["b"] == ["english text simplification"] and rules["acronym from the run"] == 0


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # ACL titles and abstracts: a long form never reaches across the title's end or a sentence
        ("Weighted Pushdown Automata\n\nWeighted pushdown automata (WPDAs) are a generalization.",
         {("WPDAs", "Weighted pushdown automata")}),  # the plural's s is no letter to find
        ("MetaDistil: Knowledge Distillation with Meta Learning\n\nWe present Knowledge Distillation with Meta "
         "Learning (MetaDistil), a simple yet effective alternative.", set()),  # a clause, with "we"
        ("Residual Learning for Weakly-Supervised Relation Extraction\n\nDeep residual learning (ResNet) has "
         "been applied.", set()),  # two words that spell nothing of the short form
        ("WiDiD: What is Done is Done (WiDiD) tracks semantic change.", set()),
        ("We use residual networks (ResNets) and text-induced corpus clean-up (TICCL).",
         {("ResNets", "residual networks"), ("TICCL", "text-induced corpus clean-up")}),
    ],
)  # fmt: skip
def test_acronym_long_forms_are_names_not_clauses(text, found):
    assert {(a.short, a.long) for a in find_acronyms(text)} == found


@pytest.mark.parametrize(
    "text, key",
    [
        # ACL L14-1355: "transliteration ... for Indian language-Indian language translation"
        ("Indian language-Indian language translation", "indian language translation"),
        ("Indian languages–Indian languages MT", "indian languages mt"),
        # one word on each side is a pair of its own ("English-English dictionary"); other runs stay
        ("English-English dictionary", "english english dictionary"),
        ("Indian language-English translation", "indian language english translation"),
        ("sequence-to-sequence model", "sequence to sequence model"),
    ],
)
def test_a_run_of_words_on_both_sides_of_a_dash_is_keyed_once(text, key):
    norm = Normaliser()
    assert norm.key(text) == key
    assert norm.key(key) == key


def test_a_named_model_keeps_its_name_where_a_paper_spells_its_letters_out():
    # Held-out arXiv abstracts: a paper defining "Generative Pre-trained Transformer (GPT)" made
    # every "GPT-4o" of the run "generative pretrained transformer 4o"; ACL keyed BERT by its letters,
    # and the recogniser stops before "from Transformers"
    from kg.extract import extract
    from kg.normalise.run import normalise_run
    from kg.records import Paper

    papers = [
        Paper("a", "", "Generative Pre-trained Transformer (GPT) models achieve state-of-the-art performance on a "
              "number of Natural Language Processing tasks."),
        Paper("b", "", "We introduce a novel framework for this approach and test it on movie and music recommendation "
              "datasets for GPT-4o, GPT-4o-mini, and Llama-3.1-8B-Instruct."),
        Paper("c", "", "Bidirectional Encoder Representations from Transformers (BERT) models achieve state-of-the-art "
              "performance on a number of Natural Language Processing tasks."),
    ]  # fmt: skip
    out, _ = normalise_run(papers, list(extract(papers)))
    keys = {m.concept for x in out for m in x.mentions}
    assert {"gpt", "gpt 4o", "gpt 4o mini", "bert"} <= keys, keys
    assert not [k for k in keys if "generative pretrained" in k or "representations from" in k], keys


def test_merged_tables_choose_each_spelling_as_if_counted_anew():
    """Merged tables start from the spellings the first tables chose and weigh only the keys merged
    in (an incremental run): the same choice as counting every key anew, where the counts turn
    ("data set" 3 -> 3, "dataset" 2 -> 5), tie ("meta learning"), stay, or a new name gives a key
    another form ("wordnets", written as a name, is a "wordnet"), and after two merges."""
    import random

    from kg.normalise.run import RunTables

    rng = random.Random(7)
    words = ["data set", "dataset", "data-set", "meta learning", "metalearning", "auto encoder", "autoencoder",
             "wordnet", "wordnets", "word nets", "transformers", "transformer"]  # fmt: skip
    renamed = 0
    for _ in range(300):
        named = frozenset(rng.sample(["wordnets", "transformers", "dataset"], rng.randint(0, 1)))
        old = RunTables(counts={w: rng.randint(1, 4) for w in rng.sample(words, 7)}, named=named)
        _ = old.closed  # as an update has it: decided before the new papers come
        names = frozenset(rng.sample(["wordnets", "transformers"], rng.randint(0, 1)))
        grown = old.merged(RunTables(counts={w: rng.randint(1, 3) for w in rng.sample(words, 3)}, named=names))
        grown = grown.merged(RunTables(counts={w: rng.randint(1, 2) for w in rng.sample(words, 2)}))
        assert grown.grown_from is not None and grown.grown_from[0] is old
        assert grown.closed == RunTables(counts=grown.counts, named=grown.named).closed
        renamed += grown.named != old.named
    assert 50 < renamed < 250
    # a whole run's keys merged into tables of definitions alone: nothing to start from, no set of keys held
    assert RunTables().merged(RunTables(counts={"dataset": 1})).grown_from is None


def test_a_vision_language_action_model_is_one_concept_however_written(nlp):
    # 10,000 arXiv ML papers of late 2025: 52 abstracts define "Vision-Language-Action (VLA) models",
    # 9 "vision-language-action models (VLAs)"; "VLAs" and "VLA" had been a Technique "vision language
    # action" of 19 papers beside the "vision-language-action models" of 58 (config/aliases.tsv)
    from kg.extract import extract
    from kg.normalise.run import normalise_run
    from kg.records import Paper

    papers = [
        Paper("a", "Efficient Vision-Language-Action Models", "Vision-Language-Action (VLA) models map images "
              "and instructions to robot actions. We show that VLAs and our VLA models fail under shift."),
        Paper("b", "Robust robot policies", "Recent vision-language-action models (VLAs) generalize across tasks."),
        Paper("c", "Benchmarking VLAs", "We evaluate seven VLA models on manipulation tasks."),
    ]  # fmt: skip
    extractions = list(extract(papers, nlp=nlp, n_process=1))
    # "VLA models" of an abstract that defines VLA: no "vision language action model model"
    assert "VLA models" in [m.text for m in extractions[0].mentions]
    out, _ = normalise_run(papers, extractions)
    keys = {
        m.concept for x in out for m in x.mentions if "vla" in m.text.lower() or "language-action" in m.text.lower()
    }
    assert keys == {"vision language action model"}


def test_markup_references_and_looking_are_no_concepts(nlp):
    # Inspec: "sup" had been a concept of 35 of its 2,000 papers, "ibid" of 18, "looks" of 15
    from kg.extract import extract
    from kg.records import Paper

    text = (
        "The paper looks at partially orienting /sup 133/Cs nuclei in a liquid crystal. For part 1, see "
        "ibid., p.707-22. It looks at quantum computing with nuclear magnetic resonance."
    )
    paper = Paper("a", "", text)
    (x,) = extract([paper], nlp=nlp, n_process=1)
    keys = {m.concept for m in x.mentions}
    assert not keys & {"sup", "ibid", "look"}
    assert "nuclear magnetic resonance" in keys or "quantum computing" in keys


def test_a_coordination_is_keyed_by_each_concepts_own_words_and_its_relations_keep_their_ends():
    from kg.normalise.run import normalise_run
    from kg.records import Extraction, Mention, Paper, Relation

    # the arXiv ML slices: the run defines AI, so "AI models" of "human and AI models" is the
    # artificial intelligence model; a relation of the coordination keeps each end its concept
    defines = Paper("a", "", "Artificial intelligence (AI) models help.")
    text = "We compare human and AI models for triage."
    keys = ("human model", "ai model")
    both = [Mention("human and AI models", "Technique", 11, 30, text, "uses", key) for key in keys]
    triage = Mention("triage", "Problem", 35, 41, text, "addresses", "triage")
    rs = [Relation("USED_FOR", m.concept, "triage", m.text, "triage", 11, 30, 35, 41, text) for m in both]
    x = Extraction("b", [*both, triage], rs)
    out, _ = normalise_run([defines, Paper("b", "", text)], [Extraction("a", []), x])
    [b] = [x for x in out if x.id == "b"]
    assert [(m.text, m.concept) for m in b.mentions][:2] == [
        ("human and AI models", "human model"),
        ("human and AI models", "artificial intelligence model"),
    ]
    heads = [r.head for r in b.relations]
    assert heads == ["human model", "artificial intelligence model"]
