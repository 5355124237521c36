"""Federico fire resolved with the dice (Federico "Esecuzione del tiro"): each of the firer's D6
plus the modifiers the fire verdict computed, against the firer's class (`fire.die_result`).
The effects proposed: a base of the target eliminated per hit, one class lost for a lower result
(F11: once per phase, or once per die), the unit eliminated below class 3, and the firer marked
as having fired (the first volley's bonus is spent, F13)."""

from __future__ import annotations

from typing import Any

from campo.engine.resolution import Dice, DiceTest, Effect, Outcome, Roll, on_table, refuse_shot
from campo.engine.rulesets.federico.board import Board
from campo.engine.rulesets.federico.fire import FIRE, die_result, targets
from campo.engine.rulesets.federico.modifiers import total
from campo.engine.rulesets.federico.unit_state import unit_state
from campo.engine.rulesets.federico.units import LINE_CLASS, LOWEST_CLASS
from campo.engine.state import GameState

RESULT_TEXT = {"hit": "equal to the firer's class: one base eliminated",
               "halt": "lower: the target halts next move and drops one class",
               "none": "higher: no effect"}


def fire_test(state: GameState, firer: str, target: str) -> DiceTest:
    """The volley of ``firer`` at ``target`` ready to roll (`CampoInputError` when the verdict
    says it may not be fired)."""
    board = Board.of(state)
    on_table(board.pieces, firer, target)
    shot = next((t for t in targets(board, [firer])[firer] if t.id == target), None)
    if shot is None or not shot.legal:
        raise refuse_shot(firer, target, shot.reasons if shot else None)
    modifier = total(shot.modifiers)
    klass = board.pieces[firer].klass or LINE_CLASS
    faces = [(d, die_result(board, firer, target, d + modifier)) for d in range(1, 7)]
    table = {"title": f"Fire: each D6 {modifier:+d} against the firer's class {klass}",
             "cites": FIRE, "columns": ["die", "modified", "result"],
             "rows": [[str(d), str(d + modifier), RESULT_TEXT[r]] for d, r in faces]}
    notes = () if shot.may_declare else ("not a target the firer may declare (Federico F6)",)

    def read(dice: Dice) -> Outcome:
        results = [die_result(board, firer, target, d + modifier) for d in dice[0]]
        hits, lows = results.count("hit"), results.count("halt")
        effects = _effects(board, firer, target, hits, lows)
        words = [f"{hits} hit{'s' if hits != 1 else ''}"] if hits else []
        if lows:
            words.append(f"{lows} lower")
        return Outcome(", ".join(words) or "no effect",
                       "; ".join(RESULT_TEXT[r] for r in dict.fromkeys(results)), FIRE,
                       tuple(str(d) for d in dice[0]), {"modifier": modifier, "class": klass, "results": results},
                       tuple(effects))

    return DiceTest("fire", firer, target, "Fire", FIRE, [m.to_dict() for m in shot.modifiers],
                (Roll(f"{shot.dice}D6", shot.dice, 6),), table, read, notes)


def _effects(board: Board, firer: str, target: str, hits: int, lows: int) -> list[Effect]:
    out = []
    if board.pieces[firer].arm == "infantry":
        out.append(Effect(firer, "has fired", {"fired": True}))
    if hits:
        more = f" and {hits - 1} more of its regiment" if hits > 1 else ""
        out.append(Effect(target, f"eliminated{more}: lift it from the table", remove=True))
        return out
    if lows:
        drops = lows if board.settings.f11_class_drops == "cumulative" else 1
        now = board.pieces[target].klass or LINE_CLASS
        after = now - drops
        traits: dict[str, Any] = {}
        if after < LOWEST_CLASS:
            out.append(Effect(target, f"class {now} → {after}: below {LOWEST_CLASS}, eliminated",
                              remove=True))
        else:
            declared = {t.key for t in unit_state(board.state.base(target))}
            if "class" in declared:
                traits["class"] = after
            out.append(Effect(target, f"halts next move, class {now} → {after}", traits))
    return out
