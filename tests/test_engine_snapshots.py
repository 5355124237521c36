"""Snapshot tests: the full ISD `engine.analyze` output of seeded battles stays exactly the same;
and the fast geometry primitives behind it give exactly the plain ones' answers.

The files under tests/data/engine/italia_snapshots/ were written by the engine BEFORE its
performance work (issue 3), so they guard every optimisation against changing any answer: the
output is rounded (2 decimals in inches, 0.1 mm), so equality is exact. They were regenerated
once on purpose for the targets contract fix (every enemy in the arc at any distance, absent =
stale bases never listed): every earlier target entry was checked unchanged, only entries with
in_range false were added. They are not golden files
(the answers were not derived by hand); tests/test_engine_golden.py checks the rules themselves.

Each file (gzipped JSON) holds ``scenario`` (a battle from bench/engine_analysis.py's generator,
perturbed: moved and turned bases, contacts, light/stale/disordered/limbered units, some ambiguity
settings changed) and ``expect`` (what ``engine.analyze`` returned).

Regenerate only when an answer is meant to change (say why in the commit):
    .venv/bin/python -m tests.test_engine_snapshots --write
"""

from __future__ import annotations

import gzip
import json
import math
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import shapely
from hypothesis import given, settings
from hypothesis import strategies as st

from campo import engine
from campo.engine.geometry.motion import outline, slide_convex, slide_distance
from campo.engine.geometry.rect import Rect, unit_vector
from campo.engine.geometry.sight import SightField, SightQuery
from campo.engine.state import GameState

SNAPSHOTS = Path(__file__).parent / "data" / "engine" / "italia_snapshots"
FILES = sorted(SNAPSHOTS.glob("*.json.gz"))
COUNT = 30

SETTINGS_VARIANTS: list[dict[str, Any]] = [
    {"a17_cavalry_blocks_sight": False}, {"weather": "fog"}, {"a16_crest_blocks": "any_crossing"},
    {"a15_area_depth_counts_own": True}, {"a14_line_of_sight": "all_lines"},
    {"a5_in_arc_test": "centre"}, {"a29_interception": "off"},
    {"a33_contact_aspect": "contact_midpoint"}, {"a4_arc_origin": "front_centre"},
    {"a10_clear_arc": "whole_arc"}, {"a9_artillery_priority": "none"},
]


