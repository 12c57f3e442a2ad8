"""Build ``config/gazetteer.tsv`` (``make gazetteer``): see :mod:`kg.normalise.gazetteer`.

Run as ``python -m kg.normalise.gazetteer_build GAZETTEER_DIR ARXIV_JSONL_GZ ACL_JSONL_GZ OUT``.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from kg.normalise.gazetteer import FAMILY

#: A named resource right before "dataset"/"benchmark"/"corpus"/"treebank", after a word that
#: cannot start a sentence (so "Our dataset" and "The benchmark" are not read as names).
_NAME = r"((?:[A-Z][A-Za-z0-9\-.+]*|[0-9]+[A-Za-z0-9\-]*[A-Z][A-Za-z0-9\-]*)(?:[ \-][A-Z0-9][A-Za-z0-9\-.+]*){0,3})"
_NAMED_RESOURCE = re.compile(
    r"\b(?:the|on|of|and|in|from|using|with|as|including|like|e\.g\.|,|;|\()\s+"
    + _NAME
    + r"\s+(?:data ?sets?|benchmarks?|corpus|corpora|treebanks?)\b"
)
#: Mined names that are not resources: languages, fields, task acronyms, data sources.
_NOT_DATASETS = frozenset(
    [
        *("english", "chinese", "arabic", "german", "spanish", "italian", "japanese", "french"),
        *("malayalam", "tamil", "korean", "hindi", "english-centric"),
        *("nlp", "qa", "llm", "llms", "ood", "3d", "2d", "ai", "ner", "nli", "rag", "mri", "mt"),
        *("sts", "gec", "pde", "e2e", "abc", "uci", "iris", "star", "pie", "ace", "sgd", "vqa"),
        *("twitter", "reddit", "amazon", "yelp", "kaggle", "waymo", "waymo open", "new york times", "nyt"),
    ]
)
_MIN_DOCS = 8
_MIN_TASK_DATASETS = 1
_MAX_TASK_WORDS = 6
#: PwC task names too broad to be one problem ("Classification", "Articles").
_GENERIC_TASKS = frozenset(
    [
        *("articles", "classification", "cross-lingual", "detection", "segmentation", "generation"),
        *("retrieval", "prediction", "regression", "clustering", "recognition", "translation", "reasoning"),
    ]
)
#: A PwC "task" named by one of these head words is a family of techniques or a learning
#: paradigm ("Data Augmentation", "Few-Shot Learning", "Knowledge Distillation"), not a problem.
_TECHNIQUE_HEADS = frozenset(
    [
        *("learning", "training", "augmentation", "distillation", "pruning", "quantization"),
        *("embedding", "embeddings"),  # "Word Embeddings", "Knowledge Graph Embeddings": techniques
        "fine-tuning",
        "tuning",
        "prompting",
        *("pretraining", "pre-training"),  # "Continual Pretraining", "Unsupervised Pre-training"
    ]
)
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-+.']*[A-Za-z0-9+]|[A-Za-z0-9]")

#: Datasets and benchmarks, the last lines the agent, reasoning and generation benchmarks of 2025-2026
#: that abstracts name without "benchmark" after them, so that mining misses them ("BrowseComp" had been
#: a Method of 10 of 10,000 arXiv ML papers of 2026), and the knowledge bases ("Wikidata" a Technique).
CURATED_DATASETS = """ImageNet, CIFAR-10, CIFAR-100, MNIST, Fashion-MNIST, SVHN, COCO, MS COCO, Pascal VOC,
Cityscapes, ADE20K, KITTI, nuScenes, Visual Genome, CelebA, LSUN, Omniglot, miniImageNet,
SQuAD, SQuAD 2.0, GLUE, SuperGLUE, MMLU, GSM8K, HumanEval, MBPP, BIG-bench, HellaSwag,
TruthfulQA, Natural Questions, TriviaQA, HotpotQA, MS MARCO, WikiText-103, WikiText-2,
Penn Treebank, OntoNotes, CoNLL-2003, SNLI, MultiNLI, MNLI, SST-2, IMDB, WMT, WMT14, WMT16, IWSLT,
Europarl, Multi30K, Gigaword, CNN/Daily Mail, XSum, LibriSpeech, Switchboard, TIMIT, AudioSet,
Common Crawl, C4, The Pile, Wikipedia, WordNet, FrameNet, PropBank, Universal Dependencies,
ShapeNet, ScanNet, MuJoCo, Atari, D4RL, OpenAI Gym, MIMIC-III, MIMIC-IV, MIMIC-CXR,
MMMU, MMMU-Pro, MathVista, MathVerse, MME, MM-Vet, Video-MME, EgoSchema, ActivityNet-QA, NExT-QA,
TextVQA, DocVQA, ChartQA, InfoVQA, AI2D, RealWorldQA, VQAv2, OK-VQA, VizWiz, CharXiv, MMStar, OCRBench,
SEED-Bench, HallusionBench, LLaVA-Bench, MVBench, LongVideoBench, AMC, SWE-bench, ARC-AGI, ARC-Challenge,
WinoGrande, PIQA, BoolQ, SIQA, LAMBADA, CommonsenseQA, OpenBookQA, StrategyQA, BBH, BIG-Bench Hard,
IFEval, AlpacaEval, Arena-Hard, MT-Bench, MuSiQue, 2WikiMultiHopQA, HumanEval+, MultiPL-E, CRUXEval,
SVAMP, ASDiv, OlympiadBench, C-Eval, CMMLU, AGIEval, MedMCQA, FLORES, XNLI, XTREME, Mind2Web, AgentBench,
WebShop, CALVIN, MSR-VTT, MSVD, Kinetics-400, HMDB51, Something-Something, Ego4D, Epic-Kitchens, LAION,
LAION-5B, CC3M, CC12M, RefCOCO, ImageNet-21K, ImageNet-C, ImageNet-R, ImageNet-Sketch, ObjectNet,
OpenWebText, RedPajama, FineWeb, SlimPajama, ShareGPT, ShareGPT4V, UltraChat, UltraFeedback, HH-RLHF,
Matterport3D, nuPlan, Waymo Open Dataset, YouTube-VOS, Objects365, OpenImages, Places365, iNaturalist,
CUB-200-2011, Stanford Cars, Oxford Flowers, Food-101, Caltech-101, STL-10, DomainNet, Office-31,
Office-Home, VisDA, AFHQ, LSUN Bedroom,
BrowseComp, LiveCodeBench, SimpleQA, Humanity's Last Exam, Terminal-Bench, miniF2F, tau-bench, AndroidWorld,
ScreenSpot, HealthBench, VBench, DPG-Bench, T2I-CompBench, MMBench, VSI-Bench,
Wikidata, Freebase, DBpedia, ConceptNet, YAGO""".replace("\n", " ")
CURATED_METRICS = """BLEU, ROUGE, ROUGE-L, ROUGE-1, ROUGE-2, METEOR, CIDEr, SPICE, chrF, TER, BERTScore, BLEURT,
COMET, F1, F1 score, F1-score, F-score, F-measure, macro F1, micro F1, accuracy, top-1 accuracy,
top-5 accuracy, precision, recall, perplexity, AUC, AUROC, ROC AUC, mAP, mean average precision,
IoU, mIoU, mean IoU, PSNR, SSIM, LPIPS, FID, Inception Score, word error rate, WER, character
error rate, CER, exact match, MRR, mean reciprocal rank, NDCG, nDCG, Hits@1, Hits@10,
Pearson correlation, Spearman correlation, Cohen's kappa, mean squared error, MSE, RMSE, MAE,
mean absolute error, log-likelihood, negative log-likelihood, cross-entropy, top-1 error,
error rate, pass@1, pass@k, win rate, UAS, LAS, labeled attachment score, Matthews correlation,
success rate, attack success rate, latency, throughput, speedup, FLOPs, GFLOPs, TFLOPs, GFLOPS, TFLOPS,
floating-point operations,
memory footprint, time to first token, TTFT, time per output token, TPOT, tokens per second,
model FLOPs utilization, MFU, goodput, acceptance rate, compression ratio, service level objective, SLO,
SLO attainment, peak signal-to-noise ratio,
structural similarity, structural similarity index, structural similarity index measure, Frechet Inception
Distance, learned perceptual image patch similarity, root mean square error, root mean squared error, area
under the curve, area under the ROC curve, normalized discounted cumulative gain, expected calibration error,
Dice coefficient, Dice score, bits per character, bits per byte, AP, AP50, AP75, average precision,
FActScore""".replace("\n", " ")

#: Where a study's data comes from, signals and images it records (typed Dataset, as "EEG signals"
#: and "EEG data" are): a named method they are not, though their acronyms read as names ("EEG",
#: "fMRI" had been Methods of 52 and 23 of 30,000 arXiv ML papers); and social media, where a study
#: collects its texts, as "Twitter" and "Reddit" are (a Technique of 599 ACL papers). So are the
#: scans and point clouds of CT and LiDAR ("LiDAR" had been a Method of 25 of 10,000 arXiv ML papers
#: of 2025-2026, and Papers with Code files "Computed Tomography (CT)" as a task), and time series and
#: point clouds themselves, which Papers with Code files as tasks (Problems of 20 and 11 of those
#: papers; "time series forecasting" and "point cloud registration" are the tasks).
CURATED_DATA_SOURCES = """EEG, electroencephalography, electroencephalogram, ECG, electrocardiography,
electrocardiogram, EMG, electromyography, fMRI, functional magnetic resonance imaging, MRI, magnetic
resonance imaging, CT, computed tomography, PPG, photoplethysmography, LiDAR, light detection and
ranging, time series, multivariate time series, point cloud, 3D point cloud, social media, positron emission
tomography""".replace("\n", " ")

#: Processors and accelerators that papers train and serve on (typed Hardware; a key ending in
#: "gpu", "tpu"... is Hardware too: ``hardware_heads`` in config/normalise.toml).
CURATED_HARDWARE = """GPU, CPU, TPU, NPU, FPGA, ASIC, graphics processing unit, central processing unit, tensor
processing unit, neural processing unit, field-programmable gate array, H100, H200, H800, A100, A800,
V100, P100, L40S, A6000, A10G, B200, GB200, RTX 4090, RTX 3090, RTX A6000, MI250X, MI300X, Gaudi,
Gaudi2, Jetson, Jetson Orin, TPU v4, TPU v5e, TPU v5p, DRAM, SSD, HBM, high-bandwidth memory, NVLink, InfiniBand,
PCIe""".replace("\n", " ")

#: Families of models and learning paradigms that PwC lacks or files as tasks ("Large Language
#: Model" is a PwC task), or whose acronym, written as a name, would make them a Method ("RAG", "MoE");
#: and techniques named by general academic words only, which would be generic otherwise (in 29,
#: 31 and 78 arXiv ML papers: "factor analysis", "next-scale prediction", "deep research"; an agent's
#: "tool use", "tool learning" and "tool calling", in 918, 65 and 241 of the 150,965). PwC
#: files "Prompt Engineering" and "Knowledge Graphs" as tasks: what is done with a model and a
#: representation of knowledge (267 and 287 of 30,000 arXiv ML papers had listed them as problems).
#: Chain-of-thought, a way of prompting, and the multilayer perceptron, a kind of network, read as
#: named Methods from their capitals and acronyms ("CoT", "MLP": 62, 50 and 36 of 10,000 arXiv ML
#: papers of 2025-2026 for "chain of thought", "chain of thought reasoning" and "multilayer perceptron");
#: so had families of networks, written in title case with their acronyms ("Generative Adversarial
#: Networks (GANs)", a Papers with Code Method, "Physics-Informed Neural Networks (PINNs)", "State
#: Space Models (SSMs)": 17, 31 and 19 of those papers). Ways of training generative models and of
#: combining trained ones that PwC lacks: "flow matching" had been a Problem of 38 of 10,000 arXiv
#: ML papers of 2025, "score matching" of 4, "model merging" of 13; ways of training a policy,
#: which PwC lacks or files as tasks: "policy optimization" and "preference optimization", the
#: families of PPO, GRPO and DPO, had been Problems of 38 and 31 of 10,000 arXiv ML papers of 2026,
#: "reward shaping" of 8, "behavior cloning" of 6.
CURATED_TECHNIQUES = """large language model, language model, pretrained language model, neural network,
deep neural network, convolutional neural network, recurrent neural network, graph neural network,
adversarial training, meta-learning, contrastive learning, self-supervised learning, deep learning,
machine learning, reinforcement learning, transfer learning, multi-task learning, fine-tuning,
in-context learning, prompt tuning, instruction tuning, chain-of-thought prompting, world model,
artificial intelligence, generative artificial intelligence, retrieval-augmented generation,
foundation model, diffusion model, vision-language model, large vision-language model,
multimodal large language model, large reasoning model, mixture of experts,
factor analysis, next-scale prediction, deep research, prompt engineering, knowledge graph,
chain-of-thought, chain-of-thought reasoning, multilayer perceptron, generative adversarial network, GAN,
physics-informed neural network, spiking neural network, vision-language-action model, state space model,
tool use, tool learning, tool calling, flow matching, score matching, rectified flow, consistency model,
model merging, policy optimization, preference optimization, reward shaping, behavior cloning""".replace("\n", " ")

#: Named model families (LLMs, vision and speech models): each is a ``Method``, and so is any key
#: of a family name followed by version words ("GPT-4o-mini", "Qwen2.5-7B-Instruct", "Claude 3.5
#: Sonnet"; :class:`kg.normalise.gazetteer.Gazetteer`). Abstracts write them as resources ("we
#: prompt GPT-3.5", "responses from Claude"), which a recogniser trained on SciERC reads as data.
CURATED_MODELS = """GPT, ChatGPT, InstructGPT, LLaMA, Llama, Code Llama, CodeLlama, Vicuna, Mistral, Mixtral,
Qwen, QwQ, DeepSeek, Gemini, Gemma, Claude, PaLM, Falcon, BLOOM, Phi, InternLM, Baichuan, ChatGLM, Pythia,
OLMo, StarCoder, T5, Flan-T5, mT5, BART, BERT, RoBERTa, DeBERTa, ELECTRA, XLNet, ALBERT, DistilBERT,
CLIP, BLIP, LLaVA, Segment Anything, DINO, DINOv2, Whisper, Stable Diffusion, DALL-E, Imagen, Sora, Grok,
Kimi, MiniCPM, Nemotron, Granite, o1, o3, o4""".replace("\n", " ")


def _abstracts(path: Path) -> Iterator[str]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            yield json.loads(line).get("abstract") or ""


def mine_datasets(corpora: list[Path], min_docs: int = _MIN_DOCS) -> Counter[str]:
    """Named resources in ``corpora`` ("the X dataset", "on X benchmark"), by abstracts naming them."""
    docs: Counter[str] = Counter()
    for path in corpora:
        for text in _abstracts(path):
            docs.update({m.group(1).rstrip(".-") for m in _NAMED_RESOURCE.finditer(text)})
    return Counter(
        {
            name: n
            for name, n in docs.items()
            if n >= min_docs and ". " not in name and name.lower() not in _NOT_DATASETS
        }
    )


def lower_share(terms: list[str], corpus: Path, limit: int = 60_000) -> dict[str, tuple[int, int]]:
    """For each term, (lower-case, capitalised) occurrences not at a sentence start in ``corpus``.

    "knowledge distillation" is written in lower case (a technique), "Adam" and "Transformer"
    capitalised (a named method): PwC writes every name in title case, so its own casing cannot tell.
    """
    wanted = {tuple(t.lower().split()): t for t in terms}
    longest = max(len(k) for k in wanted)
    counts = {t: [0, 0] for t in terms}
    for n, text in enumerate(_abstracts(corpus)):
        if n >= limit:
            break
        words = _WORD.findall(text)
        lower = [w.lower() for w in words]
        for i in range(1, len(words)):
            if words[i - 1].endswith("."):
                continue
            for size in range(1, min(longest, len(words) - i) + 1):
                term = wanted.get(tuple(lower[i : i + size]))
                if term is not None:
                    counts[term][0 if words[i][0].islower() else 1] += 1
    return {t: (lo, up) for t, (lo, up) in counts.items()}


def common_words(names: list[str], corpus: Path, limit: int = 60_000) -> frozenset[str]:
    """The one-word names in capitals (``names`` with a capital after the first letter) that
    ``corpus`` writes in lower case more often than as the name.

    "BASE", "ALIGN", "NODE", "USE" are methods to Papers with Code and words to everyone else:
    as known names they would keep "base model" from being a concept ("base") and type the
    word "use". "BERT", "CLIP" and "ResNet" are written as names. A name in title case
    ("Transformer", "Dropout") is a word written at a sentence start as well: :func:`lower_share`.
    """
    wanted = {n for n in names if n.isalpha() and any(c.isupper() for c in n[1:])}
    lower = {n.lower(): n for n in wanted}
    exact: Counter[str] = Counter()
    plain: Counter[str] = Counter()
    for n, text in enumerate(_abstracts(corpus)):
        if n >= limit:
            break
        for w in _WORD.findall(text):
            if w in wanted:
                exact[w] += 1
            elif w in lower:
                plain[lower[w]] += 1
    return frozenset(n for n in wanted if plain[n] > exact[n])


def _coined(name: str) -> bool:
    """A coined name by its form: a digit, or a capital inside a word part ("ResNet", "BERT")."""
    parts = re.split(r"[\s\-/]+", name)
    return any(any(c.isdigit() for c in p) or any(c.isupper() for c in p[1:]) for p in parts)


def method_rows(methods: list[dict], arxiv: Path) -> list[tuple[str, str, str]]:
    full_names = [m["name"] for m in methods if not _coined(m["name"])]
    casing = lower_share(full_names, arxiv)
    words = common_words([n for m in methods for n in [m["name"], *m.get("aliases", [])] if " " not in n], arxiv)
    rows = []
    for m in methods:
        name = m["name"]
        if name in words:
            continue
        if _coined(name):
            kind = "Method"
        else:
            lower, upper = casing[name]
            # Unseen names: a single title-case word is a coined name ("Adam"), longer ones describe.
            if lower + upper:
                kind = "Technique" if lower >= upper else "Method"
            else:
                kind = "Method" if " " not in name else "Technique"
        rows.append((name, kind, "pwc-method"))
        for alias in m.get("aliases", []):
            if alias in words:
                continue
            # An acronym takes its long form's type ("CNN" is a family like "convolutional neural
            # network"); a coined short name ("ResNet") is a named method.
            alias_kind = kind if alias.isupper() else ("Method" if _coined(alias) else kind)
            rows.append((alias, alias_kind, "pwc-method"))
    return rows


def task_rows(tasks: list[dict]) -> list[tuple[str, str, str]]:
    names = {t["name"].lower() for t in tasks}
    rows = []
    for t in tasks:
        name = t["name"]
        low = name.lower()
        truncated = any(other != low and other.startswith(low) and other[len(low)].isalpha() for other in names)
        if (
            (t.get("dataset_count") or 0) < _MIN_TASK_DATASETS
            or len(name.split()) > _MAX_TASK_WORDS
            or len(name.split()) < 2
            or low in _GENERIC_TASKS
            or truncated
            or not name[0].isalpha()
        ):
            continue
        kind = "Technique" if low.split()[-1] in _TECHNIQUE_HEADS else "Problem"
        rows.append((name, kind, "pwc-task"))
    return rows


def build(gazetteer_dir: Path, arxiv: Path, acl: Path) -> list[tuple[str, str, str]]:
    methods = [json.loads(ln) for ln in (gazetteer_dir / "pwc-methods.jsonl").read_text(encoding="utf-8").splitlines()]
    tasks = [json.loads(ln) for ln in (gazetteer_dir / "pwc-tasks.jsonl").read_text(encoding="utf-8").splitlines()]
    rows = [(t.strip(), "Dataset", "curated") for t in CURATED_DATASETS.split(",")]
    rows += [(t.strip(), "Dataset", "curated") for t in CURATED_DATA_SOURCES.split(",")]
    rows += [(t.strip(), "Metric", "curated") for t in CURATED_METRICS.split(",")]
    rows += [(t.strip(), "Technique", "curated") for t in CURATED_TECHNIQUES.split(",")]
    rows += [(t.strip(), "Hardware", "curated") for t in CURATED_HARDWARE.split(",")]
    rows += [(t.strip(), "Method", FAMILY) for t in CURATED_MODELS.split(",")]
    rows += [(name, "Dataset", f"mined:{n}") for name, n in sorted(mine_datasets([arxiv, acl]).items())]
    rows += method_rows(methods, arxiv)
    rows += task_rows(tasks)
    return rows


HEADER = """\
# Known ML/NLP concepts and their kg types (see kg/normalise/gazetteer.py for how it was made).
# Methods and tasks: Papers with Code (paperswithcode.com), CC BY-SA 4.0; this file is a
# derivative and is shared under CC BY-SA 4.0 too. Datasets and metrics: curated by kg, and
# mined from arXiv ML (CC0) and ACL Anthology abstracts ("mined:N": N abstracts name it);
# families of techniques, hardware and named model families ("curated-family") curated by kg.
# Earlier rows win when two terms share a key.
term\ttype\tsource
"""


def main(argv: list[str]) -> None:
    gazetteer_dir, arxiv, acl, out = (Path(a) for a in argv)
    rows = build(gazetteer_dir, arxiv, acl)
    seen: set[str] = set()
    lines = []
    for term, kind, source in rows:
        if term.lower() not in seen:
            seen.add(term.lower())
            lines.append(f"{term}\t{kind}\t{source}\n")
    out.write_text(HEADER + "".join(lines), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
