"""Helpers for the server tests: real synthetic frames of a small game, and polling.

The frames are rendered by the synthetic camera (real pixels, real markers), so the server tests
run the production capture thread, pipeline and engine on them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2

DATA = Path(__file__).parent / "data" / "server"
TABLE = DATA / "table.toml"
ROSTER = DATA / "roster.toml"

# (id, x, y, heading): Aosta and Cuneo (side A) face IR 47 and IR 59 (side B).
LAYOUT = [("pie-aosta", 800.0, 400.0, 90.0), ("pie-cuneo", 950.0, 400.0, 90.0),
          ("aus-47", 820.0, 560.0, 270.0), ("aus-59", 1000.0, 700.0, 270.0)]


def render_frames(folder: Path, layouts: Sequence[Sequence[tuple[str, float, float, float]]],
                  size: tuple[int, int] = (1280, 720), hands: Sequence[Sequence[Any]] | None = None,
                  noisy: bool = False, extra: Sequence[Any] = ()) -> list[Path]:
    """One PNG per layout (camera straight above the table); `hands[i]` over frame i.

    `noisy`: typical webcam effects (sensor noise, blur, vignetting), different in every frame.
    `extra`: more `PlacedBase`s in every frame (e.g. one whose marker is not in the roster).
    """
    from campo.server.roster import load_checked_roster
    from campo.vision.camera_model import Intrinsics
    from campo.vision.synthetic import Effects, PlacedBase, SyntheticCamera, overhead
    from campo.vision.tabletop import load_table

    table = load_table(TABLE)
    roster = load_checked_roster(ROSTER, table)
    by_id = roster.by_id()
    intr = Intrinsics.ideal(size[0], size[1], 60)
    cam = SyntheticCamera(table, intr, overhead(table, intr), effects=Effects.typical() if noisy else Effects.clean(),
                          seed=1, terrain=[])
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, layout in enumerate(layouts):
        bases = [PlacedBase(by_id[b], x, y, h) for b, x, y, h in layout] + list(extra)
        path = folder / f"frame{i:03d}.png"
        cv2.imwrite(str(path), cam.render(bases, hands[i] if hands else ()).image)
        paths.append(path)
    return paths


def state_bases(response: Any) -> list[dict[str, Any]]:
    """The bases of a `GET /api/state` answer; none while the server has no state yet (503,
    before its first frame): a wait for the first state polls this, not ``json()["bases"]``."""
    return response.json()["bases"] if response.status_code != 503 else []


def wait_for(predicate: Callable[[], object], timeout: float = 10.0, interval: float = 0.02) -> bool:
    """Poll until `predicate()` is truthy or `timeout` seconds pass."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(interval)
    return bool(predicate())


def receive_until(ws: Any, topic: str, limit: int = 50) -> dict[str, Any]:
    """The next message on ``topic`` from a test WebSocket client (others skipped), at most
    ``limit`` messages read."""
    for _ in range(limit):
        msg = ws.receive_json()
        if msg["topic"] == topic:
            return msg
    raise AssertionError(f"no {topic!r} message in {limit}")
