"""The game's files in one folder, written whole or not at all.

A save from the page writes a temporary file beside the target, flushes it to disk and renames
it over the target (`campo.atomic_file.write_atomic`), so a crash or a full disk never leaves
half a roster. Each file's content hash is its version: the page sends the version it edited,
and a save over a file changed meanwhile (by hand, in an editor) is refused instead of silently
undoing that edit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from campo.atomic_file import content_version
from campo.errors import CampoInputError

TABLE_FILE = "table.toml"
ROSTER_FILE = "roster.toml"
CAMERA_FILE = "camera.json"
TERRAIN_FILE = "terrain.json"


@dataclass(frozen=True)
class GameFiles:
    """Where a game's files are (by default all in one folder, under their usual names)."""

    folder: Path
    table: Path
    roster: Path
    camera: Path
    terrain: Path

    @classmethod
    def in_folder(cls, folder: str | Path, *, table: Path | None = None, roster: Path | None = None,
                  camera: Path | None = None, terrain: Path | None = None) -> GameFiles:
        """The folder's files; any one given explicitly (a `campo serve` option) replaces its default."""
        folder = Path(folder)
        return cls(folder, table or folder / TABLE_FILE, roster or folder / ROSTER_FILE,
                   camera or folder / CAMERA_FILE, terrain or folder / TERRAIN_FILE)

    def named(self) -> dict[str, Path]:
        return {"table": self.table, "roster": self.roster, "camera": self.camera, "terrain": self.terrain}


def version_of(path: Path) -> str | None:
    """A short hash of the file's bytes (None when there is no file): what a save must match."""
    try:
        return content_version(path.read_bytes())
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CampoInputError(f"cannot read: {exc.strerror or exc}", path=path) from None


def check_version(path: Path, expected: str | None) -> None:
    """Refuse a save made from an older reading of the file (someone else changed it since)."""
    current = version_of(path)
    if current != expected:
        what = "was created" if expected is None else ("was deleted" if current is None else "changed")
        raise FileChangedError(f"{what} on disk since the page read it: reload to see it, "
                               "or save again to replace it", path=path)


class FileChangedError(CampoInputError):
    """The file on disk is not the one the page edited."""
