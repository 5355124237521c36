"""The all-bases-at-once relations (engine/rulesets/italia/relations_batch.py, the fast path)
give exactly the per-pair and per-base answers of relations.py's plain path, on seeded battles
(tests/data/engine/italia_snapshots) under readings that change contacts, supports and command."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import shapely

from campo.engine.rulesets.italia import relations as rel
from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.relations_batch import general_pairs
from campo.engine.state import GameState

SNAPSHOTS = Path(__file__).parent / "data" / "engine" / "italia_snapshots"
BATTLES = ["battle-01-40.json.gz", "battle-05-200.json.gz", "battle-08-50.json.gz"]
VARIANTS: list[dict[str, Any]] = [
    {}, {"weather": "fog"}, {"a33_contact_aspect": "contact_midpoint"},
    {"support_heading_tolerance_deg": 0.0}, {"support_heading_tolerance_deg": 30.0},
    {"a24_contact_tolerance_in": 0.0}, {"a24_contact_tolerance_in": 0.6},
]


def _scenario(name: str, variant: dict[str, Any]) -> dict[str, Any]:
    with gzip.open(SNAPSHOTS / name, "rt", encoding="utf-8") as f:
        sc = json.load(f)["scenario"]
    sc["settings"] = {**(sc.get("settings") or {}), **variant}
    # generals joined to units (one to an enemy unit, which it does not command), rockets
    units = [b for b in sc["bases"] if b["type"] in ("B", "C", "D", "E")]
    generals = [b for b in sc["bases"] if b["type"] == "general"]
    for k, g in enumerate(generals[::3]):
        unit = next(u for u in units[k::5] if (u["side"] == g["side"]) == (k != 1))
        g.setdefault("traits", {})["attached_to"] = unit["id"]
    for gun in [b for b in sc["bases"] if b["type"] == "gun"][::4]:
        gun.setdefault("traits", {})["rockets"] = True
    return sc


def _answers(board: Board) -> dict[str, Any]:
    ids = sorted(board.infos)
    found = rel.groups(board)
    return {
        "groups": found,
        "leaders": [rel.group_leader(board, g) for g in found],
        "supports": {(s, x): rel.supports(board, s, x)
                     for x in ids for s in board.touching[x] + [x, ids[0]]},
        "bases": {i: (rel.contacts_of(board, i), rel.supported_by(board, i, {}),
                      rel.command_of(board, i)) for i in ids},
    }


def _label(variant: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in variant.items()) or "default"


@pytest.mark.parametrize("variant", VARIANTS, ids=_label)
@pytest.mark.parametrize("name", BATTLES)
def test_fast_relations_equal_plain(name: str, variant: dict[str, Any]) -> None:
    sc = _scenario(name, variant)
    fast = Board.of(GameState.from_dict(sc))
    plain = Board.of(GameState.from_dict(sc, use_index=False))
    assert fast.state.use_index and not plain.state.use_index
    got, want = _answers(fast), _answers(plain)
    assert any(e.get("attached") for _, _, command in got["bases"].values() for e in command)
    assert repr(got) == repr(want)   # same floats to the last bit, same order
    # and on the fast board itself, each pair against the per-pair reference
    for (s, x), answer in got["supports"].items():
        assert answer == rel._supports(fast, s, x), (s, x)
    for i in fast.infos:
        assert repr(rel.command_of(fast, i)) == repr(rel._command_of_plain(fast, i)), i


@pytest.mark.parametrize("use_index", [True, False])
def test_general_gaps_are_measured_general_to_base(use_index: bool) -> None:
    """`general_pairs` reads the gaps from the neighbour table's general rows: each is GEOS's
    distance from the general to the base, to the last bit."""
    sc = _scenario("battle-05-200.json.gz", {})
    board = Board.of(GameState.from_dict(sc, use_index=use_index))
    rows, found, gaps = general_pairs(board)
    assert len(rows) > 50
    shapes = board.state.index.shapes
    np.testing.assert_array_equal(gaps, shapely.distance(shapes[found], shapes[rows]))
