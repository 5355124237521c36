"""Movement (Federico "Movimenti"): rates by arm and formation, halving on broken ground, across
obstacles and fordable streams (not Light Infantry or Indians, F16), the woods-and-villages rule,
and the fall-back «spalle al nemico» of a beaten unit (Federico "Mischie", F22).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from campo.engine.geometry.rect import Rect, angle_diff, unit_vector
from campo.engine.rulesets.federico.board import Board
from campo.engine.rulesets.federico.overlap_kernel import (
    AREA_SLACK_MM2,
    overlap_estimates,
    ring_arrays,
)
from campo.engine.rulesets.federico.units import FALL_BACK_CM, MOVE_CM

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


def terrain_touched_many(board: Board, parts: list[np.ndarray],
                         wholes: list[Callable[[], BaseGeometry]]) -> list[dict[str, list[str]]]:
    """`terrain_touched` of many swept paths, each the union of convex ``parts`` (``wholes[k]``
    builds path k's union, only when some area meets one of its parts: a path touching no area
    never pays for the union). One vectorised test of every part against every area and line;
    the same ids in the same order as `terrain_touched` of the union."""
    s = board.settings
    out: list[dict[str, list[str]]] = [
        {"broken": [], "obstacle": [], "stream": [], "wood_or_village": []} for _ in parts]
    if not parts:
        return out
    flat = np.concatenate(parts)
    owner = np.repeat(np.arange(len(parts)), [len(p) for p in parts])
    area_arr, line_arr = _terrain_arrays(board)
    if len(area_arr):
        part_i, area_i = np.nonzero(shapely.intersects(flat[:, None], area_arr[None, :]))
        estimates = overlap_estimates(flat, part_i, _terrain_rings(board), area_i)
        for k, a in over_one_mm2(
                owner[part_i] * len(area_arr) + area_i, estimates,
                lambda rows: shapely.area(shapely.intersection(flat[part_i[rows]],
                                                               area_arr[area_i[rows]])),
                lambda k, a: shapely.intersection(wholes[k](), area_arr[a]).area,
                len(area_arr)):
            tid, kind, poly = board.areas[a]
            if kind in s.broken_ground:
                out[k]["broken"].append(tid)
            if kind in ("wood", "village", "town"):
                out[k]["wood_or_village"].append(tid)
    if len(line_arr):
        crossed = np.zeros((len(parts), len(line_arr)), dtype=bool)
        np.logical_or.at(crossed, owner, shapely.intersects(flat[:, None], line_arr[None, :]))
        for k, n in zip(*(x.tolist() for x in np.nonzero(crossed))):
            tid, kind, _ = board.linears[n]
            if kind in s.obstacles:
                out[k]["obstacle"].append(tid)
            if kind in s.stream_kinds:
                out[k]["stream"].append(tid)
    return out


UNION_MARGIN_MM2 = 1e-6   # far above GEOS's rounding of an area, far below the 1 mm² tests


def union_area_bounds(key: np.ndarray, pieces: np.ndarray, exact: Callable[[int, int], float],
                      n: int) -> tuple[list[int], list[int], list[float]]:
    """(path, shape, area) for each distinct key = path * n + shape, where ``pieces`` are the
    areas each hull of the path shares with the shape. The area shared with the union of the
    hulls is at least the largest piece and at most their sum: when the largest already exceeds
    1 mm² by a margin, or the sum stays under it by one, that bound decides every "more than
    1 mm²" test the same way as the exact area; else ``exact(path, shape)`` measures the union
    itself."""
    order = np.argsort(key, kind="stable")
    key, pieces = key[order], pieces[order]
    uniq, first = np.unique(key, return_index=True)
    if not len(uniq):
        return [], [], []
    biggest = np.maximum.reduceat(pieces, first)
    total = np.add.reduceat(pieces, first)
    ks, bs, areas = [], [], []
    for u, big, tot in zip(uniq.tolist(), biggest.tolist(), total.tolist()):
        k, b = divmod(u, n)
        if big > 1.0 + UNION_MARGIN_MM2:
            area = big
        elif tot < 1.0 - UNION_MARGIN_MM2:
            area = tot
        else:
            area = exact(k, b)
        ks.append(k)
        bs.append(b)
        areas.append(area)
    return ks, bs, areas


def over_one_mm2(key: np.ndarray, estimates: np.ndarray,
                 pieces: Callable[[np.ndarray], np.ndarray], exact: Callable[[int, int], float],
                 n: int) -> list[tuple[int, int]]:
    """The (path, shape) keys (key = path * n + shape, in key order) whose shapes share more
    than 1 mm² with the union of the path's pieces: `union_area_bounds`'s answers, where the
    GEOS pieces (``pieces(rows)``: the areas of the rows asked) are measured only for keys
    that the compiled ``estimates`` of the same areas (`overlap_kernel`; NaN: unknown) cannot
    settle with `overlap_kernel.AREA_SLACK_MM2` to spare on the same bounds."""
    if not len(key):
        return []
    order = np.argsort(key, kind="stable")
    uniq, first = np.unique(key[order], return_index=True)
    est = estimates[order]
    yes = np.maximum.reduceat(est, first) > 1.0 + UNION_MARGIN_MM2 + AREA_SLACK_MM2
    no = np.add.reduceat(est, first) < 1.0 - UNION_MARGIN_MM2 - AREA_SLACK_MM2
    found = uniq[yes].tolist()
    unsure = uniq[~yes & ~no]
    if len(unsure):
        rows = np.nonzero(np.isin(key, unsure))[0]
        for k, b, area in zip(*union_area_bounds(key[rows], pieces(rows), exact, n)):
            if area > 1.0:
                found.append(k * n + b)
    return [divmod(u, n) for u in sorted(found)]


def _terrain_rings(board: Board) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`overlap_kernel.ring_arrays` of the board's area polygons (cached)."""
    found = board.__dict__.get("_terrain_rings")
    if found is None:
        found = board.__dict__["_terrain_rings"] = ring_arrays(_terrain_arrays(board)[0])
    return found


