"""Cover of a target against a shot (ISD §6, §7 modifier rows; ISD A35): wholly inside area
terrain, or its whole front along a linear obstacle the shot crosses; the class of each kind is
the tables' (`tables_fire.ARTILLERY_COVER`, `MUSKETRY_COVER`) unless the scenario says."""

from __future__ import annotations

import shapely

from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.tables_fire import ARTILLERY_COVER, MUSKETRY_COVER

RANK = {None: 0, "soft": 1, "hard": 2}


def cover_terrain_of(board: Board, target: str) -> tuple[list, list]:
    """(terrain wholly holding the target, linear terrain along its whole front), each as
    (feature, shape) pairs; cached per target."""
    cache = board.fire_memo.cover
    found = cache.get(target)
    if found is None:
        tr = board.rect(target)
        inside, along = [], []
        for t, geom in board.terrain_around(target):
            if t.polygon_mm is not None:
                if board.grown(geom, board.contact_tol).covers(tr.polygon):
                    inside.append((t, geom))
            elif board.grown(geom, board.mm(0.5)).covers(tr.front_edge):
                along.append((t, geom))
        found = cache[target] = (inside, along)
    return found


def covers(board: Board, shooters: list[str], targets: list[str]) -> tuple[list, list]:
    """Per shot (``shooters[k]`` at ``targets[k]``): (cover class or None, terrain id or None),
    the best cover the target enjoys against that kind of fire; a linear obstacle counts only
    when the line between the two centres crosses it."""
    cls: list[str | None] = [None] * len(targets)
    tid: list[str | None] = [None] * len(targets)
    covered = {t: any(cover_terrain_of(board, t)) for t in set(targets)}
    for k in [k for k, t in enumerate(targets) if covered[t]]:
        cls[k], tid[k] = _cover(board, shooters[k], targets[k])
    return cls, tid


def _cover(board: Board, shooter: str, target: str) -> tuple[str | None, str | None]:
    inside, along = cover_terrain_of(board, target)
    table = ARTILLERY_COVER if board.infos[shooter].is_gun else MUSKETRY_COVER
    sr, tr = board.rect(shooter), board.rect(target)
    best: tuple[str | None, str | None] = (None, None)
    shot = None
    for t, geom in inside + along:
        cls = t.cover if t.cover is not None else table.get(t.kind)
        if cls in (None, "none") or RANK[cls] <= RANK[best[0]]:
            continue
        if t.line_mm is not None:
            shot = shot if shot is not None else shapely.linestrings([(sr.cx, sr.cy), (tr.cx, tr.cy)])
            if not shapely.intersects(shot, geom):
                continue
        best = (cls, t.id)
    return best

