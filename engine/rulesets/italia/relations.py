"""Contacts, support, artillery in support, Groups and command radius (ISD §1, §3, §8, §9, §13)."""

from __future__ import annotations

from typing import Any

import numpy as np
import shapely

from engine.geometry.contact import edge_aspect
from engine.geometry.rect import angle_diff
from engine.rulesets.italia.board import Board
from engine.rulesets.italia.pieces import COMMAND_RADIUS_IN

ARTILLERY_SUPPORT_RANGE_IN = 3.0  # ISD §1 «a 3" o meno (ma non a contatto)»


def contacts_of(board: Board, base_id: str) -> list[dict[str, Any]]:
    """Enemy bases touching this one, with the aspect of THIS base they touch (ISD A33)."""
    out = []
    for other in board.touching[base_id]:
        if not board.is_enemy(base_id, other):
            continue
        edge = board.edge_touched(base_id, other)
        out.append({"id": other, "aspect": edge_aspect(edge), "edge": edge})
    return out


def _same_facing(board: Board, a: str, b: str) -> bool:
    """ISD §1 «con il fronte rivolto esattamente nella stessa direzione» (ISD A24 tolerance)."""
    return abs(angle_diff(board.rect(a).heading_deg, board.rect(b).heading_deg)) <= \
        board.settings.support_heading_tolerance_deg


def _edge_overlap(board: Board, a: str, b: str, edge: str) -> bool:
    """The contact along ``edge`` of ``a`` is a shared segment, not a corner touch (ISD A24)."""
    return board.shared_lengths(a, b)[edge] > 2 * board.contact_tol + 1e-6


def supports(board: Board, supporter: str, supported: str) -> bool:
    """ISD §1 SUPPORTO: a friend in contact at the rear or flank, facing the same way.
    Artillery: only on the flank, unlimbered, not rockets (ISD §1, §9 note [*]). Cached per
    pair (Groups and `supported_by` both ask)."""
    cache = board.__dict__.setdefault("_supports", {})
    key = (supporter, supported)
    found = cache.get(key)
    if found is None:
        found = cache[key] = _supports(board, supporter, supported)
    return found


def _supports(board: Board, supporter: str, supported: str) -> bool:
    s, x = board.infos[supporter], board.infos[supported]
    if s.side != x.side or supporter == supported or x.is_general or s.is_general:
        return False
    if not (x.is_unit or x.is_gun) or not (s.is_unit or s.is_gun):
        return False
    if s.is_gun and (s.limbered or s.rockets):
        return False
    if supporter not in board.touching[supported] or not _same_facing(board, supporter, supported):
        return False
    edge = board.edge_touched(supported, supporter)
    if edge == "front" or not _edge_overlap(board, supported, supporter, edge):
        return False
    if s.is_gun and edge == "rear":
        return False   # «l'artiglieria può supportare solo se si trova sul fianco, non sul retro»
    return True


def artillery_fire_support(board: Board, gun: str, supported: str,
                           gun_targets: list[Any]) -> bool:
    """ISD §1 artillery in support, first case: the enemy in melee with ``supported`` is on the
    battery's front, in arc, at 3" or less but not in contact, and the battery could fire at it."""
    g = board.infos[gun]
    if not g.is_gun or g.limbered or g.rockets or g.side != board.infos[supported].side:
        return False
    foes = {o for o in board.touching[supported] if board.is_enemy(supported, o)}
    for t in gun_targets:
        if t.id in foes and t.in_arc and t.line_of_sight and \
                t.distance <= ARTILLERY_SUPPORT_RANGE_IN + 1e-6 and t.id not in board.touching[gun]:
            return True
    return False


def supported_by(board: Board, base_id: str, targets_by_base: dict[str, list[Any]]) -> list[str]:
    out = {s for s in board.touching[base_id] if supports(board, s, base_id)}
    if board.in_melee(base_id):
        radius = board.mm(ARTILLERY_SUPPORT_RANGE_IN) + board.mm(24.0)
        for gun in board.state.index.within(board.rect(base_id).polygon, radius):
            if gun != base_id and board.infos[gun].is_gun and \
                    artillery_fire_support(board, gun, base_id, targets_by_base.get(gun, [])):
                out.add(gun)
    return sorted(out)


