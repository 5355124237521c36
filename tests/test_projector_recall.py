"""Marker recall with the projection on is within 1 point of recall without it (bench/projector.py):
the projector page's hardest overlay (full white with its dark squares round every marker), on
Campo's synthetic camera (two camera/projector setups) and on bench/vision_render.py's
independent renderer."""

from __future__ import annotations

import pytest

from tests.bench_modules import bench_module

pytestmark = pytest.mark.slow

bench = bench_module("projector")


def assert_within_one_point(name: str, tally: dict[str, tuple[int, int]]) -> None:
    off, on, bare = (bench.pct(tally[k]) for k in ("off", "on", "bare"))
    print(f"\n{name}: recall off {off:.1f}% {tally['off']}, on {on:.1f}% {tally['on']}, bare {bare:.1f}%")
    assert tally["on"][1] == tally["off"][1] > 0
    assert abs(on - off) <= 1.0


@pytest.mark.parametrize("index", [0, 1], ids=["demo camera", "tilted camera"])
def test_recall_on_the_synthetic_camera(index: int) -> None:
    setup = bench.setups(quick=True)[index]
    assert_within_one_point(setup.name, bench.synthetic_recall(setup))


def test_recall_on_the_independent_renderer() -> None:
    tally = bench.render_recall(quick=False)
    assert_within_one_point("vision_render", tally)
    # the light does reach the markers: without the dark squares the same flood costs markers
    assert bench.pct(tally["bare"]) < bench.pct(tally["off"]) - 10
