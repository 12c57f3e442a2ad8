"""Draw the default sample: arXiv abstracts on training and serving large models.

Reads the arXiv ML abstracts beside the checkout (``../shared/data/arxiv-ml``, CC0) and keeps a
record when its title names one of the topics below and its title or abstract says it is about
large models (``LARGE``), unless its title is off the subject (``OFF_TOPIC``) or a reader of
the sample found it to be (``EXCLUDED``). Each kept record goes to the first topic its title
names, in the order of ``TOPICS``; then the same number of records is taken from every topic,
in an order fixed by a seeded hash of their ids, and the sample is written sorted by id. Run from the project root:

    python data/select_arxiv_sample.py [SOURCE] [-o data/sample/arxiv-llm-sample.jsonl]

The same source file gives the same sample, byte for byte.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
from collections import Counter
from pathlib import Path

SOURCE = Path("../shared/data/arxiv-ml/arxiv-ml-abstracts.jsonl.gz")
OUTPUT = Path("data/sample/arxiv-llm-sample.jsonl")
SEED = 20261201
SIZE = 300

#: Each topic: a pattern its title must match (case-insensitive unless written (?-i:...)).
TOPICS = {
    "model merging": r"model merging|\bmerg(e|es|ing) (of )?((large|fine-tuned|expert) )*(language )?models\b"
    r"|merging (LLMs|experts|adapters|checkpoints)|task arithmetic|model soups?",
    "distributed training": r"distributed (pre-?)?training"
    r"|(pipeline|tensor|data|expert|sequence|context|3D|hybrid|head) parallel|(?-i:\bFSDP\b|\bZeRO\b)"
    r"|training (throughput|cluster|infrastructure"
    r"|failures?)|(LLM|model|pre-?) ?training (at scale|system)|communication[- ](efficient|overlap).*training"
    r"|gradient (compression|synchroni)|straggler|fault[- ]toleran\w* .*training|memory[- ]efficient (pre-?)?training"
    r"|activation (checkpointing|recomputation)|optimizer states?",
    "long context": r"long[- ]context|context (window|length)|length (extrapolation|generali[sz]ation)|long[- ]sequence"
    r"|position(al)? (interpolation|encoding)|(?-i:\bRoPE\b)",
    "mixture of experts": r"mixture[- ]of[- ]experts|(?-i:\bMoEs?\b)",
    "quantisation": r"quanti[sz]|low[- ]bit\\b|\b[1-8][- ]bit\b",
    "distillation": r"(?<!dataset )distill",
    "serving and scheduling": r"\bserving\b|(?-i:\bKV\b)[- ]?cache|speculative (decoding|sampling)|batching|prefill"
    r"|disaggregat|(LLM|model) inference|LLM inference (system|engine)"
    r"|(LLM|inference|request|job|GPU|cluster)s? scheduling|scheduling .*(inference|serving|requests)",
}

#: Large models, named in the title or at least three times in the abstract.
LARGE = re.compile(
    r"\b(LLMs?|large language models?|large models?|foundation models?|language models?|billion[- ]parameters?"
    r"|[1-9]\d{0,2}(\.\d)?B\b|GPT(-?\d\w*)?|LLaMA\w*|Llama[- ]?\d*|Mixtral|Qwen\w*|DeepSeek\w*)",
    re.I,
)
#: Titles about something else that the topic patterns also catch, or about an application domain
#: rather than the models themselves.
OFF_TOPIC = re.compile(
    r"token merging|data(set)? distillation|privacy|prompt injection|\bagent|jailbreak|federated|medical|clinical"
    r"|radiolog|health|\bEHR\b|\bECG\b|\bEEG\b|ultrasound|remote sensing|driving|recommend|financ|legal|biomedic"
    r"|material|molecul|protein|speech|audio|knowledge graph|time series|forecast|satellite|patholog|\b3D\b|vulnerab"
    r"|smart contract|recruit|resume|BioASQ|topic model|hallucinat",
    re.I,
)
#: Topics whose words are common outside large models (distilling a small vision model, quantising
#: an embedding, long documents in general): their titles must name large models themselves.
TITLE_NAMES_LARGE = {"long context", "quantisation", "distillation"}


#: Records the patterns keep that a reader of the drawn sample found to be about something else.
EXCLUDED = {
    "arxiv:2504.02094": "traffic flow prediction",
    "arxiv:2504.17480": "attacks on watermarks",
    "arxiv:2505.18040": "emotion recognition",
    "arxiv:2507.15680": "image quality assessment",
    "arxiv:2511.07110": "market making",
    "arxiv:2511.22044": "jailbreak success prediction",
    "arxiv:2601.00926": "enterprise retrieval",
    "arxiv:2601.09059": "a shared-task system",
    "arxiv:2604.02509": "eye tracking",
    "arxiv:2511.17335": "robotics",
    "arxiv:2512.04307": "web agents",
    "arxiv:2510.21788": "bandits (online mixture of experts)",
    "arxiv:2505.18670": "human mobility",
    "arxiv:2511.01463": "human motion",
    "arxiv:2601.09985": "vector search",
    "arxiv:2602.11513": "private split inference",
    "arxiv:2504.18884": "text classification by ensembles",
    "arxiv:2512.11986": "prompt disambiguation",
    "arxiv:2503.16970": "depth completion",
    "arxiv:2504.00048": "text-to-SQL",
    "arxiv:2506.01420": "text anonymisation",
    "arxiv:2506.17486": "robot planning",
    "arxiv:2507.14686": "situational awareness in images",
    "arxiv:2510.05431": "patent classification",
    "arxiv:2512.09307": "polyp segmentation",
    "arxiv:2603.20510": "chess",
    "arxiv:2605.24375": "game code generation",
    "arxiv:2606.00928": "tissue segmentation",
    "arxiv:2402.10107": "quantised embeddings for controllable generation",
    "arxiv:2502.00681": "graph representation learning",
    "arxiv:2503.18562": "gastroenterology",
    "arxiv:2405.20450": "a blockchain network",
    "arxiv:2412.12192": "a prompt attack",
    "arxiv:2511.12752": "an attack on narratives",
    "arxiv:2507.08153": "accident prediction",
    "arxiv:2509.10417": "essay scoring",
    "arxiv:2509.14269": "a medical chatbot",
    "arxiv:2511.05630": "brain connectomes",
}


def topic_of(record: dict) -> str | None:
    """The first topic the record's title names, if the record is about large models."""
    title, abstract = record["title"], record["abstract"]
    if record["id"] in EXCLUDED or OFF_TOPIC.search(title) or "withdrawn" in abstract.lower()[:200]:
        return None
    if not (LARGE.search(title) or len(LARGE.findall(abstract)) >= 3):
        return None
    topic = next((topic for topic, pattern in TOPICS.items() if re.search(pattern, title, re.I)), None)
    if topic in TITLE_NAMES_LARGE and not LARGE.search(title):
        return None
    return topic


