"""The demo's two-camera mode: the demo game on a 180 x 120 cm table, seen by two 1080p cameras.

`campo serve --source demo --source demo` plays this. The demo's engagement (a 120 x 80 cm game)
is laid in the middle of a club's 180 x 120 cm table (moved by `OFFSET_MM`, so its centre, where
the armies meet, is on the seam). The table has six 40 mm anchors: its four corners and the
middles of its two long edges (x = 900 mm), which lie in the band both cameras see, so each
camera sees four anchors not on one line (`calibration/camera_coverage.py`).

Each camera hangs over one half, looking straight down, turned a quarter (the image's long side
along the table's 120 cm): camera 1 covers x from about -20 to 980 mm, camera 2 from 820 to
1820 mm, so the overlap band is ~160 mm wide around x = 900 mm; about 1.08 px per mm, against
0.76 for one 1080p camera over the whole table.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from campo.vision.camera_model import Intrinsics
from campo.vision.synthetic.demo import DemoGame, HandPass, Step, Track, demo_intrinsics
from campo.vision.synthetic.effects import Effects
from campo.vision.synthetic.pose import CameraPose, look_at
from campo.vision.synthetic.render import SyntheticCamera
from campo.vision.synthetic.truth import Render
from campo.vision.tabletop import TableConfig

WIDE_TABLE_MM = (1800.0, 1200.0)
OFFSET_MM = (300.0, 200.0)
"""Where the demo's 120 x 80 cm game is laid on the wide table (its corner (0, 0) goes here)."""

SEAM_X_MM = 900.0
HALF_VIEW_MM = (1000.0, 1260.0)
"""What each camera frames: across the seam (x) and along the table (y), margins included."""

CAMERA_X_MM = (480.0, 1320.0)
"""Where each camera looks (x of its view's centre; y is the table's middle)."""


def wide_table(dictionary: str = "DICT_4X4_250", anchor_mm: float = 40.0) -> TableConfig:
    """A 180 x 120 cm table with anchors 0-3 in the corners and 4, 5 mid-way along the long edges."""
    w, d = WIDE_TABLE_MM
    m = anchor_mm
    spots = [(m, m), (w - m, m), (w - m, d - m), (m, d - m), (SEAM_X_MM, m), (SEAM_X_MM, d - m)]
    return TableConfig.model_validate({
        "table": {"width_mm": w, "depth_mm": d, "dictionary": dictionary},
        "anchors": [{"marker": i, "x_mm": x, "y_mm": y, "size_mm": anchor_mm, "up_deg": 90.0}
                    for i, (x, y) in enumerate(spots)]})


def _moved(value: Any, dx: float, dy: float) -> Any:
    """A terrain value with every [x, y] point (in any `*_mm` list) moved by (dx, dy)."""
    if isinstance(value, dict):
        return {k: (_moved(v, dx, dy) if k.endswith("_mm") or isinstance(v, (dict, list)) else v)
                for k, v in value.items()}
    if isinstance(value, list):
        if len(value) == 2 and all(isinstance(v, (int, float)) for v in value):
            return [value[0] + dx, value[1] + dy]
        return [_moved(v, dx, dy) for v in value]
    return value


def wide_game(game: DemoGame | None = None) -> DemoGame:
    """The demo game moved onto the 180 x 120 cm table (`OFFSET_MM`)."""
    g = game or DemoGame.load()
    dx, dy = OFFSET_MM

    def pose(p: tuple[float, float, float]) -> tuple[float, float, float]:
        return (p[0] + dx, p[1] + dy, p[2])

    tracks = {k: Track(pose(t.start), tuple(replace(s, target=None if s.target is None else pose(s.target))
                                             for s in t.steps))
              for k, t in g.tracks.items()}
    hands = [HandPass(h.t0, h.t1, (h.from_mm[0] + dx, h.from_mm[1] + dy), (h.to_mm[0] + dx, h.to_mm[1] + dy),
                      h.height_mm) for h in g.hand_passes]
    table = wide_table(g.table.table.dictionary)
    return DemoGame(table, g.roster, [_moved(f, dx, dy) for f in g.terrain], g.duration_s, tracks, hands,
                    list(g.token_spans))


def half_pose(intrinsics: Intrinsics, index: int) -> CameraPose:
    """Camera `index` (0: x < seam, 1: x > seam): straight down over its half, turned a quarter."""
    w, h = intrinsics.image_size
    f = float(intrinsics.camera_matrix[0, 0])
    across, along = HALF_VIEW_MM
    height = max(along * f / w, across * f / h)  # the image's long side along the table's y
    cx, cy = CAMERA_X_MM[index], WIDE_TABLE_MM[1] / 2
    # up_hint +x: the table's x runs up the image, its y across it; a little roll, as hung by hand
    return look_at((cx, cy, height), (cx, cy, 0.0), up_hint=(1.0, 0.0, 0.0), roll_deg=(0.5, -0.7)[index])


class WideDemo:
    """The wide demo game and its two synthetic cameras: `render(index, t)`."""

    def __init__(self, game: DemoGame | None = None, *, size: tuple[int, int] = (1920, 1080),
                 effects: Effects | None = None, seed: int = 7) -> None:
        self.game = wide_game(game)
        self.intrinsics = demo_intrinsics(size)
        self.cameras = [SyntheticCamera(self.game.table, self.intrinsics, half_pose(self.intrinsics, i),
                                        effects=Effects.typical() if effects is None else effects,
                                        seed=seed + i, terrain=self.game.terrain)
                        for i in range(2)]

    def render(self, index: int, t: float) -> Render:
        """Camera `index`'s frame at game time `t` (seconds, looping)."""
        g = self.game
        return self.cameras[index].render(g.poses_at(t), g.hands_at(t), tokens=g.tokens_at(t))

