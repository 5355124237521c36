"""A base named as blocking a shot's line of sight ("Bu4-2 in the way", ISD §6) lies where
the shot's lines run: every line goes from the firer's front to a point of the target, so the
body it crosses meets the hull of the two bases. A shot whose middle line a body blocks has its
other lines tried against that body first (`fire_sight._screened`); the body once came from
another shot's row, and a base across the table was named."""

from __future__ import annotations

import re

import shapely

from campo.engine.live import LiveAnalysis
from tests.bench_modules import bench_module

battles = bench_module("battles")
IN_THE_WAY = re.compile(r"([\w-]+) in the way")


def test_every_base_named_in_the_way_lies_between_firer_and_target() -> None:
    scenario = battles.dense_battle("italia-se-desta", 100)
    snapshot = LiveAnalysis().update(scenario)
    index = snapshot.state.index
    shape = dict(zip(index.ids, index.shapes))
    far = []
    for shooter, entry in snapshot.analysis()["bases"].items():
        for target in entry["targets"]:
            for reason in target.get("reasons", []):
                if not reason.startswith("no line of sight"):
                    continue
                hull = shapely.convex_hull(shapely.union(shape[shooter], shape[target["id"]]))
                far += [(shooter, target["id"], named) for named in IN_THE_WAY.findall(reason)
                        if not shapely.intersects(hull, shape[named])]
    assert far == []
