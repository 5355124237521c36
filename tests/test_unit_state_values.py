"""Every value a base's state control offers is one the rulebook's scenario accepts and the
engine can judge: a state the umpire can set never makes the live game unreadable (Federico's
class control once offered 0, which the scenario refuses: the engine then judged nothing)."""

from __future__ import annotations

from typing import Any

import pytest

from campo import engine
from campo.engine.registry import get_ruleset, ruleset_names
from campo.engine.scenario import BaseState
from campo.engine.state import GameState
from campo.engine.unit_state import StateTrait, check_state


def values(trait: StateTrait) -> list[Any]:
    """Every value the page's control for ``trait`` can set."""
    if trait.kind == "bool":
        return [False, True]
    if trait.kind == "count":
        assert trait.most is not None, f"{trait.key}: a count needs its most"
        return list(range(trait.least, trait.most + 1))
    return list(trait.choices)


def scenario(ruleset: str, type_: str, traits: dict[str, Any]) -> dict[str, Any]:
    return {"ruleset": ruleset, "table": {"width_mm": 1800, "depth_mm": 1200},
            "bases": [{"id": "u", "side": "A", "type": type_, "x_mm": 900, "y_mm": 600,
                       "heading_deg": 90, "width_mm": 40, "depth_mm": 20, "traits": traits}]}


def cases() -> list[tuple[str, str]]:
    return [(name, type_) for name in ruleset_names() for type_ in get_ruleset(name).vocabulary.types]


@pytest.mark.parametrize("ruleset, type_", cases(), ids=lambda x: str(x))
def test_every_state_value_is_one_the_game_accepts(ruleset: str, type_: str) -> None:
    plain = scenario(ruleset, type_, {})
    try:
        GameState.from_dict(plain).check()
    except Exception:   # a type that needs more traits than none: not a state question
        pytest.skip(f"{ruleset} {type_} needs traits to be a valid base")
    base = GameState.from_dict(plain).base("u")
    declared = get_ruleset(ruleset).unit_state(base)
    for trait in declared:
        for value in values(trait):
            assert check_state(declared, {trait.key: value}) == []
            traits = {trait.key: value}
            GameState.from_dict(scenario(ruleset, type_, traits)).check()
            engine.analyze(scenario(ruleset, type_, traits))   # judged without an error


def test_federico_class_stops_at_the_lowest_class() -> None:
    """«se si scende sotto un valore di 3, si viene eliminati» (Federico "Classificazione
    truppe"): below 3 the base comes off the table, it has no class 2."""
    base = BaseState.model_validate({"id": "u", "side": "A", "type": "infantry", "x_mm": 0,
                                     "y_mm": 0, "heading_deg": 0, "width_mm": 40,
                                     "depth_mm": 20, "traits": {}})
    declared = get_ruleset("federico").unit_state(base)
    assert check_state(declared, {"class": 2}) == [("class", "must be 3 or more (got 2)")]
    assert check_state(declared, {"class": 3}) == []
