"""Cover of a target against a shot (ISD §6, §7 modifier rows; ISD A35): wholly inside area
terrain, or its whole front along a linear obstacle the shot crosses; the class of each kind is
the tables' (`tables_fire.ARTILLERY_COVER`, `MUSKETRY_COVER`) unless the scenario says."""

from __future__ import annotations

from collections.abc import Sequence

import shapely

from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.tables_fire import ARTILLERY_COVER, MUSKETRY_COVER

RANK = {None: 0, "soft": 1, "hard": 2}


def cover_terrain_of(board: Board, targets: Sequence[str]) -> list[tuple[list, list]]:
    """Per target: (terrain wholly holding it, within the contact tolerance; linear terrain
    along its whole front, within 0.5"), each as (feature, shape) pairs, scenario order; each
    target's once per board."""
    known = board.fire_memo.cover
    missing = [t for t in dict.fromkeys(targets) if t not in known]
    if missing:
        table = board.terrain_table
        at = board.positions(missing)
        shape = dict(zip(map(id, table.features), table.shapes.tolist()))
        inside = table.holding(board.state.index.shapes[at], board.contact_tol)
        along = table.lines_along(board.poses.take(at).front_lines, board.mm(0.5))
        for t, a, b in zip(missing, inside, along):
            known[t] = ([(f, shape[id(f)]) for f in a], [(f, shape[id(f)]) for f in b])
    return [known[t] for t in targets]


def covers(board: Board, shooters: list[str], targets: list[str]) -> tuple[list, list]:
    """Per shot (``shooters[k]`` at ``targets[k]``): (cover class or None, terrain id or None),
    the best cover the target enjoys against that kind of fire; a linear obstacle counts only
    when the line between the two centres crosses it."""
    cls: list[str | None] = [None] * len(targets)
    tid: list[str | None] = [None] * len(targets)
    terrain = cover_terrain_of(board, targets)
    for k in [k for k, found in enumerate(terrain) if any(found)]:
        cls[k], tid[k] = _cover(board, shooters[k], targets[k], *terrain[k])
    return cls, tid


def _cover(board: Board, shooter: str, target: str, inside: list, along: list
           ) -> tuple[str | None, str | None]:
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