def _terrain_arrays(board: Board) -> tuple[np.ndarray, np.ndarray]:
    """The board's area polygons and linear features as shapely arrays (cached)."""
    found = board.__dict__.get("_terrain_arrays")
    if found is None:
        found = (np.array([poly for _, _, poly in board.areas], dtype=object),
                 np.array([line for _, _, line in board.linears], dtype=object))
        board.__dict__["_terrain_arrays"] = found
    return found


def allowance_cm(board: Board, base_id: str, path: BaseGeometry | None,
                 touched: dict[str, list[str]] | None = None) -> tuple[float, list[str]]:
    """(allowance in cm, notes) for a move over ``path`` (the area swept), F16 halving: the
    whole move when any part touches broken ground, an obstacle or a stream; with
    'portion_only' only obstacles and streams halve it (see `broken_track_cm`). ``touched``:
    the path's `terrain_touched`, when the caller has it already."""
    p = board.pieces[base_id]
    rate = base_rate_cm(board, base_id)
    notes: list[str] = []
    if path is None and touched is None:
        return rate, notes
    if touched is None:
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


def woods_problem(board: Board, base_id: str,
                  path: BaseGeometry | Callable[[], BaseGeometry],
                  touched: dict[str, list[str]] | None = None) -> str | None:
    """«Nei Villaggi e nei Boschi solo in colonna di marcia lungo le strade», except Light
    Infantry and Indians: a reason when the move enters one otherwise (``touched``: the path's
    `terrain_touched`, when the caller has it already; ``path`` may be a function building the
    area swept, called only when it is needed)."""
    p = board.pieces[base_id]
    if p.skirmisher or p.is_commander:
        return None
    def area() -> BaseGeometry:
        return path() if callable(path) else path

    if touched is None:
        touched = terrain_touched(board, area())
    inside = set(touched["wood_or_village"])
    inside -= set(board.areas_under(base_id, ("wood", "village", "town")))
    if not inside:
        return None
    if p.march_column and _on_road(board, area()):
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
    here = _terrain_under(board)[base_id]
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


def _terrain_under(board: Board) -> dict[str, dict[str, list[str]]]:
    """`terrain_touched` of every base's own rectangle, measured all at once (cached)."""
    found = board.__dict__.get("_terrain_under")
    if found is None:
        ids = list(board.pieces)
        polys = [board.rect(i).polygon for i in ids]
        touched = terrain_touched_many(board, [np.array([poly], dtype=object) for poly in polys],
                                       [_constant(poly) for poly in polys])
        found = board.__dict__["_terrain_under"] = dict(zip(ids, touched))
    return found


def _constant(shape: BaseGeometry) -> Callable[[], BaseGeometry]:
    return lambda: shape


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