def groups(board: Board) -> list[list[str]]:
    """ISD §1/§8 Groups: connected sets of units of one Division in mutual support (ISD A24);
    disordered or shaken units move alone. Sorted, singletons included."""
    units = [i for i, u in board.infos.items() if u.is_unit]
    parent = {u: u for u in units}

    def find(u: str) -> str:
        while parent[u] != u:
            parent[u] = parent[parent[u]]
            u = parent[u]
        return u

    for u in units:
        iu = board.infos[u]
        if iu.disordered or iu.shaken:
            continue
        for o in board.touching[u]:
            io = board.infos[o]
            if o not in parent or io.disordered or io.shaken or io.division != iu.division:
                continue
            if supports(board, o, u) or supports(board, u, o):
                parent[find(u)] = find(o)
    by_root: dict[str, list[str]] = {}
    for u in units:
        by_root.setdefault(find(u), []).append(u)
    return sorted(sorted(g) for g in by_root.values())


def group_leader(board: Board, members: list[str]) -> str:
    """ISD §8 the largest unit tests for the Group (A > B > C/D > E; ties: first id)."""
    return min(members, key=lambda m: (-board.infos[m].size_rank, m))


def command_radius_in(board: Board, general: str) -> float | None:
    """ISD §3 radius (9" Division, 6" Corps; Army read as Corps), halved in fog (ISD §13);
    an attached general has none (ISD §8)."""
    g = board.infos[general]
    if g.attached_to:
        return None
    radius = COMMAND_RADIUS_IN["division" if g.rank == "division" else "corps"]
    if board.settings.weather == "fog":
        radius /= 2
    return radius


def commands_unit(board: Board, general: str, unit: str) -> bool:
    """The general's ``commands`` names the unit's division (or either is unknown)."""
    g, u = board.infos[general], board.infos[unit]
    if g.side != u.side:
        return False
    if not g.commands or u.division is None:
        return True
    return u.division in g.commands


def _generals_near(board: Board) -> dict[str, list[tuple[str, float]]]:
    """Base id -> (general, gap mm) of the generals within the widest command radius, in index
    order: picked for all bases at once from the board's one bulk neighbour query (`near`'s
    own test), and the gaps measured general to base in one vectorised call (the operand
    order `command_of` always used: GEOS's distance may differ in the last bit the other way
    round). Cached."""
    cache = board.__dict__.get("_generals_near")
    if cache is None:
        cache = board.__dict__["_generals_near"] = {}
        reach = board.mm(max(COMMAND_RADIUS_IN.values())) + 1e-6
        _, starts, others, gaps = board._neighbours
        index = board.state.index
        names = index.ids
        general = np.array([board.infos[i].is_general for i in names], dtype=bool)
        keep = general[others] & (gaps <= reach) if len(others) else np.zeros(0, dtype=bool)
        rows = np.searchsorted(starts, np.nonzero(keep)[0], side="right") - 1
        found = others[keep]
        measured = shapely.distance(index.shapes[found], index.shapes[rows]) if len(rows) \
            else np.zeros(0)
        for k, b, gap in zip(rows.tolist(), found.tolist(), measured.tolist()):
            cache.setdefault(names[k], []).append((names[b], gap))
    return cache


def command_of(board: Board, base_id: str) -> list[dict[str, Any]]:
    """Generals whose command radius reaches this base, with distance and margin (inches)."""
    info = board.infos[base_id]
    if info.is_general:
        return []
    attached = board.__dict__.setdefault("_attached", {})
    if not attached and "_attached_built" not in board.__dict__:
        for gid, g in board.infos.items():
            if g.is_general and g.attached_to:
                attached.setdefault(g.attached_to, []).append(gid)
        board.__dict__["_attached_built"] = True
    out = [{"id": gid, "distance": 0.0, "margin": None, "attached": True}
           for gid in attached.get(base_id, []) if board.infos[gid].side == info.side]
    for gid, gap in _generals_near(board).get(base_id, ()):
        g = board.infos[gid]
        if g.side != info.side:
            continue
        if g.attached_to:
            continue   # joined to a unit: no command radius (ISD §8)
        radius = command_radius_in(board, gid)
        if radius is None or not commands_unit(board, gid, base_id):
            continue
        d = board.inches(gap)
        if d <= radius + 1e-6:
            out.append({"id": gid, "distance": round(d, 2), "margin": round(radius - d, 2)})
    return sorted(out, key=lambda e: e["id"])
