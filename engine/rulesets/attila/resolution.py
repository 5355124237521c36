"""ATTILA shooting resolved with the dice (ATT 6.B, 6.C, T): the shooter's die (a step smaller
when it is disordered, 8.A) against the score the range band needs, then the target's 1d6 save
when it is in cover or Heavy. The effect proposed: the target disordered, or destroyed when it
already was (ATT 8.A)."""

from __future__ import annotations

import re

from campo.engine.resolution import Dice, Effect, Outcome, Roll, DiceTest
from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.shooting import targets_of
from campo.engine.rulesets.attila.tables import SAVE_ON
from campo.engine.state import GameState
from campo.errors import CampoInputError, UnknownBaseError

CITES = "ATT 6.B, 6.C, T"


def die_roll(die: str, label: str, only_if: str = "") -> Roll:
    """One die named as the rulebook names it ("d8", "d4-1") as a `Roll`.

    >>> die_roll("d4-1", "shot").sides, die_roll("d4-1", "shot").offset
    (4, -1)
    """
    m = re.fullmatch(r"d(\d+)([+-]\d+)?", die)
    if m is None:
        raise ValueError(f"not a die: {die!r}")
    return Roll(f"{label} ({die})", 1, int(m.group(1)), int(m.group(2) or 0), only_if=only_if)


def fire_test(state: GameState, shooter: str, target: str) -> DiceTest:
    """The shot of ``shooter`` at ``target`` ready to roll (`CampoInputError` when the verdict
    says it may not be taken)."""
    board = Board.of(state)
    for who in (shooter, target):
        if who not in board.units:
            raise UnknownBaseError(f"no base {who!r} on the table now")
    shot = next((t for t in targets_of(board, shooter) if t.id == target), None)
    if shot is None or not shot.can_shoot or shot.die is None or shot.score_needed is None:
        why = "; ".join(shot.reasons) if shot is not None and shot.reasons else \
            "not in its arc of fire or range"
        raise CampoInputError(f"{shooter} cannot shoot at {target}: {why}", key="target")
    die, needed = die_roll(shot.die, "shooting die"), shot.score_needed
    rolls = [die]
    if shot.saves:
        rolls.append(die_roll("d6", f"save, {' or '.join(shot.saves)}", only_if="hit"))
    modifiers = [{"label": f"{shot.band.value if shot.band else '?'} range: {needed} or more "
                           "needed", "cites": "ATT 6.A, 6.B, T"},
                 {"label": f"shooting die {shot.die}"
                           + (" (a step down: disordered)" if board.units[shooter].disordered
                              else ""), "cites": "ATT T, 8.A"}]
    modifiers += [{"label": f"target {why}: saves on {SAVE_ON}+", "cites": "ATT 6.C, AT9"}
                  for why in shot.saves]
    faces = range(1 + die.offset, die.sides + die.offset + 1)
    table = {"title": f"Shooting: {shot.die} needs {needed}+", "cites": CITES,
             "columns": ["score", "result"],
             "rows": [[str(f), "hit: disordered" + (f" unless it saves ({SAVE_ON}+ on 1d6)"
                                                     if shot.saves else "")
                       if f >= needed else "miss"] for f in faces]}
    already = board.units[target].disordered

    def read(dice: Dice) -> Outcome:
        score = dice[0][0] + die.offset
        read_on = (str(score),)
        if score < needed:
            return Outcome("miss", f"{score} < {needed}: missed", CITES, read_on, {"score": score})
        if len(dice) > 1 and dice[1][0] >= SAVE_ON:
            return Outcome("saved", f"hit ({score}), saved on {dice[1][0]}", CITES, read_on,
                           {"score": score, "save": dice[1][0]})
        effect = (Effect(target, "disordered again: destroyed, lift it from the table",
                         remove=True) if already
                  else Effect(target, "disordered", {"disordered": True}))
        return Outcome("hit", f"hit ({score} ≥ {needed}): {effect.text}", CITES, read_on,
                       {"score": score}, (effect,))

    return DiceTest("fire", shooter, target, "Shooting", CITES, modifiers, tuple(rolls), table, read)
