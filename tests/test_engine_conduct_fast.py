"""The all-bases fast path of the ISD movement answers (engine/rulesets/italia/conduct_batch.py,
used when the state has its spatial index) gives exactly the per-base plain path's answers
(``use_index=False``): retreat (fall back, rout, what the rout meets, capture), pursuit,
movement and manoeuvre, on crowded random positions, the snapshot battles and hypothesis
positions, compared as JSON text (so 5 and 5.0, or 0.0 and -0.0, would differ too)."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import shapely
from hypothesis import given
from hypothesis import strategies as st

from campo.engine.geometry.arcs import arc_vertices
from campo.engine.geometry.contact import RectTable
from campo.engine.geometry.rect import Rect
from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.conduct import manoeuvre_of, movement_of, pursuit_of, retreat_of
from campo.engine.rulesets.italia.conduct_batch import (_arc_rings, _Columns,
                                                  _moved_front, _on_table, _overlaps_over,
                                                  _quads_meeting,
                                                  _round_tenths, pursuits, retreats)
from campo.engine.rulesets.italia.conduct_paths import _inner_corners, _straight
from campo.engine.rulesets.italia.pieces import CHARGE_ARC_HALF_DEG
from campo.engine.state import GameState
from tests.engine_crowds import SIZES, crowd_bases
from tests.ruleset_properties import property_settings

SNAPSHOTS = sorted((Path(__file__).parent / "data" / "engine" / "italia_snapshots").glob("*.json.gz"))
VARIANTS: list[dict[str, Any]] = [
    {}, {"a39_router_gap": "enemy_only"}, {"a24_contact_tolerance_in": 0.25},
    {"a38_fall_back_direction": "toward_own_edge", "a40_pursuit_direction": "toward_enemy"},
    {"a25_cavalry_charge_distance_in": 20.0}, {"a17_cavalry_blocks_sight": False},
]


def _answers(state: GameState) -> str:
    """Every base's four answers, as JSON text."""
    board = Board.of(state)
    return json.dumps({i: [retreat_of(board, i), pursuit_of(board, i), movement_of(board, i),
                           manoeuvre_of(board, i)] for i in sorted(board.infos)}, sort_keys=True)


def _crowd(seed: int, settings: dict[str, Any], n: int = 70) -> dict[str, Any]:
    """Bases packed on a small table: many touch, some overlap or stick out of the table, routs
    and pursuits run into enemies; some lines side by side, the rest turned at random."""
    bases = crowd_bases(seed, n, (0.0, 90.0, 180.0, 270.0))
    terrain = [{"id": "wood", "kind": "wood", "polygon_mm": [[300, 250], [420, 250], [420, 330],
                                                               [300, 330]]},
               {"id": "marsh", "kind": "marsh", "polygon_mm": [[100, 400], [200, 380], [220, 470],
                                                                 [90, 480]]}]
    return {"ruleset": "italia-se-desta", "table": {"width_mm": 700, "depth_mm": 600},
            "terrain": terrain, "bases": bases, "settings": settings}


@pytest.mark.parametrize("seed", range(len(VARIANTS) * 2))
def test_crowded_positions_fast_equals_plain(seed: int) -> None:
    sc = _crowd(seed, VARIANTS[seed % len(VARIANTS)])
    fast = GameState.from_dict(sc)
    assert _answers(fast) == _answers(GameState.from_dict(sc, use_index=False))


def test_crowds_reach_every_branch() -> None:
    """The crowds above do exercise what they check: routs meeting enemies (captured or not),
    pursuits that may contact enemies."""
    captured, escaped, contacts = 0, 0, 0
    for seed in range(0, len(VARIANTS) * 2, len(VARIANTS)):   # default settings
        board = Board.of(GameState.from_dict(_crowd(seed, {})))
        routs, chases = retreats(board), pursuits(board)
        assert routs is not None and chases is not None   # the fast path answers
        for r in routs.values():
            captured += bool(r.enemies) and r.captured
            escaped += bool(r.enemies) and not r.captured
        contacts += sum(len(p.may_contact) for p in chases.values())
    assert captured and escaped and contacts


@pytest.mark.parametrize("path", SNAPSHOTS[:8], ids=[p.name.split(".")[0] for p in SNAPSHOTS[:8]])
def test_snapshot_battles_fast_equals_plain(path: Path) -> None:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        sc = json.load(f)["scenario"]
    assert _answers(GameState.from_dict(sc)) == _answers(GameState.from_dict(sc, use_index=False))


def test_other_settings_keep_the_per_base_path() -> None:
    """Routs toward the own edge and pursuits toward the enemy are answered base by base."""
    sc = _crowd(1, {"a38_fall_back_direction": "toward_own_edge",
                    "a40_pursuit_direction": "toward_enemy"})
    board = Board.of(GameState.from_dict(sc))
    assert retreats(board) is None and pursuits(board) is None


