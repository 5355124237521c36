"""Fast path equals reference path for Federico (shared/style.md, "Tests"). ATTILA has one
implementation of each rule and no snapshots (its golden files and property tests guard it).

Two checks:

* **Snapshots**: `engine.analyze` (and `overlay_geometry` of every base, for the random positions)
  of the golden scenarios, of seeded random positions (contacts, flank and rear attacks, terrain,
  non-default gap settings) and of the 25/50-base bench battles were recorded into
  tests/data/engine/fastpath/*.json by the code as written BEFORE it was optimised (spatial-index
  pruning, cached geometry, batched sight lines). The optimised engine must give exactly the same
  output: floats compare as the output rounds them, i.e. exactly.
* **Plain path**: on hypothesis-generated positions, the analysis with the spatial index and the
  batched paths (``use_index=True``: all targets at once with certainly-blocked sight lines
  skipped, neighbourhoods from one bulk query) equals the plain path (``use_index=False``:
  firer by firer, line by line, one query per question). The charge searches share their code
  between the two paths; the snapshots guard them.

Re-record the snapshots (only when an answer changes ON PURPOSE, saying why in the review):
``.venv/bin/python -m tests.test_rulesets_fast_path --write``
"""

from __future__ import annotations

import functools
import json
import math
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campo import engine
from campo.engine.state import GameState
from tests.bench_modules import bench_module

ROOT = Path(__file__).resolve().parents[1]
SNAP_DIR = Path(__file__).parent / "data" / "engine" / "fastpath"
RULESETS = ("federico",)
RANDOM_SEEDS = range(12)

# --- seeded random positions -------------------------------------------------------------------
FEDERICO_KINDS = {"infantry": (40, 20), "cavalry": (40, 30), "artillery": (40, 40),
                  "commander": (30, 30)}
FEDERICO_SETTINGS = {
    "f1_zones": ["corner_diagonals"], "f3_artillery_arc": ["straight_ahead"],
    "f4_range_measure": ["front_edge_to_nearest_point", "centre_to_centre"],
    "f5_line_of_sight": ["all_lines", "centre_to_centre", "ignore"],
    "f6_target_choice": ["nearest_legal"], "f8_enfilade": ["front_centre_beyond"],
    "f12_target_unit": ["base"], "f15_wheels": ["free_turn"], "f16_halved_move": ["portion_only"],
    "f18_attack_reach": ["distance_only"], "f19_flank_attack": ["attacker_zone"],
    "f20_outnumbering": ["contact_only"], "f22_fall_back": ["toward_own_table_edge"],
    "command_radius_cm": [15.0],
}


def _unit(heading: float) -> tuple[float, float]:
    a = math.radians(heading)
    return math.cos(a), math.sin(a)


def _next_to(rng: random.Random, other: dict[str, Any], w: float, d: float,
             friendly: bool) -> tuple[float, float, float]:
    """A pose touching ``other`` (gap 0-1.5 mm): front to front, on a flank, behind, beside."""
    f = _unit(other["heading_deg"])
    r = (f[1], -f[0])
    ow, od = other["width_mm"], other["depth_mm"]
    gap = rng.uniform(0.0, 1.5)
    cx, cy, h = other["x_mm"], other["y_mm"], other["heading_deg"]
    how = rng.choice(["beside", "behind"] if friendly else ["front", "front", "flank", "rear"])
    slide = rng.uniform(-0.4, 0.4) * ow
    if how == "front":
        k = od / 2 + d / 2 + gap
        return cx + f[0] * k + r[0] * slide, cy + f[1] * k + r[1] * slide, h + 180.0
    if how == "rear":
        k = od / 2 + d / 2 + gap
        return cx - f[0] * k + r[0] * slide, cy - f[1] * k + r[1] * slide, h
    if how == "flank":
        s = rng.choice([-1, 1])
        k = ow / 2 + d / 2 + gap
        return cx + s * r[0] * k, cy + s * r[1] * k, h + (90.0 if s > 0 else -90.0) + 180.0
    if how == "behind":
        k = od / 2 + d / 2 + gap
        return cx - f[0] * k, cy - f[1] * k, h
    s = rng.choice([-1, 1])
    k = ow / 2 + w / 2 + gap
    return cx + s * r[0] * k, cy + s * r[1] * k, h


