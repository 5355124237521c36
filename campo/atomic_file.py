"""Files written whole or not at all, for every layer (camera.json, projector.json, the game's
setup files): a temporary file beside the target, flushed to disk, then renamed over it
(`os.replace` is atomic on one file system), so a crash or a full disk never leaves half a file."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from campo.errors import CampoInputError


def content_version(raw: bytes) -> str:
    """A short hash of a file's bytes: its version (an editor saving over the file says which
    version it edited, so a change made meanwhile is not silently undone)."""
    return hashlib.sha256(raw).hexdigest()[:16]


def write_atomic(path: Path, data: str | bytes) -> str:
    """Write ``data`` to ``path`` whole or not at all; returns the new `content_version`."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise CampoInputError(f"cannot write in {path.parent}: {exc.strerror or exc}", path=path) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise CampoInputError(f"cannot write: {exc.strerror or exc}", path=path) from None
    return content_version(raw)
