"""Extract stage: papers -> concept mentions, through one spaCy pipeline."""

from __future__ import annotations

import functools
import gc
import hashlib
import multiprocessing
import re
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import nullcontext
from itertools import chain, islice
from multiprocessing.pool import AsyncResult, Pool
from pathlib import Path

import spacy
from spacy.language import Language
from spacy.tokens import Doc, Span
from thinc.api import Model, NumpyOps

import kg.extract.ner  # importing registers kg_ner
import kg.extract.phrases  # importing registers kg_phrases
import kg.extract.relations  # noqa: F401  (importing registers kg_relations)
from kg.config import model_dir
from kg.errors import ConfigError
from kg.extract.components import RULES, SPANS_KEY, SentenceBounds, doc_text, known_text  # registers kg_*
from kg.read.fields import placeholder_start
from kg.records import Extraction, Mention, Paper, Relation, TextField, pack, unpack

#: What joins a paper's title to its abstract in the text the model reads.
TITLE_SEPARATOR = "\n\n"
_WORD = re.compile(r"[^\W\d_]+")

if not Doc.has_extension("title"):
    # The title a Doc starts with, as the paper gives it (``None``: the Doc is an abstract alone).
    Doc.set_extension("title", default=None)


def load_pipeline(model: str | Path | None = None) -> Language:
    """The trained concept model with kg's sentence, concept, role and relation components added.

    ``model`` is a spaCy pipeline folder with an ``ner`` trained on SciERC labels; by
    default the one shipped inside the package.
    """
    path = Path(model) if model else model_dir()
    if not (path / "config.cfg").is_file():
        raise ConfigError(f"no spaCy model at {path} (run `make model`, or pass a model folder)")
    # spaCy's recogniser, decoded a batch at a time (kg.extract.ner: the same entities, faster)
    ner = spacy.util.load_config(path / "config.cfg")["components"].get("ner", {})
    nlp = spacy.load(path, config={"components": {"ner": {"factory": "kg_ner"}}} if ner.get("factory") == "ner" else {})
    use_numpy_blas(nlp)
    split_glued_brackets(nlp)
    if not nlp.has_pipe("sentencizer") and not nlp.has_pipe("senter") and not nlp.has_pipe("parser"):
        nlp.add_pipe("sentencizer", first=True)
    nlp.add_pipe("kg_concepts")
    nlp.add_pipe("kg_roles")
    nlp.add_pipe("kg_relations")
    # After the relations, so that the relation classifier pairs the recogniser's spans only.
    nlp.add_pipe("kg_phrases")
    return nlp


def use_numpy_blas(nlp: Language) -> None:
    """Multiply matrices with numpy's BLAS rather than thinc's bundled blis.

    On the CPUs we run on, blis's generic kernels reach a third of OpenBLAS's single-thread
    speed, and the tok2vec's matrix products are half of extraction time.
    """
    ops = NumpyOps(use_blis=False)
    for _, pipe in nlp.pipeline:
        model = getattr(pipe, "model", None)
        if isinstance(model, Model):
            for node in model.walk():
                node.ops = ops


def split_glued_brackets(nlp: Language) -> None:
    """Make the tokenizer split brackets glued to words: "Answering(KBQA)" -> "Answering ( KBQA )",
    "(LLM)-based" -> "( LLM ) - based" (114 of 10,000 arXiv ML abstracts of 2026 write an acronym so).

    Abstracts converted from PDFs often lose the space before "("; without a token boundary
    there, a mention cannot end before its acronym. Training data goes through the same rule.
    """
    from spacy.util import compile_infix_regex

    infixes = [
        *(nlp.Defaults.infixes or ()),
        r"(?<=[\w])[\(\[](?=[\w])",
        r"(?<=[\w])[\)\]](?=[\w])",
        # "(LLM)-based agents": "LLM", ")", "-", "based" (not one word "LLM)-based")
        r"(?<=[\w])[\)\]](?=-[^\W\d_])",
        r"(?<=[\)\]])-(?=[^\W\d_])",
    ]
    nlp.tokenizer.infix_finditer = compile_infix_regex(infixes).finditer  # type: ignore[union-attr]


def model_version(nlp: Language) -> str:
    """``name-version`` of the model, as the run report shows it (:func:`model_digest` keys the cache)."""
    return f"{nlp.meta.get('name', 'unknown')}-{nlp.meta.get('version', '0')}"


