"""Moving bases at a low frame rate: the demo game at 2 frames per second through the pipeline.

At 2 fps a base being moved travels up to 9 mm (a third of its marker) between frames, beyond
where edge tracking from its last corners reaches; the pipeline must look where its image velocity puts it, in a window that
grows with the time since it was seen, and no visible base may go stale.
"""

from __future__ import annotations

import numpy as np

from campo.calibration.pipeline import FramePipeline
from campo.vision.synthetic import DemoCamera


def test_demo_at_two_frames_per_second_keeps_every_visible_base_fresh():
    cam = DemoCamera()
    game = cam.game
    pipe = FramePipeline(game.table, game.roster, cam.intrinsics)
    moving_seen = 0
    for k in range(40):
        t = 0.5 * k
        render = cam.render(t)
        result = pipe.process(render.image, t)
        visible = {m.base_id for m in render.truth.visible_markers().values() if m.base_id}
        tracked = {b.id: b for b in result.tracked}
        stale = sorted(b for b in visible if b not in tracked or tracked[b].stale)
        assert not stale, f"t={t}: visible bases stale: {stale}"
        for base_id in visible:
            truth, got = render.truth.bases[base_id], tracked[base_id]
            assert np.hypot(got.x_mm - truth.x_mm, got.y_mm - truth.y_mm) < 2.0, (t, base_id)
        if k:
            before = {pb.base.id: pb for pb in game.poses_at(t - 0.5)}
            moving_seen += sum(1 for pb in game.poses_at(t) if pb.base.id in visible
                               and np.hypot(pb.x_mm - before[pb.base.id].x_mm, pb.y_mm - before[pb.base.id].y_mm) > 5)
    # the test is about bases that really moved: more than a marker cell (~6 px) between frames
    assert moving_seen >= 20
