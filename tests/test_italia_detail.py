"""One base's full detail (`Ruleset.analyze(state, [id])`) asks the fire rules one question: its
own shots and the shots of the batteries that may support its charges by fire (ISD §1), measured
together (`fire.shots_and_probes`), answer as each measured alone."""

from __future__ import annotations

from dataclasses import asdict

from campo.engine.rulesets.italia import fire
from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.melee import battery_shots
from campo.engine.state import GameState
from tests.bench_modules import bench_module

dense_battle = bench_module("battles").dense_battle


def _board(scenario: dict) -> Board:
    return Board.of(GameState.from_dict(scenario))


def test_shots_and_probes_answer_as_asked_apart() -> None:
    scenario = dense_battle("italia-se-desta", 100)
    board = _board(scenario)
    chargers = [b["id"] for b in scenario["bases"] if board.infos[b["id"]].can_charge]
    supported = [c for c in chargers if battery_shots(board, [c])]
    probed = 0
    for base_id in [*supported, chargers[0]]:
        together = _board(scenario)
        probes = battery_shots(together, [base_id])
        table = fire.shots_and_probes(together, [base_id], probes)
        alone = _board(scenario)
        assert table.dicts(base_id) == fire.shots(alone, [base_id]).dicts(base_id), base_id
        for gun, target in probes:
            one, both = fire.probe(_board(scenario), gun, target), fire.probe(together, gun, target)
            assert (one is None) == (both is None), (gun, target)
            if one is not None:
                assert asdict(one) == asdict(both), (gun, target)
                probed += 1
        if fire.shooters_of(together, [base_id]):
            # kept: the base's own shots are read back, not measured again
            assert fire.shots(together, [base_id]) is table
    assert probed, "some charge is supported by a battery on the dense battle"


def test_the_detail_names_the_batteries_supporting_a_charge() -> None:
    """Au5-0's legal charge at Bu4-2 is supported by fire by the guns of its side within 3" of
    the target that have it in arc and in sight (ISD §1): asked alone as in the whole table."""
    scenario = dense_battle("italia-se-desta", 100)
    state = GameState.from_dict(scenario)
    whole = state.ruleset.analyze(state)["bases"]
    alone = GameState.from_dict(scenario)
    entry = alone.ruleset.analyze(alone, ["Au5-0"])["bases"]["Au5-0"]
    assert entry == whole["Au5-0"]
    supports = entry["melee"]["charges"]["Bu4-2"]["facts"]["supports"]
    assert {"Au4-1", "Au4-2"} <= set(supports)
