"""Shortcuts of the fire verdicts give exactly the answers of the code they stand in for:
`fire_columns.arc_clear_many`'s box test (`_surely_clear`) against `fire.arc_clear`, shot by shot,
with friends placed touching, just inside and just outside the swept region, on rotated tables;
and the memo of `fire.shot_modifiers` against `fire_modifiers` of freshly built facts."""

from __future__ import annotations

import math
import random

import numpy as np

from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.fire import arc_clear
from campo.engine.rulesets.italia.fire_columns import _surely_clear, arc_clear_many
from campo.engine.state import GameState


def _base(i: str, side: str, x: float, y: float, heading: float, w: float = 80.0,
          d: float = 40.0, kind: str = "B") -> dict:
    return {"id": i, "side": side, "type": kind, "x_mm": x, "y_mm": y, "heading_deg": heading,
            "width_mm": w, "depth_mm": d}


def _crowd(rng: random.Random, turn: float) -> list[dict]:
    """A shooter, enemies ahead of it and friends around its front and along the shots:
    beside it touching, a hair's breadth apart or overlapping, and scattered ahead."""
    def at(u: float, v: float) -> tuple[float, float]:
        c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
        return 600 + u * c - v * s, 600 + u * s + v * c

    heading = (90.0 + turn) % 360.0
    bases = [_base("s", "A", *at(0, 0), heading)]
    for k in range(4):
        across = rng.uniform(-200, 200) * rng.choice([0.2, 1.0])
        bases.append(_base(f"e{k}", "B", *at(across, rng.uniform(40, 160)),
                           (heading + 180 + rng.choice([0, 0, 30, -45])) % 360))
    for k in range(rng.randint(0, 6)):
        gap = rng.choice([0.0, 0.0, 1e-9, -1e-9, 0.2, 0.5, 0.6, 1.0, -0.3, rng.uniform(0, 40)])
        side = rng.choice([-1, 1])
        forward = rng.choice([0.0, 0.0, 0.25, -0.25, 0.5, rng.uniform(-20, 60)])
        tilt = rng.choice([0.0, 0.0, 5.0, -20.0, 90.0])
        bases.append(_base(f"f{k}", "A", *at(side * (80 + gap), forward), (heading + tilt) % 360))
    for k in range(rng.choice([0, 0, 1, 3])):
        bases.append(_base(f"g{k}", "A", *at(rng.uniform(-150, 150), rng.uniform(20, 150)),
                           rng.uniform(0, 360), rng.choice([25.0, 80.0]), 40.0,
                           rng.choice(["B", "gun"])))
    bases.append(_base("gen", "A", *at(0, 60), heading, 40, 40, "general"))
    return bases


def test_arc_clear_many_box_test_is_arc_clear() -> None:
    """Random crowds on tables turned by any angle: every shot's answer equals `arc_clear`,
    both answers occur, and the box test settles some shots but never a blocked one."""
    rng = random.Random(7)
    answers: set[bool] = set()
    settled = 0
    for n in range(300):
        turn = rng.choice([0.0, 90.0, 180.0, 270.0, 45.0, rng.uniform(0, 360)])
        state = GameState.from_dict({"ruleset": "italia-se-desta",
                                     "table": {"width_mm": 1200, "depth_mm": 1200},
                                     "bases": _crowd(rng, turn)})
        board = Board.of(state)
        targets = [i for i in board.infos if i.startswith("e")]
        parts = [board.rect(t).polygon for t in targets]
        want = [arc_clear(board, "s", t, p) for t, p in zip(targets, parts)]
        assert arc_clear_many(board, ["s"] * len(targets), targets, parts) == want, n
        answers |= set(want)
        settled += sum(_settled_for(board, "s", targets, parts))
    assert answers == {True, False}
    assert settled > 100, settled


def test_box_test_settles_a_clear_line() -> None:
    """A line of three firing straight ahead, neighbours touching: the box test alone settles
    every shot (so the GEOS region is not built)."""
    bases = [_base(f"a{k}", "A", 400 + 80 * k, 300, 90) for k in range(3)]
    bases += [_base(f"b{k}", "B", 400 + 80 * k, 400, 270) for k in range(3)]
    board = Board.of(GameState.from_dict({"ruleset": "italia-se-desta",
                                          "table": {"width_mm": 1200, "depth_mm": 800},
                                          "bases": bases}))
    for s in ("a0", "a1", "a2"):
        targets = ["b0", "b1", "b2"]
        parts = [board.rect(t).polygon for t in targets]
        assert [arc_clear(board, s, t, p) for t, p in zip(targets, parts)] == [True] * 3
        assert _settled_for(board, s, targets, parts) == [True] * 3


def _settled_for(board: Board, shooter: str, targets: list[str], parts: list) -> list[bool]:
    import shapely

    from campo.engine.rulesets.italia.fire_columns import _friend_matrix

    r = board.rect(shooter)
    reach = board.mm(6.0)
    ahead = np.array([[r.front_left, r.front_right,
                       r.from_local(r.width / 2, r.depth / 2 + reach),
                       r.from_local(-r.width / 2, r.depth / 2 + reach)]] * len(targets))
    part_arr = np.array(parts, dtype=object)
    reach_part = shapely.distance(np.array([r.front_edge] * len(targets)), part_arr)
    return _surely_clear(board, ahead, part_arr, reach_part,
                         _friend_matrix(board, [shooter] * len(targets))).tolist()


