"""Movement (Federico "Movimenti"): rates by arm and formation, halving on broken ground, across
obstacles and fordable streams (not Light Infantry or Indians, F16), the woods-and-villages rule,
and the fall-back «spalle al nemico» of a beaten unit (Federico "Mischie", F22).
"""

from __future__ import annotations

from typing import Any

import shapely
from shapely.geometry.base import BaseGeometry

from engine.geometry.rect import Rect, angle_diff, unit_vector
from engine.rulesets.federico.board import Board
from engine.rulesets.federico.units import FALL_BACK_CM, MOVE_CM

MOVES = 'Federico "Movimenti"'


def base_rate_cm(board: Board, base_id: str) -> float:
    """Full move in the open by arm and formation (Federico "Movimenti")."""
    p = board.pieces[base_id]
    if p.is_commander:
        return MOVE_CM[("commander", "line")]
    if p.arm == "artillery":
        if p.formation == "line":
            return board.settings.artillery_in_battery_move_cm
        return MOVE_CM[("artillery", p.formation)]
    formation = "march_column" if p.march_column else "line"
    return MOVE_CM[(p.arm, formation)]


def terrain_touched(board: Board, shape: BaseGeometry) -> dict[str, list[str]]:
    """Terrain ids by role that ``shape`` (a base or a swept path) touches."""
    s = board.settings
    out: dict[str, list[str]] = {"broken": [], "obstacle": [], "stream": [], "wood_or_village": []}
    for tid, kind, poly in board.areas:
        if shapely.intersects(shape, poly) and shapely.intersection(shape, poly).area > 1.0:
            if kind in s.broken_ground:
                out["broken"].append(tid)
            if kind in ("wood", "village", "town"):
                out["wood_or_village"].append(tid)
    for tid, kind, line in board.linears:
        if shapely.intersects(shape, line):
            if kind in s.obstacles:
                out["obstacle"].append(tid)
            if kind in s.stream_kinds:
                out["stream"].append(tid)
    return out


def allowance_cm(board: Board, base_id: str, path: BaseGeometry | None) -> tuple[float, list[str]]:
    """(allowance in cm, notes) for a move over ``path`` (the area swept), F16 halving: the
    whole move when any part touches broken ground, an obstacle or a stream; with
    'portion_only' only obstacles and streams halve it (see `broken_track_cm`)."""
    p = board.pieces[base_id]
    rate = base_rate_cm(board, base_id)
    notes: list[str] = []
    if path is None:
        return rate, notes
    touched = terrain_touched(board, path)
    halving = touched["obstacle"] + touched["stream"]
    if board.settings.f16_halved_move == "whole_move":
        halving += touched["broken"]
    if halving and not p.skirmisher and not p.is_commander:
        notes.append(f"move halved: crosses {', '.join(sorted(set(halving)))} ({MOVES}; "
                     "Federico F16)")
        rate /= 2
    return rate, notes


def broken_track_cm(board: Board, base_id: str, track: list[list[float]]) -> float:
    """F16 'portion_only': the length (cm) of the front-centre track on broken ground, which
    counts double; 0 under the default reading or for Light Infantry and Indians."""
    p = board.pieces[base_id]
    if board.settings.f16_halved_move != "portion_only" or p.skirmisher or len(track) < 2:
        return 0.0
    line = shapely.LineString(track)
    inside = sum(float(shapely.length(shapely.intersection(line, poly)))
                 for _, kind, poly in board.areas if kind in board.settings.broken_ground)
    return board.cm(inside)


def woods_problem(board: Board, base_id: str, path: BaseGeometry) -> str | None:
    """«Nei Villaggi e nei Boschi solo in colonna di marcia lungo le strade», except Light
    Infantry and Indians: a reason when the move enters one otherwise."""
    p = board.pieces[base_id]
    if p.skirmisher or p.is_commander:
        return None
    inside = set(terrain_touched(board, path)["wood_or_village"])
    inside -= set(board.areas_under(base_id, ("wood", "village", "town")))
    if not inside:
        return None
    if p.march_column and _on_road(board, path):
        return None
    return (f"may enter {', '.join(sorted(inside))} only in march column along a road "
            f"({MOVES})")


def _on_road(board: Board, path: BaseGeometry) -> bool:
    roads = [line for _, kind, line in board.linears if kind == "road"]
    return any(shapely.intersects(path, r) for r in roads)


def movement_of(board: Board, base_id: str) -> dict[str, Any]:
    """The base's move this turn as the rules give it (rates in cm)."""
    p = board.pieces[base_id]
    rate = base_rate_cm(board, base_id)
    here = terrain_touched(board, board.rect(base_id).polygon)
    halving = sorted(set(here["broken"] + here["obstacle"] + here["stream"]))
    out: dict[str, Any] = {"rate_cm": rate, "formation": p.formation,
                           "halved_if_crossing": not (p.skirmisher or p.is_commander)}
    if halving and out["halved_if_crossing"]:
        out["halved_here"] = halving
        out["rate_here_cm"] = rate / 2
    if p.skirmisher:
        out["interpenetrates_friends"] = True
    if p.arm == "artillery" and p.formation == "line":
        out["note"] = "artillery in battery limbers before moving (one turn)"
    return out


def fall_back(board: Board, base_id: str, enemy: str) -> dict[str, Any] | None:
    """F22: turn the back to ``enemy`` and move straight away from the contacted edge, 10 cm
    (infantry) or 20 cm (cavalry); None for artillery (no distance given)."""
    p = board.pieces[base_id]
    dist = FALL_BACK_CM.get(p.arm)
    if dist is None:
        return None
    r = board.rect(base_id)
    if board.settings.f22_fall_back == "toward_own_table_edge":
        heading = 270.0 if p.side == "A" else 90.0
    else:
        edge = board.edge_touched(base_id, enemy)
        outward = {"front": 0.0, "left": 90.0, "rear": 180.0, "right": -90.0}[edge]
        heading = (r.heading_deg + outward + 180.0) % 360.0
    v = unit_vector(heading)
    end = Rect(r.cx + v[0] * board.mm(dist), r.cy + v[1] * board.mm(dist), heading,
               r.width, r.depth)
    return {"distance_cm": dist, "direction_deg": round(heading, 1),
            "turn_deg": round(angle_diff(heading, r.heading_deg), 1),
            "end": [round(end.cx, 1), round(end.cy, 1)]}
