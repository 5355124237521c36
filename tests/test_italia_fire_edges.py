"""The fire verdicts and the range tables agree at every band and range edge, under each
reading of ISD A7 (issue 13: a gun at exactly 24.0" with ``a7_band_edges = "upper_exclusive"``
came out in range and legal with no band and no modifiers; musketry at 6.0" likewise).

Every shot here is straight ahead, front edge to front edge, so its distance is the gap set
(hand-derived: the target's front edge lies ``distance`` inches ahead of the firer's)."""

from __future__ import annotations

from typing import Any

import pytest

from campo import engine
from campo.engine.rulesets.italia import tables_fire as tf
from campo.engine.rulesets.italia.settings import ItaliaSettings

READINGS = ("upper_inclusive", "upper_exclusive")
GUN_EDGES = [r.upper_in for r in tf.ARTILLERY_BANDS]
MUSKET_EDGES = [r.upper_in for r in tf.MUSKETRY_BANDS]


def _shot(distance_in: float, gun: bool, reading: str, **settings: Any) -> dict[str, Any]:
    """The target entry of a firer at (900, 100) facing +y (front edge y = 120) at an enemy
    infantry base whose front edge lies ``distance_in`` inches straight ahead."""
    width = 25.0 if gun else 80.0
    firer = {"id": "f", "side": "A", "type": "gun" if gun else "B", "x_mm": 900.0, "y_mm": 100.0,
             "heading_deg": 90.0, "width_mm": width, "depth_mm": 40.0, "traits": {}}
    target = {"id": "t", "side": "B", "type": "B", "x_mm": 900.0,
              "y_mm": 120.0 + distance_in * 25.0 + 20.0, "heading_deg": 270.0, "width_mm": 80.0,
              "depth_mm": 40.0, "traits": {}}
    sc = {"ruleset": "italia-se-desta", "table": {"width_mm": 1800, "depth_mm": 1200},
          "bases": [firer, target], "settings": {"a7_band_edges": reading, **settings}}
    targets = engine.analyze(sc)["bases"]["f"]["targets"]
    assert [t["id"] for t in targets] == ["t"]
    return targets[0]


def _cases(edges: list[float]) -> list[float]:
    return sorted({round(e + d, 2) for e in edges for d in (-0.02, 0.0, 0.02)})


@pytest.mark.parametrize("reading", READINGS)
@pytest.mark.parametrize(("gun", "distance"),
                         [(True, d) for d in _cases(GUN_EDGES)]
                         + [(False, d) for d in _cases(MUSKET_EDGES)])
def test_verdict_and_table_agree(reading: str, gun: bool, distance: float) -> None:
    settings = ItaliaSettings(a7_band_edges=reading)
    row = tf.band_row(distance, gun, settings)
    shot = _shot(distance, gun, reading)
    assert shot["distance"] == pytest.approx(distance, abs=1e-6)
    assert shot["in_range"] is (row is not None)
    assert shot["band"] == (None if row is None else row.band.value)
    assert shot["legal"] is (row is not None)
    if row is None:
        assert "fire_modifiers" not in shot
        return
    labels = [m["label"] for m in shot["fire_modifiers"]]
    if gun:   # the bombardment range row is the table's band's (ISD §6)
        value = tf.range_modifier(row.table)
        assert f'range {row.table.value.replace("_", " ")}", divisional artillery: {value:+d}' \
            in labels
    else:
        assert labels[0].startswith("fire factor, unit B")


def test_the_issue_cases() -> None:
    """ISD A7 "upper_exclusive": nothing at exactly 24" (guns) or 6" (muskets): not in range,
    no band, not legal; "upper_inclusive": in range in the last band."""
    for gun, edge, band in ((True, 24.0, "long"), (False, 6.0, "short")):
        out = _shot(edge, gun, "upper_exclusive")
        assert (out["in_range"], out["band"], out["legal"]) == (False, None, False)
        assert "fire_modifiers" not in out
        inside = _shot(edge, gun, "upper_inclusive")
        assert (inside["in_range"], inside["band"], inside["legal"]) == (True, band, True)


def test_an_edge_is_a_close_call() -> None:
    """Within ``close_call_mm`` of the range the verdict says so; 1" short it does not."""
    edge = _shot(24.0, True, "upper_exclusive")
    assert edge["close_calls"] == ["range"]
    assert edge["reasons"] == ["out of range: 0.0 in short (too close to call: measure)"]
    assert "close_calls" not in _shot(23.0, True, "upper_exclusive")
    assert "close_calls" not in _shot(24.0, True, "upper_exclusive", close_call_mm=0.0)


@pytest.mark.parametrize("reading", READINGS)
def test_the_quick_reference_says_what_the_verdicts_do_at_each_edge(reading: str) -> None:
    """The umpire's rules panel (`Ruleset.reference`) words each band's upper edge the way the
    verdicts treat a shot exactly there: "up to 12"" / "over 3" to 12"" when 12.0" is still in
    that band, "3" to under 12"" when it is already in the next one; the musketry and
    artillery ranges likewise ("up to and at 6"" or "short of 6")."""
    from campo.engine.registry import get_ruleset

    ref = {t["title"]: t for t in get_ruleset("italia-se-desta").reference(
        ItaliaSettings(a7_band_edges=reading))}
    rows = ref["Artillery range bands"]["rows"]
    assert [r[1] for r in rows] == [b.band.value for b in tf.ARTILLERY_BANDS]
    for k, (span, band, *_) in enumerate(rows):
        edge = tf.ARTILLERY_BANDS[k].upper_in
        at_edge = _shot(edge, True, reading)["band"]
        if "under" in span:
            following = rows[k + 1][1] if k + 1 < len(rows) else None
            assert at_edge == following, (span, at_edge)
        else:
            assert at_edge == band, (span, at_edge)
    facts = dict(ref["Fire"]["rows"])
    for name, gun, edge in (("musketry range", False, MUSKET_EDGES[-1]),
                            ("artillery maximum range", True, GUN_EDGES[-1])):
        in_range = _shot(edge, gun, reading)["in_range"]
        assert facts[name].startswith("up to and at" if in_range else "short of"), facts[name]
