"""Readers for the formats researchers have: BibTeX, RIS, OpenAlex, arXiv, Semantic Scholar; and cross-source dedupe.

Every fixture in tests/data/readers holds valid entries and broken ones. Each entry must come out
exactly once, as a Paper or as a Reject with a kind and a reason; the fields of the good ones are
checked exactly.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from kg.errors import InputError
from kg.read import FORMATS, detect_format, iter_raw, read_records, sniff_format
from kg.read.dedupe import Merged, dedupe_papers
from kg.records import Paper, Reject

DATA = Path(__file__).parent / "data" / "readers"
SAMPLE = Path(__file__).parent.parent / "data" / "sample" / "acl-sample.jsonl"

BERT_TITLE = "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding"


def _fields(name: str, fmt: str = "auto") -> list[dict | None]:
    return [r.fields for r in iter_raw(DATA / name, fmt)]


def _by_id(name: str, fmt: str = "auto") -> dict[str, dict]:
    return {f["id"]: f for f in _fields(name, fmt) if f is not None and "id" in f}


def _outcomes(path: Path | str, fmt: str = "auto") -> list[tuple[str, int, str | None, str | None]]:
    """(Paper|Reject, line, id, reject kind) for every record of a file."""
    out = []
    for item in read_records(path if isinstance(path, Path) else DATA / path, fmt=fmt):
        if isinstance(item, Paper):
            out.append(("Paper", -1, item.id, None))
        else:
            out.append(("Reject", item.line, item.id, item.kind))
    return out


# --- format names and detection ---------------------------------------------------------------


def test_format_names():
    assert FORMATS == ("jsonl", "csv", "bibtex", "ris", "openalex", "arxiv", "s2")


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("refs.bib", "bibtex"),
        ("REFS.BIB", "bibtex"),
        ("refs.bib.gz", "bibtex"),
        ("export.ris", "ris"),
        ("export.ris.gz", "ris"),
        ("works.jsonl", "jsonl"),
        ("page.json", "jsonl"),
        ("rows.tsv", "csv"),
    ],
)
def test_detect_format_from_name(name, fmt):
    assert detect_format(Path(name)) == fmt


@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        (DATA / "openalex-works.jsonl", "openalex"),
        (DATA / "openalex-page.json", "openalex"),
        (DATA / "arxiv-snapshot.jsonl", "arxiv"),
        (DATA / "s2-search.json", "s2"),
        (DATA / "s2-batch.json", "s2"),
        (DATA / "s2-papers.jsonl", "s2"),
        (DATA / "s2-abstracts.jsonl", "s2"),
        (SAMPLE, "jsonl"),
        (Path(__file__).parent / "data" / "bad-records.jsonl", "jsonl"),
        (DATA / "zotero.bib", "bibtex"),
        (DATA / "export.ris", "ris"),
    ],
    ids=lambda v: v.name if isinstance(v, Path) else v,
)
def test_sniff_format_from_first_record(path, fmt):
    assert sniff_format(path) == fmt


def test_sniff_skips_a_malformed_first_line(tmp_path):
    path = tmp_path / "works.jsonl"
    good = (DATA / "openalex-works.jsonl").read_text(encoding="utf-8", errors="replace").splitlines()[0]
    path.write_text('{"id": "https://openalex.org/W1", "title": \n' + good + "\n", encoding="utf-8")
    assert sniff_format(path) == "openalex"
    assert [o[0] for o in _outcomes(path)] == ["Reject", "Paper"]


def test_unknown_format_names_all_formats(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text("{}\n")
    with pytest.raises(InputError, match="expected one of jsonl, csv, bibtex, ris, openalex, arxiv, s2"):
        list(read_records(path, fmt="endnote"))


def test_explicit_format_beats_the_file_name(tmp_path):
    # OpenAlex snapshot parts are named part_000.gz: nothing in the name says JSON Lines.
    part = tmp_path / "part_000.gz"
    part.write_bytes(gzip.compress((DATA / "openalex-works.jsonl").read_bytes()))
    with pytest.raises(InputError, match="cannot tell the format"):
        list(read_records(part))
    assert _outcomes(part, "openalex") == _outcomes(DATA / "openalex-works.jsonl")


def test_plain_kg_jsonl_is_unchanged_by_sniffing():
    items = list(read_records(SAMPLE))
    assert len(items) == 300 and all(isinstance(i, Paper) for i in items)
    assert items[0].id == "acl:2016.gwc-1.15" and items[0].extra == {
        "url": "https://aclanthology.org/2016.gwc-1.15",
        "source": "acl-anthology",
    }


FIXTURES = sorted(p.name for p in DATA.iterdir())


@pytest.mark.parametrize("name", FIXTURES)
def test_every_entry_is_a_paper_or_a_reject_with_reason(name):
    items = list(read_records(DATA / name))
    assert items, name
    assert any(isinstance(i, Paper) for i in items) or name in ("scholar.bib", "s2-papers.jsonl")
    for item in items:
        assert isinstance(item, (Paper, Reject))
        if isinstance(item, Reject):
            assert item.kind and item.reason and item.raw and item.line >= 1
            assert item.source == str(DATA / name)


# --- BibTeX -----------------------------------------------------------------------------------


def test_bibtex_zotero_outcomes():
    assert _outcomes("zotero.bib") == [
        ("Paper", -1, "devlin2019bert", None),
        ("Paper", -1, "mikolov2013efficient", None),
        ("Reject", 37, None, "malformed BibTeX"),
        ("Reject", 42, "devlin2019bert", "duplicate id"),
        ("Reject", 48, "latin1caf", "undecodable text"),
        ("Reject", 56, "badnames2022", "malformed BibTeX"),
    ]


def test_bibtex_reject_reasons():
    rejects = [i for i in read_records(DATA / "zotero.bib") if isinstance(i, Reject)]
    assert rejects[0].reason.startswith("malformed BibTeX entry (")
    assert "@inproceedings{broken2020" in rejects[0].raw
    assert rejects[1].reason == f"duplicate citation key devlin2019bert (first seen at {DATA / 'zotero.bib'}:5)"
    assert rejects[2].reason == "undecodable text in field 'title' (not valid UTF-8)"
    assert "Caf\\xe9" in rejects[2].raw
    assert rejects[3].reason.startswith("malformed BibTeX entry badnames2022: cannot split the author")


def test_bibtex_zotero_fields():
    bib = _by_id("zotero.bib")
    assert bib["devlin2019bert"] == {
        "id": "devlin2019bert",
        "title": BERT_TITLE,
        "abstract": "We introduce BERT, a language representation model that pre-trains deep bidirectional "
        "Transformer encoders on unlabeled text by conditioning on both left and right context. Fine-tuned with "
        "one extra output layer, it improves the state of the art on eleven tasks, including question answering "
        "(+1.5% F1) and natural language inference.",
        "year": 2019,
        "authors": ["Jacob Devlin", "Ming-Wei Chang", "Kenton Lee", "Kristina Toutanova"],
        "venue": "Proceedings of the 2019 Conference of the North American Chapter of the Association for "
        "Computational Linguistics: Human Language Technologies",
        "bibtex_type": "inproceedings",
        "doi": "10.18653/v1/n19-1423",
        "url": "https://aclanthology.org/N19-1423",
        "publisher": "Association for Computational Linguistics",
        "pages": "4171-4186",
        "keywords": ["language models", "pre-training"],
    }
    assert bib["mikolov2013efficient"] == {
        "id": "mikolov2013efficient",
        "title": "Efficient Estimation of Word Representations in Vector Space",
        "abstract": "We propose two model architectures, CBOW and skip-gram, for computing continuous vector "
        "representations of words from very large data sets, and show that they learn high-quality vectors at a "
        "fraction of the computational cost of earlier neural models.",
        "year": 2013,
        "authors": ["Tomáš Mikolov", "Kai Chen", "Greg Corrado", "Jeffrey Dean"],
        "venue": "arXiv preprint",
        "bibtex_type": "article",
        "arxiv_id": "1301.3781",
        "language": "english",
    }


def test_bibtex_mendeley_fields():
    bib = _by_id("mendeley.bib")
    assert bib["Vaswani2017"]["authors"][-2:] == ["Łukasz Kaiser", "Illia Polosukhin"]
    assert bib["Vaswani2017"]["title"] == "Attention Is All You Need"
    assert bib["Vaswani2017"]["arxiv_id"] == "1706.03762"
    assert bib["Vaswani2017"]["venue"] == "Advances in Neural Information Processing Systems"
    assert bib["Vaswani2017"]["url"] == "http://arxiv.org/abs/1706.03762"
    assert bib["Vaswani2017"]["keywords"] == ["attention"]
    assert bib["Sennrich2016"]["doi"] == "10.18653/v1/p16-1162"
    assert "file" not in bib["Vaswani2017"]
    assert [o[0] for o in _outcomes("mendeley.bib")] == ["Paper", "Paper"]


def test_bibtex_google_scholar_has_no_abstracts():
    assert _outcomes("scholar.bib") == [
        ("Reject", 1, "pennington2014glove", "missing abstract"),
        ("Reject", 9, "devlin2018bert", "missing abstract"),
    ]
    bib = _by_id("scholar.bib")
    assert bib["pennington2014glove"]["authors"] == ["Jeffrey Pennington", "Richard Socher", "Christopher D Manning"]
    assert bib["devlin2018bert"]["arxiv_id"] == "1810.04805"
    assert bib["devlin2018bert"]["venue"] == "arXiv preprint arXiv:1810.04805"


def test_bibtex_gzip_and_others(tmp_path):
    gz = tmp_path / "zotero.bib.gz"
    gz.write_bytes(gzip.compress((DATA / "zotero.bib").read_bytes()))
    assert [o[:1] + o[2:] for o in _outcomes(gz)] == [o[:1] + o[2:] for o in _outcomes("zotero.bib")]
    one = tmp_path / "one.bib"
    one.write_text(
        "@article{k, author = {Doe, Jane and {World Health Organization} and others},"
        " abstract = {A long enough abstract about things.}, year = 2020}\n",
        encoding="utf-8",
    )
    [fields] = [r.fields for r in iter_raw(one)]
    assert fields is not None
    assert fields["authors"] == ["Jane Doe", "World Health Organization"]


def test_bibtex_latex_is_decoded_in_text_not_in_identifiers(tmp_path):
    path = tmp_path / "refs.bib"
    path.write_text(
        "@article{k,\n"
        '  title = {{Q&A} over {\\LaTeX}: na\\"{\\i}ve baselines},\n'
        "  abstract = {Accuracy rises by 5% (from 71\\% to 76\\%) -- see ``results''; $O(n^2)$ time.},\n"
        "  url = {https://example.org/~ana/paper%20v2.pdf},\n"
        "  doi = {10.1000/ABC_def~1},\n"
        "}\n",
        encoding="utf-8",
    )
    [fields] = _fields_of(path)
    assert fields is not None
    assert fields["title"] == "Q&A over LaTeX: naïve baselines"
    assert fields["abstract"] == "Accuracy rises by 5% (from 71% to 76%) – see “results”; $O(n^2)$ time."
    assert fields["url"] == "https://example.org/~ana/paper%20v2.pdf"
    assert fields["doi"] == "10.1000/abc_def~1"


def test_bibtex_parser_bug_costs_one_entry(tmp_path, monkeypatch):
    import bibtexparser

    real = bibtexparser.parse_string

    def flaky(text, **kw):
        if "{parserbug," in text:
            raise RuntimeError("invalid parser state")
        return real(text, **kw)

    monkeypatch.setattr(bibtexparser, "parse_string", flaky)
    path = tmp_path / "refs.bib"
    path.write_text(
        '@string{acl = "Proceedings of ACL"}\n\n'
        f"@inproceedings{{a, booktitle = acl, abstract = {{{ABS}}}}}\n"
        "@article{parserbug, title = {x}}\n"
        f"@article{{b, abstract = {{{ABS}}}}}\n",
        encoding="utf-8",
    )
    items = list(read_records(path))
    assert [(type(i).__name__, i.id) for i in items] == [("Paper", "a"), ("Reject", None), ("Paper", "b")]
    assert items[0].venue == "Proceedings of ACL"
    assert items[1].line == 4 and items[1].kind == "malformed BibTeX"
    assert items[1].reason == "malformed BibTeX entry (the parser failed: RuntimeError)"
    assert [r.line for r in iter_raw(path) if r.fields] == [3, 5]


def test_bibtex_problems_are_rejects_not_library_log_lines(caplog):
    with caplog.at_level("WARNING"):
        list(read_records(DATA / "zotero.bib"))
    assert not [r for r in caplog.records if r.name.startswith("bibtexparser")]


def test_bibtex_empty_file(tmp_path):
    empty = tmp_path / "empty.bib"
    empty.write_text("% nothing here\n")
    assert list(read_records(empty)) == []


# --- RIS --------------------------------------------------------------------------------------


def test_ris_outcomes():
    assert _outcomes("export.ris") == [
        ("Paper", -1, "doi:10.18653/v1/n19-1423", None),
        ("Paper", -1, "1234", None),
        ("Reject", 35, "doi:10.18653/v1/n18-1202", "missing abstract"),
        ("Reject", 44, None, "malformed RIS"),
        ("Reject", 50, "latin1", "undecodable text"),
        ("Reject", 59, None, "malformed RIS"),
        ("Reject", 64, "smith-suffix", "invalid year"),
        ("Reject", 76, None, "malformed RIS"),
    ]


def test_ris_reject_reasons():
    rejects = [i for i in read_records(DATA / "export.ris") if isinstance(i, Reject)]
    assert rejects[1].reason == "RIS record has no ER line before the next TY line (line 50)"
    assert rejects[1].raw.startswith("TY  - JOUR\nTI  - A Record Whose End Tag Went Missing")
    assert rejects[3].reason == "RIS tags outside a record (no TY line before them)"
    assert rejects[5].reason == "RIS record has no ER line (the file ends inside it)"


def test_ris_fields():
    ris = _by_id("export.ris")
    assert ris["doi:10.18653/v1/n19-1423"] == {
        "id": "doi:10.18653/v1/n19-1423",
        "title": BERT_TITLE,
        "abstract": "We introduce BERT, a language representation model that pre-trains deep bidirectional "
        "Transformer encoders on unlabeled text by conditioning on both left and right context.",
        "year": 2019,
        "authors": ["Jacob Devlin", "Ming-Wei Chang", "Kenton Lee", "Kristina Toutanova"],
        "venue": "Proceedings of the 2019 Conference of the North American Chapter of the Association for "
        "Computational Linguistics",
        "ris_type": "CONF",
        "doi": "10.18653/v1/n19-1423",
        "url": "https://aclanthology.org/N19-1423",
        "publisher": "Association for Computational Linguistics",
        "pages": "4171-4186",
        "keywords": ["language models", "pre-training"],
    }
    assert ris["1234"] == {
        "id": "1234",
        "title": "Sequence to Sequence Learning with Neural Networks",
        "abstract": "We present a general end-to-end approach to sequence learning that makes minimal assumptions "
        "on the sequence structure, using a multilayered LSTM to encode the input into a vector of fixed "
        "dimensionality and another deep LSTM to decode the target.",
        "year": 2014,
        "authors": ["Ilya Sutskever", "Oriol Vinyals", "Quoc V. Le"],
        "venue": "Advances in Neural Information Processing Systems",
        "ris_type": "JOUR",
        "arxiv_id": "1409.3215",
        "url": "https://arxiv.org/abs/1409.3215v3",
        "volume": "27",
    }
    assert ris["smith-suffix"]["authors"][-1] == "John Smith Jr."
    assert ris["smith-suffix"]["year"] == "in press"  # left for validation to reject, naming the value
    assert ris["smith-suffix"]["venue"] == "International Conference on Learning Representations"


def test_ris_id_falls_back_to_a_title_hash(tmp_path):
    path = tmp_path / "a.ris"
    record = "TY  - JOUR\nTI  - No Identifier At All\nAB  - An abstract that is long enough to keep.\nER  - \n"
    path.write_text(record + "\n" + record.replace("At All", "Anywhere"), encoding="utf-8-sig")
    first, second = (r.fields for r in iter_raw(path))
    assert first is not None and second is not None
    assert first["id"].startswith("ris:") and len(first["id"]) == len("ris:") + 16
    assert first["id"] != second["id"]
    assert [r.fields["id"] for r in iter_raw(path) if r.fields] == [first["id"], second["id"]]  # stable


# --- OpenAlex ---------------------------------------------------------------------------------

BERT_OA_ABSTRACT = (
    "We introduce BERT, a language representation model that pre-trains deep bidirectional Transformer "
    "encoders on unlabeled text by conditioning on both left and right context. Fine-tuned with one extra "
    "output layer, it improves the state of the art on eleven tasks."
)


def test_openalex_outcomes():
    assert _outcomes("openalex-works.jsonl") == [
        ("Paper", -1, "openalex:W2963341956", None),
        ("Paper", -1, "openalex:W2626778328", None),
        ("Reject", 3, "openalex:W1614298861", "missing abstract"),
        ("Reject", 4, None, "malformed JSON"),
        ("Reject", 5, "openalex:W3000000001", "malformed OpenAlex work"),
        ("Reject", 7, "openalex:W3000000003", "undecodable text"),
    ]
    bad = [i for i in read_records(DATA / "openalex-works.jsonl") if isinstance(i, Reject)][2]
    assert bad.reason == "abstract_inverted_index is not a map of words to positions"


def test_openalex_fields():
    works = _by_id("openalex-works.jsonl")
    assert works["openalex:W2963341956"] == {
        "id": "openalex:W2963341956",
        "title": BERT_TITLE,
        "abstract": BERT_OA_ABSTRACT,
        "year": 2019,
        "authors": ["Jacob Devlin", "Ming-Wei Chang", "Kenton Lee", "Kristina Toutanova"],
        "venue": "Proceedings of the 2019 Conference of the North American Chapter of the Association for "
        "Computational Linguistics",
        "openalex_id": "W2963341956",
        "doi": "10.18653/v1/n19-1423",
        "arxiv_id": "1810.04805",
        "url": "https://doi.org/10.18653/v1/n19-1423",
        "type": "article",
        "language": "en",
        "cited_by_count": 81234,
    }
    att = works["openalex:W2626778328"]
    assert att["authors"] == ["Ashish Vaswani", "Łukasz Kaiser", "Illia Polosukhin"]
    assert "venue" not in att and "doi" not in att
    assert att["arxiv_id"] == "1706.03762"


def test_openalex_api_page_and_single_work(tmp_path):
    assert _outcomes("openalex-page.json") == [
        ("Paper", -1, "openalex:W2963341956", None),
        ("Reject", 2, "openalex:W1614298861", "missing abstract"),
    ]
    page = json.loads((DATA / "openalex-page.json").read_text(encoding="utf-8"))
    single = tmp_path / "W2963341956.json"
    single.write_text(json.dumps(page["results"][0], indent=2), encoding="utf-8")
    [paper] = read_records(single)
    assert isinstance(paper, Paper) and paper.abstract == BERT_OA_ABSTRACT


def test_openalex_broken_document_is_one_reject(tmp_path):
    path = tmp_path / "page.json"
    path.write_text((DATA / "openalex-page.json").read_text(encoding="utf-8")[:-200], encoding="utf-8")
    [item] = read_records(path, fmt="openalex")
    assert isinstance(item, Reject) and item.kind == "malformed JSON" and item.line == 1


def test_openalex_abstract_from_unordered_index(tmp_path):
    path = tmp_path / "w.jsonl"
    index = {"parsing.": [3], "We": [0], "study": [1], "Korean": [2]}
    path.write_text(json.dumps({"id": "W9", "abstract_inverted_index": index}) + "\n", encoding="utf-8")
    [fields] = _fields_of(path, "openalex")
    assert fields == {"id": "openalex:W9", "abstract": "We study Korean parsing.", "openalex_id": "W9"}


def _fields_of(path: Path, fmt: str = "auto") -> list[dict | None]:
    return [r.fields for r in iter_raw(path, fmt)]


# --- arXiv ------------------------------------------------------------------------------------


def test_arxiv_outcomes():
    assert _outcomes("arxiv-snapshot.jsonl") == [
        ("Paper", -1, "arxiv:0704.0001", None),
        ("Paper", -1, "arxiv:1810.04805", None),
        ("Paper", -1, "arxiv:math/0211159", None),
        ("Reject", 4, None, "malformed JSON"),
        ("Reject", 5, "arxiv:2101.00001", "empty abstract"),
        ("Reject", 6, "arxiv:2102.00002", "malformed arXiv record"),
    ]
    bad = [i for i in read_records(DATA / "arxiv-snapshot.jsonl") if isinstance(i, Reject)][2]
    assert bad.reason == "authors_parsed is not a list of [last, first, suffix] names"


def test_arxiv_fields():
    arx = _by_id("arxiv-snapshot.jsonl")
    assert arx["arxiv:0704.0001"] == {
        "id": "arxiv:0704.0001",
        "title": "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies",
        "abstract": "We compute prompt diphoton production at hadron colliders with soft-gluon resummation and "
        "compare the predictions with Tevatron data, then extrapolate them to LHC energies.",
        "year": 2007,
        "authors": ["C. Balázs", "E. L. Berger", "P. M. Nadolsky", "C. -P. Yuan"],
        "venue": "Phys.Rev.D76:013009,2007",
        "arxiv_id": "0704.0001",
        "doi": "10.1103/physrevd.76.013009",
        "url": "https://arxiv.org/abs/0704.0001",
        "categories": ["hep-ph"],
    }
    assert arx["arxiv:1810.04805"]["venue"] == "arXiv"
    assert arx["arxiv:1810.04805"]["year"] == 2018  # first version, not the last update
    perelman = arx["arxiv:math/0211159"]
    assert perelman["authors"] == ["Grisha Perelman"]  # no authors_parsed: from the authors string
    assert perelman["categories"] == ["math.DG", "math.AP"]
    assert perelman["year"] == 2002


def test_arxiv_authors_string_and_update_date(tmp_path):
    path = tmp_path / "a.jsonl"
    rec = {
        "id": "2301.00001",
        "authors": "A. Lee, B. Chen and C. D\\'iaz",
        "title": "T",
        "abstract": "x",
        "update_date": "2023-01-09",
        "versions": [],
        "journal-ref": "",
    }
    path.write_text(json.dumps(rec) + "\n")
    [fields] = _fields_of(path, "arxiv")
    assert fields is not None
    assert fields["authors"] == ["A. Lee", "B. Chen", "C. Díaz"]
    assert fields["year"] == 2023 and fields["venue"] == "arXiv"


# --- Semantic Scholar -------------------------------------------------------------------------


def test_s2_search_page():
    assert _outcomes("s2-search.json") == [
        ("Paper", -1, "s2:df2b0e26d0599ce3e70df8a9da02e51594e0e992", None),
        ("Reject", 2, "s2:f37e1b62a767a307c046404ca96bc140b3e68cb5", "missing abstract"),
        ("Reject", 3, "s2:0000000000000000000000000000000000000bad", "malformed S2 paper"),
    ]
    bad = [i for i in read_records(DATA / "s2-search.json") if isinstance(i, Reject)][1]
    assert bad.reason == "authors is not a list of objects with a name"
    s2 = _by_id("s2-search.json")
    assert s2["s2:df2b0e26d0599ce3e70df8a9da02e51594e0e992"] == {
        "id": "s2:df2b0e26d0599ce3e70df8a9da02e51594e0e992",
        "title": BERT_TITLE,
        "abstract": "We introduce BERT, a language representation model that pre-trains deep bidirectional "
        "Transformer encoders on unlabeled text by conditioning on both left and right context.",
        "year": 2019,
        "authors": ["Jacob Devlin", "Ming-Wei Chang", "Kenton Lee", "Kristina Toutanova"],
        "venue": "North American Chapter of the Association for Computational Linguistics",
        "s2_paper_id": "df2b0e26d0599ce3e70df8a9da02e51594e0e992",
        "s2_corpus_id": 52967399,
        "doi": "10.18653/v1/n19-1423",
        "arxiv_id": "1810.04805",
        "url": "https://www.semanticscholar.org/paper/df2b0e26d0599ce3e70df8a9da02e51594e0e992",
        "fields_of_study": ["Computer Science"],
        "publication_date": "2019-06-02",
    }
    glove = s2["s2:f37e1b62a767a307c046404ca96bc140b3e68cb5"]
    assert glove["venue"] == "Conference on Empirical Methods in Natural Language Processing"


def test_s2_batch_with_a_missing_paper():
    assert _outcomes("s2-batch.json") == [
        ("Paper", -1, "s2:204e3073870fae3d05bcbc2f6a8e263d9b72e776", None),
        ("Reject", 2, None, "not a JSON object"),
    ]
    rejects = [i for i in read_records(DATA / "s2-batch.json") if isinstance(i, Reject)]
    assert rejects[0].reason == "expected a JSON object, got null"


def test_s2_datasets_papers_and_abstracts():
    assert _outcomes("s2-papers.jsonl") == [
        ("Reject", 1, "s2:52967399", "missing abstract"),
        ("Reject", 2, None, "malformed JSON"),
    ]
    papers = _by_id("s2-papers.jsonl")["s2:52967399"]
    assert papers["title"] == BERT_TITLE and papers["authors"] == ["Jacob Devlin", "Ming-Wei Chang"]
    assert papers["doi"] == "10.18653/v1/n19-1423" and papers["arxiv_id"] == "1810.04805"
    assert papers["fields_of_study"] == ["Computer Science"] and papers["s2_corpus_id"] == 52967399
    assert _by_id("s2-abstracts.jsonl")["s2:52967399"] == {
        "id": "s2:52967399",
        "abstract": "We introduce BERT, a language representation model that pre-trains deep bidirectional "
        "Transformer encoders on unlabeled text.",
        "s2_corpus_id": 52967399,
        "doi": "10.18653/v1/n19-1423",
        "arxiv_id": "1810.04805",
        "url": "https://aclanthology.org/N19-1423.pdf",
    }


@pytest.mark.parametrize(
    ("fmt", "record", "reason"),
    [
        ("openalex", {"id": "W1", "primary_location": "x"}, "primary_location is not an object"),
        ("openalex", {"id": "W1", "authorships": [1]}, "authorships is not a list of authorships"),
        ("openalex", {"id": "W1", "title": ["T"]}, "title is not text"),
        ("openalex", {"id": "W1", "abstract_inverted_index": {"We": [True]}}, "abstract_inverted_index is not"),
        ("arxiv", {"id": "1", "authors_parsed": [[1, 2]]}, "authors_parsed is not a list of"),
        ("arxiv", {"id": "1", "journal-ref": 5, "versions": []}, "journal-ref is not text"),
        ("arxiv", {"id": "1", "versions": "v1"}, "versions is not a list"),
        ("s2", {"paperId": "1", "externalIds": [1]}, "externalids is not an object"),
        ("s2", {"paperId": "1", "authors": [{"name": 5}]}, "name is not text"),
        ("s2", {"paperId": "1", "publicationVenue": "ACL"}, "publicationvenue is not an object"),
    ],
)
def test_odd_shapes_are_rejects_that_name_the_field(tmp_path, fmt, record, reason):
    path = tmp_path / "odd.jsonl"
    path.write_text(json.dumps(record) + "\n" + json.dumps(record | {"title": "fine"}) + "\n", encoding="utf-8")
    items = list(read_records(path, fmt=fmt))
    assert len(items) == 2
    first = items[0]
    assert isinstance(first, Reject) and first.reason.startswith(reason), first
    assert first.id is not None and first.kind.startswith("malformed ")


# --- cross-source duplicates ------------------------------------------------------------------

ABS = "An abstract that is long enough to be kept by validation."


def _paper(pid: str, title: str = "", **kw) -> Paper:
    extra = {k: kw.pop(k) for k in list(kw) if k not in ("year", "authors", "venue", "abstract")}
    return Paper(id=pid, title=title, abstract=kw.pop("abstract", ABS), extra=extra, **kw)


def test_dedupe_by_doi_arxiv_and_title():
    papers = [
        _paper("a", "Attention Is All You Need", arxiv_id="1706.03762"),
        _paper("b", "Something else entirely, really", doi="10.1/X"),
        _paper("c", "attention is all you need", arxiv_id="arXiv:1706.03762v5", year=2017),
        _paper("d", "Other title", doi="https://doi.org/10.1/x", venue="ACL", authors=["Ann Lee"]),
        _paper("e", "ＢＥＲＴ: Pre-training of Deep Bidirectional Transformers"),
        _paper("f", "bert — pre-training of deep   bidirectional transformers!", year=2019),
    ]
    result = dedupe_papers(papers)
    assert [p.id for p in result.papers] == ["a", "b", "e"]
    assert result.merged == [
        Merged(id="c", into="a", key="arxiv_id", value="1706.03762"),
        Merged(id="d", into="b", key="doi", value="10.1/x"),
        Merged(id="f", into="e", key="title", value="bertpretrainingofdeepbidirectionaltransformers"),
    ]
    a, b, e = result.papers
    assert a.year == 2017 and a.extra["merged_ids"] == ["c"]
    assert (b.venue, b.authors, b.title) == ("ACL", ["Ann Lee"], "Something else entirely, really")
    assert e.year == 2019
    assert len(result.papers) + len(result.merged) == len(papers)


def test_dedupe_first_wins_and_inputs_are_untouched():
    first = _paper("a", "T one two three four", doi="10.1/x", year=2019, venue="NAACL", authors=["A B"])
    later = _paper("b", "T one two three four", doi="10.1/X", year=2018, venue="arXiv", authors=["C D"], url="u")
    result = dedupe_papers([first, later])
    [kept] = result.papers
    assert (kept.id, kept.year, kept.venue, kept.authors) == ("a", 2019, "NAACL", ["A B"])
    assert kept.extra == {"doi": "10.1/x", "url": "u", "merged_ids": ["b"]}
    assert first.extra == {"doi": "10.1/x"} and "merged_ids" not in later.extra


def test_dedupe_title_guards():
    papers = [
        _paper("a", "Introduction"),
        _paper("b", "Introduction"),  # too short to say two papers are one
        _paper("c", "A study of neural parsing methods", doi="10.1/one"),
        _paper("d", "A Study of Neural Parsing Methods", doi="10.1/two"),  # different DOIs: different papers
        _paper("e", "A study of neural parsing methods"),  # no DOI of its own: joins c
    ]
    result = dedupe_papers(papers)
    assert [p.id for p in result.papers] == ["a", "b", "c", "d"]
    assert [(m.id, m.into, m.key) for m in result.merged] == [("e", "c", "title")]


def _same_title(tmp_path: Path, first: dict, second: dict) -> list[Paper | Reject]:
    """Two records with one title and the fields given, read from JSON Lines."""
    records = [{"id": f"p{i}", "title": "A long enough shared title here", "abstract": ABS, **fields}
               for i, fields in ((1, first), (2, second))]  # fmt: skip
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return list(read_records(path))


@pytest.mark.parametrize(
    ("first", "second", "merged"),
    [(["p0"], ["p9"], ["p0", "p2", "p9"]), ([], [], ["p2"]), (None, None, ["p2"])],
)
def test_dedupe_extends_a_records_own_merged_ids(tmp_path, first, second, merged):
    [kept] = dedupe_papers(_same_title(tmp_path, {"merged_ids": first}, {"merged_ids": second})).papers
    assert kept.extra["merged_ids"] == merged


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (5, "merged_ids is not a list of text (got int)"),
        ("abc", "merged_ids is not a list of text (got str)"),
        (["p0", 1], "merged_ids item 2 is not text (got int)"),
    ],
)
def test_merged_ids_that_dedupe_could_not_extend_are_rejected_where_read(tmp_path, value, reason):
    first, second = _same_title(tmp_path, {"merged_ids": value}, {})
    assert isinstance(first, Reject) and (first.kind, first.reason) == ("invalid merged_ids", reason)
    assert json.loads(first.raw)["merged_ids"] == value
    assert [p.extra for p in dedupe_papers([second]).papers] == [{}]


def test_dedupe_across_real_sources():
    papers = []
    for name in ("zotero.bib", "openalex-works.jsonl", "arxiv-snapshot.jsonl", "s2-search.json", "mendeley.bib"):
        papers += [p for p in read_records(DATA / name) if isinstance(p, Paper)]
    result = dedupe_papers(papers)
    merged = {(m.id, m.into, m.key) for m in result.merged}
    assert merged == {
        ("openalex:W2963341956", "devlin2019bert", "doi"),
        ("arxiv:1810.04805", "devlin2019bert", "arxiv_id"),
        ("s2:df2b0e26d0599ce3e70df8a9da02e51594e0e992", "devlin2019bert", "doi"),
        ("Vaswani2017", "openalex:W2626778328", "arxiv_id"),
    }
    bert = next(p for p in result.papers if p.id == "devlin2019bert")
    assert bert.extra["arxiv_id"] == "1810.04805"  # gained from OpenAlex
    assert bert.extra["openalex_id"] == "W2963341956"
    assert len(result.papers) + len(result.merged) == len(papers)


def test_readers_keep_fixture_files_small():
    # Fixtures are small, hand-made and checked in: nothing here is downloaded.
    assert all((DATA / n).stat().st_size < 10_000 for n in FIXTURES)
