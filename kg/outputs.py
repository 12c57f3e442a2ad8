"""Outputs written whole or not at all, by one kg run at a time.

Each output is written to a temporary file beside its target (``.NAME.kg-tmp-PID-XXXXXXXX``)
and moved into place with :func:`os.replace` once it is complete, so a reader sees the old
file or the new one, never a part. A run stages all its outputs (:class:`Staging`) and moves
them in at its end: a run that fails leaves every output of the run before.

One run writes an output folder at a time: it holds a lock on ``.kg.lock`` in the folder
(:func:`locked`; a POSIX record lock, which the system drops when the process ends however it
ends, and which forked workers do not inherit). A run that holds the lock removes the
temporary files a killed run left (:func:`clean_leftovers`): only names of the form above whose
process is gone, so nothing kg did not write and nothing a live kg process is writing.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import logging
import os
import re
import secrets
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from kg.errors import KGError

log = logging.getLogger(__name__)

LOCK_FILE = ".kg.lock"

#: What :func:`temp_beside` names, and a database's files beside it: ``.wal``, and what a
#: checkpoint leaves, ``.wal.checkpoint``, ``.checkpoint.apply.lock``, ... (LadybugDB).
_TEMP = re.compile(r"\..+\.kg-(?:tmp|copy)-(?P<pid>\d+)-[0-9a-f]{8}(?:\.[a-z]+)*")

#: Lock files this process holds (a second POSIX lock of the same process would succeed, and
#: closing any descriptor of the file would drop the first).
_held: set[Path] = set()


class LockedError(KGError):
    """Another kg run is writing the same outputs."""


def temp_beside(target: Path, kind: str = "tmp") -> Path:
    """A fresh temporary path in ``target``'s folder, named after it and this process."""
    return target.with_name(f".{target.name}.kg-{kind}-{os.getpid()}-{secrets.token_hex(4)}")


def remove(path: Path) -> None:
    """Remove a file or folder kg wrote (nothing if it is not there)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


@contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path`` to write; moved to ``path`` if the block ends without error."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_beside(path)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_text(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` (UTF-8) through a temporary file beside it: all of it or nothing."""
    with replacing(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def refuse_folder(path: Path, what: str) -> None:
    """A :class:`~kg.errors.KGError` if ``path`` is a folder: kg writes files and never replaces a folder."""
    if path.is_dir():
        raise KGError(f"{what}: {path} is a folder; kg writes a file there and does not replace folders "
                      f"(name a file, e.g. {path / 'NAME'})")  # fmt: skip


class Staging:
    """The outputs of one run, written beside their targets and moved in together by :meth:`commit`."""

    def __init__(self) -> None:
        self._moves: dict[Path, tuple[Path, Callable[[Path, Path], None]]] = {}
        self._scratch: list[Path] = []

    def path(self, target: Path, *, move: Callable[[Path, Path], None] = os.replace) -> Path:
        """Where to write ``target`` now (the same path each time it is asked for)."""
        if target not in self._moves:
            target.parent.mkdir(parents=True, exist_ok=True)
            self._moves[target] = (temp_beside(target), move)
        return self._moves[target][0]

    def commit(self, order: Iterable[Path] = ()) -> None:
        """Move every staged output that was written into place, those in ``order`` first."""
        first = [t for t in order if t in self._moves]
        for target in [*first, *(t for t in self._moves if t not in first)]:
            tmp, move = self._moves[target]
            if tmp.exists():
                move(tmp, target)

    def scratch(self, beside: Path) -> Path:
        """A new folder beside ``beside`` for what the run writes before its end, removed by
        :meth:`discard` (and, if the run is killed, by the next run's :func:`clean_leftovers`)."""
        folder = temp_beside(beside)
        folder.mkdir(parents=True)
        self._scratch.append(folder)
        return folder

    def discard(self) -> None:
        """Remove what was staged and not moved in, and the scratch folders."""
        for tmp in [*(tmp for tmp, _ in self._moves.values()), *self._scratch]:
            remove_temp(tmp)


def remove_temp(tmp: Path) -> None:
    """Remove the temporary ``tmp`` (:func:`temp_beside`) and what was made beside it under its name (a log...)."""
    for path in tmp.parent.glob(re.sub(r"([*?\[])", r"[\1]", tmp.name) + "*"):
        remove(path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_leftovers(folders: Iterable[Path]) -> list[Path]:
    """Remove the temporary files and folders kg processes that are gone left in ``folders``."""
    removed = []
    for folder in sorted(set(folders)):
        if not folder.is_dir():
            continue
        for path in folder.iterdir():
            found = _TEMP.fullmatch(path.name)
            if found and int(found["pid"]) != os.getpid() and not _alive(int(found["pid"])):
                remove(path)
                removed.append(path)
    if removed:
        log.info("removed %d temporary files a killed kg run left (e.g. %s)", len(removed), removed[0])
    return removed


@contextmanager
def locked(folders: Iterable[Path], *, command: str, wait: bool = False) -> Iterator[None]:
    """Hold the lock of each output folder (created if need be) while the block runs.

    Without ``wait``, a folder another kg run holds is a :class:`LockedError` naming that run;
    with it, this waits for the lock. Folders are locked in order, so two waiting runs cannot
    hold one each.
    """
    held: list[tuple[Path, IO[str]]] = []
    try:
        for folder in sorted({Path(f).resolve() for f in folders}):
            lock = folder / LOCK_FILE
            if lock in _held:
                raise LockedError(f"{folder} is being written by this process already")
            folder.mkdir(parents=True, exist_ok=True)
            fh = lock.open("a+", encoding="utf-8")
            try:
                _acquire(fh, folder, wait)
            except BaseException:
                fh.close()
                raise
            held.append((lock, fh))
            _held.add(lock)
            fh.seek(0)
            if last := fh.read().strip():  # a run that held it ended without releasing it: killed
                log.info("%s: the last kg run there did not finish (%s)", folder, _who(last))
            fh.seek(0)
            fh.truncate()
            fh.write(json.dumps({"pid": os.getpid(), "command": command, "since": time.strftime("%H:%M:%S")}))
            fh.flush()
        yield
    finally:
        for lock, owned in reversed(held):
            with contextlib.suppress(OSError):
                owned.truncate(0)  # released in order: the next run sees no owner
            owned.close()
            _held.discard(lock)


def _acquire(fh: IO[str], folder: Path, wait: bool) -> None:
    try:
        fcntl.lockf(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except OSError as exc:
        if exc.errno not in (errno.EACCES, errno.EAGAIN):
            raise
    fh.seek(0)
    who = _who(fh.read().strip())
    if not wait:
        raise LockedError(f"{folder} is being written by another kg run ({who}); "
                          f"wait for it to end, or use `kg run --wait`")  # fmt: skip
    log.warning("waiting for another kg run writing %s (%s)", folder, who)
    fcntl.lockf(fh, fcntl.LOCK_EX)


def _who(text: str) -> str:
    try:
        owner = json.loads(text)
        return f"pid {owner['pid']}, `{owner['command']}`, since {owner['since']}"
    except (ValueError, KeyError, TypeError):
        return "owner unknown"
