"""Staging folders: where a snapshot is written before it becomes a version of its data store.

A writer makes ``.tmp-{random}/`` beside the versions, locks ``.tmp-{random}/lock`` for as long
as it writes (an advisory ``flock``, which the system releases when the process ends, even on
``SIGKILL``), and removes the folder when done. ``remove_stale`` removes the staging folders of
writers that are gone: a lock it can take has no live owner. The lock file is locked before it
gets its name, so a folder without one is a writer a moment after ``mkdir``, or one that died in
that moment: it is removed once a minute old. Where there is no ``flock`` (Windows), a staging
folder an hour old is taken for abandoned, as no ingest is expected to last that long there.
"""

from __future__ import annotations

import logging
import shutil
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

__all__ = ["remove_stale", "staging_folder"]

logger = logging.getLogger(__name__)

_PREFIX = ".tmp-"
_LOCK = "lock"
_UNLOCKED_GRACE = 60.0
_UNLOCKABLE_AGE = 3600.0


def _try_lock(path: Path, *, wait: bool) -> IO[str] | None:
    """An open handle holding an exclusive lock on ``path``, or ``None`` if another holds it."""
    handle = path.open("a+")
    if sys.platform == "win32":
        return handle
    import fcntl

    try:
        fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        handle.close()
        return None
    return handle


@contextmanager
def staging_folder(parent: Path) -> Iterator[Path]:
    """A new locked staging folder under ``parent``, removed (whatever it holds) on exit."""
    folder = parent / f"{_PREFIX}{uuid.uuid4().hex[:12]}"
    folder.mkdir(parents=True)
    pending = folder / f"{_LOCK}.new"
    handle = _try_lock(pending, wait=True)
    assert handle is not None  # a blocking lock on a new file is always taken
    pending.rename(folder / _LOCK)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        handle.close()


def _abandoned(folder: Path) -> bool:
    age = time.time() - folder.stat().st_mtime
    if sys.platform == "win32":
        return age > _UNLOCKABLE_AGE
    lock = folder / _LOCK
    if not lock.exists():
        return age > _UNLOCKED_GRACE
    handle = _try_lock(lock, wait=False)
    if handle is None:
        return False
    handle.close()
    return True


def remove_stale(parent: Path) -> list[Path]:
    """Remove the staging folders under ``parent`` whose writer is gone; the removed ones."""
    removed = []
    for folder in sorted(parent.glob(f"{_PREFIX}*")):
        try:
            if not folder.is_dir() or not _abandoned(folder):
                continue
        except FileNotFoundError:  # its writer finished meanwhile
            continue
        shutil.rmtree(folder, ignore_errors=True)
        logger.info("removed %s, left by an ingest that did not finish", folder)
        removed.append(folder)
    return removed
