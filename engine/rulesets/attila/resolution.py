"""ATTILA shooting and melee resolved with the dice. Shooting (ATT 6.B, 6.C, T): the shooter's
die (a step smaller when it is disordered, 8.A) against the score the range band needs, then the
target's 1d6 save when it is in cover or Heavy; the target is disordered, or destroyed when it
already was (ATT 8.A). Melee (ATT 7): each side's melee die, the lower Disordered.
Reorganisation (ATT 9.A): a Disordered unit's 1d8 to rally."""

from __future__ import annotations

import re

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
from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.contact import attached_general, draw_disorders_attacker, melee_of
from campo.engine.rulesets.attila.control_points import reorganisation
from campo.engine.rulesets.attila.melee import retreat_pose
from campo.engine.rulesets.attila.shooting import targets_of_many
from campo.engine.rulesets.attila.analysis import morale
from campo.engine.rulesets.attila.morale import armies
from campo.engine.rulesets.attila.tables import DEMORALISED_RALLY_MODIFIER, RALLY_ON, SAVE_ON
from campo.engine.state import GameState
from campo.errors import CampoInputError

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
    on_table(board.units, shooter, target)
    shot = next((t for t in targets_of_many(board, [shooter])[shooter] if t.id == target), None)
    if shot is None or not shot.can_shoot or shot.die is None or shot.score_needed is None:
        raise refuse_shot(shooter, target, shot.reasons if shot else None, "shoot at")
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


MELEE_CITES = "ATT 7.A-7.E, 8.A, T"


def melee_test(state: GameState, attacker: str, defender: str) -> DiceTest:
    """``attacker``'s melee against ``defender`` (in contact) ready to roll: each side's melee
    die (a step down when disordered, 8.A), the attacker's 1d4 -1 for a flank attack (7.C) and
    a helping General's 1d4 -1 (7.D). The lower score is Disordered and retreats 5 cm (7.E; a
    ghost of `melee.retreat_pose`), a Disordered base Disordered again is destroyed (8.A); a
    draw changes nothing, unless the attacker attacked uphill or into a wood (7.B, T)."""
    board = Board.of(state)
    on_table(board.units, attacker, defender)
    if defender not in {c.other for c in board.contacts(attacker)}:
        raise CampoInputError(f"{attacker} is not in contact with {defender}", key="target")
    mine, theirs = melee_of(board, attacker), melee_of(board, defender)
    if mine is None or theirs is None or not mine["may_attack"]:
        why = "; ".join((mine or {}).get("reasons", [])) or "it may not start a melee (ATT 7.D, 8.B)"
        raise CampoInputError(f"{attacker} cannot attack {defender}: {why}", key="actor")
    rolls = [die_roll(mine["die"], f"{attacker} melee die")]
    modifiers = [{"label": f"{attacker}: melee die {mine['die']}", "cites": "ATT 7.A, 8.A"}]
    if attacker in theirs["flanked_by"]:
        rolls.append(die_roll("d4-1", f"{attacker} flank attack"))
        modifiers.append({"label": f"{attacker}: flank attack, + 1d4 -1", "cites": "ATT 7.C, T"})
    for who, facts in ((attacker, mine), (defender, theirs)):
        if who == defender:
            rolls.append(die_roll(theirs["die"], f"{defender} melee die"))
            modifiers.append({"label": f"{defender}: melee die {theirs['die']}",
                              "cites": "ATT 7.A, 8.A"})
        if facts.get("general_adds_d4_minus_1"):
            rolls.append(die_roll("d4-1", f"{who} General helps"))
            modifiers.append({"label": f"{who}: General {facts['general_adds_d4_minus_1']} "
                                       "helps, + 1d4 -1", "cites": "ATT 7.D, T"})
    draw_disorders = draw_disorders_attacker(board, attacker, defender)
    n_attacker = sum(1 for r in rolls if r.label.startswith(f"{attacker} "))
    table = {"title": "Melee: each side's dice, the lower is Disordered", "cites": MELEE_CITES,
             "columns": ["scores", "result"],
             "rows": [["attacker higher", f"{defender} Disordered, retreats 5 cm"],
                      ["defender higher", f"{attacker} Disordered, retreats 5 cm"],
                      ["equal", f"{attacker} Disordered ({'; '.join(draw_disorders)})"
                                if draw_disorders else "no effect"]]}

    def read(dice: Dice) -> Outcome:
        scores = [d[0] + r.offset for r, d in zip(rolls, dice)]
        a, b = sum(scores[:n_attacker]), sum(scores[n_attacker:])
        score = {attacker: a, defender: b}
        if a == b:
            effects = (_disorder(board, attacker, defender),) if draw_disorders else ()
            return Outcome("equal", f"{a} = {b}: draw" + (", the attacker is Disordered"
                                                          if draw_disorders else ""),
                           MELEE_CITES, ("equal",), score, effects)
        loser, winner = (defender, attacker) if a > b else (attacker, defender)
        row = "attacker higher" if a > b else "defender higher"
        effect = _disorder(board, loser, winner)
        return Outcome(row, f"{a} vs {b}: {loser} {effect.text}", MELEE_CITES, (row,), score,
                       (effect,))

    return DiceTest("melee", attacker, defender, "Melee", MELEE_CITES, modifiers, tuple(rolls),
                    table, read)


