"""Deployment areas and terrain placement (ATT 11.C-E, 12; readings AT31-AT33).

Distances depend on the figure scale (setting ``figure_scale``):

| scale | area from own edge | no deploying near side edges / own edge | piece | woods, TD up to | spacing |
| 25mm  | 45 cm   | 15 cm  | 30 x 15 cm  | 30 x 30 cm | 30 cm |
| 15mm  | 30 cm   | 10 cm  | 20 x 10 cm  | 20 x 20 cm | 20 cm |
| 6mm   | 22.5 cm | 7.5 cm | 15 x 7.5 cm | 15 x 15 cm | 15 cm |

Player A's edge is y = 0, B's is y = table depth (shared/interfaces.md frames).
"""

from __future__ import annotations

from typing import Any

import shapely
from shapely.geometry import Polygon

from campo.engine.ruleset import Problem
from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.morale import armies
from campo.engine.rulesets.attila.tables import PIECES, SCALES
from campo.engine.geometry.drawing import ring_coords


def zones(board: Board) -> dict[str, dict[str, Polygon]]:
    """Per side: ``area`` (the Deployment Area, ATT 11.C) and ``legal`` (the area less the side and
    own-edge strips, ATT 11.D-E), table mm."""
    d = SCALES[board.settings.figure_scale]
    w, h = board.state.scenario.table.width_mm, board.state.scenario.table.depth_mm
    area, side, own = board.mm(d.area_cm), board.mm(d.side_cm), board.mm(d.own_edge_cm)
    return {
        "A": {"area": shapely.box(0, 0, w, min(area, h)),
              "legal": shapely.box(side, own, max(side, w - side), max(own, min(area, h)))},
        "B": {"area": shapely.box(0, max(0.0, h - area), w, h),
              "legal": shapely.box(side, min(h - own, max(0.0, h - area)), max(side, w - side),
                                   h - own)},
    }


NOISE_MM = 1.0   # a base may stick out of its zone by this much (tracking noise)


def placements(board: Board, zs: dict[str, dict[str, Polygon]]) -> dict[str, dict[str, Any]]:
    """Is each base deployed legally (AT32; a Camp: setting camp_placement)? Each side's zone
    grown by the tracking noise once, every base tested in one vectorised call per side."""
    how = board.settings.at32_deploy_inside
    d = SCALES[board.settings.figure_scale]
    out: dict[str, dict[str, Any]] = {}
    troops: dict[str, list[str]] = {"A": [], "B": []}
    for i in board.ids:
        u = board.units[i]
        if u.is_camp and board.settings.camp_placement != "like_units":
            out[i] = camp_placement(board, i, zs)
        elif u.side in troops:
            troops[u.side].append(i)
    for side, ids in troops.items():
        if not ids:
            continue
        legal = zs[side]["legal"]
        polys = board.shapes[[board.pos[i] for i in ids]]
        if how == "whole_base":
            ok = shapely.covers(shapely.buffer(legal, NOISE_MM, join_style="mitre"), polys)
        elif how == "any_part":
            ok = shapely.intersects(legal, polys)
        else:
            ok = shapely.covers(shapely.buffer(legal, NOISE_MM, join_style="mitre"),
                                shapely.centroid(polys))
        for i, good in zip(ids, ok.tolist()):
            out[i] = {"legal": good, "reasons": [] if good else [
                f"outside {side}'s Deployment Area: within {d.area_cm:g} cm of its own edge, "
                f"not within {d.side_cm:g} cm of a side edge nor {d.own_edge_cm:g} cm of its "
                "own edge (ATT 11.C-E, AT32)"]}
    return {i: out[i] for i in board.ids}


def camp_placement(board: Board, base_id: str, zs: dict[str, dict[str, Polygon]]
                   ) -> dict[str, Any]:
    """The Camp (camp_placement = 'deployment_area'): its whole base inside its army's
    Deployment Area (ATT 11.C) and clear of the side-edge strips (11.D); the own-edge strip
    (11.E, for bodies of troops that could flee) does not apply to a Camp, which never moves
    (8.B). 'anywhere': always legal."""
    if board.settings.camp_placement == "anywhere":
        return {"legal": True, "reasons": []}
    u = board.units[base_id]
    d = SCALES[board.settings.figure_scale]
    w = board.state.scenario.table.width_mm
    side = board.mm(d.side_cm)
    zone = zs[u.side]["area"].intersection(shapely.box(side, -1e9, max(side, w - side), 1e9))
    ok = zone.buffer(NOISE_MM, join_style="mitre").covers(board.poly(base_id))
    reasons = [] if ok else [
        f"the Camp lies outside {u.side}'s Deployment Area: within {d.area_cm:g} cm of its own "
        f"edge and not within {d.side_cm:g} cm of a side edge (ATT 11.C, 11.D, 8.B)"]
    return {"legal": ok, "reasons": reasons}


