"""The engine's public API: scenario model and errors, GameState (copy, move, lazy legal
charges), validate() reporting everything at once, overlay geometry, `campo analyze`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from campo import engine
from campo.errors import ScenarioError, UnknownBaseError, UnknownRulesetError
from campo.engine.results import Aspect, Band
from campo.engine.rulesets import get_ruleset
from campo.engine.state import GameState
from campo.engine.ruleset import Ruleset
from campo.errors import CampoInputError


def base(id_: str, side: str, type_: str, x: float, y: float, h: float, w: float = 80,
         d: float = 40, **traits: Any) -> dict[str, Any]:
    return {"id": id_, "side": side, "type": type_, "x_mm": x, "y_mm": y, "heading_deg": h,
            "width_mm": w, "depth_mm": d, "traits": traits}


def scenario(*bases: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"ruleset": "italia-se-desta", "table": {"width_mm": 1800, "depth_mm": 1200},
            "bases": list(bases), **extra}


FACE_OFF = scenario(base("a", "A", "B", 900, 300, 90, weapon="MR"),
                    base("b", "B", "B", 900, 445, 270))


def test_output_shape_matches_interfaces_md() -> None:
    out = engine.analyze(FACE_OFF)
    assert out["ruleset"] == "italia-se-desta" and out["unit"] == "in" and out["mm_per_unit"] == 25.0
    a = out["bases"]["a"]
    for key in ("targets", "contacts", "charges", "supported_by", "commanded_by"):
        assert key in a
    t = a["targets"][0]
    assert {"id", "distance", "in_arc", "in_range", "band", "line_of_sight"} <= set(t)
    assert t["id"] == "b" and t["distance"] == 4.2 and t["band"] == Band.SHORT.value
    c = a["charges"][0]
    assert {"target", "legal", "distance", "contact_aspect", "reasons"} <= set(c)
    assert c["contact_aspect"] == Aspect.FRONT.value and c["legal"] is True
    assert json.loads(json.dumps(out)) == out


def test_analysis_is_deterministic_and_sorted() -> None:
    sc = scenario(base("z", "A", "B", 900, 300, 90), base("m", "B", "B", 900, 445, 270),
                  base("c", "B", "B", 1000, 445, 270))
    one, two = engine.analyze(sc), engine.analyze(json.loads(json.dumps(sc)))
    assert json.dumps(one) == json.dumps(two)
    assert list(one["bases"]) == sorted(one["bases"])
    assert [t["id"] for t in one["bases"]["z"]["targets"]] == ["c", "m"]


def test_copy_is_independent_and_move_updates_verdicts() -> None:
    s = GameState.from_dict(FACE_OFF)
    t = s.copy()
    t.move("b", y_mm=800)
    assert "b" in s.legal_charges("a")
    assert "b" not in t.legal_charges("a")
    assert s.base("b").y_mm == 445 and t.base("b").y_mm == 800
    assert list(s.legal_charges("a")) == ["b"] and len(t.legal_charges("a")) == 0
    assert "nobody" not in s.legal_charges("a")


def test_charge_verdict_is_a_small_typed_value() -> None:
    v = GameState.from_dict(FACE_OFF).charge("a", "b")
    assert v.legal and v.contact_aspect is Aspect.FRONT and v.distance == pytest.approx(4.2)
    assert v.path[0] == pytest.approx([900.0, 320.0]) and v.path[-1] == pytest.approx([900.0, 425.0])


def test_unknown_base_names_the_bases() -> None:
    with pytest.raises(UnknownBaseError, match="no base 'x'.*a, b"):
        GameState.from_dict(FACE_OFF).legal_charges("x")


def test_validate_reports_every_problem_at_once() -> None:
    sc = scenario(base("a", "A", "Q", 900, 300, 90), base("b", "B", "B", 900, 445, 270, weapon="XX"),
                  base("c", "B", "E", 100, 100, 90, 50, 20))
    problems = GameState.from_dict(sc).validate()
    keys = [p.key for p in problems]
    assert "bases[0](a).type" in keys and "bases[1](b).traits.weapon" in keys
    assert any(p.severity == "warning" and p.bases == ("c",) for p in problems)
    with pytest.raises(ScenarioError) as err:
        engine.analyze(sc)
    assert "2 problems" in str(err.value) and "(a).type" in str(err.value)
    assert isinstance(err.value, CampoInputError)


def test_scenario_model_is_strict_and_errors_name_the_key() -> None:
    bad = scenario(base("a", "A", "B", 900, 300, 90))
    bad["bases"][0]["colour"] = "red"
    with pytest.raises(ScenarioError, match=r"bases\[0\]\(a\)\.colour"):
        engine.analyze(bad)
    with pytest.raises(ScenarioError, match="duplicate bases id 'a'"):
        engine.analyze(scenario(base("a", "A", "B", 0, 0, 0), base("a", "B", "B", 0, 0, 0)))
    with pytest.raises(ScenarioError, match="not an area kind"):
        engine.analyze(scenario(terrain=[{"id": "w", "kind": "wall", "polygon_mm": [[0, 0], [1, 0], [1, 1]]}]))


def test_unknown_ruleset() -> None:
    with pytest.raises(UnknownRulesetError, match="unknown ruleset 'chess'"):
        engine.analyze({**FACE_OFF, "ruleset": "chess"})
    assert isinstance(get_ruleset("italia-se-desta"), Ruleset)


def test_settings_overrides_come_from_the_scenario() -> None:
    sc = scenario(base("lig", "A", "B", 1100, 100, 90), base("t", "B", "B", 1230, 158, 270))
    assert engine.analyze(sc)["bases"]["lig"]["targets"][0]["in_arc"] is False
    sc["bases"][0]["traits"]["light"] = True
    assert engine.analyze(sc)["bases"]["lig"]["targets"][0]["in_arc"] is True
    with pytest.raises(CampoInputError, match="a24_contact_tolerance_in"):
        engine.analyze({**sc, "settings": {"a24_contact_tolerance_in": -1}})


def test_stale_base_is_absent_so_no_target() -> None:
    """shared/interfaces.md: an absent enemy is neither in arc nor in range, so not listed."""
    sc = json.loads(json.dumps(FACE_OFF))
    assert [t["id"] for t in engine.analyze(sc)["bases"]["a"]["targets"]] == ["b"]
    sc["bases"][1]["stale"] = True
    out = engine.analyze(sc)["bases"]["a"]
    assert out["targets"] == []
    assert out["charges"][0]["legal"] is False
    assert any("not seen" in r for r in out["charges"][0]["reasons"])


def test_overlay_geometry_in_table_mm() -> None:
    g = engine.overlay_geometry(FACE_OFF, "a")
    assert g["arc"] and [b["band"] for b in g["bands"]] == ["short"]
    xs = [p[0] for p in g["arc"]]
    assert min(xs) < 860 and max(xs) > 940           # widens beyond the 80 mm front
    assert g["charges"][0]["target"] == "b" and len(g["charges"][0]["path"]) >= 2
    gun = scenario(base("g", "A", "gun", 900, 100, 90, 25, 40))
    bands = [b["band"] for b in engine.overlay_geometry(gun, "g")["bands"]]
    assert bands == ["close", "short", "medium", "long"]


def test_load_scenario_file_errors(tmp_path: Path) -> None:
    p = tmp_path / "s.json"
    p.write_text('{"ruleset": "italia-se-desta",\n "table": {"width_mm": 1800,}}')
    with pytest.raises(ScenarioError) as err:
        engine.load_scenario(p)
    assert str(err.value).startswith(f"{p}:2: not valid JSON")


def test_cli_json_and_summary(run_campo, tmp_path: Path) -> None:
    p = tmp_path / "s.json"
    p.write_text(json.dumps(FACE_OFF))
    code, out, err = run_campo("analyze", p, "--json")
    assert code == 0 and json.loads(out)["bases"]["a"]["targets"][0]["id"] == "b"
    code, out, err = run_campo("analyze", p)
    assert code == 0
    assert "target b: 4.2 in, short range, in range by 1.8 in; can fire" in out
    assert "may charge b: 4.2 in, strikes its front" in out


def test_cli_bad_input_is_one_line_without_traceback(run_campo, tmp_path: Path) -> None:
    p = tmp_path / "s.json"
    p.write_text(json.dumps(scenario(base("a", "A", "Q", 0, 0, 0))))
    code, out, err = run_campo("analyze", p, "--json")
    assert code == 2 and out == ""
    assert err.startswith("campo analyze: ") and "unknown troop type 'Q'" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_legal_shots_carry_the_tables_modifiers() -> None:
    sc = scenario(base("t1", "B", "B", 900, 600, 90), base("f1", "A", "B", 1000, 570, 180))
    shot = engine.analyze(sc)["bases"]["f1"]["targets"][0]
    assert shot["flank_fire"] is True
    labels = [m["label"] for m in shot["fire_modifiers"]]
    assert any(m["dice_multiplier"] == 2 for m in shot["fire_modifiers"]), labels


def test_cli_summary_gives_each_melee_score(run_campo, tmp_path: Path) -> None:
    """Two line infantry bases front to front (hand-derived: combat factor +2 each, and +1 for a
    regular unit: no grade given reads as regular, and the entry lists it as assumed)."""
    p = tmp_path / "melee.json"
    p.write_text(json.dumps(scenario(base("a", "A", "B", 500, 500, 90),
                                     base("b", "B", "B", 500, 540, 270))))
    code, out, _ = run_campo("analyze", p)
    assert code == 0
    assert "in melee against b: score d6 +3 (combat factor, unit B in contact: +2; regular unit: +1)" in out
    assert "in melee against a: score d6 +3" in out