def model_digest(model: str | Path) -> str:
    """A digest of a model folder's files (its config, tokenizer, weights and vocabulary): what the cache keys it by.

    Not its name and version: kg's trainer stamps every model with the same ones, and a model set up
    otherwise keeps them. Its ``meta.json`` (name, version, scores) is left out. Each folder is read
    once a process while its files keep their sizes and times (the shipped model: 28 MB, 0.02 s).

    >>> import pathlib, tempfile
    >>> a, b = pathlib.Path(tempfile.mkdtemp()), pathlib.Path(tempfile.mkdtemp())
    >>> for folder in (a, b):
    ...     _ = (folder / "config.cfg").write_text("[nlp]")
    ...     _ = (folder / "meta.json").write_text(f'{{"name": "{folder.name}"}}')
    >>> model_digest(a) == model_digest(b)
    True
    >>> _ = (b / "config.cfg").write_text("[nlp]\\ndisabled = []")
    >>> model_digest(a) == model_digest(b)
    False
    """
    folder = Path(model).resolve()
    files = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() and p.name != "meta.json")
    stamps = tuple((name, (folder / name).stat().st_size, (folder / name).stat().st_mtime_ns) for name in files)
    return _digest(folder, stamps)


@functools.cache
def _digest(folder: Path, stamps: tuple[tuple[str, int, int], ...]) -> str:
    h = hashlib.sha256()
    for name, _, _ in stamps:
        h.update(name.encode() + b"\0")
        with (folder / name).open("rb") as fh:
            h.update(hashlib.file_digest(fh, "sha256").digest())
    return h.hexdigest()[:16]


def paper_doc(nlp: Language, title: str, abstract: str) -> Doc:
    """The tokenised text the model reads for one paper: its title, then its abstract.

    The title is read with the abstract in one pass, so an acronym the title defines serves the
    abstract; the abstract starts a sentence of its own, so no sentence (and no relation) spans
    both. A title in title case is read in sentence case (:func:`sentence_case`). Without a
    title the Doc is the abstract alone.

    >>> nlp = spacy.blank("en")
    >>> doc = paper_doc(nlp, "Sparse Experts", "We route tokens")
    >>> doc._.title, doc[3].text, doc[3].is_sent_start
    ('Sparse Experts', 'We', True)
    """
    if not title.strip():
        return known_text(nlp.make_doc(abstract), abstract)
    text = sentence_case(title) + TITLE_SEPARATOR + abstract
    doc = known_text(nlp.make_doc(text), text)
    doc._.title = title
    body = doc.char_span(len(title) + len(TITLE_SEPARATOR), len(text), alignment_mode="contract")
    if body is not None and len(body):
        doc[body.start].is_sent_start = True
    return doc


def sentence_case(title: str) -> str:
    """``title`` with the capital dropped from its capitalised words, if it is in title case.

    The model learnt from abstracts, where a capital inside a sentence marks a name: read in
    title case, every word of a title looks like one (spans run over "for" and "of", and every
    technique is typed a named method). Acronyms and words with inner capitals keep theirs, and
    every character stays where it was, so offsets into the result are offsets into ``title``.

    >>> sentence_case("Mixture-of-Experts Layers for Efficient BERT Training")
    'Mixture-of-experts layers for efficient BERT training'
    >>> sentence_case("Attention is all you need")
    'Attention is all you need'
    """
    words = [w for w in _WORD.findall(title) if len(w) > 3]
    if not words or sum(w[0].isupper() for w in words) < 0.6 * len(words):
        return title
    return _WORD.sub(_uncapitalise, title)


def _uncapitalise(word: re.Match[str]) -> str:
    w = word.group()
    if word.start() == 0 or not (w[0].isupper() and w[1:].islower()):
        return w
    lowered = w[0].lower() + w[1:]
    return lowered if len(lowered) == len(w) else w


def _located(span: Span, title: str | None) -> tuple[TextField, int, int] | None:
    """The field ``span`` is in and its offsets there; ``None`` if it runs from the title into the abstract."""
    start, end = span.start_char, span.end_char
    if title is None:
        return "abstract", start, end
    if end <= len(title):
        return "title", start, end
    body = len(title) + len(TITLE_SEPARATOR)
    return ("abstract", start - body, end - body) if start >= body else None


