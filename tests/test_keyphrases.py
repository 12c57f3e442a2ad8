"""Keyphrase recall: the comparison form of keywords, the scoring, and ``kg eval --keyphrases``."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from kg.extract.evaluate import KeyphraseScores, evaluate_keyphrases, normalise_phrase


def test_normalised_form_of_keywords():
    assert normalise_phrase("Convolutional Neural Networks") == normalise_phrase("convolutional neural network")
    assert normalise_phrase("multi-service application") == "multi service application"
    assert normalise_phrase("Web-based platforms") == "web based platform"
    # Words that end in "s" without being plurals keep it.
    assert normalise_phrase("corpus analysis") == "corpus analysis"
    assert normalise_phrase("cross-entropy loss") == "cross entropy loss"
    assert normalise_phrase("  RNNs;  ") == "rnn"


def test_recall_counts_keywords_in_text_apart_from_all():
    s = KeyphraseScores()
    text = "Collaborative filtering for orkut communities: discovery of user latent behavior"
    s.add(["Collaborative Filtering", "orkut community", "data mining", "orkut community"], text,
          ["collaborative filtering", "orkut communities"], 2)  # fmt: skip
    d = s.as_dict()
    # "data mining" is not in the text; the repeated keyword counts once.
    assert d["in_text"] == {"exact": 0.5, "normalised": 1.0, "keywords": 2}
    assert d["all"]["keywords"] == 3 and d["concepts_per_record"] == 2.0


def _records(tmp_path):
    path = tmp_path / "kp.jsonl"
    rows = [
        {"id": "www:1", "title": "", "keywords": ["neural machine translation", "attention"],
         "abstract": "We propose a neural machine translation model with attention. "
                     "Experiments on WMT English-German show gains over strong baselines."},
        {"id": "inspec:2", "title": "Sentiment analysis of product reviews", "keywords": ["sentiment analysis"],
         "abstract": "We study sentiment analysis of online product reviews with a lexicon-based classifier."},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_eval_on_a_tiny_keyphrase_file(tmp_path, nlp):
    s = evaluate_keyphrases(_records(tmp_path), nlp=nlp).as_dict()
    assert s["records"] == 2 and s["in_text"]["keywords"] == 3
    # "attention" sits inside the recogniser's "neural machine translation model with attention"
    # or beside it; the phrases find what the recogniser's boundaries hide.
    assert s["in_text"]["normalised"] >= 2 / 3, s
    assert 1 <= s["concepts_per_record"] <= 15


def test_cli_eval_keyphrases_json(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    out = subprocess.run(
        [sys.executable, "-m", "kg.cli", "eval", "--keyphrases", str(_records(tmp_path)), "-f", "json"],
        capture_output=True, text=True, env=env, check=True,
    )  # fmt: skip
    d = json.loads(out.stdout)
    assert d["records"] == 2 and set(d["in_text"]) == {"exact", "normalised", "keywords"}