def random_terrain(rng: random.Random, ruleset: str) -> list[dict[str, Any]]:
    def box(x: float, y: float, w: float, h: float) -> list[list[float]]:
        return [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]

    out: list[dict[str, Any]] = []
    x, y = rng.uniform(150, 800), rng.uniform(250, 500)
    out.append({"id": "wood", "kind": "wood", "polygon_mm": box(x, y, rng.uniform(60, 160),
                                                                 rng.uniform(60, 120))})
    x, y = rng.uniform(150, 800), rng.uniform(200, 550)
    out.append({"id": "hill", "kind": "hill", "polygon_mm": box(x, y, 200, 120),
                "crest_mm": [[x, y + 60], [x + 200, y + 60]]})
    x, y = rng.uniform(150, 800), rng.uniform(250, 500)
    out.append({"id": "town", "kind": rng.choice(["town", "village"]),
                "polygon_mm": box(x, y, 90, 80)})
    x, y = rng.uniform(150, 800), rng.uniform(250, 500)
    out.append({"id": "marsh", "kind": rng.choice(["marsh", "rough"]),
                "polygon_mm": box(x, y, 80, 40)})
    y = rng.uniform(300, 450)
    out.append({"id": "stream", "kind": rng.choice(["stream", "river"]),
                "line_mm": [[100, y], [500, y + rng.uniform(-40, 40)], [1000, y]]})
    out.append({"id": "ford", "kind": rng.choice(["ford", "bridge"]),
                "line_mm": [[480, y - 30], [480, y + 50]]})
    x, y = rng.uniform(150, 800), rng.uniform(250, 500)
    out.append({"id": "wall", "kind": rng.choice(["wall", "hedge", "low_wall"]),
                "line_mm": [[x, y], [x + 120, y + rng.uniform(-20, 20)]]})
    out.append({"id": "road", "kind": "road", "line_mm": [[rng.uniform(100, 900), 100],
                                                          [rng.uniform(100, 900), 800]]})
    return out[: rng.randint(2, len(out))]


def random_scenario(ruleset: str, seed: int) -> dict[str, Any]:
    """A deterministic random position: two rough lines, some bases touching others."""
    rng = random.Random(f"{ruleset}-{seed}")
    kinds = FEDERICO_KINDS
    n = rng.randint(10, 16)
    bases: list[dict[str, Any]] = []
    for i in range(n):
        side = "A" if i % 2 == 0 else "B"
        kind = rng.choice(list(kinds))
        w, d = kinds[kind]
        friends = [b for b in bases if b["side"] == side]
        foes = [b for b in bases if b["side"] != side]
        if bases and rng.random() < 0.4:
            friendly = rng.random() < 0.4 and bool(friends)
            x, y, h = _next_to(rng, rng.choice(friends if friendly else foes or bases), w, d,
                               friendly)
        else:
            x = rng.uniform(150, 900)
            y = rng.uniform(250, 380) if side == "A" else rng.uniform(400, 560)
            h = (90.0 if side == "A" else 270.0) + rng.choice([0, 0, rng.uniform(-30, 30),
                                                                rng.uniform(0, 360)])
        traits = _federico_traits(rng, kind, side)
        bases.append({"id": f"{side.lower()}{i}", "side": side, "type": kind,
                      "x_mm": round(x, 2), "y_mm": round(y, 2), "heading_deg": round(h % 360, 2),
                      "width_mm": w, "depth_mm": d, "traits": traits,
                      "stale": rng.random() < 0.05})
    scenario: dict[str, Any] = {"ruleset": ruleset, "table": {"width_mm": 1300, "depth_mm": 900},
                                "terrain": random_terrain(rng, ruleset), "bases": bases,
                                "turn": rng.choice([1, 2, 5])}
    options = FEDERICO_SETTINGS
    if seed % 2 == 1:
        keys = rng.sample(sorted(options), k=min(len(options), rng.randint(3, 7)))
        scenario["settings"] = {k: rng.choice(options[k]) for k in keys}
    return scenario


def _federico_traits(rng: random.Random, kind: str, side: str) -> dict[str, Any]:
    t: dict[str, Any] = {}
    if kind == "commander":
        t["rank"] = rng.choice(["chief", "general"])
        t["ability"] = rng.randint(1, 4)
        return t
    t["regiment"] = f"{side}{rng.randint(1, 3)}-{kind}"
    if kind in ("cavalry", "artillery"):
        t["weight"] = rng.choice(["heavy", "medium", "light"])
    if kind == "infantry":
        t["class"] = rng.choice([3, 4, 5])
        if rng.random() < 0.2:
            t[rng.choice(["light", "indians", "highlanders"])] = True
    if rng.random() < 0.2:
        t["formation"] = "limbered" if kind == "artillery" else "march_column"
    for flag in ("fired", "moved"):
        if rng.random() < 0.3:
            t[flag] = rng.random() < 0.5
    return t


# --- the recorded cases ------------------------------------------------------------------------
def _bench_battles() -> Any:
    return bench_module("rulesets_analysis").BATTLES