def test_fire_modifiers_read_distance_only_through_range_key() -> None:
    """Random facts at distances around every band edge, under every reading of the band
    edges and every weather: two shots alike but for distances with the same `range_key` get
    the same modifiers (what the memo of `shot_facts.memo_modifiers` relies on)."""
    import dataclasses

    from campo.engine.rulesets.italia.modifiers_fire import FireFacts, fire_modifiers, range_key
    from campo.engine.rulesets.italia.settings import ItaliaSettings
    from campo.errors import CampoInputError

    rng = random.Random(11)
    edges = [0.0, 3.0, 12.0, 18.0, 24.0]
    near = [e + d for e in edges for d in (0.0, 1e-9, -1e-9, 1e-3, -1e-3, 0.4)]
    far = [30.0, 2.0, 5.0]
    distances = [d for d in near + far if d >= 0]
    pairs = 0
    for band_edges in ("upper_inclusive", "upper_exclusive"):
        for weather in ("clear", "storm", "fog", "snow"):
            s = ItaliaSettings(a7_band_edges=band_edges, weather=weather,
                               a46_reduced_ammunition=rng.choice(["minus_1", "no_effect"]))
            for _ in range(120):
                facts = FireFacts(
                    firer_type=rng.choice(["A", "B", "C", "D", "E", "gun"]),
                    distance_in=0.0, firer_arm=rng.choice([None, "infantry", "artillery",
                                                           "cavalry"]),
                    weapon=rng.choice([None, "FO", "ML", "MR", "FRR"]),
                    marksmen=rng.random() < 0.3, french_guard=rng.random() < 0.2,
                    firer_shaken=rng.random() < 0.3, firer_disordered=rng.random() < 0.3,
                    battery=rng.choice(["divisional", "reserve"]), rockets=rng.random() < 0.2,
                    reduced_ammunition=rng.random() < 0.3,
                    gun_on_difficult_terrain=rng.random() < 0.3,
                    flank_fire=rng.random() < 0.4,
                    target_cover=rng.choice(["none", "soft", "hard"]),
                    target_arm=rng.choice(["infantry", "cavalry", "artillery"]),
                    target_in_battery=rng.random() < 0.3, target_limbered=rng.random() < 0.3,
                    target_single_rank=rng.random() < 0.3,
                    target_march_column=rng.random() < 0.3)
                try:
                    fire_modifiers(facts, s)
                except CampoInputError:     # an arm the firer's type cannot have
                    continue
                seen: dict[object, list] = {}
                for d in distances:
                    key = range_key(facts.firer_type, facts.firer_arm, d, s)
                    mods = fire_modifiers(dataclasses.replace(facts, distance_in=d), s)
                    if key in seen:
                        assert mods == seen[key], (facts, d)
                        pairs += 1
                    seen.setdefault(key, mods)
    assert pairs > 1000


def test_shot_modifiers_memo_is_fire_modifiers() -> None:
    """Every legal shot of snapshot battles: the memo's modifiers equal `fire_modifiers` of the
    facts built afresh for that shot."""
    import gzip
    import json
    from pathlib import Path

    from campo.engine.rulesets.italia.fire import targets_of
    from campo.engine.rulesets.italia.modifiers_fire import fire_modifiers
    from campo.engine.rulesets.italia.shot_facts import memo_modifiers, shot_facts

    files = sorted((Path(__file__).parent / "data" / "engine" / "italia_snapshots")
                   .glob("*.json.gz"))[:1]
    checked = 0
    for path in files:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            board = Board.of(GameState.from_dict(json.load(f)["scenario"]))
        for shooter in sorted(board.infos)[:60]:
            for t in targets_of(board, shooter):
                args = (board, shooter, t.id, round(t.distance, 6), t.flank_fire,
                        t.cover or "none")
                assert memo_modifiers(*args) == fire_modifiers(shot_facts(*args),
                                                               board.settings)
                checked += 1
    assert checked > 100


def test_fire_reasons_many_rows_are_new_lists() -> None:
    """Every row of `fire_reasons_many` is its own list (callers hand them out and may extend
    them), in row order across the groups of failed tests; no rows, no lists."""
    from campo.engine.rulesets.italia.fire import fire_reasons
    from campo.engine.rulesets.italia.fire_columns import fire_reasons_many

    rng = random.Random(3)
    n = 500
    cols = [np.array([rng.random() < 0.5 for _ in range(n)]) for _ in range(4)]
    margins = np.array([rng.uniform(-40, 10) for _ in range(n)])
    got = fire_reasons_many(cols[0], cols[1], margins, cols[2], cols[3])
    assert got == [fire_reasons(a, r, m, s, c) for a, r, m, s, c in zip(
        cols[0].tolist(), cols[1].tolist(), margins.tolist(), cols[2].tolist(), cols[3].tolist())]
    assert len({id(row) for row in got}) == n and all(type(row) is list for row in got)
    empty = np.zeros(0, dtype=bool)
    assert fire_reasons_many(empty, empty, np.zeros(0), empty, empty) == []
