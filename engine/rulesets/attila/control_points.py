"""Control Points: what moving each group costs, and who may try to rally (ATT 4, 9.A, 10.A).

Costs (ATT 4.C): 1 PC per unit or group, 2 when the General is dead, in contact with enemy bases
or more than 40 cm away (AT14). A Demoralised army pays 2, or 3 in those cases, but only 1 to move
straight toward its own table edge without ending in contact (ATT 10.A). Generals move free
(ATT 4.A); a forced march costs 1 more PC per base (ATT 4.D).
"""

from __future__ import annotations

from typing import Any

import shapely

from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.contact import (
    attached_general, command_reach_mm, general_gaps,
)
from campo.engine.rulesets.attila.groups import Group, Groups
from campo.engine.rulesets.attila.morale import armies, general_dead
from campo.engine.rulesets.attila.tables import (
    FORCED_MARCH_PC_PER_BASE, GENERAL_MOVE_PC, PC_COST, PC_COST_TO_OWN_EDGE_DEMORALISED, PC_DIE,
    RALLY_ON, REORGANISE_BEYOND_CM, WING_PC_DIE,
)


def general_status(board: Board, side: str) -> tuple[str | None, str]:
    """(general id, "dead" / "in_contact" / "ok") for the army's General (ATT 4.C)."""
    gens = board.generals(side)
    if general_dead(board, side) or not gens:
        return None, "dead"
    if all(board.in_enemy_contact(g) for g in gens):
        return gens[0], "in_contact"
    return next(g for g in gens if not board.in_enemy_contact(g)), "ok"


def _far(board: Board, groups: list[Group], side: str) -> list[float | None]:
    """Per group, how far it is from the nearest free General (AT14: to the group's nearest
    base, or with 'each_base' its farthest) when that is beyond the command reach, else None.
    The bases within reach are known from `general_gaps` (the summaries ask it anyway); the
    other groups are measured by one vectorised distance for every pair."""
    free = [g for g in board.generals(side) if not board.in_enemy_contact(g)]
    reach = command_reach_mm(board) + 1e-6
    gaps = general_gaps(board)
    nearest = board.settings.at14_general_distance == "nearest_base_of_group"

    def within(g: Group) -> bool:
        near = [{general for general, gap in gaps[m] if gap <= reach} for m in g.members]
        return bool(set(free) & (set.union(*near) if nearest else set.intersection(*near)))

    far = [g for g in groups if not within(g)]
    members = [m for g in far for m in g.members]
    measured = shapely.distance(board.shapes[[board.pos[m] for m in members]][:, None],
                                board.shapes[[board.pos[g] for g in free]][None, :])
    out: dict[str, float] = {}
    n = 0
    for g in far:
        block = measured[n:n + len(g.members)]
        n += len(g.members)
        per_general = block.min(axis=0) if nearest else block.max(axis=0)
        out[g.id] = float(per_general.min())    # several Generals: the nearest free one
    return [out.get(g.id) for g in groups]


def group_costs(board: Board, groups: list[Group], side: str,
                demoralised: bool) -> list[dict[str, Any]]:
    """PC cost of moving each group of one side (ATT 4.C, 10.A)."""
    general, status = general_status(board, side)
    far_reasons: list[list[str]] = [[] for _ in groups]
    if status == "dead":
        far_reasons = [["the General is dead (ATT 4.C)"] for _ in groups]
    elif status == "in_contact":
        far_reasons = [["the General is in contact with the enemy (ATT 4.C)"] for _ in groups]
    elif groups:
        for k, far in enumerate(_far(board, groups, side)):
            if far is not None:
                far_reasons[k].append(f"{board.cm(far):.1f} cm from the General, more than "
                                      "40 cm (ATT 4.C, AT14)")
    out = []
    for g, reasons in zip(groups, far_reasons):
        cost = PC_COST[(demoralised, bool(reasons))]
        if demoralised:
            reasons = reasons + ["the army is Demoralised (ATT 10.A)"]
        out.append({"members": list(g.members), "cost": cost,
                    "cost_to_own_edge": PC_COST_TO_OWN_EDGE_DEMORALISED if demoralised else None,
                    "forced_march_extra": FORCED_MARCH_PC_PER_BASE * len(g.members),
                    "reasons": reasons})
    return out


def control_points(board: Board, morale: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per army: the PC die, the General's state and every group's cost."""
    groups = Groups.of(board)
    out: dict[str, Any] = {}
    facts = armies(board)
    for side in ("A", "B"):
        general, status = general_status(board, side)
        demoralised = morale[side]["demoralised"]
        mine = [g for g in groups.groups if board.units[g.members[0]].side == side]
        costs = dict(zip((g.id for g in mine), group_costs(board, mine, side, demoralised)))
        out[side] = {"die": PC_DIE[facts[side].discipline],
                     "wing_die": WING_PC_DIE[facts[side].discipline],
                     "general": general, "general_status": status,
                     "general_move_cm": (board.units[general].move_cm(board.settings)
                                         if general else None),
                     "demoralised": demoralised, "general_move_cost": GENERAL_MOVE_PC,
                     "groups": costs}
    return out


def reorganisation(board: Board, base_id: str, demoralised: bool) -> dict[str, Any] | None:
    """ATT 9.A: may this Disordered unit try to rally, and on what?"""
    u = board.units[base_id]
    if not u.is_troops or not u.disordered:
        return None
    reasons = []
    if board.in_enemy_contact(base_id):
        reasons.append("in contact with the enemy (ATT 9.A)")
    # «oltre i 30cm»: an enemy at exactly 30 cm is not beyond it (a hair of rounding either way)
    reach = board.mm(REORGANISE_BEYOND_CM * board.settings.at18_distance_scale) + 1e-6
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