def cases(ruleset: str) -> dict[str, dict[str, Any]]:
    """name -> {"scenario", "overlay": bool} for every recorded case of a ruleset."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted((ROOT / "tests" / "data" / "engine" / ruleset).glob("*.json")):
        out[f"golden-{path.stem}"] = {
            "scenario": json.loads(path.read_text(encoding="utf-8"))["scenario"],
            "overlay": True}
    for seed in RANDOM_SEEDS:
        out[f"random-{seed}"] = {"scenario": random_scenario(ruleset, seed), "overlay": True}
    battles = _bench_battles()
    for n in (25, 50):
        out[f"battle-{n}"] = {"scenario": battles[ruleset](n), "overlay": False}
    return out


def _plain(obj: Any) -> Any:
    """JSON-normalised (tuples -> lists, enums -> values), as the CLI prints it."""
    return json.loads(json.dumps(obj, default=str))


def record(scenario: dict[str, Any], overlay: bool) -> dict[str, Any]:
    state = GameState.from_dict(scenario)
    out: dict[str, Any] = {"analysis": _plain(engine.analyze(state))}
    if overlay:
        out["overlay"] = {b["id"]: _plain(engine.overlay_geometry(state, b["id"]))
                          for b in scenario["bases"]}
    return out


def snapshot_path(ruleset: str) -> Path:
    return SNAP_DIR / f"{ruleset}.json"


def write_snapshots() -> None:
    SNAP_DIR.mkdir(parents=True, exist_ok=True)
    for ruleset in RULESETS:
        data = {name: {"scenario": c["scenario"], **record(c["scenario"], c["overlay"])}
                for name, c in cases(ruleset).items()}
        snapshot_path(ruleset).write_text(json.dumps(data, indent=None, sort_keys=True) + "\n",
                                          encoding="utf-8")
        print(f"wrote {snapshot_path(ruleset)} ({len(data)} cases)")


def _first_difference(a: Any, b: Any, where: str = "") -> str | None:
    if type(a) is not type(b):
        return f"{where}: {a!r} != {b!r}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{where}.{k}: only in {'expected' if k in b else 'got'}"
            found = _first_difference(a[k], b[k], f"{where}.{k}")
            if found:
                return found
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} items != {len(b)}: {a!r} vs {b!r}"[:600]
        for n, (x, y) in enumerate(zip(a, b)):
            found = _first_difference(x, y, f"{where}[{n}]")
            if found:
                return found
        return None
    return None if a == b else f"{where}: got {a!r}, recorded {b!r}"


@functools.lru_cache(maxsize=None)
def _snapshots(ruleset: str) -> dict[str, Any]:
    return json.loads(snapshot_path(ruleset).read_text(encoding="utf-8"))


SNAPSHOT_CASES = [(r, name) for r in RULESETS if snapshot_path(r).exists()
                  for name in sorted(_snapshots(r))]


@pytest.mark.parametrize(("ruleset", "name"), SNAPSHOT_CASES,
                         ids=[f"{r}-{n}" for r, n in SNAPSHOT_CASES])
def test_analysis_equals_recorded_reference(ruleset: str, name: str) -> None:
    case = _snapshots(ruleset)[name]
    got = record(case["scenario"], "overlay" in case)
    for key in ("analysis", "overlay"):
        if key in case:
            diff = _first_difference(got[key], case[key], key)
            assert diff is None, f"{ruleset} {name}: {diff}"


def test_every_ruleset_has_snapshots_covering_all_cases() -> None:
    for ruleset in RULESETS:
        assert snapshot_path(ruleset).exists(), \
            "record them: python -m tests.test_rulesets_fast_path --write"
        recorded = _snapshots(ruleset)
        assert sorted(recorded) == sorted(cases(ruleset)), ruleset
        # the random cases are the ones the generator makes today (it must stay deterministic)
        for seed in RANDOM_SEEDS:
            assert recorded[f"random-{seed}"]["scenario"] == _plain(random_scenario(ruleset, seed))
        # the recorded cases exercise what the fast paths prune: targets, legal and refused
        # charges, contacts
        bases = [b for case in recorded.values() for b in case["analysis"]["bases"].values()]
        assert sum(len(b["targets"]) for b in bases) > 100
        charges = [c for b in bases for c in b["charges"]]
        assert any(c["legal"] for c in charges) and any(not c["legal"] for c in charges)
        assert sum(len(b["contacts"]) for b in bases) > 10


# --- plain path (no spatial index, no batching) on hypothesis positions ------------------------
@st.composite
def positions(draw: Any, ruleset: str) -> dict[str, Any]:
    seed = draw(st.integers(0, 10_000))
    scenario = random_scenario(ruleset, seed)
    keep = draw(st.integers(4, len(scenario["bases"])))
    scenario["bases"] = scenario["bases"][:keep]
    return scenario


@pytest.mark.parametrize("ruleset", RULESETS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fast_path_equals_plain_path(ruleset: str, data: Any) -> None:
    scenario = data.draw(positions(ruleset))
    fast = _plain(engine.analyze(GameState.from_dict(scenario)))
    plain = _plain(engine.analyze(GameState.from_dict(scenario, use_index=False)))
    diff = _first_difference(fast, plain, "analysis")
    assert diff is None, diff


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write_snapshots()
    else:
        print(__doc__)
