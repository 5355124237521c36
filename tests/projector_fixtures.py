"""A table with a projector over it, filmed by the synthetic camera: the camera source of the
projector's end-to-end tests. The simulated projector shows what the server asks the projector
page for (`ProjectorService.mode`): the calibration pattern, or black (the overlay's light is
not simulated here; bench/projector.py measures it)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from campo.calibration.projector import ProjectorPattern
from campo.server.sources import Frame
from campo.vision.synthetic import Effects, SyntheticCamera
from campo.vision.synthetic.demo import DemoGame, demo_intrinsics, demo_pose
from campo.vision.synthetic.projection import ProjectedLight, ProjectorModel


PROJECTOR = (1920, 1080)


@contextmanager
def layout_server(tmp_path_factory: Any, token: str, *, calibrated: bool) -> Iterator[Any]:
    """The live server (`ServerThread`) fed the four-base layout of tests/server_fixtures.py,
    with ``token``; with ``calibrated``, a projector.json whose homography is a projector's over
    this table (`ProjectorModel`: exact, no camera needed); once its state has every base."""
    from campo.calibration.projector import ProjectorCalibration, save_projector
    from campo.server.rig import ServerSettings
    from campo.server.runner import ServerThread, free_port
    from campo.vision.tabletop import load_table
    from tests.server_fixtures import LAYOUT, ROSTER, TABLE, render_frames, wait_for

    frames = tmp_path_factory.mktemp("frames")
    render_frames(frames, [LAYOUT])
    folder = tmp_path_factory.mktemp("game")
    if calibrated:
        model = ProjectorModel.above(load_table(TABLE), PROJECTOR, tilt_deg=3.0, roll_deg=1.5)
        save_projector(ProjectorCalibration(PROJECTOR, model.table_to_projector, 0.1, 0.3, 0.9, 100, 110),
                       folder / "projector.json")
    settings = ServerSettings(source=str(frames), table=TABLE, roster=ROSTER, setup_file=folder / "terrain.json",
                              port=free_port(), token=token, fps=5.0, status_interval_s=0.25,
                              projector_file=folder / "projector.json")
    with ServerThread(settings) as srv:
        assert wait_for(lambda: srv.services.tracker.state is not None
                        and len(srv.services.tracker.state["bases"]) == len(LAYOUT), timeout=20)
        yield srv


class ProjectedTableSource:
    """The demo game at one moment ``t`` (its bases and status tokens), under a projector, at
    about ``fps`` frames a second."""

    name = "synthetic table under a projector"

    def __init__(self, game: DemoGame, model: ProjectorModel, fps: float = 8.0, t: float = 32.0) -> None:
        self.game = game
        self.model = model
        self.intrinsics = demo_intrinsics()
        self.camera = SyntheticCamera(game.table, self.intrinsics, demo_pose(game.table, self.intrinsics),
                                      effects=Effects.typical(), seed=5, terrain=game.terrain)
        self.bases = game.poses_at(t)
        self.tokens = game.tokens_at(t)
        self.period = 1.0 / fps
        self.service: Any = None   # the server's ProjectorService, set once it is built
        self.index = 0
        self._black = np.zeros(model.size[::-1], np.uint8)
        self._pattern = ProjectorPattern.for_screen(*model.size).image()

    def open(self) -> None:
        self.index = 0

    def read(self) -> Frame | None:
        time.sleep(self.period)
        showing = self._pattern if self.service is not None and self.service.mode == "pattern" else self._black
        t, wall = time.monotonic(), time.time()   # the shutter opens now: later pictures are not in it
        light = ProjectedLight(showing, self.model.table_to_projector, brightness=1.0, blur_px=1.5)
        render = self.camera.render(self.bases, light=light, tokens=self.tokens)
        self.index += 1
        return Frame(render.image, t, wall, self.index, render.truth)

    def close(self) -> None:
        pass


def tap_latency_ms(projector: Any, tablet: Any, base_id: str) -> float:
    """Tap ``base_id`` on the tablet; ms from the tap to the projector's first paint showing it."""
    before = projector.evaluate("window.projector.draws.length")
    tablet.click(f'[data-testid="base-{base_id}"] .base-rect')
    projector.wait_for_function(
        """([id, n]) => window.projector.draws.slice(n).some((d) => d.base === id && d.painted !== null)""",
        arg=[base_id, before], timeout=5000)
    tapped = tablet.evaluate("window.campo.projector.lastTap")
    assert tapped["base"] == base_id
    painted = projector.evaluate(
        "([id, n]) => window.projector.draws.slice(n).find((d) => d.base === id && d.painted !== null).painted",
        [base_id, before])
    return float(painted - tapped["t"])