class _Texts:
    """Texts of a ``Doc``'s spans and of their sentences, cut from its text (``span.text`` and
    ``span.sent.text`` would make a ``Token`` of each of their words)."""

    def __init__(self, doc: Doc) -> None:
        self.doc, self.text = doc, doc_text(doc)
        self.bounds = SentenceBounds(doc)
        self.sentences: dict[int, str] = {}
        #: Where a placeholder that ends the abstract starts ("No contact information provided yet."):
        #: no concept is read from it (:func:`kg.read.fields.placeholder_start`).
        start = placeholder_start(self.text)
        self.placeholder = len(self.text) if start is None else start

    def read(self, span: Span) -> bool:
        """Whether ``span`` says something of the paper: it lies before a placeholder."""
        return span.start_char < self.placeholder

    def span(self, span: Span) -> str:
        return self.text[span.start_char : span.end_char]

    def sentence(self, span: Span) -> str:
        begin, end = self.bounds.of(span)
        text = self.sentences.get(begin)
        if text is None:
            text = self.sentences[begin] = self.span(Span(self.doc, begin, end))
        return text


def mentions(doc: Doc, texts: _Texts | None = None) -> list[Mention]:
    """The plain-data mentions of an annotated ``Doc``: the boundary of the NLP layer.

    Offsets index the field each mention is in (see :func:`paper_doc`); a title mention's text
    is as the title spells it, and its evidence is the title.
    """
    found = []
    title = doc._.title
    text_of = texts or _Texts(doc)
    for span in doc.spans.get(SPANS_KEY, []):
        located = _located(span, title)
        if located is None or not text_of.read(span):
            continue
        field, start, end = located
        if title is not None and field == "title":
            text, sentence = title[start:end], title
        else:
            text, sentence = text_of.span(span), text_of.sentence(span)
        ext = span._  # each ``span._`` is an object of its own: read the three from one
        found.append(
            Mention(
                text=text,
                type=span.label_,
                start=start,
                end=end,
                sentence=sentence,
                role=ext.role,
                concept=span.id_,
                field=field,
                confidence=ext.confidence,
                source=ext.source,
            )
        )
    return found


def relations(doc: Doc, texts: _Texts | None = None) -> list[Relation]:
    """The plain-data relations of an annotated ``Doc`` (``kg_relations``'s span pairs)."""
    spans = doc.spans.get(SPANS_KEY, [])
    title = doc._.title
    text_of = texts or _Texts(doc)
    out = []
    for h, t, kind in doc._.relations or []:
        head, tail = spans[h], spans[t]
        at_head, at_tail = _located(head, title), _located(tail, title)
        if at_head is None or at_tail is None or not (text_of.read(head) and text_of.read(tail)):
            continue
        field, head_start, head_end = at_head
        _, tail_start, tail_end = at_tail
        in_title = title is not None and field == "title"
        out.append(
            Relation(
                type=kind,
                head=head.id_,
                tail=tail.id_,
                head_text=title[head_start:head_end] if in_title else text_of.span(head),
                tail_text=title[tail_start:tail_end] if in_title else text_of.span(tail),
                head_start=head_start,
                head_end=head_end,
                tail_start=tail_start,
                tail_end=tail_end,
                sentence=title if in_title else text_of.sentence(head),
                field=field,
            )
        )
    return out


def extraction(doc: Doc, paper_id: str) -> Extraction:
    """Everything kg keeps of one annotated ``Doc``: where plain data leaves the NLP layer."""
    texts = _Texts(doc)
    return Extraction(paper_id, mentions(doc, texts), relations(doc, texts), dict(doc.user_data.get(RULES, {})))