def _load(path: Path) -> dict[str, Any]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def _diff(a: Any, b: Any, where: str = "") -> str | None:
    """The first place two JSON values differ (a readable failure instead of a 200 kB dump)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{where}.{k}: only in {'expected' if k in a else 'actual'}"
            found = _diff(a[k], b[k], f"{where}.{k}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            found = _diff(x, y, f"{where}[{i}]")
            if found:
                return found
        return None if len(a) == len(b) else f"{where}: {len(a)} items != {len(b)}"
    return None if a == b and type(a) is type(b) else f"{where}: expected {a!r}, got {b!r}"


def test_snapshots_present() -> None:
    assert len(FILES) == COUNT, f"expected {COUNT} snapshot files in {SNAPSHOTS}"


@pytest.mark.parametrize("path", FILES, ids=[p.name.split(".")[0] for p in FILES])
def test_analysis_unchanged(path: Path) -> None:
    snap = _load(path)
    got = json.loads(json.dumps(engine.analyze(snap["scenario"])))   # tuples -> lists, as stored
    assert got == snap["expect"], _diff(snap["expect"], got)


@pytest.mark.parametrize("path", FILES[:6], ids=[p.name.split(".")[0] for p in FILES[:6]])
def test_plain_path_unchanged(path: Path) -> None:
    """The plain reference path (no spatial index) gives the same snapshot."""
    snap = _load(path)
    state = GameState.from_dict(snap["scenario"], use_index=False)
    got = json.loads(json.dumps(engine.analyze(state)))
    assert got == snap["expect"], _diff(snap["expect"], got)


# --- the fast primitives behind the snapshots equal the plain ones ----------------------------

_coord = st.floats(-300, 300, allow_nan=False, allow_infinity=False)


@st.composite
def _rects(draw: Any) -> Rect:
    return Rect(draw(_coord), draw(_coord), draw(st.floats(0, 359.9)),
                draw(st.sampled_from([25.0, 40.0, 80.0])), draw(st.sampled_from([20.0, 40.0])))


@settings(max_examples=150, deadline=None)
@given(_rects(), _rects(), st.floats(0, 359.9), st.booleans())
def test_slide_convex_equals_slide_distance(a: Rect, b: Rect, heading: float, front_only: bool) -> None:
    d = unit_vector(heading)
    moving = (a.front_left, a.front_right) if front_only else a.corners
    shape = a.front_edge if front_only else a.polygon
    fast = slide_convex(moving, shape, b.corners, b.polygon, d)
    plain = slide_distance(outline(moving if front_only else a), outline(b), d)
    assert fast == plain or (math.isinf(fast) and math.isinf(plain))
    for segs in (8, 64):   # a 2" zone's outline; a long one (slide_convex's numpy branch)
        zone = b.polygon.buffer(50.0, quad_segs=segs)
        ring = [tuple(v) for v in outline(zone).tolist()]
        assert slide_convex(a.corners, a.polygon, ring, zone, d) == \
            slide_distance(outline(a), outline(zone), d)


def test_segments_docstring_examples() -> None:
    import doctest

    import campo.engine.geometry.segments as segments

    result = doctest.testmod(segments)
    assert result.attempted > 0 and result.failed == 0


def test_slide_nearly_parallel_edges_raise_no_overflow() -> None:
    """A denominator of 1e-309 used to overflow the quotient (a RuntimeWarning, an error here)."""
    moving = np.array([[0.0, -5.0], [10.0, -5.0]])
    obstacle = np.array([[0.0, 1e-309], [10.0, 0.0]])
    assert math.isinf(slide_distance(moving, obstacle, (1.0, 0.0)))


@settings(max_examples=60, deadline=None)
@given(st.lists(_rects(), min_size=1, max_size=8),
       st.lists(st.tuples(_coord, _coord, _coord, _coord), min_size=2, max_size=30),
       st.floats(0.0, 20.0))
def test_bulk_sight_equals_plain(bodies: list[Rect], segs: list[tuple[float, ...]],
                                 corridor: float) -> None:
    """`clear_many` (its one-pass body test on rectangles) gives exactly the rule tested one
    shapely call at a time."""
    field = SightField([r.polygon for r in bodies], [f"b{i}" for i in range(len(bodies))],
                       deep_areas=[Rect(0.0, 0.0, 0.0, 150.0, 90.0).polygon], max_depth=50.0,
                       graze=0.5)
    queries = [SightQuery(frozenset({"b0"}), corridor, frozenset({"b1"})),
               SightQuery(frozenset(), 0.0)]
    xy = np.array(segs, dtype=float).reshape(-1, 2, 2)
    owners = np.arange(len(xy)) % 2
    fast = field.clear_many(shapely.linestrings(xy), owners, queries)

    def plain(line: Any, q: SightQuery) -> bool:   # the rule itself, one shapely call at a time
        for body, bid in zip(field.bodies, field.body_ids):
            if bid in q.exclude:
                continue
            if shapely.intersects(line, body) or (q.corridor > 0 and bid not in q.corridor_exclude
                                                  and shapely.dwithin(line, body, q.corridor)):
                return False
        depth = shapely.length(shapely.intersection(line, field.deep_areas[0]))
        return not depth > field.max_depth + 1e-6

    lines = shapely.linestrings(xy)
    assert fast.tolist() == [plain(lines[i], queries[o]) for i, o in enumerate(owners.tolist())]


# --- writing the snapshots (not a test) -------------------------------------------------------

def make_scenario(seed: int) -> dict[str, Any]:
    """A perturbed bench battle: 20-200 bases, terrain, contacts and odd traits."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    from engine_analysis import battle

    rng = random.Random(seed)
    n = rng.choice([20, 30, 40, 50, 60, 80, 100, 120, 150, 200])
    width = rng.choice([1800.0, max(600.0, 1800.0 * n / 200)])
    sc = battle(n, width, seed=seed)
    for b in sc["bases"]:
        roll = rng.random()
        if roll < 0.25:      # moved and turned a little (tracking is never square)
            b["x_mm"] = round(b["x_mm"] + rng.uniform(-40, 40), 1)
            b["y_mm"] = round(b["y_mm"] + rng.uniform(-40, 40), 1)
            b["heading_deg"] = round((b["heading_deg"] + rng.uniform(-25, 25)) % 360, 1)
        elif roll < 0.33:    # pushed toward the enemy: contacts, melees, charges
            sign = 1 if b["side"] == "A" else -1
            b["y_mm"] = round(b["y_mm"] + sign * rng.uniform(100, 420), 1)
        elif roll < 0.36:    # turned to face anywhere
            b["heading_deg"] = round(rng.uniform(0, 360), 1)
        t, traits = b["type"], b["traits"]
        if t == "B" and rng.random() < 0.1:
            traits["light"] = True
        if t in ("B", "C") and rng.random() < 0.05:
            traits["disordered"] = True
        if t == "B" and rng.random() < 0.03:
            traits["formation"] = "march_column"
        if t == "gun" and rng.random() < 0.08:
            traits["limbered"] = True
        if t == "gun" and rng.random() < 0.05:
            traits["rockets"] = True
        if t == "gun" and rng.random() < 0.1:
            traits["horse"] = True
        if rng.random() < 0.02:
            b["stale"] = True
    if rng.random() < 0.3:   # a tree row and a town
        sc["terrain"].append({"id": "trees", "kind": "tree_row",
                              "line_mm": [[200.0, 600.0], [rng.uniform(400, 900), 620.0]]})
    if rng.random() < 0.3:
        x = rng.uniform(100, width - 300)
        sc["terrain"].append({"id": "town", "kind": "town", "polygon_mm": [
            [x, 700.0], [x + 150, 700.0], [x + 150, 800.0], [x, 800.0]]})
    if rng.random() < 0.35:
        sc["settings"] = rng.choice(SETTINGS_VARIANTS)
    return sc


