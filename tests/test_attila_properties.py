"""ATTILA property tests: answers do not change when the whole table is moved or turned, and the
spatial index (fast path) gives exactly the plain path's answers (random positions, hypothesis)."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.state import GameState
from tests.engine_golden import load_golden, strip_positional, transform_scenario
from tests.test_attila_golden import GOLDEN_FILES

SIZES = {"FP": (40, 20), "FLP": (40, 20), "SI": (40, 20), "FL": (40, 20), "CP": (40, 30),
         "CL": (40, 30), "chariot_light": (40, 40), "chariot_heavy": (40, 40),
         "general": (40, 40), "camp": (80, 60)}


@st.composite
def scenarios(draw: Any) -> dict[str, Any]:
    n = draw(st.integers(2, 9))
    bases = []
    for i in range(n):
        kind = draw(st.sampled_from(list(SIZES)))
        w, d = SIZES[kind]
        traits: dict[str, Any] = {}
        if kind not in ("general", "camp"):
            if draw(st.booleans()):
                traits["missile"] = draw(st.sampled_from(["javelins", "slings", "bows"]))
            if draw(st.booleans()):
                traits["group"] = draw(st.sampled_from(["g", "h"]))
            if draw(st.booleans()):
                traits["melee_die"] = draw(st.sampled_from(["d4", "d6", "d8", "d10", "d12"]))
            traits["disordered"] = draw(st.booleans())
            traits["tribal"] = draw(st.booleans())
        heading = draw(st.sampled_from([0, 90, 180, 270])) if draw(st.booleans()) \
            else draw(st.integers(0, 359))
        bases.append({"id": f"b{i}", "side": draw(st.sampled_from("AB")), "type": kind,
                      # generic (non-lattice) positions: an exact tie with a tolerance would
                      # flip with float noise under rotation; boundaries are hand-tested elsewhere
                      "x_mm": draw(st.floats(100, 500)), "y_mm": draw(st.floats(100, 500)),
                      "heading_deg": heading, "width_mm": w, "depth_mm": d, "traits": traits})
    terrain = []
    for kind in ("wood", "hill", "rough"):
        if draw(st.booleans()):
            x, y = draw(st.integers(100, 450)), draw(st.integers(100, 450))
            terrain.append({"id": kind, "kind": kind,
                            "polygon_mm": [[x, y], [x + 90, y], [x + 90, y + 70], [x, y + 70]]})
    return {"ruleset": "attila", "table": {"width_mm": 1800, "depth_mm": 1200},
            "terrain": terrain, "bases": bases,
            "armies": {"A": {"discipline": "veteran"}, "B": {"discipline": "irregular"}}}


def _close(a: Any, b: Any, where: str = "") -> None:
    """Structural equality with numbers compared to 0.02 of a unit."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and sorted(a) == sorted(b), f"{where}: {sorted(a)} != {sorted(b)}"
        for k in a:
            _close(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), f"{where}: {a} != {b}"
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and not isinstance(a, bool):
        assert isinstance(b, (int, float)) and math.isclose(a, b, abs_tol=0.02), f"{where}: {a} != {b}"
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def _verdicts(sc: dict[str, Any]) -> dict[str, Any]:
    out = engine.analyze(sc)
    out.pop("problems")     # "partly off the table" depends on where the table is
    out.pop("deployment")   # zones are measured from the table's edges
    return strip_positional(out)


PROPS = settings(max_examples=25, deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.too_slow])


@PROPS
@given(scenarios(), st.floats(0, 360, allow_nan=False), st.floats(-500, 500), st.floats(-500, 500))
def test_moving_the_whole_table_changes_nothing(sc: dict[str, Any], turn: float, dx: float,
                                                dy: float) -> None:
    _close(_verdicts(sc), _verdicts(transform_scenario(sc, turn, dx, dy)))


@PROPS
@given(scenarios())
def test_spatial_index_equals_plain_path(sc: dict[str, Any]) -> None:
    assert GameState.from_dict(sc).analyze() == GameState.from_dict(sc, use_index=False).analyze()


def test_golden_scenarios_turned_and_shifted() -> None:
    for path in GOLDEN_FILES:
        sc = load_golden(path)["scenario"]
        for turn, dx, dy in ((90.0, 1200.0, 0.0), (37.0, 250.0, -400.0), (211.5, 1900.0, 1500.0)):
            _close(_verdicts(sc), _verdicts(transform_scenario(sc, turn, dx, dy)), path.stem)


def test_copy_is_independent() -> None:
    sc = load_golden(GOLDEN_FILES[0])["scenario"]
    s = GameState.from_dict(sc)
    before = s.analyze()
    t = s.copy()
    t.move(sc["bases"][1]["id"], x_mm=1700, y_mm=1100)
    assert s.analyze() == before and t.analyze() != before
