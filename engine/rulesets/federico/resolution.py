"""Federico fire and melee resolved with the dice. Fire (Federico "Esecuzione del tiro"): each of
the firer's D6 plus the modifiers the fire verdict computed, against the firer's class
(`fire.die_result`): a base of the target eliminated per hit, one class lost for a lower result
(F11: once per phase, or once per die), the unit eliminated below class 3, and the firer marked
as having fired (the first volley's bonus is spent, F13). Melee (Federico "Mischie"): the
defender's morale test, then the attacker's die on the melee table (`melee.engagements`)."""

from __future__ import annotations

from typing import Any

from campo.engine.resolution import (
    Dice,
    DiceTest,
    Effect,
    Ghost,
    Outcome,
    Roll,
    on_table,
    refuse_shot,
)
from campo.engine.rulesets.federico.board import Board
from campo.engine.rulesets.federico.fire import FIRE, die_result, targets
from campo.engine.rulesets.federico.melee import MELEE, engagements
from campo.engine.rulesets.federico.modifiers import total
from campo.engine.rulesets.federico.movement import fall_back
from campo.engine.rulesets.federico.unit_state import unit_state
from campo.engine.rulesets.federico.units import (
    LINE_CLASS,
    LOWEST_CLASS,
    MELEE_RESULTS,
    melee_result_spans,
)
from campo.engine.state import GameState
from campo.errors import CampoInputError

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
                       tuple(str(d) for d in dice[0]),
                       {"modifier": modifier, "class": klass, "results": results}, tuple(effects))

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


MELEE_TEXT = {result: text + (" and drops one class" if result == "defender_falls_back" else "")
              for _, result, text in MELEE_RESULTS}   # «arretra ... e scende di una Classe»


def melee_test(state: GameState, attacker: str, defender: str) -> DiceTest:
    """The melee of ``attacker`` on ``defender`` (bases in contact) ready to roll (Federico
    "Mischie"): the defender's 1D6 morale test (higher than its class: it falls back and drops
    a class, and there is no melee), then, if it stands, the attacker's 1D6 for this base, read
    on the melee table with the modifiers the engagement computed (F20 counts, F21: a die
    applies to the defending base its base touches)."""
    board = Board.of(state)
    on_table(board.pieces, attacker, defender)
    found = [(e, d) for e in engagements(board) for d in e["per_die"]
             if d["attacker_base"] == attacker and d["defender_base"] == defender]
    if not found:
        raise CampoInputError(f"{attacker} is not in melee with {defender} (no contact)",
                              key="target")
    engagement, die = found[0]
    morale = engagement["defender_morale"]
    klass, m_morale, m_melee = morale["class"], morale["modifier_total"], die["modifier_total"]
    modifiers = ([{**m, "label": f"morale test of {defender}: {m['label']}"}
                  for m in morale["modifiers"]]
                 + [{**m, "label": f"melee die of {attacker}: {m['label']}"}
                    for m in die["modifiers"]])
    rows = [(span, result) for span, result, _ in melee_result_spans()]
    table = {"title": f"Morale test: 1D6 {m_morale:+d} above class {klass} falls back; "
                      f"melee: 1D6 {m_melee:+d}", "cites": MELEE, "columns": ["melee die", "result"],
             "rows": [[label, MELEE_TEXT[r]] for label, r in rows]}
    notes = tuple(n for n in (morale.get("automatic"),) if n)

    def read(dice: Dice) -> Outcome:
        test_score = dice[0][0] + m_morale
        score = {"morale": test_score, "class": klass}
        if test_score > klass:
            return Outcome("falls back", f"morale {test_score} > class {klass}: {defender} "
                           "falls back with its back to the enemy and drops one class",
                           MELEE, (), score, _beaten(board, defender, attacker, True))
        melee = dice[1][0] + m_melee
        score["melee"] = melee
        label, result = next((lb, r) for (lb, r), (high, _, _) in zip(rows, MELEE_RESULTS)
                             if melee <= high)
        loser = defender if result.startswith("defender") else attacker
        effects = (_eliminated(loser) if result.endswith("eliminated")
                   else _beaten(board, loser, attacker if loser == defender else defender,
                                loser == defender))
        return Outcome(label, f"stands (morale {test_score} ≤ {klass}); melee {melee}: "
                       f"{MELEE_TEXT[result]}", MELEE, (label,), score, effects)

    return DiceTest("melee", attacker, defender, "Melee", MELEE, modifiers,
                    (Roll(f"morale test of {defender} (1D6)", 1, 6),
                     Roll(f"melee die of {attacker} (1D6)", 1, 6, only_if="stands")),
                    table, read, notes)


def _eliminated(base_id: str) -> tuple[Effect, ...]:
    return (Effect(base_id, "eliminated: lift it from the table", remove=True),)


def _beaten(board: Board, loser: str, winner: str, drops_class: bool) -> tuple[Effect, ...]:
    """Falls back with its back to the enemy (F22, a ghost) and, for the defender, one class
    less («arretra ... e scende di una Classe»); eliminated below class 3."""
    traits: dict[str, Any] = {}
    words = []
    if drops_class:
        now = board.pieces[loser].klass or LINE_CLASS
        if now - 1 < LOWEST_CLASS:
            return (Effect(loser, f"class {now} → {now - 1}: below {LOWEST_CLASS}, eliminated",
                           remove=True),)
        if "class" in {t.key for t in unit_state(board.state.base(loser))}:
            traits["class"] = now - 1
        words.append(f"class {now} → {now - 1}")
    back = fall_back(board, loser, winner)
    ghost = None
    if back is not None:
        ghost = Ghost(back["end"][0], back["end"][1], back["direction_deg"],
                      f"falls back {back['distance_cm']:g} cm, back to the enemy")
        words.append(ghost.text)
    return (Effect(loser, ", ".join(words) or "falls back", traits, ghost=ghost),)
