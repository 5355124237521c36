"""Line of sight for ATTILA (ATT 6.A «Non è possibile tirare attraverso boschi, colline od altre
truppe»; reading AT7): a shot may be taken when at least one of its sampled straight lines crosses
no other troops (their bases shrunk by the contact tolerance, so a line grazing one is not
blocked; Generals only with generals_block_sight), no wood and no hill (except those the question
leaves uncounted: the shooter's and target's own, ATT 6.A, AT8).

Many questions are answered together: the obstacles near each question come from one STRtree
query of the hulls of its lines; a question with none is clear at once. Then its shortest line is
tried, and only if that one is blocked, all its lines; bases are tested in numpy
(`geometry.segments_meet_rects`), woods and hills by GEOS.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely

from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.geometry import Frames, segments_meet_rects
from campo.engine.rulesets.attila.tables import SIGHT_BLOCKING_AREAS

MIN_GRAZE_MM = 0.5   # bases are shrunk by at least this for sight (a line along an edge)


@dataclass(frozen=True)
class SightQuestion:
    """The lines of one shot: every origin to every end; ``ignore``: the board rows of the
    shooter and target; ``uncounted``: the ids of woods and hills it may cross."""

    origins: np.ndarray
    ends: np.ndarray
    ignore: tuple[int, int]
    uncounted: frozenset[str]


def _bodies(board: Board) -> tuple[np.ndarray, Frames]:
    """(blocks, shrunk rectangles) per board row: present bases (Generals only by setting)."""
    def build() -> tuple[np.ndarray, Frames]:
        generals_block = board.settings.generals_block_sight
        blocks = board.present & np.array([generals_block or not u.is_general
                                           for u in board.rows], dtype=bool)
        g = max(board.contact_tol, MIN_GRAZE_MM)
        f = board.frames
        return blocks, Frames(f.cx, f.cy, f.fx, f.fy, f.width - 2 * g, f.depth - 2 * g)
    return board.state.cached("attila.sight_bodies", build)


def clear(board: Board, questions: Sequence[SightQuestion]) -> np.ndarray:
    """Per question, True when at least one of its lines is clear."""
    n = len(questions)
    out = np.zeros(n, dtype=bool)
    if not n:
        return out
    blocks, bodies = _bodies(board)
    points = [np.concatenate([q.origins, q.ends]) for q in questions]
    hulls = shapely.convex_hull(shapely.multipoints(
        np.concatenate(points), indices=np.repeat(np.arange(n), [len(p) for p in points])))
    qi, bi = board.state.index.meeting_many(hulls)
    near: list[list[int]] = [[] for _ in range(n)]
    for q, b in zip(qi.tolist(), bi.tolist()):
        if blocks[b] and b not in questions[q].ignore:
            near[q].append(b)
    areas = [f for f in board.terrain if f.is_area and f.kind in SIGHT_BLOCKING_AREAS]
    crossed: list[list[str]] = [[] for _ in range(n)]
    for f in areas:
        for q in np.nonzero(shapely.intersects(hulls, board.areas[f.id]))[0].tolist():
            if f.id not in questions[q].uncounted:
                crossed[q].append(f.id)
    out[:] = [not near[q] and not crossed[q] for q in range(n)]
    todo = [q for q in range(n) if not out[q]]
    if todo:   # the shortest line of each first, then every line of those still blocked
        found = _any_clear(board, questions, todo, near, crossed, bodies, shortest=True)
        out[todo] = found
        again = [q for q, ok in zip(todo, found.tolist()) if not ok]
        if again:
            out[again] = _any_clear(board, questions, again, near, crossed, bodies,
                                    shortest=False)
    return out


def _lines(q: SightQuestion, shortest: bool) -> np.ndarray:
    """(k, 2, 2): every origin to every end, or only the shortest such line."""
    o, e = q.origins, q.ends
    starts = np.repeat(o, len(e), axis=0)
    stops = np.tile(e, (len(o), 1))
    if shortest:
        d = ((stops - starts) ** 2).sum(axis=1)
        k = int(np.argmin(d))
        starts, stops = starts[k:k + 1], stops[k:k + 1]
    return np.stack([starts, stops], axis=1)


def _any_clear(board: Board, questions: Sequence[SightQuestion], which: list[int],
               near: list[list[int]], crossed: list[list[str]], bodies: Frames,
               shortest: bool) -> np.ndarray:
    """Per question of ``which``: one of its lines (or its shortest) is clear."""
    lines = [_lines(questions[q], shortest) for q in which]
    counts = np.array([len(x) for x in lines])
    xy = np.concatenate(lines)
    owner = np.repeat(np.arange(len(which)), counts)
    ok = np.ones(len(xy), dtype=bool)
    # bases: every (line, base near its question) pair at once
    per = np.array([len(near[q]) for q in which])[owner]
    if per.sum():
        line_of = np.repeat(np.arange(len(xy)), per)
        flat = np.concatenate([np.array(near[q], dtype=int) for q in which] or [np.zeros(0, int)])
        first = np.concatenate([[0], np.cumsum([len(near[q]) for q in which])[:-1]])
        within = np.arange(len(line_of)) - np.repeat(np.cumsum(per) - per, per)
        body = flat[first[owner[line_of]] + within]
        hit = segments_meet_rects(xy[line_of, 0], xy[line_of, 1], bodies.take(body))
        ok[line_of[hit]] = False
    # woods and hills: a line running inside one (not merely along its edge) is blocked
    for k, q in enumerate(which):
        if not crossed[q]:
            continue
        rows = np.nonzero((owner == k) & ok)[0]
        if not len(rows):
            continue
        geoms = shapely.linestrings(xy[rows])
        for fid in crossed[q]:
            inside = shapely.relate_pattern(geoms, board.areas[fid], "T********")
            ok[rows[inside]] = False
    found = np.zeros(len(which), dtype=bool)
    found[owner[ok]] = True
    return found
