"""A corpus's bulky text on disk while its graph is linked and analysed: abstracts and evidence sentences.

A run's graph holds every paper's abstract and, on its edges, the sentences that are the
evidence of its mentions and relations: the text of the corpus nearly twice (150,965 arXiv ML
papers: 207 MB of abstracts and 224 MB of sentences, of 2,555 MB of Python objects in the graph).
From the build to the store no stage reads them but the pages, and those only of the edges they
show. A run builds its graph with a :class:`TextFile`: each abstract and each distinct sentence of
a paper is written to an unnamed temporary file once, and the graph holds its number there (an
``int`` in place of the ``str`` of a paper's ``abstract`` and of an edge's ``sentence``) until
the store writes it (:func:`kg.store.embedded.create_embedded`) or a page shows it
(:func:`kg.viz.write_html`), each through :meth:`TextFile.text`.
"""

from __future__ import annotations

import os
import tempfile
from array import array
from pathlib import Path
from typing import Any

import networkx as nx


class TextFile:
    """Texts written to an unnamed temporary file in ``folder`` (by default the system's; gone when
    closed or when the process ends), read back by number.

    >>> texts = TextFile()
    >>> n = texts.add("We use BERT.")
    >>> texts.add("Ünïcödé, and a lone \\udc80 too."), texts.text(n), texts.text("kept as it is"), texts.text(None)
    (1, 'We use BERT.', 'kept as it is', None)
    >>> texts.text(1)
    'Ünïcödé, and a lone \\udc80 too.'
    >>> texts.close()
    """

    def __init__(self, folder: str | Path | None = None) -> None:
        # (an output folder: the system's may be a tmpfs, memory again)
        self._file = tempfile.TemporaryFile(dir=folder)  # noqa: SIM115 (open until close())
        #: where text i ends in the file (it starts where text i - 1 ends)
        self._ends = array("q", [0])
        self._unflushed = False

    def add(self, text: str) -> int:
        """Write ``text``; returns its number."""
        # (a lone surrogate, which a source's broken escapes can leave, comes back as it went)
        data = text.encode("utf-8", "surrogatepass")
        self._file.write(data)
        self._ends.append(self._ends[-1] + len(data))
        self._unflushed = True
        return len(self._ends) - 2

    def text(self, value: Any) -> Any:
        """The text numbered ``value``; any other value (a ``str``, ``None``) as it is."""
        if not isinstance(value, int) or isinstance(value, bool):
            return value
        if self._unflushed:
            self._file.flush()
            self._unflushed = False
        start, end = self._ends[value], self._ends[value + 1]
        return os.pread(self._file.fileno(), end - start, start).decode("utf-8", "surrogatepass")

    def restore(self, G: nx.DiGraph) -> None:
        """Put the texts back into ``G`` (abstracts and sentences that are numbers here become their text)."""
        for _, d in G.nodes(data=True):
            if isinstance(d.get("abstract"), int):
                d["abstract"] = self.text(d["abstract"])
        for _, _, d in G.edges(data=True):
            if isinstance(d.get("sentence"), int):
                d["sentence"] = self.text(d["sentence"])

    def close(self) -> None:
        self._file.close()
