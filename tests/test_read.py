"""Reading and validating records: every record ends up kept or rejected, with a reason."""

from __future__ import annotations

import gzip
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.errors import InputError
from kg.read import Validator, read_records
from kg.records import Paper, Reject

GOOD = "Neural machine translation has improved a lot with attention mechanisms."


def _jsonl(tmp_path, lines, name="in.jsonl"):
    path = tmp_path / name
    data = b"".join((line if isinstance(line, bytes) else line.encode()) + b"\n" for line in lines)
    path.write_bytes(data)
    return path


def _one(tmp_path, record) -> Paper | Reject:
    [item] = list(read_records(_jsonl(tmp_path, [json.dumps(record)])))
    return item


def test_valid_record_keeps_fields_and_extras(tmp_path):
    rec = {
        "id": "p1",
        "title": "T",
        "abstract": GOOD,
        "year": 2021,
        "authors": ["A B", "C D"],
        "venue": "ACL",
        "doi": "10.1/x",
        "url": "https://example.org",
    }
    paper = _one(tmp_path, rec)
    assert isinstance(paper, Paper)
    assert (paper.id, paper.year, paper.authors, paper.venue) == ("p1", 2021, ["A B", "C D"], "ACL")
    assert paper.abstract == GOOD
    assert paper.extra == {"doi": "10.1/x", "url": "https://example.org"}


def test_abstract_is_kept_exactly_as_given(tmp_path):
    paper = _one(tmp_path, {"id": "p1", "abstract": "  " + GOOD + "\n"})
    assert paper.abstract == "  " + GOOD + "\n"


def test_latex_markup_in_titles_and_abstracts_is_read_as_the_text_it_stands_for(tmp_path):
    # arXiv abstracts as their authors wrote them (2401.x records of the arXiv ML corpus)
    paper = _one(
        tmp_path,
        {
            "id": "p1",
            "title": r"\textbf{Defusion}: Top-$k$ Estimation for Sparse-View CBCT",
            "abstract": r"We propose \textbf{S}elf-adaptive \textbf{S}chema \textbf{S}caffolding (S$^3$), a "
            r"multi-turn dialogue model \citep{lewis2020retrieval}, reaching 88.84\% accuracy (4.3$\times$ faster); "
            r"code at \href{https://github.com/x/y}{this https URL}.",
        },
    )
    assert paper.title == "Defusion: Top-k Estimation for Sparse-View CBCT"
    assert paper.abstract == (
        "We propose Self-adaptive Schema Scaffolding (S^3), a multi-turn dialogue model, reaching 88.84% accuracy "
        "(4.3× faster); code at this https URL."
    )
    # money and an approximate figure in plain text are not LaTeX
    plain = "The company raised $121 million, and C$723 in fees, ~30% more than planned."
    assert _one(tmp_path, {"id": "p2", "abstract": plain}).abstract == plain


def test_bold_math_keeps_its_argument_and_logs_nothing(tmp_path, caplog):
    # 45 records of the arXiv ML corpus write \boldsymbol or \bm: pylatexenc knew neither's argument,
    # wrote "%s" in their place and logged a line per record
    abstract = r"APEFT improves performance by $\boldsymbol{3.45\%}$ on average, with $\bm{W}$ frozen, across tasks."
    with caplog.at_level("WARNING"):
        paper = _one(tmp_path, {"id": "p1", "abstract": abstract})
    assert paper.abstract == "APEFT improves performance by 3.45% on average, with W frozen, across tasks."
    assert not caplog.records


@pytest.mark.parametrize(
    "marked",
    [
        r"We propose \textbf{S}elf-adaptive \textbf {S}chema Scaffolding (S$^3$), 4.3$\times$ faster -- see below",
        r"Display math $$ a + b = c $$ and inline \( x y \) and \[ z w \] stay math; \LaTeX is a logo",
        r"A {group with spaces {nested here}} and \emph{an argument with spaces}; ``quoted'' text --- dash",
        r"Unbalanced } brace and { another $ open math with spaces",
        "Lines\n\nof text \\& 85\\% and a tie\\textasciitilde{} here",
        r"\mathbf{x} at the start, \frac{a}{b} with $\frac {1} {2}$ and a macro before a space \alpha beta",
    ],
)
def test_latex_is_decoded_piece_by_piece_as_it_is_whole(marked):
    # pylatexenc reads every character in Python: kg gives it only the pieces with markup
    from kg.read.fields import _decode, _latex_decoder, _latex_parsing

    whole = str(_latex_decoder("text").latex_to_text(marked, latex_context=_latex_parsing()))
    assert _decode(marked) == whole


