"""Mandatory charges (ATT 13; readings AT26, AT27): who must charge whom, listed for the umpire.

Obliged: mounted units with a melee die of D6 or more, and Tribal Bands (``traits.tribal``).
Potential targets: enemy Close Order units (all but SI, AT27) with a melee die of D8 or more,
except FL and FLP, reachable with one move (AT26). Mounted units need not charge into Woods or
Difficult Terrain. A whole Group follows a member that must charge, if it can stay together.
"""

from __future__ import annotations

from typing import Any

from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.charges import all_candidates, judge_charges
from campo.engine.rulesets.attila.groups import Groups
from campo.engine.rulesets.attila.tables import (
    MARSHES, NOT_POTENTIAL_TYPES, OBLIGED_MOUNTED_DIE, POTENTIAL_TARGET_DIE, ROUGH, WOODS,
)
from campo.engine.rulesets.attila.units import die_at_least


def obliged(board: Board, base_id: str) -> bool:
    """ATT 13 1) «unità montate con Dadi Mischia D6 o più»; 2) «Bande Tribali (BT)»."""
    u = board.units[base_id]
    if not u.is_troops or u.absent:
        return False
    return (u.mounted and die_at_least(u.melee_die, OBLIGED_MOUNTED_DIE)) or u.tribal


def potential_target(board: Board, target_id: str) -> bool:
    """ATT 13 «qualsiasi unità in Ordine Chiuso che abbia un Dado di Mischia di D8 o più»."""
    t = board.units[target_id]
    if t.absent or t.is_general or t.type in NOT_POTENTIAL_TYPES:
        return False
    return t.close_order(board.settings) and die_at_least(t.melee_die, POTENTIAL_TARGET_DIE)


def obligations(board: Board) -> dict[str, dict[str, Any]]:
    """Per obliged base (not Disordered, ATT 8.A, nor already fighting) with a potential target
    it can reach: its entry (below), in id order. The summaries' badges and the table's list
    both read it, once per state."""
    return board.state.cached("attila.obligations", lambda: _obligations(board))


def charge_reach_mm(board: Board) -> float:
    """How far from an obliged base a change can alter what it must charge: its move, the
    contact tolerance and the close call (its potential targets), and the two bases' diagonals
    (the bases its paths can meet lie within them). Once per state (the live game's reach of
    a change asks too)."""
    def build() -> float:
        s = board.settings
        longest = max((board.mm(u.move_cm(s)) for u in board.units.values()
                       if u.mounted or u.tribal), default=0.0)
        diagonal = max(((r.width ** 2 + r.depth ** 2) ** 0.5 for r in board.rects), default=0.0)
        return longest + 2 * diagonal + board.contact_tol + board.close_call
    return board.state.cached("attila.charge_reach", build)


Judged = dict[str, tuple[tuple[str, ...], tuple[str, ...]]]
"""Per obliged base: the potential targets it may legally charge, and those it is excused from
charging by the terrain."""


def _obligations(board: Board) -> dict[str, dict[str, Any]]:
    bases = [i for i in board.ids if obliged(board, i) and not board.units[i].disordered
             and not board.in_enemy_contact(i)]
    judged = _taken_over(board, bases)
    groups = Groups.of(board)
    out = {}
    for i in bases:
        targets, excused = judged[i]
        if not targets and not excused:
            continue
        u = board.units[i]
        g = groups.group_of.get(i)
        members = list(g.members) if g else [i]
        entry: dict[str, Any] = {
            "base": i, "group": g.id if g else None, "targets": list(targets),
            "reason": ("Tribal Band (ATT 13)" if u.tribal else
                       f"mounted with melee die {u.melee_die} (ATT 13)"),
            "whole_group": members if len(members) > 1 else [],
        }
        if excused:
            entry["excused_terrain"] = list(excused)
        if targets and len(members) > 1:
            entry["note"] = ("the whole group must move with it if it can stay together; it "
                             "never breaks up to charge (ATT 13)")
        out[i] = entry
    return out


def _taken_over(board: Board, bases: list[str]) -> Judged:
    """`Judged` of ``bases``: in a live game, those of the moment before for the bases no
    change can reach (the scene as it was, every changed, added or removed base farther than
    `charge_reach_mm` from where it was and is: what `Ruleset.summary_reach_mm` promises,
    `GameState.changes`), the others judged again (`_judge`). Handed on to the next moment
    (`GameState.hand_on`)."""
    state = board.state
    before: Judged | None = state.handed_on("attila.obligations")
    kept: Judged = {}
    if before is not None and not state.changes.scene:
        near = state.changes.near(charge_reach_mm(board),
                                  among=[i for i in before if i in board.pos])
        kept = {i: v for i, v in before.items() if i not in near}
    fresh = _judge(board, [i for i in bases if i not in kept])
    out = {i: kept[i] if i in kept else fresh[i] for i in bases}
    state.hand_on("attila.obligations", out)
    return out


def _judge(board: Board, bases: list[str]) -> Judged:
    """`Judged` of ``bases``: every charge on a potential target within reach judged together."""
    found = all_candidates(board, bases)
    potential = {t for t in set().union(*found.values()) if potential_target(board, t)}
    verdicts = judge_charges(board, [(i, t) for i in bases for t in found[i] if t in potential])
    difficult = WOODS | MARSHES | ROUGH
    out: Judged = {}
    for i in bases:
        targets, excused = [], []
        for t in found[i]:
            if (i, t) not in verdicts or not verdicts[(i, t)].legal:
                continue
            if board.units[i].mounted and (verdicts[(i, t)].terrain
                                           or board.area_holding(t, difficult)):
                excused.append(t)   # ATT 13 «non sono obbligate a caricare nei Boschi o ...»
            else:
                targets.append(t)
        out[i] = (tuple(targets), tuple(excused))
    return out


def mandatory_charges(board: Board) -> list[dict[str, Any]]:
    """One entry per obliged base with at least one potential target it can reach, in id
    order (ATT 13)."""
    return list(obligations(board).values())