def terrain_placement(board: Board, zs: dict[str, dict[str, Polygon]]) -> dict[str, Any]:
    """Size, spacing and position of each terrain piece (ATT 12, AT33)."""
    d = SCALES[board.settings.figure_scale]
    slack = board.mm(board.settings.terrain_size_tolerance_cm)
    pieces = [t for t in board.state.scenario.terrain if t.is_area and t.kind in PIECES]
    out: dict[str, Any] = {}
    for t in pieces:
        poly = board.areas[t.id]
        piece = PIECES[t.kind]
        reasons = []
        long_side, short_side = _box_sides(poly)
        if piece == "hill":
            L, S = (board.mm(v) for v in d.piece_cm)
            if abs(long_side - L) > slack or abs(short_side - S) > slack:
                reasons.append(f"a hill measures {d.piece_cm[0]:g} x {d.piece_cm[1]:g} cm; this "
                               f"one {board.cm(long_side):.1f} x {board.cm(short_side):.1f} cm "
                               "(ATT 12, AT33)")
        else:
            L, S = (board.mm(v) for v in d.wood_max_cm)
            if long_side > L + slack or short_side > S + slack:
                reasons.append(f"woods and difficult terrain are at most {d.wood_max_cm[0]:g} x "
                               f"{d.wood_max_cm[1]:g} cm; this one {board.cm(long_side):.1f} x "
                               f"{board.cm(short_side):.1f} cm (ATT 12, AT33)")
        for other in pieces:
            if other.id == t.id:
                continue
            gap = float(poly.distance(board.areas[other.id]))
            if gap < board.mm(d.spacing_cm) - 1e-6:
                reasons.append(f"{board.cm(gap):.1f} cm from {other.id!r}: pieces must be at least "
                               f"{d.spacing_cm:g} cm apart (ATT 12)")
        if board.settings.at33_terrain_placement == "inside_or_touching":
            sides = [s for s in ("A", "B") if poly.distance(zs[s]["area"]) <= 1e-6]
        else:
            sides = [s for s in ("A", "B") if zs[s]["area"].buffer(1.0).covers(poly)]
        if not sides:
            reasons.append("neither inside nor touching a Deployment Area (ATT 12 «all'interno o "
                           "tangente», AT33)")
        out[t.id] = {"piece": piece, "legal": not reasons, "areas": sides, "reasons": reasons,
                     "size_cm": [round(board.cm(long_side), 1), round(board.cm(short_side), 1)]}
    return out


def _box_sides(poly: Polygon) -> tuple[float, float]:
    """Long and short side of the smallest rotated rectangle holding the polygon."""
    box = shapely.minimum_rotated_rectangle(poly)
    xy = list(box.exterior.coords)
    a = ((xy[0][0] - xy[1][0]) ** 2 + (xy[0][1] - xy[1][1]) ** 2) ** 0.5
    b = ((xy[1][0] - xy[2][0]) ** 2 + (xy[1][1] - xy[2][1]) ** 2) ** 0.5
    return max(a, b), min(a, b)


def deployment(board: Board) -> dict[str, Any]:
    """The ``deployment`` member: `deployment_zones`, each base's placement, each terrain piece
    (once per state)."""
    return board.state.cached("attila.deployment", lambda: _deployment(board))


def deployment_zones(board: Board) -> dict[str, Any]:
    """What the board draws without a tap: the figure scale, who deploys first and the zones
    (table mm); each base's and piece's placement is in `deployment` (while deploying, the
    misplaced ones are problems too)."""
    return {"figure_scale": board.settings.figure_scale, "order": deployment_order(board),
            "checked": board.state.scenario.phase == "deployment",
            "zones": {s: {k: ring_coords(p) for k, p in z.items()}
                      for s, z in zones(board).items()}}


def _deployment(board: Board) -> dict[str, Any]:
    zs = zones(board)
    return {**deployment_zones(board), "bases": placements(board, zs),
            "terrain": terrain_placement(board, zs)}


_DISCIPLINE_RANK = {"irregular": 0, "regular": 1, "veteran": 2}


def deployment_order(board: Board) -> dict[str, Any]:
    """ATT 11.B: the less disciplined army deploys first and the other sees it; equal armies
    deploy at the same time."""
    facts = armies(board)
    ra, rb = (_DISCIPLINE_RANK[facts[s].discipline] for s in ("A", "B"))
    if ra == rb:
        return {"first": None, "simultaneous": True}
    return {"first": "A" if ra < rb else "B", "simultaneous": False}


def deployment_problems(board: Board) -> list[Problem]:
    """Warnings for misplaced bases and terrain, only while ``phase`` is "deployment"; and the
    table-edge warning of AT31 always."""
    out = []
    scen = board.state.scenario
    table = scen.table
    if board.settings.at31_table_edges == "long_edges" and table.width_mm < table.depth_mm:
        out.append(Problem("table", "the players' edges (y = 0 and y = depth) are the short ones; "
                           "ATTILA measures zones from the long edges (ATT 11, AT31)", "warning"))
    if scen.phase != "deployment":
        return out
    dep = deployment(board)
    for i, v in dep["bases"].items():
        if not v["legal"]:
            out.append(Problem(f"bases({i})", v["reasons"][0], "warning", (i,)))
    for tid, v in dep["terrain"].items():
        for r in v["reasons"]:
            out.append(Problem(f"terrain({tid})", r, "warning"))
    return out
