"""The facts of one shot read off the board (`FireFacts`) and their modifiers, remembered per
board: the fast body of `fire.shot_modifiers`.

Many shots share their modifiers (the same kind of firer at the same kind of target, in the same
cover and band), and building the facts and the modifier texts is most of their cost. A shot's
modifiers depend on its firer's facts, its target's, flank fire, cover and, of the distance,
only on the artillery band (`modifiers_fire.range_key`), so those are the memo's key; the first
shot of each key computes them with `fire_modifiers` itself
(tests/test_italia_verdicts_fast.py checks every key against freshly built facts)."""

from __future__ import annotations

from typing import Any

from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.modifier import Modifier
from campo.engine.rulesets.italia.modifiers_fire import FireFacts, fire_modifiers, range_key


def shot_facts(board: Board, shooter: str, target: str, distance_in: float, flank_fire: bool,
               cover: str) -> FireFacts:
    """The `FireFacts` of one shot (firer and target read from their types and traits)."""
    return FireFacts(distance_in=distance_in, flank_fire=flank_fire, target_cover=cover,
                     **_firer_facts(board, shooter)[0], **_target_facts(board, target)[0])


def memo_modifiers(board: Board, shooter: str, target: str, distance_in: float,
                   flank_fire: bool, cover: str) -> list[Modifier]:
    """``fire_modifiers(shot_facts(...), board.settings)``, computed once per memo key."""
    firer, firer_class = _firer_facts(board, shooter)
    aim_class = _target_facts(board, target)[1]
    if firer_class is None or aim_class is None:    # a trait value that cannot be hashed
        return fire_modifiers(shot_facts(board, shooter, target, distance_in, flank_fire, cover),
                              board.settings)
    key = (firer_class, aim_class, flank_fire, cover,
           range_key(firer["firer_type"], firer["firer_arm"], distance_in, board.settings))
    memo = board.__dict__.setdefault("_shot_modifiers", {})
    found = memo.get(key)
    if found is None:
        found = memo[key] = fire_modifiers(
            shot_facts(board, shooter, target, distance_in, flank_fire, cover), board.settings)
    return list(found)


def _class_of(board: Board, facts: dict[str, Any]) -> int | None:
    """A small number standing for these facts (equal facts, equal number; None when a value
    cannot be hashed), so the memo's keys hash quickly. Values' types are part of the key:
    ``True == 1`` but a text shows them apart."""
    classes = board.__dict__.setdefault("_shot_fact_classes", {})
    try:
        return classes.setdefault(tuple((k, type(v), v) for k, v in facts.items()),
                                  len(classes))
    except TypeError:
        return None


def _firer_facts(board: Board, shooter: str) -> tuple[dict[str, Any], int | None]:
    """The firer's part of `FireFacts` and its `_class_of` (cached per board)."""
    cache = board.__dict__.setdefault("_firer_facts", {})
    found = cache.get(shooter)
    if found is None:
        from campo.engine.rulesets.italia.fire import DIFFICULT_GROUND

        fb, fi = board.state.base(shooter), board.infos[shooter]
        ft = fb.traits
        under = {feat.kind for feat, _ in board.terrain_on(shooter)} if fi.is_gun else set()
        facts = dict(
            firer_type=fb.type, firer_arm=fi.arm, weapon=ft.get("weapon"),
            marksmen=bool(ft.get("marksmen", False)),
            french_guard=bool(ft.get("french_guard", False)), firer_shaken=fi.shaken,
            firer_disordered=fi.disordered, battery=fi.battery, rockets=fi.rockets,
            reduced_ammunition=bool(ft.get("reduced_ammunition", False)),
            gun_on_difficult_terrain=fi.is_gun and bool(under & DIFFICULT_GROUND))
        found = cache[shooter] = (facts, _class_of(board, facts))
    return found


def _target_facts(board: Board, target: str) -> tuple[dict[str, Any], int | None]:
    """The target's part of `FireFacts` and its `_class_of` (cached per board)."""
    cache = board.__dict__.setdefault("_target_facts", {})
    found = cache.get(target)
    if found is None:
        ti = board.infos[target]
        facts = dict(
            target_arm=ti.arm, target_in_battery=ti.is_gun and not ti.limbered,
            target_limbered=ti.kind == "limber" or (ti.is_gun and ti.limbered),
            target_single_rank=bool(board.state.base(target).traits.get("single_rank", False)),
            target_march_column=ti.march_column)
        found = cache[target] = (facts, _class_of(board, facts))
    return found
