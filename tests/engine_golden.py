"""Shared helpers for the engine tests: golden files, comparing expectations, moving tables."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


GOLDEN_DIR = Path(__file__).parent / "data" / "engine" / "italia"
GOLDEN_FILES = sorted(GOLDEN_DIR.glob("*.json"))

# Members of the analysis that hold table-frame coordinates (they move with the table).
# Answers in table-frame coordinates, or that depend on where the table's edges are (a rout
# leaving the table; a router squeezed between an enemy and the edge, ISD A39): the turned and
# shifted runs move the bases and terrain but not the table.
POSITIONAL = {"path", "final_pose", "flush_pose", "intercepted_at", "fall_back", "rout",
              "direction_deg", "rout_leaves_table", "rout_captured", "fall_back_leaves_table"}


def load_golden(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _same(actual: Any, expected: Any, where: str) -> None:
    if isinstance(expected, float) or (isinstance(expected, int) and not isinstance(expected, bool)
                                       and isinstance(actual, float)):
        assert actual == pytest.approx(expected, abs=0.011), f"{where}: {actual} != {expected}"
    elif isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: expected an object, got {actual!r}"
        for k, v in expected.items():
            assert k in actual, f"{where}: missing {k!r}"
            _same(actual[k], v, f"{where}.{k}")
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def with_fire_totals(target: dict[str, Any]) -> dict[str, Any]:
    """A target entry with ``fire_dice`` and ``fire_score`` added when it lists ISD
    ``fire_modifiers``: the d6 rolled (the rows' d6 added, then doubled by a flank shot) and
    the score added to each die."""
    rows = target.get("fire_modifiers")
    if not rows:
        return target
    return {**target, "fire_dice": sum(m["dice_delta"] for m in rows)
            * math.prod(m["dice_multiplier"] for m in rows),
            "fire_score": sum(m["score_delta"] for m in rows)}


def check_expectations(analysis: dict[str, Any], expect: dict[str, Any]) -> None:
    """Compare an analysis with a golden file's ``expect`` (see tests/data/engine/README.md)."""
    for base_id, exp in expect.items():
        got = analysis["bases"][base_id]
        for key, value in exp.items():
            where = f"{base_id}.{key}"
            if key in ("targets", "targets_include", "contacts"):
                field = "targets" if key.startswith("targets") else "contacts"
                entries = {e["id"]: e for e in got[field]}
                if key != "targets_include":
                    assert sorted(entries) == sorted(value), f"{where}: {sorted(entries)} != {sorted(value)}"
                for tid, fields in value.items():
                    assert tid in entries, f"{where}: {tid} not listed (got {sorted(entries)})"
                    _same(with_fire_totals(entries[tid]), fields, f"{where}[{tid}]")
            elif key in ("charges", "charges_exact"):
                entries = {e["target"]: e for e in got["charges"]}
                if key == "charges_exact":
                    assert sorted(entries) == sorted(value), f"{where}: {sorted(entries)}"
                for tid, fields in value.items():
                    assert tid in entries, f"{where}: no charge at {tid} considered (got {sorted(entries)})"
                    _same(entries[tid], fields, f"{where}[{tid}]")
            elif value is None:
                assert got.get(key) is None, f"{where}: {got[key]!r}, expected none"
            else:
                assert key in got, f"{where}: missing"
                _same(got[key], value, where)


def transform_scenario(sc: dict[str, Any], turn_deg: float, dx: float, dy: float) -> dict[str, Any]:
    """The whole table turned by ``turn_deg`` about the origin, then shifted by (dx, dy)."""
    c, s = math.cos(math.radians(turn_deg)), math.sin(math.radians(turn_deg))

    def pt(p: list[float]) -> list[float]:
        return [p[0] * c - p[1] * s + dx, p[0] * s + p[1] * c + dy]

    out = json.loads(json.dumps(sc))
    for b in out["bases"]:
        b["x_mm"], b["y_mm"] = pt([b["x_mm"], b["y_mm"]])
        b["heading_deg"] = (b["heading_deg"] + turn_deg) % 360.0
    for t in out.get("terrain", []):
        for key in ("polygon_mm", "line_mm", "crest_mm"):
            if t.get(key):
                t[key] = [pt(p) for p in t[key]]
    return out


def strip_positional(obj: Any) -> Any:
    """The analysis without table-frame coordinates and with numbers rounded for comparison."""
    if isinstance(obj, dict):
        return {k: strip_positional(v) for k, v in obj.items() if k not in POSITIONAL}
    if isinstance(obj, list):
        return [strip_positional(v) for v in obj]
    if isinstance(obj, float):
        return round(obj, 1)
    return obj


def golden_files(ruleset_dir: str) -> list[Path]:
    """The golden scenario files of one ruleset (tests/data/engine/<ruleset_dir>/*.json), sorted."""
    return sorted((GOLDEN_DIR.parent / ruleset_dir).glob("*.json"))


def assert_cites_match(golden: dict[str, Any], pattern: re.Pattern[str]) -> None:
    """The golden file cites at least one rule, each citation in the ruleset's own form."""
    assert golden["cites"] and all(pattern.match(c) for c in golden["cites"]), golden["cites"]


def analyze_through_cli(run_campo: Callable[..., tuple[int, str, str]], path: Path,
                        scenario: dict[str, Any]) -> dict[str, Any]:
    """`campo analyze PATH --json` after writing ``scenario`` to ``path``; asserts it succeeds."""
    path.write_text(json.dumps(scenario))
    code, out, err = run_campo("analyze", path, "--json")
    assert code == 0, err
    return json.loads(out)