def select(records: list[dict], *, size: int = SIZE, seed: int = SEED) -> list[dict]:
    """``size`` records, as many from each topic as the others (the first topics take the remainder)."""
    pools: dict[str, list[dict]] = {topic: [] for topic in TOPICS}
    for record in records:
        if (topic := topic_of(record)) is not None:
            pools[topic].append(record)
    share, extra = divmod(size, len(TOPICS))
    chosen = []
    for i, (topic, pool) in enumerate(pools.items()):
        # a seeded order of each record on its own: excluding one record brings in the next, and nothing else changes
        pool.sort(key=lambda r: hashlib.sha256(f"{seed}:{r['id']}".encode()).hexdigest())
        chosen += [dict(r, topic=topic) for r in pool[: share + (i < extra)]]
    return sorted(chosen, key=lambda r: r["id"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", type=Path, default=SOURCE)
    parser.add_argument("-o", "--output", type=Path, default=OUTPUT)
    args = parser.parse_args()
    with gzip.open(args.source, "rt", encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    sample = select(records)
    with args.output.open("w", encoding="utf-8") as f:
        for record in sample:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
    counts = Counter(r["topic"] for r in sample)
    print(
        f"{args.output}: {len(sample)} of {len(records)} records; " + ", ".join(f"{t} {n}" for t, n in counts.items())
    )


if __name__ == "__main__":
    main()
