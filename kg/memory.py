"""Handing freed memory back to the system, between the steps of a run that hold a corpus's graph."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache


def give_back_memory() -> None:
    """Return the C heap's free memory to the system (glibc's ``malloc_trim``; elsewhere nothing).

    What a step's C libraries freed (a LadybugDB COPY's working memory, an igraph graph, SciPy's
    matrices) glibc keeps for reuse, and little of what follows reuses it (Python's small objects
    live in arenas of their own): without this, each such step adds to what the process holds.
    """
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    import ctypes

    try:
        return getattr(ctypes.CDLL(None), "malloc_trim", None)  # the C library the process runs with
    except OSError:
        return None
