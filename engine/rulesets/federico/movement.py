"""Movement (Federico "Movimenti"): rates by arm and formation, halving on broken ground, across
obstacles and fordable streams (not Light Infantry or Indians, F16), the woods-and-villages rule,
and the fall-back «spalle al nemico» of a beaten unit (Federico "Mischie", F22).

`ground` says which terrain many shapes touch at once (a base, or the area an attack sweeps:
the union of convex pieces); the allowance, the woods rule and a base's own `movement` entry read
it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from campo.engine.geometry.rect import Rect, angle_diff, unit_vector
from campo.engine.rulesets.federico.board import OUTWARD, Board
from campo.engine.rulesets.federico.pieces import Piece
from campo.engine.rulesets.federico.settings import FedericoSettings
from campo.engine.rulesets.federico.units import FALL_BACK_CM, HALVED_MOVE, MOVE_CM

MOVES = 'Federico "Movimenti"'
CLOSED_KINDS = ("wood", "village", "town")   # «Nei Villaggi e nei Boschi»
OVERLAP_MM2 = 1.0   # a shape touches an area when they share more than this (tracking noise)
UNION_MARGIN_MM2 = 1e-6


def base_rate_cm(board: Board, base_id: str) -> float:
    """Full move in the open by arm and formation (Federico "Movimenti")."""
    p = board.pieces[base_id]
    if p.is_commander:
        return MOVE_CM[("commander", "line")]
    if p.arm == "artillery":
        if p.formation == "line":
            return board.settings.artillery_in_battery_move_cm
        return MOVE_CM[("artillery", p.formation)]
    return MOVE_CM[(p.arm, "march_column" if p.march_column else "line")]


@dataclass
class Ground:
    """Terrain ids by role that one shape touches."""

    broken: list[str] = field(default_factory=list)
    obstacle: list[str] = field(default_factory=list)
    stream: list[str] = field(default_factory=list)
    closed: list[str] = field(default_factory=list)   # woods, villages, towns
    road: bool = False

    @classmethod
    def of_kinds(cls, settings: FedericoSettings, kinds: Iterable[str]) -> Ground:
        """The ground of a move told by its terrain kinds alone, each kind standing for its
        terrain (the movement audit's question, `FedericoRuleset.movement_allowance`)."""
        ks = sorted(set(kinds))
        return cls(broken=[k for k in ks if k in settings.broken_ground],
                   obstacle=[k for k in ks if k in settings.obstacles],
                   stream=[k for k in ks if k in settings.stream_kinds],
                   closed=[k for k in ks if k in CLOSED_KINDS], road="road" in ks)


def terrain_exempt(piece: Piece) -> bool:
    """Light Infantry and Indians move at their rate over any ground: never halved (F16) nor
    kept out of woods and villages («il movimento si dimezza, tranne per Fanteria Leggera e
    Indiani», Federico "Movimenti"). Commanders are not excepted: their 18 cm is halved too."""
    return piece.skirmisher


def halving(settings: FedericoSettings, touched: Ground) -> list[str]:
    """F16: what halves the whole move among what it touches, sorted: obstacles and fordable
    streams, and broken ground unless the setting 'portion_only' counts only the way on it
    double (`broken_track_cm`)."""
    found = touched.obstacle + touched.stream
    if settings.f16_halved_move == "whole_move":
        found += touched.broken
    return sorted(set(found))


def barred(piece: Piece, entered: Iterable[str], road: bool) -> list[str]:
    """«Nei Villaggi e nei Boschi solo in colonna di marcia lungo le strade»: the woods,
    villages and towns among ``entered`` this base may not enter, sorted (none for those
    `terrain_exempt`, in march column along a road, or commanders: the rule is about troops'
    formations and a commander has none)."""
    if terrain_exempt(piece) or piece.is_commander or (piece.march_column and road):
        return []
    return sorted(set(entered))


def ground(board: Board, parts: Sequence[np.ndarray],
           unions: Sequence[Callable[[], BaseGeometry]]) -> list[Ground]:
    """The `Ground` of many shapes, each the union of convex ``parts[k]`` (``unions[k]()``
    builds that union, only when bounds on the areas shared cannot decide "more than 1 mm²").
    Every part against every area and line in one vectorised call each."""
    s = board.settings
    out = [Ground() for _ in parts]
    if not parts:
        return out
    flat = np.concatenate(parts)
    owner = np.repeat(np.arange(len(parts)), [len(p) for p in parts])
    if len(board.area_shapes):
        part_i, area_i = np.nonzero(shapely.intersects(flat[:, None], board.area_shapes[None, :]))
        pieces = shapely.area(shapely.intersection(flat[part_i], board.area_shapes[area_i]))
        for k, a in over_one_mm2(owner[part_i], area_i, pieces,
                                 lambda k, a: shapely.intersection(
                                     unions[k](), board.area_shapes[a]).area):
            tid, kind, _ = board.areas[a]
            if kind in s.broken_ground:
                out[k].broken.append(tid)
            if kind in CLOSED_KINDS:
                out[k].closed.append(tid)
    if len(board.line_shapes):
        crossed = np.zeros((len(parts), len(board.line_shapes)), dtype=bool)
        part_i, line_i = np.nonzero(shapely.intersects(flat[:, None], board.line_shapes[None, :]))
        crossed[owner[part_i], line_i] = True
        for k, n in zip(*(x.tolist() for x in np.nonzero(crossed))):
            tid, kind, _ = board.linears[n]
            if kind in s.obstacles:
                out[k].obstacle.append(tid)
            if kind in s.stream_kinds:
                out[k].stream.append(tid)
            if kind == "road":
                out[k].road = True
    return out


def over_one_mm2(path: np.ndarray, shape: np.ndarray, pieces: np.ndarray,
                 exact: Callable[[int, int], float]) -> list[tuple[int, int]]:
    """The distinct (path, shape) pairs, sorted, whose shape shares more than 1 mm² with the
    union of the path's pieces, given the area each piece shares with it. The union's share is
    at least the largest piece's and at most their sum: when the largest already exceeds 1 mm²,
    or the sum stays under it, that decides; else ``exact(path, shape)`` measures the union."""
    if not len(path):
        return []
    n = int(shape.max()) + 1
    k = path.astype(np.int64) * n + shape
    order = np.argsort(k, kind="stable")
    uniq, first = np.unique(k[order], return_index=True)
    biggest = np.maximum.reduceat(pieces[order], first)
    total = np.add.reduceat(pieces[order], first)
    found = []
    for u, big, tot in zip(uniq.tolist(), biggest.tolist(), total.tolist()):
        p, q = divmod(u, n)
        if big > OVERLAP_MM2 + UNION_MARGIN_MM2 or (
                tot >= OVERLAP_MM2 - UNION_MARGIN_MM2 and exact(p, q) > OVERLAP_MM2):
            found.append((p, q))
    return found


def allowance_cm(board: Board, base_id: str, touched: Ground | None) -> tuple[float, list[str]]:
    """(allowance in cm, notes) for a move over ground that ``touched`` describes (None: open
    ground): halved by what `halving` names, unless `terrain_exempt`."""
    rate = base_rate_cm(board, base_id)
    if touched is None or terrain_exempt(board.pieces[base_id]):
        return rate, []
    halved = halving(board.settings, touched)
    if halved:
        return rate * HALVED_MOVE, [f"move halved: crosses {', '.join(halved)} "
                                    f"({MOVES}; Federico F16)"]
    return rate, []


def broken_track_cm(board: Board, base_id: str, track: list[list[float]]) -> float:
    """F16 'portion_only': the length (cm) of the front-centre track on broken ground, which
    counts double; 0 under the default reading or for Light Infantry and Indians."""
    p = board.pieces[base_id]
    if board.settings.f16_halved_move != "portion_only" or p.skirmisher or len(track) < 2:
        return 0.0
    line = shapely.LineString(track)
    broken = [poly for _, kind, poly in board.areas if kind in board.settings.broken_ground]
    return board.cm(float(shapely.length(shapely.intersection(line, broken)).sum())
                    if broken else 0.0)


def woods_problem(board: Board, base_id: str, touched: Ground) -> str | None:
    """A reason when the move enters a wood or village it may not (`barred`; one it stands in
    already does not count)."""
    entered = set(touched.closed) - set(board.areas_holding(base_id, CLOSED_KINDS))
    inside = barred(board.pieces[base_id], entered, touched.road)
    if not inside:
        return None
    return f"may enter {', '.join(inside)} only in march column along a road ({MOVES})"


def movement_of(board: Board, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Each base's move this turn as the rules give it (rates in cm), the ground under all the
    bases asked measured at once."""
    polys = [board.rect(i).polygon for i in ids]
    here = ground(board, [np.array([poly], dtype=object) for poly in polys],
                  [lambda poly=poly: poly for poly in polys])
    out = {}
    for i, g in zip(ids, here):
        p = board.pieces[i]
        rate = base_rate_cm(board, i)
        halving = sorted(set(g.broken + g.obstacle + g.stream))
        entry: dict[str, Any] = {"rate_cm": rate, "formation": p.formation,
                                 "halved_if_crossing": not terrain_exempt(p)}
        if halving and entry["halved_if_crossing"]:
            entry["halved_here"] = halving
            entry["rate_here_cm"] = rate * HALVED_MOVE
        if p.skirmisher:
            entry["interpenetrates_friends"] = True
        if p.arm == "artillery" and p.formation == "line":
            entry["note"] = "artillery in battery limbers before moving (one turn)"
        out[i] = entry
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
        heading = (r.heading_deg + OUTWARD[board.edges[(base_id, enemy)]] + 180.0) % 360.0
    v = unit_vector(heading)
    end = Rect(r.cx + v[0] * board.mm(dist), r.cy + v[1] * board.mm(dist), heading,
               r.width, r.depth)
    return {"distance_cm": dist, "direction_deg": round(heading, 1),
            "turn_deg": round(angle_diff(heading, r.heading_deg), 1),
            "end": [round(end.cx, 1), round(end.cy, 1)]}