def extract(
    papers: Iterable[Paper],
    *,
    nlp: Language | None = None,
    batch_size: int = 64,
    n_process: int = 1,
    workers: Workers | None = None,
) -> Iterator[Extraction]:
    """Yield one :class:`Extraction` per paper (its title and abstract), in input order.

    With ``n_process > 1``, batches of papers go to worker processes that each hold the
    pipeline and send back plain extractions, packed (spaCy's own ``n_process`` sends whole ``Doc``
    objects back, which costs about a third of the throughput). They are started here, or
    given as ``workers`` (then ``nlp`` and ``n_process`` are theirs), started earlier.

    >>> paper = Paper("p1", "Distilling Translation Models", "We use knowledge distillation for NMT.")
    >>> [x] = extract([paper])
    >>> x.id, all(getattr(paper, m.field)[m.start : m.end] == m.text for m in x.mentions)
    ('p1', True)
    """
    if workers is not None:
        nlp, n_process = workers.nlp, workers.n_process
    nlp = nlp or load_pipeline()
    batches = _batches(((p.title, p.abstract, p.id) for p in papers), batch_size)
    ahead = list(islice(batches, 2))
    if n_process <= 1 or len(ahead) < 2:  # one batch: starting workers would cost more than it saves
        for batch in chain(ahead, batches):
            yield from _extract_batch(nlp, batch, batch_size)
        return
    with nullcontext(workers) if workers is not None else Workers(nlp, n_process) as in_use:
        yield from _extract_in_pool(in_use.pool, chain(ahead, batches), batch_size=batch_size, n_process=n_process)


def _extract_batch(nlp: Language, batch: list[tuple[str, str, str]], batch_size: int) -> list[Extraction]:
    docs = ((paper_doc(nlp, title, abstract), pid) for title, abstract, pid in batch)
    return [extraction(doc, pid) for doc, pid in nlp.pipe(docs, as_tuples=True, batch_size=batch_size)]


def _batches(items: Iterable[tuple[str, str, str]], size: int) -> Iterator[list[tuple[str, str, str]]]:
    it = iter(items)
    while batch := list(islice(it, size)):
        yield batch


#: The pipeline of a worker process, set once by the pool's initializer.
_WORKER_NLP: list[Language] = []


def _init_worker(nlp: Language) -> None:
    from threadpoolctl import threadpool_limits

    # The workers already use every core: a BLAS thread pool in each would only contend.
    threadpool_limits(limits=1)
    _WORKER_NLP[:] = [nlp]
    # What the worker holds from the parent (the pipeline) lives as long as it does: out of the
    # collector's sight, its pages stay shared with the parent instead of copied when a
    # collection touches them. What each batch makes is mostly freed by reference counting, so
    # collections can be rarer (each one of the youngest objects took about 0.2 ms, 1-2% of the time).
    gc.freeze()
    gc.set_threshold(50_000, *gc.get_threshold()[1:])


def _work(batch: list[tuple[str, str, str]], batch_size: int) -> list[bytes]:
    # packed, as the run keeps them: pickling the objects there and back cost 170 µs an abstract,
    # 3.5% of extracting it; packing and unpacking, 63
    return [pack(x) for x in _extract_batch(_WORKER_NLP[0], batch, batch_size)]


class Workers:
    """Worker processes that each hold ``nlp``, for :func:`extract` (``workers=``); forked when made.

    A worker forked from a process shares its memory and copies each page of it that the
    worker writes to, and the worker's own allocations land in the free space of the pages it
    shares. Forked once a run had read its 150,965 arXiv ML papers, each of two workers ended the
    extraction with 1.3 GB of its own (PSS) and the run's summed peak was the extraction's,
    4,362 MB; forked before the read, with 0.8 GB each, 3,609 MB. Leaving a ``with`` block
    lets them finish and waits for them (``close``), or ends them (``terminate``) on an error.
    """

    def __init__(self, nlp: Language, n_process: int) -> None:
        self.nlp, self.n_process = nlp, n_process
        # (Under fork the pipeline is inherited, not pickled.)
        self.pool = multiprocessing.get_context("fork").Pool(n_process, initializer=_init_worker, initargs=(nlp,))

    def close(self) -> None:
        self.pool.close()
        self.pool.join()

    def terminate(self) -> None:
        self.pool.terminate()
        self.pool.join()

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, error: type[BaseException] | None, *rest: object) -> None:
        if error is None:
            self.close()
        else:
            self.terminate()


def _extract_in_pool(
    pool: Pool, batches: Iterator[list[tuple[str, str, str]]], *, batch_size: int, n_process: int
) -> Iterator[Extraction]:
    # A bounded window of batches in flight keeps memory flat on large inputs and the order intact.
    window: deque[AsyncResult[list[bytes]]] = deque()
    for batch in batches:
        window.append(pool.apply_async(_work, (batch, batch_size)))
        if len(window) >= 4 * n_process:
            yield from map(unpack, window.popleft().get())
    while window:
        yield from map(unpack, window.popleft().get())
