"""Cross-validation of the concept model: folds and the step count chosen on the folds' mean."""

from __future__ import annotations

import json

import pytest

from kg.errors import ConfigError
from kg.extract.cv import SCORES, choose_step, split_folds


def test_folds_are_disjoint_cover_everything_and_do_not_depend_on_input_order():
    lines = [json.dumps({"doc_key": f"P{i:02d}", "sentences": []}) for i in range(10)]
    folds = split_folds(lines, 3, seed=0)
    assert sorted(line for fold in folds for line in fold) == sorted(lines)
    assert [len(f) for f in folds] == [4, 3, 3]
    assert split_folds(lines[::-1], 3, seed=0) == folds
    assert split_folds(lines, 3, seed=1) != folds
    with pytest.raises(ConfigError, match="11 folds"):
        split_folds(lines, 11)


def test_step_is_chosen_on_the_mean_over_folds_not_on_one_fold(tmp_path):
    # fold-0 alone would pick step 400; the mean picks 600
    curves = {"fold-0": {200: 0.40, 400: 0.70, 600: 0.50}, "fold-1": {200: 0.40, 400: 0.40, 600: 0.65}}
    for fold, curve in curves.items():
        (tmp_path / fold).mkdir()
        rows = [json.dumps({"step": step, "ents_mt_f": f}) for step, f in curve.items()]
        (tmp_path / fold / SCORES).write_text("\n".join(rows) + "\n", encoding="utf-8")
    step, mean = choose_step(tmp_path)
    assert step == 600
    assert mean == pytest.approx({200: 0.40, 400: 0.55, 600: 0.575})


def test_pretraining_text_is_a_seeded_sample_of_titles_and_abstracts_whatever_the_files_order(tmp_path):
    from kg.extract.pipeline import TITLE_SEPARATOR
    from kg.extract.pretrain import write_raw_text

    files = []
    for name in ("a", "b"):
        records = [{"id": f"{name}{i}", "title": f"Title {name}{i}", "abstract": f"Abstract {name}{i} " * 10}
                   for i in range(6)]  # fmt: skip
        files.append(tmp_path / f"{name}.jsonl")
        files[-1].write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "raw.jsonl"
    assert write_raw_text(files, out, docs=5) == 5
    texts = [json.loads(line)["text"] for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(set(texts)) == 5 and all(t.startswith("Title ") and TITLE_SEPARATOR + "Abstract" in t for t in texts)
    assert {t.split()[1][0] for t in texts} == {"a", "b"}  # drawn from both files
    write_raw_text(files[::-1], tmp_path / "again.jsonl", docs=5)
    assert (tmp_path / "again.jsonl").read_text(encoding="utf-8") == out.read_text(encoding="utf-8")
    assert write_raw_text(files, out, docs=100) == 12
    # Rounds: each file the next records of the same order.
    rounds = [tmp_path / "r0.jsonl", tmp_path / "r1.jsonl"]
    assert write_raw_text(files, rounds, docs=3) == 6
    write_raw_text(files, tmp_path / "six.jsonl", docs=6)
    lines = (tmp_path / "six.jsonl").read_text(encoding="utf-8").splitlines()
    assert [r.read_text(encoding="utf-8").splitlines() for r in rounds] == [lines[:3], lines[3:]]


def test_pretraining_rounds_resume_from_the_last_weights(tmp_path):
    # Two real rounds of spaCy's pretrain on a few abstracts: the second starts from the first's weights.
    from kg.config import model_dir
    from kg.extract.pretrain import pretrain_in_rounds, raw_text_files

    raws = raw_text_files(tmp_path, 2)
    for r, raw in enumerate(raws):
        raw.write_text(
            "".join(json.dumps({"text": f"Round {r}: we train a transformer on text {i}."}) + "\n" for i in range(4)),
            encoding="utf-8",
        )
    last = pretrain_in_rounds(raws, tmp_path, vectors=model_dir())
    assert last == tmp_path / "model1.bin" and (tmp_path / "model0.bin").exists()
    # spaCy logs each epoch's weights, then model-last: the second round went on from epoch 1.
    epochs = [json.loads(line)["epoch"] for line in (tmp_path / "log.jsonl").read_text(encoding="utf-8").splitlines()]
    assert epochs == [0, 1, 1, 2]
    assert last.read_bytes() != (tmp_path / "model0.bin").read_bytes()


def test_a_mean_of_checkpoints_averages_every_weight_of_the_tok2vec_and_the_recogniser(tmp_path):
    import numpy as np
    import spacy

    from kg.extract.cv import CHECKPOINTS, average_checkpoints

    def weights(nlp):
        for name in ("tok2vec", "ner"):
            for node in nlp.get_pipe(name).model.walk():
                for param in node.param_names:
                    if node.has_param(param):
                        yield node, param

    run = tmp_path / "fold-0"
    (run / CHECKPOINTS).mkdir(parents=True)
    for step, value in ((200, 1.0), (400, 2.0), (600, 6.0)):
        nlp = spacy.blank("en")
        nlp.add_pipe("tok2vec")
        nlp.add_pipe("ner").add_label("Method")
        nlp.initialize()
        for node, param in weights(nlp):
            node.set_param(param, np.full_like(node.get_param(param), value))
        nlp.to_disk(run / CHECKPOINTS / str(step))
    dest = average_checkpoints(run, [200, 400, 600])
    assert dest == run / CHECKPOINTS / "mean-200-600"
    averaged = spacy.load(dest)
    assert {float(v) for node, param in weights(averaged) for v in np.unique(node.get_param(param))} == {3.0}
    assert averaged.get_pipe("ner").labels == ("Method",)


def test_a_mean_of_the_last_checkpoints_is_chosen_only_where_it_beats_the_best_step_on_the_folds_mean(
    tmp_path, monkeypatch
):
    from kg.extract import cv

    for fold in ("fold-0", "fold-1"):
        (tmp_path / fold).mkdir()
        rows = [json.dumps({"step": step, "ents_mt_f": 0.5 + step / 10_000}) for step in range(0, 2400, 200)]
        (tmp_path / fold / SCORES).write_text("\n".join(rows) + "\n", encoding="utf-8")
    monkeypatch.setattr(cv, "average_checkpoints", lambda run, steps: run / f"mean-{steps[0]}-{steps[-1]}")
    # the best step, 2,200, scores 0.72 on both folds
    monkeypatch.setattr(cv, "raw_f1", lambda model, heldout: {"mean-1600-2200": 0.75}.get(model.name, 0.70))
    means = {"mean-1600-2200": 0.75, "mean-1000-2200": 0.70, "mean-200-2200": 0.70}
    assert cv.choose_checkpoint(tmp_path, *cv.choose_step(tmp_path)) == ("mean-1600-2200", means)
    monkeypatch.setattr(cv, "raw_f1", lambda model, heldout: 0.72)
    assert cv.choose_checkpoint(tmp_path, *cv.choose_step(tmp_path))[0] == "2200"
