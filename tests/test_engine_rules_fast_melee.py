"""The melee answers' shortcuts (engine/rulesets/italia/melee.py) give the answers of the code
they replace: what a charger's side brings to each of its charges (`_charging_side`), each
base's melee unit and the guns near a target are worked out once per board and shared by every
charge and melee that asks; the enemies in contact come from the board's table of foes on the
fast path. Compared here, as JSON text, with each base's answer on a board of its own (nothing
shared) and with the plain path (``use_index=False``), on crowded positions with supports,
joined generals and missing grades (the assumptions listed)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.charges import candidates, judge_charge
from campo.engine.rulesets.italia.melee import melee_of
from campo.engine.state import GameState
from tests.engine_crowds import crowd_bases


def _scenario(seed: int) -> dict[str, Any]:
    """A crowd in which some units have a grade, some generals are joined to a unit of their
    side and a line of units stands back to back (supports)."""
    bases = crowd_bases(seed, 48, (0.0, 90.0, 180.0, 270.0))
    units = [b for b in bases if b["type"] in ("B", "C")]
    for k, b in enumerate(units[::3]):
        b["traits"]["quality"] = ("veteran", "green", "regular")[k % 3]
    for k, g in enumerate(b for b in bases if b["type"] == "general"):
        friends = [u for u in units if u["side"] == g["side"]]
        if friends and k % 2 == 0:
            g["traits"]["attached_to"] = friends[k % len(friends)]["id"]
    for k in range(4):   # supports: a second line right behind the first, same facing
        bases.append({"id": f"s{k}", "side": "A", "type": "B", "x_mm": 60.0 + 80.0 * k,
                      "y_mm": 160.0, "heading_deg": 90.0, "width_mm": 80.0, "depth_mm": 40.0,
                      "traits": {}})
    return {"ruleset": "italia-se-desta", "table": {"width_mm": 700, "depth_mm": 600},
            "bases": bases}


def _melees(board: Board, ids: list[str]) -> str:
    """``melee_of`` of ``ids`` as the analysis asks: each base's charges judged first."""
    out = {}
    for i in ids:
        for t in candidates(board, i):
            judge_charge(board, i, t)
        out[i] = melee_of(board, i)
    return json.dumps(out, sort_keys=True)


@pytest.mark.parametrize("seed", range(3))
def test_shared_melee_facts_equal_each_base_on_its_own(seed: int) -> None:
    sc = _scenario(seed)
    board = Board.of(GameState.from_dict(sc))
    ids = sorted(board.infos)
    shared = json.loads(_melees(board, ids))
    entries = [e for m in shared.values() if m for e in m.get("charges", {}).values()]
    assert sum(len(m.get("charges", {})) > 1 for m in shared.values() if m) >= 2   # shared
    assert any(e["facts"]["supports"] for e in entries) and any(e["facts"]["general"]
                                                                for e in entries)
    assert any(m and "against" in m for m in shared.values())   # melees in contact too
    assert any("not given" in a for m in shared.values() if m
               for entry in [m, *m.get("charges", {}).values()] for a in entry.get("assumed", []))
    for i in ids:   # a board of its own: nothing cached from other bases' answers
        alone = json.loads(_melees(Board.of(GameState.from_dict(sc)), [i]))
        assert alone[i] == shared[i], i


@pytest.mark.parametrize("seed", range(3))
def test_fast_melees_equal_plain(seed: int) -> None:
    sc = _scenario(seed)
    fast = Board.of(GameState.from_dict(sc))
    plain = Board.of(GameState.from_dict(sc, use_index=False))
    ids = sorted(fast.infos)
    assert _melees(fast, ids) == _melees(plain, ids)
