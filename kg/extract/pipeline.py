"""Extract stage: papers -> concept mentions, through one spaCy pipeline."""

from __future__ import annotations

import multiprocessing
from collections import deque
from collections.abc import Iterable, Iterator
from itertools import islice
from multiprocessing.pool import AsyncResult
from pathlib import Path

import spacy
from spacy.language import Language
from spacy.tokens import Doc
from thinc.api import Model, NumpyOps

import kg.extract.phrases  # importing registers kg_phrases
import kg.extract.relations  # noqa: F401  (importing registers kg_relations)
from kg.config import model_dir
from kg.errors import ConfigError
from kg.extract.components import SPANS_KEY  # importing registers the kg_* factories
from kg.records import Extraction, Mention, Paper, Relation


def load_pipeline(model: str | Path | None = None) -> Language:
    """The trained concept model with kg's sentence, concept, role and relation components added.

    ``model`` is a spaCy pipeline folder with an ``ner`` trained on SciERC labels; by
    default the one shipped inside the package.
    """
    path = Path(model) if model else model_dir()
    if not (path / "config.cfg").is_file():
        raise ConfigError(f"no spaCy model at {path} (run `make model`, or pass a model folder)")
    nlp = spacy.load(path)
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
    """Make the tokenizer split brackets glued to words: "Answering(KBQA)" -> "Answering ( KBQA )".

    Abstracts converted from PDFs often lose the space before "("; without a token boundary
    there, a mention cannot end before its acronym. Training data goes through the same rule.
    """
    from spacy.util import compile_infix_regex

    infixes = [*(nlp.Defaults.infixes or ()), r"(?<=[\w])[\(\[](?=[\w])", r"(?<=[\w])[\)\]](?=[\w])"]
    nlp.tokenizer.infix_finditer = compile_infix_regex(infixes).finditer  # type: ignore[union-attr]


def model_version(nlp: Language) -> str:
    """``name-version`` of the model, as recorded in the run report and the cache keys."""
    return f"{nlp.meta.get('name', 'unknown')}-{nlp.meta.get('version', '0')}"


def mentions(doc: Doc) -> list[Mention]:
    """The plain-data mentions of an annotated ``Doc``: the boundary of the NLP layer."""
    found = []
    sentences: dict[int, str] = {}
    for span in doc.spans.get(SPANS_KEY, []):
        sent = span.sent
        if sent.start not in sentences:
            sentences[sent.start] = sent.text
        found.append(
            Mention(
                text=span.text,
                type=span.label_,
                start=span.start_char,
                end=span.end_char,
                sentence=sentences[sent.start],
                role=span._.role,
                concept=span.id_,
                source=span._.source,
            )
        )
    return found


def relations(doc: Doc) -> list[Relation]:
    """The plain-data relations of an annotated ``Doc`` (``kg_relations``'s span pairs)."""
    spans = doc.spans.get(SPANS_KEY, [])
    out = []
    for h, t, kind in doc._.relations or []:
        head, tail = spans[h], spans[t]
        out.append(
            Relation(
                type=kind,
                head=head.id_,
                tail=tail.id_,
                head_text=head.text,
                tail_text=tail.text,
                head_start=head.start_char,
                head_end=head.end_char,
                tail_start=tail.start_char,
                tail_end=tail.end_char,
                sentence=head.sent.text,
            )
        )
    return out


def extraction(doc: Doc, paper_id: str) -> Extraction:
    """Everything kg keeps of one annotated ``Doc``: where plain data leaves the NLP layer."""
    return Extraction(paper_id, mentions(doc), relations(doc))


def extract(
    papers: Iterable[Paper],
    *,
    nlp: Language | None = None,
    batch_size: int = 64,
    n_process: int = 1,
) -> Iterator[Extraction]:
    """Yield one :class:`Extraction` per paper, in input order.

    With ``n_process > 1``, batches of papers go to worker processes that each hold the
    pipeline and send back plain extractions (spaCy's own ``n_process`` sends whole ``Doc``
    objects back, which costs about a third of the throughput).

    >>> text = "We use knowledge distillation for neural machine translation."
    >>> [x] = extract([Paper("p1", "", text)])
    >>> x.id, all(text[m.start : m.end] == m.text for m in x.mentions)
    ('p1', True)
    """
    nlp = nlp or load_pipeline()
    batches = _batches(((p.abstract, p.id) for p in papers), batch_size)
    if n_process <= 1:
        for batch in batches:
            yield from _extract_batch(nlp, batch, batch_size)
        return
    yield from _extract_in_pool(nlp, batches, batch_size=batch_size, n_process=n_process)


def _extract_batch(nlp: Language, batch: list[tuple[str, str]], batch_size: int) -> list[Extraction]:
    return [extraction(doc, pid) for doc, pid in nlp.pipe(batch, as_tuples=True, batch_size=batch_size)]


def _batches(items: Iterable[tuple[str, str]], size: int) -> Iterator[list[tuple[str, str]]]:
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


def _work(batch: list[tuple[str, str]], batch_size: int) -> list[Extraction]:
    return _extract_batch(_WORKER_NLP[0], batch, batch_size)


def _extract_in_pool(
    nlp: Language, batches: Iterator[list[tuple[str, str]]], *, batch_size: int, n_process: int
) -> Iterator[Extraction]:
    # A bounded window of batches in flight keeps memory flat on large inputs and the order intact.
    # (Under fork the pipeline is inherited, not pickled.)
    with multiprocessing.Pool(n_process, initializer=_init_worker, initargs=(nlp,)) as pool:
        window: deque[AsyncResult[list[Extraction]]] = deque()
        for batch in batches:
            window.append(pool.apply_async(_work, (batch, batch_size)))
            if len(window) >= 4 * n_process:
                yield from window.popleft().get()
        while window:
            yield from window.popleft().get()
        pool.close()
        pool.join()
