"""The melee modifiers the board makes applicable (engine/rulesets/italia/melee.py, ISD §9).

Positions are small hand-made tables; every expected total is worked out in the test's comment
from the rulebook rows (docs/rulesets/italia-se-desta.md section 7)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from campo import engine
from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.melee import aspect_struck, principal_enemy
from campo.engine.state import GameState


def base(i: str, side: str, t: str, x: float, y: float, h: float, w: float = 80, d: float = 40,
         **traits: Any) -> dict[str, Any]:
    return {"id": i, "side": side, "type": t, "x_mm": x, "y_mm": y, "heading_deg": h,
            "width_mm": w, "depth_mm": d, "traits": traits}


def scenario(bases: list[dict[str, Any]], terrain: list[dict[str, Any]] | None = None,
             settings: dict[str, Any] | None = None) -> dict[str, Any]:
    sc: dict[str, Any] = {"ruleset": "italia-se-desta", "table": {"width_mm": 1800, "depth_mm": 1200},
                          "terrain": terrain or [], "bases": bases}
    if settings:
        sc["settings"] = settings
    return sc


def board_of(sc: dict[str, Any]) -> Board:
    return Board.of(GameState.from_dict(sc))


def labels(entry: dict[str, Any]) -> list[str]:
    return [m["label"] for m in entry["modifiers"]]


# a (side A, facing north) and b (side B, facing south) front to front; x-flank strikes b's left
FRONT = [base("a", "A", "B", 400, 400, 90, quality="regular"),
         base("b", "B", "B", 400, 440, 270, quality="regular")]


def test_front_to_front_both_sides() -> None:
    got = engine.analyze(scenario(FRONT))["bases"]
    # each: +2 factor (B), +1 regular = 3; the situation facts are listed as assumed
    for me, foe in (("a", "b"), ("b", "a")):
        m = got[me]["melee"]
        assert m["against"] == foe and m["total"] == 3
        assert labels(m) == ["combat factor, unit B in contact: +2", "regular unit: +1"]
        assert m["facts"]["strikes"] == "front" and not m["facts"]["flank_attack"]
        assert any(a.startswith("attacker=false") for a in m["assumed"])
        json.dumps(m)   # JSON-ready


def test_no_contact_no_entry() -> None:
    sc = scenario([FRONT[0], base("b", "B", "B", 400, 460, 270)])   # 20 mm apart
    assert all("against" not in e.get("melee", {}) for e in engine.analyze(sc)["bases"].values())


def test_principal_enemy_is_the_one_at_the_front_then_the_attacker() -> None:
    # b is engaged front to front by a and struck in its right side (east) by c facing west
    sc = scenario([*FRONT, base("c", "A", "B", 460, 440, 180)])
    board = board_of(sc)
    assert principal_enemy(board, "b") == "a"          # the enemy at its front
    assert principal_enemy(board, "c") == "b"          # its front touches b
    # b's flank, c's front: c strikes b's flank (its front centre is behind b's front line)
    assert aspect_struck(board, "c", "b") == "flank"
    assert aspect_struck(board, "b", "c") is None      # b's front is not the edge in contact
    got = engine.analyze(sc)["bases"]
    # c: +2 factor +2 for a (in contact with b too) +1 regular +3 flank attack = 8; a idem
    assert got["c"]["melee"]["total"] == 8 and got["c"]["melee"]["facts"]["in_contact"] == ["a"]
    assert got["a"]["melee"]["facts"]["in_contact"] == ["c"]
    # a, against b: b's front is what a touches; a's +3 would need a flank: a strikes the front
    assert got["a"]["melee"]["total"] == 5


def test_struck_only_in_the_flank_fights_its_attacker() -> None:
    # d facing north, struck in its left side by e facing east: d's principal enemy is e
    sc = scenario([base("d", "B", "B", 1000, 400, 90), base("e", "A", "B", 940, 400, 0)])
    assert principal_enemy(board_of(sc), "d") == "e"
    got = engine.analyze(sc)["bases"]
    assert got["d"]["melee"]["against"] == "e" and got["d"]["melee"]["facts"]["strikes"] is None
    assert got["e"]["melee"]["facts"]["flank_attack"] is True


def test_rear_attack_follows_a3() -> None:
    # f facing north; g directly behind it facing north, its front on f's rear edge
    bases = [base("f", "B", "B", 1000, 400, 90), base("g", "A", "B", 1000, 360, 90)]
    assert engine.analyze(scenario(bases))["bases"]["g"]["melee"]["facts"]["flank_attack"] is True
    off = engine.analyze(scenario(bases, settings={"a3_rear_counts_as_flank": False}))["bases"]
    assert off["g"]["melee"]["facts"]["strikes"] == "rear"
    assert off["g"]["melee"]["facts"]["flank_attack"] is False


def test_whole_side_reading_of_a31() -> None:
    # a 30 mm cavalry front flush on the front half of a 40 mm deep side, sticking out 10 mm
    # ahead of the target's front line, its centre 5 mm behind it: a flush segment (A31), so a
    # flank attack; under 'whole_side' it does not cover the side, and its whole front is not
    # beyond the front line, so it strikes the front.
    bases = [base("t", "B", "B", 1000, 400, 90),                  # side x=960, y 380..420
             base("k", "A", "E", 945, 415, 0, 30, 30, arm="cavalry")]  # front x=960, y 400..430
    flush = board_of(scenario(bases))
    assert aspect_struck(flush, "k", "t") == "flank"
    whole = board_of(scenario(bases, settings={"a31_flank_contact": "whole_side"}))
    assert aspect_struck(whole, "k", "t") == "front"


def test_supports_counted_at_most_two() -> None:
    # a (B) is supported behind by s1 and on both flanks by s2, s3 (all B, facing north): at most
    # two count (ISD §9 [*]): 2 x (2 - 1) = +2; +2 factor, +1 regular: 5
    bases = [*FRONT,
             base("s1", "A", "B", 400, 360, 90, quality="regular"),
             base("s2", "A", "B", 320, 396, 90, quality="regular"),
             base("s3", "A", "B", 480, 396, 90, quality="regular")]
    got = engine.analyze(scenario(bases))["bases"]["a"]["melee"]
    assert len(got["facts"]["supports"]) == 2
    assert got["total"] == 5 and "2 support(s) not in contact (factor - 1): +2" in labels(got)


def test_a_supporter_fighting_its_own_enemy_does_not_support() -> None:
    # s3 on a's right flank is itself touched by the enemy cavalry x: it fights, it does not support
    bases = [*FRONT, base("s3", "A", "B", 480, 396, 90, quality="regular"),
             base("x", "B", "E", 540, 396, 180, 40, 40, arm="cavalry", quality="regular")]
    got = engine.analyze(scenario(bases))["bases"]
    assert got["a"]["supported_by"] == ["s3"]          # the §1 relation still holds
    assert got["a"]["melee"]["facts"]["supports"] == [] and got["a"]["melee"]["total"] == 3
    assert got["s3"]["melee"]["against"] == "x"


def test_general_joined_by_contact_or_trait_and_a36() -> None:
    gen = base("g", "A", "general", 400, 370, 90, 30, 20, quality="capable", rank="division")
    got = engine.analyze(scenario([*FRONT, gen]))["bases"]["a"]["melee"]
    assert got["facts"]["general"] == "g" and got["total"] == 4      # 3 + 1 (A36 flat)
    by_quality = scenario([*FRONT, gen], settings={"a36_general_melee_bonus": "by_quality"})
    assert engine.analyze(by_quality)["bases"]["a"]["melee"]["total"] == 5   # capable +2
    far = base("g", "A", "general", 200, 200, 90, 30, 20, quality="decisive", attached_to="a")
    assert engine.analyze(scenario([*FRONT, far]))["bases"]["a"]["melee"]["facts"]["general"] == "g"
    corps = base("g", "A", "general", 400, 370, 90, 30, 20, quality="decisive", rank="corps")
    got = engine.analyze(scenario([*FRONT, corps]))["bases"]["a"]["melee"]
    assert got["facts"]["general"] == "g" and got["total"] == 3      # Corps: nothing (ISD §8)


def test_limbered_guns_do_not_fight() -> None:
    bases = [FRONT[0], base("gun", "B", "gun", 400, 440, 270, 40, 40, limbered=True)]
    got = engine.analyze(scenario(bases))["bases"]
    assert "melee" not in got["a"] and "melee" not in got["gun"]
    bases[1]["traits"] = {}
    got = engine.analyze(scenario(bases))["bases"]
    # a gun in battery fights: +1 factor, regular (assumed) +1
    assert got["gun"]["melee"]["total"] == 2 and got["a"]["melee"]["against"] == "gun"


def test_slope_without_a_grade_is_gentle_and_assumed() -> None:
    hill = {"id": "h", "kind": "hill", "polygon_mm": [[300, 300], [500, 300], [500, 410], [300, 410]]}
    got = engine.analyze(scenario(FRONT, [hill]))["bases"]
    assert got["a"]["melee"]["facts"]["slope"] == "gentle" and got["a"]["melee"]["total"] == 4
    assert "slope of h not given: gentle" in got["a"]["melee"]["assumed"]
    assert got["b"]["melee"]["facts"]["slope"] == "none"


def test_cavalry_assumptions_listed() -> None:
    bases = [base("c", "A", "C", 400, 400, 90, cavalry="line", quality="regular"), FRONT[1]]
    got = engine.analyze(scenario(bases))["bases"]["c"]["melee"]
    assert any(a.startswith("moved_half_or_less=false") for a in got["assumed"])
    # attacker=false is assumed, so the cavalry -2 against infantry (an attacker's) is not listed
    assert got["total"] == 3


def test_melee_through_the_cli(run_campo, tmp_path: Path) -> None:
    """`campo analyze --json` prints the melee entry (hand-derived: 3 v 3, front to front)."""
    path = tmp_path / "melee.json"
    path.write_text(json.dumps(scenario(FRONT)))
    code, out, err = run_campo("analyze", path, "--json")
    assert code == 0, err
    bases = json.loads(out)["bases"]
    assert bases["a"]["melee"]["against"] == "b" and bases["a"]["melee"]["total"] == 3


CHARGES = [
    base("cf", "A", "C", 400, 400, 90, cavalry="line", quality="regular"),     # 6.4" at b's front
    base("b", "B", "B", 400, 600, 270, quality="regular"),
    base("ck", "A", "C", 800, 600, 0, cavalry="line", quality="regular"),      # 5.6" at t's left
    base("t", "B", "B", 1000, 600, 90, quality="regular"),
    base("i", "A", "B", 1500, 400, 90, quality="regular"),                     # 4" at cavalry cv
    base("cv", "B", "C", 1500, 540, 270, cavalry="light", quality="regular"),
]


def test_legal_charges_show_the_chargers_melee() -> None:
    got = engine.analyze(scenario(CHARGES))["bases"]
    front = got["cf"]["melee"]["charges"]["b"]
    # cavalry at the front of fresh infantry: +2 factor +1 attacker +1 regular -2 = 2
    assert front["total"] == 2 and "cavalry attacking infantry not shaken: -2" in labels(front)
    assert "against" not in got["cf"]["melee"]            # not in contact now
    flank = got["ck"]["melee"]["charges"]["t"]
    # at the flank having moved no more than half its 12" (note 3): no -2; +3 flank: 2+1+1+3 = 7
    assert flank["facts"]["flank_attack"] and flank["facts"]["moved_half_or_less"]
    assert flank["total"] == 7 and "attacker: +1" in labels(flank)
    inf = got["i"]["melee"]["charges"]["cv"]
    # infantry attacking cavalry has no attack bonus (note 2): 2 + 1 = 3
    assert inf["total"] == 3 and "attacker: +1" not in labels(inf)
    assert "first_round=true" in inf["assumed"]


def test_only_legal_charges_are_worked_out() -> None:
    far = [base("cf", "A", "C", 400, 235, 90, quality="regular"), CHARGES[1]]   # 13": too far
    got = engine.analyze(scenario(far))["bases"]
    assert got["cf"]["charges"] and not got["cf"]["charges"][0]["legal"]
    assert "melee" not in got["cf"]
