"""`fire.probe_all`: the shots of several guns at one target measured together are the shots
each gun's `probe` measures alone (the batteries supporting by fire, ISD §1, ask both ways)."""

from __future__ import annotations

import copy
from dataclasses import asdict

from campo.engine.rulesets.italia import fire
from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.warmup import WARMUP_SCENARIO
from campo.engine.scenario import parse_scenario
from campo.engine.state import GameState


def _board() -> Board:
    return Board.of(GameState(parse_scenario(copy.deepcopy(WARMUP_SCENARIO))))


def test_guns_measured_together_answer_as_each_measured_alone() -> None:
    board = _board()
    guns = sorted(i for i, info in board.infos.items() if info.is_gun)
    asked = 0
    for target in sorted(board.infos):
        shooters = [g for g in guns if board.infos[g].side != board.infos[target].side]
        together = _board()
        fire.probe_all(together, shooters, target)
        for gun in shooters:
            alone = fire.probe(_board(), gun, target)
            both = fire.probe(together, gun, target)
            assert (alone is None) == (both is None), (gun, target)
            if alone is not None:
                assert asdict(alone) == asdict(both), (gun, target)
                asked += 1
    assert asked, "some gun has a target in its arc or range"