@st.composite
def _positions(draw: Any) -> dict[str, Any]:
    n = draw(st.integers(2, 12))
    bases = []
    for i in range(n):
        kind = draw(st.sampled_from(list(SIZES)))
        w, d = SIZES[kind]
        bases.append({"id": f"b{i}", "side": draw(st.sampled_from("AB")), "type": kind,
                      "x_mm": draw(st.integers(0, 500)), "y_mm": draw(st.integers(0, 400)),
                      "heading_deg": draw(st.sampled_from([0, 90, 180, 270, 33.3, 301])),
                      "width_mm": w, "depth_mm": d,
                      "traits": {"rank": "division"} if kind == "general" else {}})
    return {"ruleset": "italia-se-desta", "table": {"width_mm": 500, "depth_mm": 400},
            "bases": bases}


@property_settings(max_examples=40)
@given(_positions())
def test_random_positions_fast_equals_plain(sc: dict[str, Any]) -> None:
    assert _answers(GameState.from_dict(sc)) == _answers(GameState.from_dict(sc, use_index=False))


def test_round_tenths_equals_python_round() -> None:
    rng = np.random.default_rng(3)
    ties = np.array([k / 20 for k in range(-4000, 4000)])   # x.x5: halfway, as written
    values = np.concatenate([rng.uniform(-3000, 3000, 20000), ties, ties + 1e-13,
                             np.round(rng.uniform(-3000, 3000, 5000), 2), [0.0, -0.0, -0.04, 1e13]])
    got = _round_tenths(values.reshape(2, -1))
    want = [[round(float(v), 1) for v in row] for row in values.reshape(2, -1)]
    assert json.dumps(got) == json.dumps(want)


def test_moved_front_follows_the_heading_taken_modulo_360() -> None:
    for heading in (-30.0, 400.0, 0.0, 359.9, 720.0):
        r = Rect(10.0, 20.0, heading, 80.0, 40.0)
        assert _moved_front(r) == r.moved(5.0, -3.0).front


def _random_rects(seed: int, n: int = 400) -> list[Rect]:
    rng = random.Random(seed)
    return [Rect(rng.uniform(-200, 2000), rng.uniform(-200, 1400),
                 rng.choice([0.0, 90.0, 180.0, 270.0, rng.uniform(0, 360)]),
                 rng.choice([80.0, 25.0, 40.0, 0.5]), rng.choice([40.0, 30.0, 20.0]))
            for _ in range(n)]


def test_arc_rings_equal_arc_vertices() -> None:
    rects = _random_rects(1)
    reach = np.array([random.Random(k).choice([75.0, 150.0]) for k in range(len(rects))])
    want = np.array([arc_vertices(r.front_left, r.front_right, r.front, CHARGE_ARC_HALF_DEG, x)
                     for r, x in zip(rects, reach.tolist())])
    fronts = np.array([(r.front_left, r.front_right) for r in rects])
    assert np.array_equal(_arc_rings(_Columns.of(rects), fronts, reach), want)
    table = RectTable(rects)   # the columns read from a RectTable are the same floats
    at = np.arange(len(rects))[::-1].copy()
    picked = [rects[k] for k in at.tolist()]
    for got, want_col in zip(_Columns.at(table, at), _Columns.of(picked)):
        assert np.array_equal(np.ascontiguousarray(got).view(np.int64),   # bit for bit
                              np.ascontiguousarray(want_col).view(np.int64))
    assert np.array_equal(table.corners[at, :2], [(r.front_left, r.front_right) for r in picked])


@pytest.mark.parametrize("backward", [True, False])
def test_swept_bands_and_end_poses_equal_the_straight_moves(backward: bool) -> None:
    bases = [{"id": f"r{k}", "side": "A", "type": "B", "x_mm": r.cx, "y_mm": r.cy,
              "heading_deg": r.heading_deg, "width_mm": r.width, "depth_mm": r.depth}
             for k, r in enumerate(_random_rects(2))]
    board = Board.of(GameState.from_dict({"ruleset": "italia-se-desta", "bases": bases,
                                          "table": {"width_mm": 1800, "depth_mm": 1200}}))
    rects = [board.rect(b["id"]) for b in bases]
    col = _Columns.of(rects)
    inches = [random.Random(k).choice([3.0, 6.0, 12.0, 0.0]) for k in range(len(rects))]
    d = board.mm(np.array(inches)) * (-1.0 if backward else 1.0)
    ex, ey = col.moved(d)
    moves = [_straight(board, f"r{k}", x, backward) for k, x in enumerate(inches)]
    assert ex.tolist() == [end.cx for end, _ in moves] and ey.tolist() == [end.cy for end, _ in moves]
    for shrink in (0.0, 1.75):
        assert np.array_equal(col.swept(ex, ey, d, shrink),
                              _inner_corners([band for _, band in moves], shrink))
    table = {"width_mm": 1800.0, "depth_mm": 1200.0}
    on = [all(-1.0 <= x <= table["width_mm"] + 1.0 and -1.0 <= y <= table["depth_mm"] + 1.0
              for x, y in end.corners) for end, _ in moves]
    assert _on_table(board, rects, ex, ey, col) == on
    assert not all(on) and any(on)


