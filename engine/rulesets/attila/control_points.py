"""Control Points: what moving each group costs, and who may try to rally (ATT 4, 9.A, 10.A).

Costs (ATT 4.C): 1 PC per unit or group, 2 when the General is dead, in contact with enemy bases
or more than 40 cm away (AT14). A Demoralised army pays 2, or 3 in those cases, but only 1 to move
straight toward its own table edge without ending in contact (ATT 10.A). Generals move free
(ATT 4.A); a forced march costs 1 more PC per base (ATT 4.D).
"""

from __future__ import annotations

from typing import Any

from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.contact import GENERAL_REACH_CM, attached_general
from campo.engine.rulesets.attila.groups import Group, Groups
from campo.engine.rulesets.attila.morale import PC_DIE, RALLY_ON, WING_PC_DIE, armies, general_dead

REORGANISE_BEYOND_CM = 30.0   # ATT 9.A «lontano da unità nemiche, oltre i 30cm»


def general_status(board: Board, side: str) -> tuple[str | None, str]:
    """(general id, "dead" / "in_contact" / "ok") for the army's General (ATT 4.C)."""
    gens = board.generals(side)
    if general_dead(board, side) or not gens:
        return None, "dead"
    if all(board.in_enemy_contact(g) for g in gens):
        return gens[0], "in_contact"
    return next(g for g in gens if not board.in_enemy_contact(g)), "ok"


def group_cost(board: Board, group: Group, demoralised: bool) -> dict[str, Any]:
    """PC cost of moving one group (ATT 4.C, 10.A)."""
    side = board.units[group.members[0]].side
    general, status = general_status(board, side)
    reasons = []
    if status == "dead":
        reasons.append("the General is dead (ATT 4.C)")
    elif status == "in_contact":
        reasons.append("the General is in contact with the enemy (ATT 4.C)")
    else:
        reach = board.mm(GENERAL_REACH_CM * board.settings.at18_distance_scale)
        free = [g for g in board.generals(side) if not board.in_enemy_contact(g)]

        def measure(g: str) -> float:
            gaps = [board.gap_mm(g, m) for m in group.members]
            return min(gaps) if board.settings.at14_general_distance == \
                "nearest_base_of_group" else max(gaps)
        far = min(measure(g) for g in free)     # several Generals: the nearest free one
        if far > reach + 1e-6:
            reasons.append(f"{board.cm(far):.1f} cm from the General, more than 40 cm "
                           "(ATT 4.C, AT14)")
    if demoralised:
        cost = 3 if reasons else 2
        reasons.append("the army is Demoralised (ATT 10.A)")
    else:
        cost = 2 if reasons else 1
    return {"members": list(group.members), "cost": cost,
            "cost_to_own_edge": 1 if demoralised else None,
            "forced_march_extra": len(group.members), "reasons": reasons}


def control_points(board: Board, morale: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per army: the PC die, the General's state and every group's cost."""
    groups = Groups.of(board)
    out: dict[str, Any] = {}
    facts = armies(board)
    for side in ("A", "B"):
        general, status = general_status(board, side)
        demoralised = morale[side]["demoralised"]
        costs = {g.id: group_cost(board, g, demoralised) for g in groups.groups
                 if board.units[g.members[0]].side == side}
        out[side] = {"die": PC_DIE[facts[side].discipline],
                     "wing_die": WING_PC_DIE[facts[side].discipline],
                     "general": general, "general_status": status,
                     "general_move_cm": (board.units[general].move_cm(board.settings)
                                         if general else None),
                     "demoralised": demoralised, "general_move_cost": 0, "groups": costs}
    return out


def reorganisation(board: Board, base_id: str, demoralised: bool) -> dict[str, Any] | None:
    """ATT 9.A: may this Disordered unit try to rally, and on what?"""
    u = board.units[base_id]
    if not u.disordered or not u.is_troops:
        return None
    reasons = []
    if board.in_enemy_contact(base_id):
        reasons.append("in contact with the enemy (ATT 9.A)")
    reach = board.mm(REORGANISE_BEYOND_CM * board.settings.at18_distance_scale)
    close = [e for e in board.near(base_id, reach) if board.units[e].side != u.side
             and not board.units[e].absent]
    if close:
        reasons.append(f"enemy within 30 cm: {', '.join(close)} (ATT 9.A «oltre i 30cm»)")
    need = RALLY_ON[armies(board)[u.side].discipline]
    modifiers = []
    general = attached_general(board, base_id)
    if general is not None:
        modifiers.append(f"+1d4 -1 for General {general} attached (ATT 9.A)")
    if demoralised:
        modifiers.append("-1: the army is Demoralised (ATT 10.A)")
    return {"eligible": not reasons, "rally_on": f"{need}-8 on 1d8", "modifiers": modifiers,
            "reasons": reasons}
