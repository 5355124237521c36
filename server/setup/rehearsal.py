"""The rehearsal camera: the whole setup without a camera, through the synthetic camera.

`--source rehearsal` (and the browser tests) film what a real camera would see during the setup:
while the page calibrates, someone holds the ChArUco board still in one place after another
(the middle, then the corners and edges of the picture, tilted, with a blurred frame while it
moves); afterwards the table of the game folder (`table.toml`) with the roster's bases deployed
in lines along each side's edge. It renders through a lens with real distortion, which the live
calibration has to find, so the files it leads to are the files a real camera would give.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from campo.calibration.charuco import BoardSpec
from campo.server.sources import Frame
from campo.vision.camera_model import Intrinsics
from campo.vision.tabletop import Roster, TableConfig

SIZE = (1280, 720)
HFOV_DEG = 62.0
DISTORTION = (-0.12, 0.03, 0.0, 0.0, 0.0)
HOLD_FRAMES = 3
"""Frames each board pose is held still (the calibration keeps a view only once it is still)."""


@dataclass(frozen=True)
class BoardScene:
    spec: BoardSpec


@dataclass(frozen=True)
class TableScene:
    table: TableConfig
    roster: Roster
    key: str   # changes whenever the files do (a new render)


Scene = BoardScene | TableScene | None


def rehearsal_intrinsics(size: tuple[int, int] = SIZE) -> Intrinsics:
    """The rehearsal camera's true optics (what the live calibration should measure)."""
    return Intrinsics.ideal(size[0], size[1], HFOV_DEG, dist=DISTORTION)


def deployment(table: TableConfig, roster: Roster, gap_mm: float = 25.0) -> list[tuple[str, float, float, float]]:
    """(id, x, y, heading) for the bases that fit in lines along their side's edge; others left out.

    >>> from campo.vision.tabletop import Anchor, TableSpec, RosterBase
    >>> t = TableConfig(table=TableSpec(width_mm=1200.0, depth_mm=800.0), anchors=[
    ...     Anchor(marker=0, x_mm=40.0, y_mm=40.0, size_mm=40.0), Anchor(marker=1, x_mm=1160.0, y_mm=760.0, size_mm=40.0)])
    >>> b = RosterBase(marker=10, id="a", side="A", type="B", width_mm=80.0, depth_mm=40.0, marker_size_mm=25.0)
    >>> deployment(t, Roster(ruleset="italia-se-desta", bases=[b]))
    [('a', 160.0, 164.0, 90.0)]
    """
    w, d = table.table.width_mm, table.table.depth_mm
    out = []
    for side, heading in (("A", 90.0), ("B", 270.0)):
        x0, x1 = 0.1 * w, 0.9 * w
        x, row, row_depth = x0, 0, 0.0
        line_y = 0.18 * d
        for b in (b for b in roster.bases if b.side == side):
            if x + b.width_mm > x1:
                x, row = x0, row + 1
                line_y += row_depth + gap_mm
                row_depth = 0.0
            if line_y + b.depth_mm > 0.42 * d:
                break
            y = line_y + b.depth_mm / 2
            out.append((b.id, round(x + b.width_mm / 2, 2), round(y if side == "A" else d - y, 2), heading))
            x += b.width_mm + gap_mm
            row_depth = max(row_depth, b.depth_mm)
    return out


class RehearsalSource:
    """A `FrameSource` rendering what `scene()` says the camera looks at now."""

    def __init__(self, scene: Callable[[], Scene], *, fps: float = 8.0, size: tuple[int, int] = SIZE,
                 seed: int = 0) -> None:
        self.name = "rehearsal camera"
        self.scene = scene
        self.fps = fps
        self.intrinsics = rehearsal_intrinsics(size)
        self.seed = seed
        self._next_t = 0.0
        self._index = 0
        self._open = False
        self._pose_n = 0           # which board pose is shown
        self._held = 0             # frames it was shown for
        self._board: tuple[BoardSpec, int, np.ndarray] | None = None
        self._table: tuple[str, np.ndarray] | None = None
        self._camera: tuple[str, object] | None = None

    def open(self) -> None:
        self._open = True
        self._next_t = time.monotonic()

    def close(self) -> None:
        self._open = False

    def read(self) -> Frame | None:
        if not self._open:
            return None
        now = time.monotonic()
        if self._next_t > now:
            time.sleep(self._next_t - now)
        self._next_t = max(now, self._next_t) + 1.0 / self.fps
        scene = self.scene()
        if isinstance(scene, BoardScene):
            image = self._board_frame(scene.spec)
        elif isinstance(scene, TableScene):
            image = self._table_frame(scene)
        else:
            image = self._empty_frame()
        self._index += 1
        return Frame(image, time.monotonic(), time.time(), self._index)

    # -- the board, waved from place to place --------------------------------------------------

    def _board_frame(self, spec: BoardSpec) -> np.ndarray:
        """The board held still in one place for `HOLD_FRAMES` frames, after one blurred frame
        while it moves there."""
        import cv2

        from campo.vision.synthetic import Effects, render_charuco_view
        from campo.vision.synthetic.charuco import PARTIAL_SHARE, SWEEP, random_board_pose

        if self._board is not None and self._board[0] == spec and self._held < HOLD_FRAMES:
            self._held += 1
            return self._board[2]
        w, h = self.intrinsics.image_size
        self._pose_n += 1
        rng = np.random.default_rng(self.seed * 7919 + self._pose_n)
        gx, gy, at_edge = SWEEP[self._pose_n % len(SWEEP)]
        pose = None
        while pose is None:
            target = np.array([gx * w + rng.normal(0, 0.03 * w), gy * h + rng.normal(0, 0.03 * h)])
            pose = random_board_pose(spec, self.intrinsics, rng, target, 45.0, PARTIAL_SHARE if at_edge else 1.0)
        image = render_charuco_view(spec, self.intrinsics, pose, effects=Effects(blur_sigma_px=0.6, noise_sigma=2.0),
                                    seed=self._pose_n)
        self._board = (spec, self._pose_n, image)
        self._held = 0
        return cv2.GaussianBlur(image, (0, 0), 4.0)   # moving into place: motion blur

    # -- the table ------------------------------------------------------------------------------

    def _table_frame(self, scene: TableScene) -> np.ndarray:
        if self._table is not None and self._table[0] == scene.key:
            return self._table[1]
        from campo.vision.synthetic import Effects, PlacedBase, SyntheticCamera, overhead

        camera = SyntheticCamera(scene.table, self.intrinsics, overhead(scene.table, self.intrinsics, tilt_deg=6.0),
                                 effects=Effects.typical(), seed=self.seed, terrain=[], clutter=False)
        by_id = scene.roster.by_id()
        placed = [PlacedBase(by_id[i], x, y, h) for i, x, y, h in deployment(scene.table, scene.roster)]
        image = camera.render(placed).image
        self._table = (scene.key, image)
        return image

    def _empty_frame(self) -> np.ndarray:
        w, h = self.intrinsics.image_size
        return np.full((h, w, 3), 90, np.uint8)