@pytest.mark.parametrize("seed", range(3))
def test_compiled_meeting_pairs_equal_the_index_query(seed: int) -> None:
    """`_quads_meeting` (boxes and the convex gap compiled, close calls to GEOS) gives the pairs
    of the STRtree ``dwithin`` query at 0, ``wanted`` applied, for quadrilaterals that touch
    bases along edges and at corners (the close calls), overlap them or miss them, rotated."""
    board = Board.of(GameState.from_dict(_crowd(seed, {})))
    rng = np.random.default_rng(seed)
    bases = np.array([board.rect(i).corners for i in board.state.index.ids])
    turn = rng.uniform(0, 2 * np.pi, size=len(bases))
    centre = bases.mean(axis=1, keepdims=True)
    c, s = np.cos(turn)[:, None], np.sin(turn)[:, None]
    dx, dy = bases[..., 0] - centre[..., 0], bases[..., 1] - centre[..., 1]
    turned = np.stack([centre[..., 0] + c * dx - s * dy, centre[..., 1] + s * dx + c * dy], axis=2)
    quads = np.ascontiguousarray(np.concatenate([
        bases, bases + rng.choice([0.0, 40.0, 80.0], size=(len(bases), 1, 2)),
        bases[::-1] + rng.uniform(-60, 60, size=(len(bases), 1, 2)), turned]))
    want_si, want_bi = board.state.index.query_many(shapely.polygons(quads), 0.0)
    got = _quads_meeting(board, quads, lambda si, bi: np.ones(len(si), dtype=bool))
    assert np.array_equal(got[0], want_si) and np.array_equal(got[1], want_bi)
    odd = _quads_meeting(board, quads, lambda si, bi: (si + bi) % 2 == 1)
    keep = (want_si + want_bi) % 2 == 1
    assert np.array_equal(odd[0], want_si[keep]) and np.array_equal(odd[1], want_bi[keep])
    # both ways of deciding are exercised: pairs the compiled gap settles, close calls GEOS does
    from campo.engine.geometry.box_kernel import pair_gaps
    gaps = pair_gaps(quads, board.rect_table.corners, want_si, want_bi)
    assert (np.abs(gaps) <= 1e-6).any() and (gaps < -1e-6).any()
    # the corners read are those of the index's polygons
    coords = shapely.get_coordinates(board.state.index.shapes).reshape(-1, 5, 2)
    assert np.array_equal(coords[:, :4], board.rect_table.corners)


def test_compiled_box_pairs_are_the_envelope_pairs() -> None:
    """`quad_box_pairs` finds every quad and base whose boxes meet, touching boxes included:
    the candidates an STRtree query of the quads' polygons tests, as a set."""
    from campo.engine.geometry.box_kernel import quad_box_pairs

    board = Board.of(GameState.from_dict(_crowd(1, {})))
    bases = np.array([board.rect(i).corners for i in board.state.index.ids])
    quads = np.ascontiguousarray(np.concatenate([bases, bases + 80.0, bases * 1.3 - 50.0]))
    boxes = shapely.bounds(board.state.index.shapes)
    order = np.argsort(boxes[:, 0], kind="stable")
    qi, bi = quad_box_pairs(quads, boxes, order, np.ascontiguousarray(boxes[order, 0]),
                            float((boxes[:, 2] - boxes[:, 0]).max()))
    si, sb = shapely.STRtree(board.state.index.shapes).query(shapely.polygons(quads))
    assert sorted(zip(qi.tolist(), bi.tolist())) == sorted(zip(si.tolist(), sb.tolist()))
    assert set(range(len(bases))) <= set(qi.tolist())   # each base's own quad meets its box
    assert len(set(qi.tolist())) < len(quads)   # and some quads meet no box


@pytest.mark.parametrize("seed", range(2))
def test_compiled_overlap_areas_decide_as_geos(seed: int) -> None:
    """`_overlaps_over` (the pursuit's "more than a mere touch of the arc") answers as
    ``shapely.area(shapely.intersection(...)) > limit``, for quads overlapping bases deeply, by a
    sliver, only touching them or missing them, and at limits equal to the very areas (where
    the compiled area is unsure and GEOS decides)."""
    board = Board.of(GameState.from_dict(_crowd(seed, {})))
    rng = np.random.default_rng(seed)
    corners = board.rect_table.corners
    at = rng.integers(0, len(corners), size=300)
    shift = rng.choice([0.0, 0.5, 20.0, 39.9, 40.0, 80.0, 200.0], size=(300, 1, 2))
    quads = np.ascontiguousarray(corners[at] + shift)
    polygons = shapely.polygons(quads)
    areas = shapely.area(shapely.intersection(polygons, board.state.index.shapes[at]))
    assert (areas == 0).any() and ((areas > 0) & (areas < 1.5)).any() and (areas > 100).any()
    for limit in (1.0, 0.0, float(np.median(areas[areas > 0]))):
        np.testing.assert_array_equal(_overlaps_over(board, quads, at, limit), areas > limit)
