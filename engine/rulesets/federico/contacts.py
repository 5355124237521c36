"""Contacts, support and commanders (Federico "Mischie", "Comandanti"; F1, F20, F27).

- Contacts: enemy troop bases touching this one, with the aspect of THIS base they touch (F1: the
  edge with the longest shared segment, ties to the front).
- Support: «le basette amiche che non sono impegnate in mischia e che sono adiacenti di lato o
  sul retro dell'unità che vogliono supportare» — friendly bases of another regiment, not in
  melee, touching this base's side or rear edge along a segment (F20).
- Commanders: attached when touching a friendly troop base (F27); lost when not attached and
  within ``f27_commander_adjacent_cm`` of an enemy base.
"""

from __future__ import annotations

from typing import Any

import shapely

from campo.engine.geometry.contact import edge_aspect
from campo.engine.rulesets.federico.board import Board
from campo.engine.rulesets.federico.regiments import Regiments


def contacts_of(board: Board, base_id: str) -> list[dict[str, Any]]:
    """Enemy bases touching this one, with the aspect of this base they touch."""
    if board.pieces[base_id].is_commander:
        return []
    regs = Regiments.of(board)
    out = []
    for other in board.touching[base_id]:
        if not board.is_enemy(base_id, other):
            continue
        edge = board.edge_touched(base_id, other)
        out.append({"id": other, "aspect": edge_aspect(edge), "edge": edge,
                    "regiment": regs.of_base[other]})
    return out


def supports(board: Board, supporter: str, supported: str) -> bool:
    """``supporter`` counts for ``supported`` in melee numbers (Federico "Mischie", F20)."""
    s, x = board.pieces[supporter], board.pieces[supported]
    if supporter == supported or s.side != x.side or s.is_commander or x.is_commander:
        return False
    regs = Regiments.of(board)
    if regs.of_base[supporter] == regs.of_base[supported]:
        return False   # the unit's own bases are the unit, not its supports
    if supporter not in board.touching[supported] or board.in_melee(supporter):
        return False
    if not board.edge_to_edge(supported, supporter, board.contact_tol):
        return False
    return board.edge_touched(supported, supporter) in ("left", "right", "rear")


def supported_by(board: Board, base_id: str) -> list[str]:
    return sorted(o for o in board.touching[base_id] if supports(board, o, base_id))


def attached_commanders(board: Board, base_id: str) -> list[str]:
    """Friendly commanders touching this base (F27 «aggregato»); cached per base, and only the
    commanders near the base are measured (spatial index)."""
    cache = board.__dict__.get("_attached_commanders")
    if cache is None:
        cache = board.__dict__["_attached_commanders"] = {}
        if board.state.use_index:
            _all_attached(board, cache)
    if base_id not in cache:
        p = board.pieces[base_id]
        r = board.rect(base_id).polygon
        if board.state.use_index:
            near = board.state.index.within(r, board.contact_tol)
        else:   # the plain reference path: every base measured
            near = [i for i in board.pieces
                    if shapely.dwithin(board.rect(i).polygon, r, board.contact_tol)]
        cache[base_id] = sorted(cid for cid in near if board.pieces[cid].is_commander
                                and board.pieces[cid].side == p.side)
    return cache[base_id]


def _all_attached(board: Board, cache: dict[str, list[str]]) -> None:
    """`attached_commanders` of every base from one index query (the same ``dwithin`` test
    as `BaseIndex.within`)."""
    index = board.state.index
    ids = index.ids
    if not ids:
        return
    found: dict[str, list[str]] = {i: [] for i in ids}
    si, bi = index.query_many([board.rect(i).polygon for i in ids], board.contact_tol)
    for s, b in zip(si.tolist(), bi.tolist()):
        c = board.pieces[ids[b]]
        if c.is_commander and c.side == board.pieces[ids[s]].side:
            found[ids[s]].append(ids[b])
    for i, cids in found.items():
        cache[i] = sorted(cids)


def regiment_commanders(board: Board, base_id: str) -> list[str]:
    """Commanders attached to any base of this base's regiment (cached per regiment)."""
    regs = Regiments.of(board)
    cache = board.__dict__.setdefault("_regiment_commanders", {})
    name = regs.of_base.get(base_id)
    if name is None or name not in cache:
        found = sorted({c for m in regs.mates(base_id) for c in attached_commanders(board, m)})
        if name is None:
            return found
        cache[name] = found
    return list(cache[name])


def commanded_by(board: Board, base_id: str) -> list[str]:
    """Attached commanders of the regiment, plus those within ``command_radius_cm`` (a gap
    setting, 0 by default: the text gives no radius)."""
    p = board.pieces[base_id]
    if p.is_commander:
        return []
    out = set(regiment_commanders(board, base_id))
    radius = board.mm(board.settings.command_radius_cm)
    if radius > 0:
        for cid in board.state.index.within(board.rect(base_id).polygon, radius):
            c = board.pieces[cid]
            if c.is_commander and c.side == p.side:
                out.add(cid)
    return sorted(out)


def commander_status(board: Board, cid: str) -> dict[str, Any]:
    """Attached to which bases; lost when isolated and adjacent to the enemy (F27)."""
    c = board.pieces[cid]
    r = board.rect(cid).polygon
    near = board.state.index.within(r, max(board.contact_tol,
                                           board.mm(board.settings.f27_commander_adjacent_cm)))
    attached = sorted(o for o in board.state.index.within(r, board.contact_tol)
                      if board.pieces[o].is_troop and board.pieces[o].side == c.side)
    enemies = sorted(o for o in near if board.pieces[o].is_troop and board.pieces[o].side != c.side)
    out: dict[str, Any] = {"rank": c.rank, "ability": c.ability, "attached_to": attached,
                           "lost": bool(enemies) and not attached}
    if out["lost"]:
        out["reasons"] = [f"isolated and adjacent to {', '.join(enemies)} "
                          '(Federico "Comandanti"; Federico F27)']
    return out
