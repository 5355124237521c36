"""Contacts, support, artillery in support, Groups and command radius (ISD §1, §3, §8, §9, §13)."""

from __future__ import annotations

from typing import Any

from campo.engine.geometry.contact import edge_aspect
from campo.engine.geometry.rect import angle_diff
from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.pieces import COMMAND_RADIUS_IN
from campo.engine.rulesets.italia.relations_batch import commanders, contacts, general_pairs

ARTILLERY_SUPPORT_RANGE_IN = 3.0  # ISD §1 «a 3" o meno (ma non a contatto)»


def contacts_of(board: Board, base_id: str) -> list[dict[str, Any]]:
    """Enemy bases touching this one, with the aspect of THIS base they touch (ISD A33)."""
    out = []
    fast = board.state.use_index   # the enemies touching each base, found for all at once
    for other in contacts(board).foes[base_id] if fast else board.touching[base_id]:
        if not fast and not board.is_enemy(base_id, other):
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
    pair (Groups and `supported_by` both ask); on the fast path every touching pair at once."""
    if board.state.use_index:
        return (supporter, supported) in contacts(board).pairs
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
    """ISD §1 the friends supporting this base, and the batteries supporting it by fire in a
    melee."""
    if board.state.use_index:   # from the table of every base's supporters and foes
        found = contacts(board)
        out = set(found.supporters[base_id])
        in_melee = bool(found.foes[base_id])
    else:
        out = {s for s in board.touching[base_id] if supports(board, s, base_id)}
        in_melee = board.in_melee(base_id)
    if in_melee:
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

    # a link needs a support one way or the other: on the fast path only the supporting pairs
    # are looked at (the same links, so the same Groups)
    fast = board.state.use_index
    supporters = contacts(board).supporters if fast else {}
    for u in units:
        iu = board.infos[u]
        if iu.disordered or iu.shaken:
            continue
        for o in supporters[u] if fast else board.touching[u]:
            io = board.infos[o]
            if o not in parent or io.disordered or io.shaken or io.division != iu.division:
                continue
            if fast or supports(board, o, u) or supports(board, u, o):
                parent[find(u)] = find(o)
    by_root: dict[str, list[str]] = {}
    for u in units:
        by_root.setdefault(find(u), []).append(u)
    return sorted(sorted(g) for g in by_root.values())


def group_leader(board: Board, members: list[str]) -> str:
    """ISD §8 the largest unit tests for the Group (A > B > C/D > E; ties: first id). Cached per
    Group: the analysis asks once for each member."""
    cache = board.__dict__.setdefault("_group_leaders", {})
    key = tuple(members)
    found = cache.get(key)
    if found is None:
        found = cache[key] = min(members, key=lambda m: (-board.infos[m].size_rank, m))
    return found


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
    order (`relations_batch.general_pairs`). Cached."""
    cache = board.__dict__.get("_generals_near")
    if cache is None:
        cache = board.__dict__["_generals_near"] = {}
        names = board.state.index.ids
        rows, found, measured = general_pairs(board)
        for k, b, gap in zip(rows.tolist(), found.tolist(), measured.tolist()):
            cache.setdefault(names[k], []).append((names[b], gap))
    return cache


def command_of(board: Board, base_id: str) -> list[dict[str, Any]]:
    """Generals whose command radius reaches this base, with distance and margin (inches); an
    attached general commands its unit (margin None). On the fast path, read from every base's
    commanders found at once (`relations_batch.commanders`)."""
    if board.state.use_index:
        if board.infos[base_id].is_general:
            return []
        return [{"id": gid, "distance": d, "margin": m} if m is not None else
                {"id": gid, "distance": d, "margin": None, "attached": True}
                for gid, d, m in commanders(board).get(base_id, ())]
    return _command_of_plain(board, base_id)


def _command_of_plain(board: Board, base_id: str) -> list[dict[str, Any]]:
    """`command_of` base by base, general by general (the plain reference path)."""
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