def _disorder(board: Board, loser: str, winner: str) -> Effect:
    """Disordered and retreating 5 cm from the winner (ATT 7.E), or destroyed when it already
    was Disordered (ATT 8.A)."""
    if board.units[loser].disordered:
        return Effect(loser, "disordered again: destroyed, lift it from the table", remove=True)
    r = retreat_pose(board, loser, winner)
    return Effect(loser, "Disordered, retreats 5 cm", {"disordered": True},
                  ghost=Ghost(r.cx, r.cy, r.heading_deg, "retreats 5 cm"))


RALLY_CITES = "ATT 9.A, 10.A, T"


def manoeuvre_test(state: GameState, unit: str) -> DiceTest:
    """ATTILA's test of one base (`Ruleset.manoeuvre_test`): a Disordered unit's try to
    reorganise (ATT 9.A): 1d8 against its army's discipline (Veteran 5-8, Regular 6-8,
    Irregular 7-8), 1d4 -1 more with its General attached, 1 less when the army is Demoralised
    (10.A); on a success it is no longer Disordered."""
    board = Board.of(state)
    on_table(board.units, unit)
    u = board.units[unit]
    demoralised = bool(morale(board)[u.side]["demoralised"])
    facts = reorganisation(board, unit, demoralised)
    if facts is None:
        raise CampoInputError(f"{unit} is not a Disordered unit: nothing to reorganise",
                              key="actor")
    if not facts["eligible"]:
        raise CampoInputError(f"{unit} may not try to reorganise: {'; '.join(facts['reasons'])}",
                              key="actor")
    need = RALLY_ON[armies(board)[u.side].discipline]
    rolls = [die_roll("d8", f"{unit} rallies")]
    general = attached_general(board, unit)
    if general is not None:
        rolls.append(die_roll("d4-1", f"General {general} attached"))
    minus = DEMORALISED_RALLY_MODIFIER if demoralised else 0
    modifiers = [{"label": f"{armies(board)[u.side].discipline} army: rallies on {need}+",
                  "cites": "ATT 9.A, T"}]
    modifiers += [{"label": m, "cites": "ATT 9.A, 10.A"} for m in facts["modifiers"]]
    table = {"title": f"Reorganisation: 1d8 needs {need}+", "cites": RALLY_CITES,
             "columns": ["score", "result"],
             "rows": [[f"{need}+", "rallied: no longer Disordered"],
                      [f"{need - 1} or less", "still Disordered"]]}

    def read(dice: Dice) -> Outcome:
        score = sum(d[0] + r.offset for r, d in zip(rolls, dice)) + minus
        if score >= need:
            return Outcome(f"{need}+", f"{score}: rallied", RALLY_CITES, (f"{need}+",),
                           {"score": score}, (Effect(unit, "rallied", {"disordered": False}),))
        row = f"{need - 1} or less"
        return Outcome(row, f"{score}: still Disordered", RALLY_CITES, (row,), {"score": score})

    return DiceTest("manoeuvre", unit, "", "Reorganisation", RALLY_CITES, modifiers,
                    tuple(rolls), table, read)