def write_snapshots() -> None:
    SNAPSHOTS.mkdir(parents=True, exist_ok=True)
    for old in SNAPSHOTS.glob("*.json.gz"):
        old.unlink()
    for seed in range(COUNT):
        sc = make_scenario(seed)
        expect = json.loads(json.dumps(engine.analyze(sc)))
        body = json.dumps({"seed": seed, "scenario": sc, "expect": expect}, separators=(",", ":"))
        path = SNAPSHOTS / f"battle-{seed:02d}-{len(sc['bases'])}.json.gz"
        with gzip.GzipFile(path, "wb", mtime=0, compresslevel=9) as f:
            f.write(body.encode("utf-8"))


if __name__ == "__main__":
    if "--write" not in sys.argv:
        sys.exit("usage: python -m tests.test_engine_snapshots --write")
    write_snapshots()


# Table coordinates as the tracker gives them (micrometre steps): hypothesis's own floats reach
# 1e-90, where "on an edge" and "1e-90 mm outside it" cannot both match GEOS's exact predicates.
_table_coord = st.integers(-300_000, 300_000).map(lambda um: um / 1000.0)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_table_coord, _table_coord), min_size=3, max_size=8),
       st.lists(st.tuples(_table_coord, _table_coord, _table_coord, _table_coord), min_size=1, max_size=6))
def test_convex_chords_equal_geos_lengths(points: list[tuple[float, float]],
                                          segs: list[tuple[float, ...]]) -> None:
    """`segments.convex_chords` (the numpy depth inside convex woods) = GEOS's length of the
    intersection, for random convex polygons (hulls of random points) and segments."""
    from campo.engine.geometry.segments import convex_chords

    hull = shapely.convex_hull(shapely.MultiPoint(points))
    if hull.geom_type != "Polygon" or hull.area < 1.0:
        return
    field = SightField(deep_areas=[hull], max_depth=0.0)
    edges = field._convex_area_edges[0]
    assert edges is not None
    xy = np.array(segs, dtype=float).reshape(-1, 2, 2)
    got = convex_chords(xy[:, 0], xy[:, 1], edges)
    want = shapely.length(shapely.intersection(shapely.linestrings(xy), hull))
    assert np.allclose(got, want, atol=1e-6), (got, want)