_LATEX_BITS = ["\\textbf", "\\emph", "\\alpha", "\\LaTeX", "\\(", "\\)", "\\%", "{", "}", "$", "$$", " ", "  ",
               "\n", "word", "x_1", "^2", "--", "---", "``", "''", "&", "~", "[", "]", "-", "."]  # fmt: skip


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(_LATEX_BITS), max_size=30))
def test_any_latex_is_decoded_piece_by_piece_as_it_is_whole(bits):
    from kg.read.fields import _decode, _latex_decoder, _latex_parsing

    marked = "".join(bits)
    try:
        whole = str(_latex_decoder("text").latex_to_text(marked, latex_context=_latex_parsing()))
    except Exception:  # plain_text keeps such a text as it is written
        return
    assert _decode(marked) == whole


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        ({"title": "no id", "abstract": GOOD}, "missing id"),
        ({"id": "", "abstract": GOOD}, "missing id"),
        ({"id": ["p1"], "abstract": GOOD}, "id is not text (got list)"),
        ({"id": "p1", "title": "x"}, "missing abstract"),
        ({"id": "p1", "abstract": "   "}, "empty abstract"),
        ({"id": "p1", "abstract": "Too short."}, "abstract too short"),
        ({"id": "p1", "abstract": "An abstract is not available."}, "placeholder abstract"),
        ({"id": "p1", "abstract": "word " * 5000}, "abstract too long"),
        ({"id": "p1", "abstract": 42}, "abstract is not text"),
        ({"id": "p1", "abstract": GOOD, "year": "circa 2020"}, "invalid year"),
    ],
    ids=[
        "missing-id",
        "blank-id",
        "list-id",
        "missing-abstract",
        "empty-abstract",
        "short-abstract",
        "placeholder-abstract",
        "huge-abstract",
        "abstract-not-text",
        "bad-year",
    ],
)
def test_bad_records_are_rejected_with_reason(tmp_path, record, reason):
    item = _one(tmp_path, record)
    assert isinstance(item, Reject)
    assert item.reason.startswith(reason)
    assert item.line == 1 and item.source.endswith("in.jsonl")
    assert json.loads(item.raw) == record  # nothing is lost: the rejects file has the record


def test_duplicate_id_rejected_naming_first(tmp_path):
    path = _jsonl(tmp_path, [json.dumps({"id": "p1", "abstract": GOOD}), json.dumps({"id": "p1", "abstract": GOOD})])
    first, second = read_records(path)
    assert isinstance(first, Paper)
    assert isinstance(second, Reject)
    assert second.reason == f"duplicate id p1 (first seen at {path}:1)"


@pytest.mark.parametrize(
    ("fields", "kind", "reason"),
    [
        ({"categories": 5}, "invalid categories", "categories is not text or a list of text (got int)"),
        ({"categories": True}, "invalid categories", "categories is not text or a list of text (got bool)"),
        ({"categories": {"cs": "CL"}}, "invalid categories", "categories is not text or a list of text (got dict)"),
        ({"categories": ["cs.CL", 7]}, "invalid categories", "categories item 2 is not text (got int)"),
        ({"primary_category": ["cs.CL"]}, "invalid primary_category", "primary_category is not text (got list)"),
        ({"title": ["A", "list"]}, "title not text", "title is not text (got list)"),
        ({"title": True}, "title not text", "title is not text (got bool)"),
        ({"venue": ["ACL"]}, "venue not text", "venue is not text (got list)"),
        ({"authors": 5}, "invalid authors", "authors is not text or a list of names (got int)"),
        ({"authors": {"name": "Ann Lee"}}, "invalid authors", "authors is not text or a list of names (got dict)"),
        ({"authors": [1, None, {"name": "x"}]}, "invalid authors", "authors item 1 is not a name (got int)"),
        ({"authors": ["Ann Lee", None]}, "invalid authors", "authors item 2 is not a name (got None)"),
        (
            {"authors": [{"family": "Lee"}]},
            "invalid authors",
            "authors item 1 is not a name (got an object without a text name)",
        ),
    ],
)
def test_fields_of_the_wrong_type_are_rejected_where_read_naming_the_field(tmp_path, fields, kind, reason):
    # "categories": 5 crashed the whole run in the build stage; a list title was stored as ""
    record = {"id": "p1", "abstract": GOOD, **fields}
    item = _one(tmp_path, record)
    assert isinstance(item, Reject) and (item.kind, item.reason) == (kind, reason)
    assert json.loads(item.raw) == record


def test_categories_as_text_or_a_list_of_text_are_kept(tmp_path):
    for categories in ("cs.CL cs.LG", ["cs.CL", "cs.LG"], [], None):
        paper = _one(tmp_path, {"id": "p1", "abstract": GOOD, "categories": categories, "primary_category": "cs.LG"})
        assert isinstance(paper, Paper) and paper.extra["categories"] == categories


def test_authors_may_be_objects_with_a_name_and_titles_numbers(tmp_path):
    record = {"id": 7, "title": 1984, "abstract": GOOD, "authors": ["Ann Lee", {"name": " Bo Chen "}, " "], "venue": 3}
    paper = _one(tmp_path, record)
    assert isinstance(paper, Paper)
    assert (paper.id, paper.title, paper.authors, paper.venue) == ("7", "1984", ["Ann Lee", "Bo Chen"], "3")


