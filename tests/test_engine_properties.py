"""Property tests: answers do not change when the whole table is moved or turned, and the spatial
index (fast path) gives exactly the plain path's answers."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.state import GameState
from tests.engine_golden import GOLDEN_FILES, load_golden, strip_positional, transform_scenario

SIZES = {"B": (80, 40), "C": (80, 30), "D": (80, 20), "E": (50, 20), "gun": (25, 40),
         "general": (40, 40)}


@st.composite
def scenarios(draw: Any) -> dict[str, Any]:
    n = draw(st.integers(2, 9))
    bases = []
    for i in range(n):
        kind = draw(st.sampled_from(list(SIZES)))
        w, d = SIZES[kind]
        traits: dict[str, Any] = {}
        if kind == "general":
            traits["rank"] = draw(st.sampled_from(["division", "corps"]))
        if kind == "B" and draw(st.booleans()):
            traits["light"] = True
        if kind == "E":
            traits["arm"] = draw(st.sampled_from(["infantry", "cavalry"]))
        bases.append({"id": f"b{i}", "side": draw(st.sampled_from("AB")), "type": kind,
                      "x_mm": draw(st.integers(100, 700)), "y_mm": draw(st.integers(100, 700)),
                      "heading_deg": draw(st.integers(0, 359)), "width_mm": w, "depth_mm": d,
                      "traits": traits})
    terrain = []
    if draw(st.booleans()):
        x, y = draw(st.integers(150, 600)), draw(st.integers(150, 600))
        terrain.append({"id": "wood", "kind": "wood",
                        "polygon_mm": [[x, y], [x + 90, y], [x + 90, y + 70], [x, y + 70]]})
    if draw(st.booleans()):
        x, y = draw(st.integers(150, 600)), draw(st.integers(150, 600))
        terrain.append({"id": "hill", "kind": "hill",
                        "polygon_mm": [[x, y], [x + 200, y], [x + 200, y + 120], [x, y + 120]],
                        "crest_mm": [[x, y + 60], [x + 200, y + 60]]})
    return {"ruleset": "italia-se-desta", "table": {"width_mm": 1800, "depth_mm": 1200},
            "terrain": terrain, "bases": bases}


def _close(a: Any, b: Any, where: str = "") -> None:
    """Structural equality with numbers compared to 0.02 of a unit."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and sorted(a) == sorted(b), f"{where}: keys {sorted(a)} != {sorted(b)}"
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
    out.pop("problems")   # "partly off the table" depends on where the table is
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
    fast = GameState.from_dict(sc).analyze()
    plain = GameState.from_dict(sc, use_index=False).analyze()
    assert fast == plain


def test_golden_scenarios_turned_and_shifted() -> None:
    for path in GOLDEN_FILES:
        sc = load_golden(path)["scenario"]
        for turn, dx, dy in ((90.0, 1200.0, 0.0), (37.0, 250.0, -400.0), (211.5, 1900.0, 1500.0)):
            _close(_verdicts(sc), _verdicts(transform_scenario(sc, turn, dx, dy)), path.stem)
