"""One writer per recording: `WriterLock` holds an exclusive lock beside the file while it records.

Two servers recording into one file would interleave their states (time going backwards, deltas
applied to the wrong state). The writer takes `GAME.db.lock` with `flock`, and writes in it who
it is; a second writer is refused at once, naming the holder. The kernel drops the lock when the
holder dies, even by `kill -9`, so a crash never leaves the file locked (the stale lock file is
simply taken over). Readers (`export`, `report`, `replay`) never take it.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import socket
import sys
from datetime import datetime, timezone
from pathlib import Path

from campo.errors import RecordingError


def lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def _holder(lock: Path) -> str:
    """Who holds ``lock``, in words (from what the holder wrote in it)."""
    try:
        info = json.loads(lock.read_text(encoding="utf-8"))
        return (f"process {int(info['pid'])} on {info['host']} ({info['command']}, since "
                f"{info['since']})")
    except (OSError, ValueError, KeyError, TypeError):
        return "another process"


class WriterLock:
    """The exclusive right to write ``path`` (a recording), for as long as it is held."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = lock_path(path)
        self._fd: int | None = None

    def acquire(self) -> WriterLock:
        """Take the lock or raise `RecordingError` naming its holder (or why it cannot be made)."""
        folder = self.path.parent
        if not folder.is_dir():
            raise RecordingError(f"cannot create recording: no folder {folder}", path=self.path)
        while True:
            try:
                fd = os.open(self.lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError as exc:
                why = (f"the folder {folder} is read-only" if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM)
                       else f"{exc.strerror or exc} (creating {self.lock.name})")
                raise RecordingError(f"cannot record here: {why}", path=self.path) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise RecordingError(f"already being recorded by {_holder(self.lock)}; stop it or "
                                     "record to another file", path=self.path) from None
            # the holder may have removed the file between our open and lock: lock the one that is there
            try:
                same = os.fstat(fd).st_ino == os.stat(self.lock).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        self._fd = fd
        me = {"pid": os.getpid(), "host": socket.gethostname(),
              "command": " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(sys.argv[:4])),
              "since": datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds")}
        try:
            os.ftruncate(fd, 0)
            os.write(fd, json.dumps(me).encode())
        except OSError:   # a full disk: the lock holds anyway, only the holder's name is missing
            pass
        return self

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            os.unlink(self.lock)
        except OSError:
            pass
        os.close(self._fd)   # closing drops the flock
        self._fd = None
