"""Army losses, demoralisation and victory (ATT 10, 15; readings AT29, AT30).

The army-level facts live in the scenario's ``armies`` member (shared/interfaces.md):
``{"A": {"discipline": "regular", "start_bases": 24, "bases_lost": 3, "has_camp": true,
"camp_lost": false, "general_killed": false, "demoralised": false}}``. Only ``discipline`` is in
interfaces.md; the rest are ATTILA's additions, all optional.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from campo.engine.ruleset import Problem
from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.tables import (
    CAMP_COUNTS, D6_FACES, DECISIVE_BELOW, DEMORALISED_SHARE, GENERAL_COUNTS, LAST_TURN,
    PARTIAL_UPTO, VICTORY_SHARE,
)


class Army(BaseModel):
    """One army's own facts (scenario ``armies.A`` / ``armies.B``)."""

    model_config = ConfigDict(extra="forbid")

    discipline: Literal["veteran", "regular", "irregular"] = "regular"
    start_bases: int | None = Field(None, ge=0, description="troop bases at the start "
                                    "(General and Camp not included)")
    bases_lost: int | None = Field(None, ge=0, description="troop bases destroyed so far, "
                                   "including those lost overrunning a Camp (ATT 8.B)")
    has_camp: bool | None = None
    camp_lost: bool = False
    general_killed: bool = False
    demoralised: bool = Field(False, description="once Demoralised, always (ATT 10.B)")
    move_rolls: dict[str, int] = Field(
        default_factory=dict, description="base id -> the 1D6 rolled this turn and subtracted "
        "from its move: in a wood, marsh or difficult terrain, or the move after a ford "
        "(ATT 5.B, AT16)")

    @field_validator("move_rolls")
    @classmethod
    def _d6(cls, rolls: dict[str, int]) -> dict[str, int]:
        bad = sorted(k for k, v in rolls.items() if not 1 <= v <= D6_FACES)
        if bad:
            raise ValueError(f"a 1D6 roll is 1 to 6 (bases {', '.join(bad)})")
        return rolls


def armies(board: Board) -> dict[str, Army]:
    """Both armies' facts (once per state); invalid entries fall back to defaults (reported by
    army_problems)."""
    return board.state.cached("attila.armies", lambda: _armies(board))


def _armies(board: Board) -> dict[str, Army]:
    raw = board.state.scenario.armies or {}
    out = {}
    for side in ("A", "B"):
        try:
            out[side] = Army.model_validate(raw.get(side) or {})
        except ValidationError:
            out[side] = Army()
    return out


def army_problems(board: Board) -> list[Problem]:
    raw = board.state.scenario.armies or {}
    out = []
    for side, value in raw.items():
        if side not in ("A", "B"):
            out.append(Problem(f"armies.{side}", "armies are keyed by side, 'A' or 'B'"))
            continue
        try:
            Army.model_validate(value or {})
        except ValidationError as exc:
            for e in exc.errors():
                key = ".".join(str(p) for p in e["loc"])
                out.append(Problem(f"armies.{side}.{key}", e["msg"]))
    for side in ("A", "B"):
        for base_id in sorted(armies(board)[side].move_rolls):
            u = board.units.get(base_id)
            if u is None or u.side != side:
                out.append(Problem(f"armies.{side}.move_rolls.{base_id}",
                                   f"no base {base_id!r} of side {side} on the table", "warning"))
    for side in ("A", "B"):
        if not armies(board)[side].general_killed and not _general_on_table(board, side) and \
                any(u.side == side for u in board.units.values()):
            out.append(Problem(f"armies.{side}", f"no General of {side} on the table: counted as "
                               "dead for Control Points (ATT 4.C); set general_killed to say so",
                               "warning"))
    return out


def _general_on_table(board: Board, side: str) -> bool:
    return bool(board.generals(side))


def general_dead(board: Board, side: str) -> bool:
    return armies(board)[side].general_killed or not _general_on_table(board, side)


def army_morale(board: Board, side: str) -> dict[str, Any]:
    """Totals, losses, Break Point and status of one army (AT29, AT30)."""
    army = armies(board)[side]
    s = board.settings
    troops_now = sum(1 for u in board.units.values() if u.side == side and u.is_troops)
    camp_now = any(u.is_camp and u.side == side for u in board.units.values())
    notes = []
    start = army.start_bases
    if start is None:
        start = troops_now + (army.bases_lost or 0)
        notes.append("start_bases not given: counted from the bases on the table plus bases_lost")
    lost = army.bases_lost if army.bases_lost is not None else max(0, start - troops_now)
    has_camp = army.has_camp if army.has_camp is not None else (camp_now or army.camp_lost)
    five = s.at29_loss_counting == "general_and_camp_five"
    g_weight, c_weight = (GENERAL_COUNTS, CAMP_COUNTS) if five else (0, 0)
    total = start + g_weight + (c_weight if has_camp else 0)
    losses = lost + (g_weight if army.general_killed else 0) + \
        (c_weight if army.camp_lost and has_camp else 0)
    if s.at30_break_point_rounding == "round_up":
        break_point: float = math.ceil(DEMORALISED_SHARE * total - 1e-9)
    else:
        break_point = DEMORALISED_SHARE * total
    share = losses / total if total else 0.0
    demoralised = army.demoralised or (total > 0 and losses >= break_point)
    return {"discipline": army.discipline, "total": total, "losses": losses,
            "loss_share": round(share, 4), "break_point": break_point,
            "demoralised": demoralised,
            "losses_to_demoralise": max(0, math.ceil(break_point - losses - 1e-9)),
            "beaten": total > 0 and losses >= VICTORY_SHARE * total - 1e-9,
            "general_dead": general_dead(board, side), "notes": notes}


def victory(board: Board, morale: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Who has won, and how (ATT 15.A, 15.B)."""
    beaten = [side for side in ("A", "B") if morale[side]["beaten"]]
    if len(beaten) == 1:
        winner = "B" if beaten[0] == "A" else "A"
        own = morale[winner]["loss_share"]
        level = "decisive" if own < DECISIVE_BELOW - 1e-9 else (
            "partial" if own <= PARTIAL_UPTO + 1e-9 else "pyrrhic")
        return {"winner": winner, "level": level,
                "reason": f"{beaten[0]} has lost 60% of its units (ATT 15.A)"}
    if len(beaten) == 2:
        return {"winner": None, "level": None,
                "reason": "both armies have lost 60%: the first to get there won (ATT 15.A)"}
    turn = board.state.scenario.turn
    if turn is not None and turn >= LAST_TURN:
        demo = [side for side in ("A", "B") if morale[side]["demoralised"]]
        if len(demo) == 1:
            winner = "B" if demo[0] == "A" else "A"
            return {"winner": winner, "level": "partial",
                    "reason": f"after {LAST_TURN} turns only {demo[0]} is Demoralised (ATT 15.B)"}
        return {"winner": None, "level": "draw",
                "reason": f"after {LAST_TURN} turns neither or both armies Demoralised (ATT 15.B)"}
    return {"winner": None, "level": None, "reason": "the battle goes on"}