def test_control_characters_in_text_are_blanked_not_written_raw(tmp_path):
    # A NUL in a title was written raw into report.md and report.html; 492 ACL Anthology abstracts hold
    # a C1 character a wrong decoding left ("\x80"). Each is a space: the paper stays, offsets still fit.
    abstract = "We study \x93zero-shot\x94 parsing\x00 of Korean.\tTabs and\nlines stay."
    record = {"id": "p1", "title": "Zero\x00shot\x1b parsing", "abstract": abstract, "venue": "ACL\x7f",
              "authors": ["Ann\x0cLee"]}  # fmt: skip
    paper = _one(tmp_path, record)
    assert isinstance(paper, Paper)
    assert (paper.title, paper.venue, paper.authors) == ("Zero shot  parsing", "ACL ", ["Ann Lee"])
    assert paper.abstract == "We study  zero-shot  parsing  of Korean.\tTabs and\nlines stay."


def test_undecodable_bytes_reject_that_record_only(tmp_path):
    broken = b'{"id": "p2", "abstract": "Caf\xe9 \xff\xfe parsing of Korean sentences is hard."}'
    path = _jsonl(
        tmp_path, [json.dumps({"id": "p1", "abstract": GOOD}), broken, json.dumps({"id": "p3", "abstract": GOOD})]
    )
    items = list(read_records(path))
    assert [type(i).__name__ for i in items] == ["Paper", "Reject", "Paper"]
    assert items[1].id == "p2"
    assert items[1].reason == "undecodable text in field 'abstract' (not valid UTF-8)"
    assert "\\xe9" in items[1].raw  # the bad bytes are kept, escaped


def test_undecodable_text_escaped_in_json_is_rejected_too(tmp_path):
    # A JSON escape of an undecodable byte ("\udcff") makes the same lone surrogate as a raw one.
    escaped = '{"id": "p2", "title": "Caf\\udcff", "abstract": "Parsing of Korean sentences is hard."}'
    path = _jsonl(tmp_path, [escaped, json.dumps({"id": "p3", "abstract": GOOD, "title": "Emoji \U0001f600"})])
    first, second = read_records(path)
    assert isinstance(first, Reject) and first.reason == "undecodable text in field 'title' (not valid UTF-8)"
    assert isinstance(second, Paper)  # a valid surrogate pair is fine


def test_malformed_json_and_non_objects(tmp_path):
    path = _jsonl(tmp_path, ['{"id": "p1", "abstract": ', "[1, 2]", json.dumps({"id": "p3", "abstract": GOOD})])
    items = list(read_records(path))
    assert items[0].reason.startswith("malformed JSON")
    assert items[1].reason == "expected a JSON object, got list"
    assert isinstance(items[2], Paper)
    assert [getattr(i, "line", None) for i in items[:2]] == [1, 2]


def test_csv_records_and_extra_cells(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text(
        "id,title,abstract,year,authors,venue,doi\n"
        f'p1,"A, title","{GOOD}",2020,Ann Lee; Bo Chen,EMNLP,10.1/y\n'
        f"p2,t,{GOOD},2021,x,y,z,surplus\n"
        'p3,t,"Multi-line\nabstract that is long enough to keep.",,,,\n',
        encoding="utf-8",
    )
    items = list(read_records(path))
    assert isinstance(items[0], Paper)
    assert items[0].authors == ["Ann Lee", "Bo Chen"] and items[0].year == 2020 and items[0].extra == {"doi": "10.1/y"}
    assert isinstance(items[1], Reject) and items[1].reason == "1 more cells than the header has" and items[1].line == 3
    assert isinstance(items[2], Paper) and items[2].year is None


def test_gzip_input(tmp_path):
    path = tmp_path / "in.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps({"id": "p1", "abstract": GOOD}) + "\n")
    assert [p.id for p in read_records(path)] == ["p1"]


def test_missing_file_and_unknown_format(tmp_path):
    with pytest.raises(InputError, match="input file not found"):
        list(read_records(tmp_path / "nope.jsonl"))
    other = tmp_path / "in.xml"
    other.write_text("<x/>")
    with pytest.raises(InputError, match="cannot tell the format"):
        list(read_records(other))


def test_duplicates_checked_across_files(tmp_path):
    a = _jsonl(tmp_path, [json.dumps({"id": "p1", "abstract": GOOD})], "a.jsonl")
    b = _jsonl(tmp_path, [json.dumps({"id": "p1", "abstract": GOOD})], "b.jsonl")
    items = list(read_records([a, b], validator=Validator()))
    assert isinstance(items[1], Reject) and items[1].reason.startswith("duplicate id p1")


def test_a_placeholder_after_a_title_gives_no_concept(nlp):
    # shared/data/keyphrases/www.jsonl: 567 of 1,327 records are a title and "No contact information
    # provided yet.", and "contact information" had been the concept of the most papers
    from kg.extract import extract

    text = "Small world peer networks in distributed web search No contact information provided yet."
    paper = Paper("www:1", "", text)
    (x,) = extract([paper], nlp=nlp, n_process=1)
    assert x.mentions and not [m for m in x.mentions if "contact" in m.text.lower()]
    assert all(m.end <= paper.abstract.index("No contact") for m in x.mentions)
