"""What `campo serve` is pointed at: the server's settings, and the table, roster, camera and source.

`load_rig` reads the files the user named (strictly, errors name the file) or, with
`--source demo` and no `--table`/`--roster`, takes the demo game's own table, roster, camera and
terrain, so `campo serve --source demo` works with no files at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from campo.server.game_state import GameSetup
from campo.server.sources import DemoSource, FrameSource, open_source
from campo.vision.camera_model import Intrinsics
from campo.errors import CampoInputError
from campo.vision.tabletop import Roster, TableConfig, load_table

SETUP_FILE_NAME = "terrain.json"
"""The umpire's terrain and settings, saved beside table.toml (docs/server.md)."""


@dataclass(frozen=True)
class ServerSettings:
    """Everything `campo serve` was told (also what tests build the app from)."""

    source: str = "demo"
    table: Path | None = None
    roster: Path | None = None
    camera: Path | None = None
    setup_file: Path | None = None  # default: terrain.json beside the table file
    host: str = "127.0.0.1"
    allow_hosts: tuple[str, ...] = ()  # more names the server answers to (`--allow-host`)
    proxy: str | None = None  # a reverse proxy's address: its X-Forwarded-For is believed
    port: int = 8000
    token: str | None = None  # default on a non-loopback host: a fresh random token
    fps: float | None = None  # pacing of demo / folder / video sources
    deck_seed: int | None = None  # ATTILA's umpire deck (default: random, shown on the page)
    dice_seed: int | None = None  # the dice Campo rolls for the umpire (default: random, recorded)
    status_interval_s: float = 0.5
    projector_file: Path | None = None  # projector.json (read if it exists, written by calibration)


@dataclass
class Rig:
    table: TableConfig
    roster: Roster
    intrinsics: Intrinsics | None
    source: FrameSource
    setup: GameSetup


def load_rig(settings: ServerSettings) -> Rig:
    """Load and check every file; `CampoInputError` names the one that is wrong."""
    from campo.calibration.camera_file import load_camera
    from campo.server.roster import load_checked_roster

    source = open_source(settings.source, fps=settings.fps)
    demo_source = source if isinstance(source, DemoSource) else None
    demo = demo_source.game if demo_source is not None else None
    if settings.table is not None:
        table = load_table(settings.table)
    elif demo is not None:
        table = demo.table
    else:
        raise CampoInputError("--table is required with a real camera, video or folder", key="--table")
    if settings.roster is not None:
        roster = load_checked_roster(settings.roster, table)
    elif demo is not None:
        roster = demo.roster
    else:
        raise CampoInputError("--roster is required with a real camera, video or folder", key="--roster")
    if settings.camera is not None:
        intrinsics: Intrinsics | None = load_camera(settings.camera).intrinsics
    elif demo_source is not None and settings.table is None:
        intrinsics = demo_source.intrinsics
    else:
        intrinsics = None
    setup_path = settings.setup_file
    if setup_path is None and settings.table is not None:
        setup_path = settings.table.parent / SETUP_FILE_NAME
    default_terrain: list[dict[str, Any]] = list(demo.terrain) if demo is not None and settings.table is None else []
    if setup_path is None:
        setup = GameSetup(roster.ruleset, default_terrain)
    else:
        setup = GameSetup.load(roster.ruleset, setup_path, default_terrain)
    return Rig(table, roster, intrinsics, source, setup)
