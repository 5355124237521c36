"""Objectives held for the initiative (Federico "Iniziativa": «+1 per ogni obiettivo (collina,
villaggio, ponte ecc.) di cui si è in possesso, + il Valore del Comandante in Capo»).

Which terrain is an objective and what "held" means are not in the text: the gap settings
``objective_kinds`` and ``objective_holding`` decide. A base is on an area objective when its
centre is inside it, on a bridge when its base touches the bridge line.
"""

from __future__ import annotations

from typing import Any

import shapely

from campo.engine.rulesets.federico.board import Board
from campo.engine.rulesets.federico.morale import chief_of
from campo.engine.scenario import TerrainFeature


def _occupants(board: Board, t: TerrainFeature) -> dict[str, list[str]]:
    """Troop bases on the objective by side: an area holding the base's centre
    (`Board.centre_areas`), or a line (bridge) the base touches (one vectorised call)."""
    troops = board.troops()
    if t.polygon_mm is not None:
        on = [t.id in board.centre_areas[i] for i in troops]
    else:
        on = shapely.dwithin(board.shapes[[board.pos[i] for i in troops]],
                             shapely.LineString(t.line_mm), board.contact_tol).tolist()
    out: dict[str, list[str]] = {"A": [], "B": []}
    for i, hit in zip(troops, on):
        if hit:
            out[board.pieces[i].side].append(i)
    return out


def objectives(board: Board) -> list[dict[str, Any]]:
    """Each objective on the table: kind, the bases on it by side, and who holds it."""
    kinds = board.settings.objective_kinds
    out = []
    for t in board.state.scenario.terrain:
        if t.kind not in kinds:
            continue
        occ = _occupants(board, t)
        a, b = len(occ["A"]), len(occ["B"])
        if board.settings.objective_holding == "majority":
            held = "A" if a > b else ("B" if b > a else None)
        else:
            held = "A" if a and not b else ("B" if b and not a else None)
        out.append({"id": t.id, "kind": t.kind, "held_by": held, "bases": occ})
    return out


def initiative(board: Board, objs: list[dict[str, Any]]) -> dict[str, Any]:
    """Each side's initiative bonus: objectives held + the Commander in Chief's value."""
    out: dict[str, Any] = {}
    for side in ("A", "B"):
        held = [o["id"] for o in objs if o["held_by"] == side]
        chief = chief_of(board, side)
        ability = board.pieces[chief].ability if chief else None
        out[side] = {"objectives_held": held, "chief": chief, "chief_value": ability,
                     "bonus": len(held) + (ability or 0)}
    out["ties"] = board.settings.f26_initiative_ties
    return out
