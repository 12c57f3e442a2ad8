"""The shipped reference document-frequency table and the specificity of concept keys."""

from __future__ import annotations

import gzip

import pytest

from kg.errors import ConfigError
from kg.normalise import Normaliser
from kg.normalise.refdf import count_df, write_table
from kg.normalise.specificity import load_reference_df, reference_df, specificity


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
