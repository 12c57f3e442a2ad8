"""Run the kg command line and kill it (SIGKILL, as ``kill -9`` does) at a named point.

    python -m tests.kill_at POINT run PIPELINE [kg options...]

POINT is the name of a stage of :data:`kg.pipeline.run.STAGES` (killed as the stage ends, with
what it wrote on disk), ``copy`` (in the middle of the store's bulk COPY: nodes in, links not,
its Parquet files on disk), ``update`` (inside the transaction of an incremental store update)
or ``commit`` (right after the first output, the store, was moved into place).
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from typing import Any


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _after(fn: Callable[..., Any], calls: int = 1) -> Callable[..., Any]:
    """``fn``, killing the process once it has been called ``calls`` times."""
    done = 0

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        nonlocal done
        result = fn(*args, **kwargs)
        done += 1
        if done == calls:
            _die()
        return result

    return wrapped


def arm(point: str) -> None:
    import kg.store.embedded as embedded
    from kg.pipeline import run

    if point == "copy":
        embedded._copy = _after(embedded._copy, calls=3)  # Paper, Concept, MENTIONS
    elif point == "update":
        embedded._batches = _after(embedded._batches, calls=2)
    elif point == "commit":
        run.replace_store = _after(run.replace_store)
    elif point in dict(run.STAGES):
        run.STAGES[:] = [(name, _after(stage) if name == point else stage) for name, stage in run.STAGES]
    else:
        raise SystemExit(f"unknown kill point {point!r}")


if __name__ == "__main__":
    arm(sys.argv[1])
    from kg.cli import main

    sys.argv = ["kg", *sys.argv[2:]]
    main()
