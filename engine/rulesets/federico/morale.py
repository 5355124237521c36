"""Army morale (Federico "Morale dell'esercito"; F24, F25): the loss threshold from the Commander
in Chief's Command Capacity, whether the test is due, and the chance of passing it.

Bases at the start come from the scenario's ``armies`` member, e.g.
``"armies": {"A": {"bases_at_start": 60}}``; without it the troop bases now on the table are
taken as the start (no losses). Eliminated = bases at the start - troop bases on the table now.
Class drops are not losses (F24).
"""

from __future__ import annotations

import math
from typing import Any

from campo.engine.rulesets.federico.board import Board

ARMY_KEYS = ("bases_at_start", "tested_at_losses")


def chief_of(board: Board, side: str) -> str | None:
    """The side's Commander in Chief (traits.rank = "chief"), the first by id if several."""
    chiefs = sorted(i for i, p in board.pieces.items()
                    if p.is_commander and p.side == side and p.rank == "chief")
    return chiefs[0] if chiefs else None


def army_morale(board: Board) -> dict[str, Any]:
    """Per side: chief, Command Capacity, bases at start/now, lost, threshold, test due, odds."""
    armies = board.state.scenario.armies or {}
    out: dict[str, Any] = {}
    for side in ("A", "B"):
        now = len(board.troops(side))
        info = armies.get(side) or {}
        start = int(info.get("bases_at_start", now))
        lost = max(0, start - now)
        chief = chief_of(board, side)
        capacity = board.pieces[chief].ability if chief else None
        entry: dict[str, Any] = {"chief": chief, "command_capacity": capacity,
                                 "bases_at_start": start, "bases_now": now, "lost": lost}
        if capacity:
            pct = capacity * board.settings.f24_loss_percent_per_capacity
            threshold = pct / 100.0 * start
            entry.update({
                "threshold_percent": pct,
                "threshold_bases": math.ceil(threshold - 1e-9),
                "test_due": start > 0 and lost >= threshold - 1e-9,
                "pass_chance": round(min(capacity, 6) / 6.0, 4),
            })
            tested = info.get("tested_at_losses")
            if isinstance(tested, int) and entry["test_due"]:
                entry["test_due"] = lost > tested   # F25: only after further losses
                if not entry["test_due"] and \
                        board.settings.f25_further_losses == "any_loss_or_class_drop":
                    entry["note"] = ("a class drop this turn also calls for a test (Federico "
                                     "F25); the engine cannot see class drops")
        else:
            entry["note"] = "no Commander in Chief (traits.rank = \"chief\") on the table"
        out[side] = entry
    return out


def army_problems(board: Board) -> list[tuple[str, str]]:
    """(key, message) for a malformed ``armies`` member."""
    armies = board.state.scenario.armies
    out: list[tuple[str, str]] = []
    if armies is None:
        return out
    for side, info in armies.items():
        if side not in ("A", "B"):
            out.append((f"armies.{side}", "side must be A or B"))
            continue
        if not isinstance(info, dict):
            out.append((f"armies.{side}", "must be an object"))
            continue
        for key, value in info.items():
            if key not in ARMY_KEYS:
                out.append((f"armies.{side}.{key}",
                            f"unknown key for federico (known: {', '.join(ARMY_KEYS)})"))
            elif not isinstance(value, int) or isinstance(value, bool) or value < 0:
                out.append((f"armies.{side}.{key}", f"must be a whole number >= 0 (got {value!r})"))
        start = info.get("bases_at_start")
        if isinstance(start, int) and not isinstance(start, bool) and \
                start < len(board.troops(side)):
            out.append((f"armies.{side}.bases_at_start",
                        f"{start} is fewer than the {len(board.troops(side))} troop bases "
                        "on the table"))
    return out
