"""Line of sight of many shots at once (ISD §6, A14–A18), and what blocks each unseen one.

Each shot's question becomes arrays for `SightField.trace` (`Sightlines`): its lines (from the
firer's sight origins to the ends on the target's part), the bodies that never block it (the
firer and its battery, the target, what a battery fires over), those that block only the line
and not the artillery corridor (bases touching the battery or the target), the firer's and
target's shapes (a crest inside them is not "between", ISD A16) and the woods holding either
centre (ISD A15's other reading). Under ISD A14 "any line" the line from the middle of the
front to the middle of the part is traced first and the others only for the shots it does not
clear; "all lines" the other way round.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import shapely

from campo.engine.geometry.sight import (
    BODY,
    CLEAR,
    CORRIDOR,
    DEPTH,
    WALL,
    Keyed,
    Sightlines,
    Trace,
)
from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.fire_geometry import Arcs, sight_origins
from campo.engine.rulesets.italia.tables_fire import (
    FIRE_OVER_FRIENDS_CLEARANCE_IN,
    LOS_MAX_DEPTH_IN_WOOD_OR_TOWN_IN,
)

MAX_NAMED = 3
"""At most this many obstacles are named in a "no line of sight" reason."""


@dataclass
class Sight:
    """Per shot: seen, and (for shots not seen) each obstacle blocking its lines as (kind,
    index, lines blocked) rows of ``blockers``, ``blocker_shot`` the shot each belongs to."""

    seen: np.ndarray
    blockers: np.ndarray
    blocker_shot: np.ndarray


class FiredOver:
    """What a battery's shot passes over (ISD §6, A18)."""

    NONE = 0          # nothing: every base in the way blocks
    FRIENDS = 1       # rockets: the friends at least 2" from the battery front
    EVERYTHING = 2    # one hill level of difference, no friend within 2" of the battery


class ShotQuestions:
    """The sight questions of some shooters' shots, as the tables `Sightlines` reads."""

    def __init__(self, board: Board, arcs: Arcs, row: np.ndarray, at: np.ndarray) -> None:
        self.board, self.arcs, self.row, self.at = board, arcs, row, at
        self.field = board.sight_field

    def _marks(self, groups: list[list[str]]) -> np.ndarray:
        """(len(groups), bodies) bool: the bodies of each group's bases."""
        index = self.field.body_index
        out = np.zeros((len(groups), len(self.field.body_ids)), dtype=bool)
        rows = [k for k, g in enumerate(groups) for i in g if i in index]
        cols = [index[i] for g in groups for i in g if i in index]
        out[rows, cols] = True
        return out

    @cached_property
    def corridor_mm(self) -> np.ndarray:
        """Per shooter, the half-width of its sight corridor (ISD A18: guns), else 0."""
        half = self.board.mm(self.board.settings.a18_artillery_corridor_in) / 2
        return np.where(self.arcs.gun, half, 0.0)

    @cached_property
    def own(self) -> np.ndarray:
        """(shooters, bodies): the firer, its battery and, for rockets, the friends they fire
        over (at least 2" from the battery front)."""
        board = self.board
        groups = []
        for s in self.arcs.shooters:
            members = [s, *board.front(s).members]
            if board.infos[s].rockets:
                members += fire_over_facts(board, s)[0]
            groups.append(members)
        return self._marks(groups)

    @cached_property
    def near_own(self) -> np.ndarray:
        """(shooters, bodies): for guns, the bases touching the battery (they block the line,
        not the corridor)."""
        board = self.board
        return self._marks([sorted({o for m in board.front(s).members for o in board.touching[m]})
                            if board.infos[s].is_gun else [] for s in self.arcs.shooters])

    @cached_property
    def targets(self) -> tuple[np.ndarray, np.ndarray]:
        """(the distinct targets' index positions, each shot's row among them)."""
        present = np.zeros(len(self.board.state.index.ids), dtype=bool)
        present[self.at] = True                   # (np.unique's sort: not for a few positions)
        return present.nonzero()[0], (np.cumsum(present) - 1)[self.at]

    @cached_property
    def target_self(self) -> np.ndarray:
        """(targets, bodies): the target itself."""
        names = self.board.state.index.ids
        return self._marks([[names[t]] for t in self.targets[0].tolist()])

    @cached_property
    def target_touching(self) -> np.ndarray:
        """(targets, bodies): the bases touching the target (corridor shots only ask)."""
        uniq, _ = self.targets
        names = self.board.state.index.ids
        wide = np.zeros(len(uniq), dtype=bool)
        wide[self.targets[1][self.arcs.gun[self.row]]] = True
        return self._marks([self.board.touching[names[t]] if w else []
                            for t, w in zip(uniq.tolist(), wide.tolist())])

    @cached_property
    def fired_over(self) -> np.ndarray:
        """Per shot, `FiredOver` (ISD §6, A18): rockets over friends; a gun firing at another
        hill level over everything when no friend stands within 2" of it."""
        board = self.board
        kind = np.full(len(self.row), FiredOver.NONE, dtype=np.int64)
        gun = self.arcs.gun[self.row]
        if not gun.any():
            return kind
        rockets = np.array([board.infos[s].rockets for s in self.arcs.shooters], dtype=bool)
        kind[rockets[self.row]] = FiredOver.FRIENDS
        other = gun & ~rockets[self.row]
        ask = other.nonzero()[0]          # (the levels of these shots' ends only)
        level = board.levels_of(np.concatenate([self.arcs.at[self.row[ask]], self.at[ask]]))
        other[ask] = level[:len(ask)] != level[len(ask):]
        # (whether a friend stands near a gun is asked only of guns firing at another level)
        calm = np.zeros(len(self.arcs.shooters), dtype=bool)
        for r in set(self.row[other].tolist()):
            calm[r] = not fire_over_facts(board, self.arcs.shooters[r])[1]
        kind[other & calm[self.row]] = FiredOver.EVERYTHING
        return kind

    @cached_property
    def uncounted(self) -> tuple[np.ndarray, np.ndarray] | None:
        """ISD A15 when the firer's or target's own wood does not count: (shooters, areas) and
        (targets, areas) the area holds the base's centre; None when every area counts."""
        field = self.board.sight_field
        if self.board.settings.a15_area_depth_counts_own or not len(field.deep_areas):
            return None
        centres = shapely.points(self.board.rect_table.frames[:, :2])
        holds = np.stack([shapely.covers(a, centres) for a in field.deep_areas], axis=1)
        return holds[self.arcs.at], holds[self.targets[0]]

    def lines(self, shots: np.ndarray, xy: np.ndarray, origin: np.ndarray) -> Sightlines:
        """The questions of lines ``xy`` (n, 2, 2), line i a line of shot ``shots[i]`` from
        its firer's sight origin ``origin[i]`` (0 middle, 1 left, 2 right)."""
        board = self.board
        row, tgt = self.row[shots], self.targets[1][shots]
        never = [Keyed(row, self.own), Keyed(tgt, self.target_self)]
        width = self.corridor_mm[row]
        thin: list[Keyed] = []
        if (width > 0).any():
            thin = [Keyed(row, self.near_own), Keyed(tgt, self.target_touching)]
        ends = shapes = None
        if board.settings.a16_crest_blocks == "strictly_between":
            ends = np.column_stack([self.arcs.at[row], self.at[shots]])
            shapes = board.state.index.shapes
        uncounted: list[Keyed] = []
        if self.uncounted is not None:
            uncounted = [Keyed(row, self.uncounted[0]), Keyed(tgt, self.uncounted[1])]
        off = self.fired_over[shots] == FiredOver.EVERYTHING
        return Sightlines(xy, width, never, thin, off, ends, shapes, uncounted,
                          row * 3 + origin)


def line_of_sight(board: Board, arcs: Arcs, row: np.ndarray, at: np.ndarray,
                  ends: tuple[np.ndarray, np.ndarray]) -> Sight:
    """Line of sight of shots (``arcs`` row ``row[k]`` at the base at index position ``at[k]``),
    under ISD A14; ``ends``: each shot's sight-line ends (`fire_geometry.sight_ends`)."""
    n = len(row)
    if not n:
        return Sight(np.zeros(0, dtype=bool), np.zeros((0, 3), dtype=np.int64),
                     np.zeros(0, dtype=np.int64))
    questions = ShotQuestions(board, arcs, row, at)
    field = board.sight_field
    mode = board.settings.a14_line_of_sight
    if mode == "centre_to_centre":
        frames = board.rect_table.frames
        xy = np.stack([board.rect_table.corners[arcs.at[row]][:, :2].mean(axis=1),
                       frames[at, :2]], axis=1)
        shot = np.arange(n)
        trace = field.trace(questions.lines(shot, xy, np.zeros(n, dtype=np.int64)))
        return _sight(n, trace.clear, shot, trace.kind, trace.index, np.ones(n, dtype=np.int64))
    points, owner = ends
    origins = sight_origins(board, arcs.shooters)
    n_end = np.bincount(owner, minlength=n)
    first_end = np.concatenate([[0], np.cumsum(n_end)[:-1]])
    # stage 1: the middle of the front to the middle of the part
    xy1 = np.stack([origins[:, 0].take(row, axis=0), points.take(first_end, axis=0)], axis=1)
    shot1 = np.arange(n)
    trace1 = field.trace(questions.lines(shot1, xy1, np.zeros(n, dtype=np.int64)))
    seen = trace1.clear.copy()
    pending = ~seen if mode == "any_line" else seen.copy()
    # stage 2: every other line of the shots stage 1 did not settle
    todo = pending.nonzero()[0]
    per = 3 * n_end[todo]
    lines_of = np.repeat(np.arange(len(todo)), per)              # each line's pending shot
    k = np.arange(len(lines_of)) - np.repeat(np.cumsum(per) - per, per)
    end_k, origin_k = k // 3, k % 3
    keep = (end_k > 0) | (origin_k > 0)
    lines_of, end_k, origin_k = lines_of[keep], end_k[keep], origin_k[keep]
    lines_shot = todo[lines_of]
    starts = origins.take(row[todo], axis=0)                      # (pending, 3, 2)
    xy2 = np.stack([starts.reshape(-1, 2).take(lines_of * 3 + origin_k, axis=0),
                    points.take(first_end[lines_shot] + end_k, axis=0)], axis=1)
    settled, blocker = _screened(questions, trace1, todo, starts, xy2[:, 1], lines_of, origin_k)
    swept = (~settled).nonzero()[0]
    trace2 = field.trace(questions.lines(lines_shot, xy2, origin_k), swept)
    clear2 = trace2.clear[swept]
    if mode == "any_line":
        seen[lines_shot[swept[clear2]]] = True
    else:
        seen[lines_shot[swept[~clear2]]] = False
    # what blocks each line, the lines settled by the middle line's blocker counted together
    screened = np.bincount(lines_of[settled], minlength=len(todo))
    by = screened.nonzero()[0]
    return _sight(n, seen,
                  np.concatenate([shot1, todo[by], lines_shot[swept]]),
                  np.concatenate([trace1.kind, np.full(len(by), BODY, dtype=np.int8),
                                  trace2.kind[swept]]),
                  np.concatenate([trace1.index, blocker[by], trace2.index[swept]]),
                  np.concatenate([np.ones(n, dtype=np.int64), screened[by],
                                  np.ones(len(swept), dtype=np.int64)]))


def _screened(questions: ShotQuestions, trace1: Trace, todo: np.ndarray, starts: np.ndarray,
              ends: np.ndarray, lines_of: np.ndarray, origin_k: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """The lines of the shots ``todo`` that the body blocking their middle line surely crosses
    too (most often it blocks them all), and that body per shot: a cheap certain test per line
    (`SightField.crosses`) before the sweep takes the rest."""
    kind1, index1 = trace1.kind[todo], trace1.index[todo]
    screen = np.where((kind1 == BODY) | (kind1 == CORRIDOR), index1, -1)
    settled = questions.field.crosses(starts.reshape(-1, 2), np.repeat(screen, 3), ends,
                                      lines_of * 3 + origin_k)
    return settled, screen


def _sight(n: int, seen: np.ndarray, shot: np.ndarray, kind: np.ndarray, index: np.ndarray,
           weight: np.ndarray) -> Sight:
    """The `Sight` of traced lines (each row: its shot, what blocks it and how many lines it
    stands for): each unseen shot's distinct obstacles, most lines first."""
    blocked = ((kind != CLEAR) & ~seen[shot]).nonzero()[0]
    if not len(blocked):
        return Sight(seen, np.zeros((0, 3), dtype=np.int64), np.zeros(0, dtype=np.int64))
    # one number per (shot, obstacle): counted, then each shot's most blocking first
    size = int(index.max()) + 2
    code = (shot[blocked] * 8 + kind[blocked].astype(np.int64)) * size + index[blocked] + 1
    uniq, back = np.unique(code, return_inverse=True)
    count = np.bincount(back.reshape(-1), weight[blocked]).astype(np.int64)
    owner = uniq // (8 * size)
    order = np.lexsort((uniq, -count, owner))
    uniq, count, owner = uniq[order], count[order], owner[order]
    rank = np.arange(len(uniq)) - np.searchsorted(owner, owner)
    keep = rank < MAX_NAMED
    uniq, count, owner = uniq[keep], count[keep], owner[keep]
    kind, index = (uniq // size) % 8, uniq % size - 1
    return Sight(seen, np.stack([kind, index, count], axis=1), owner)


def blocker_words(board: Board, kind: int, index: int) -> str:
    """What an umpire is told blocks a line: "A-3 in the way", "the crest of hill-1",
    "more than 2" of wood-2" (ISD §6)."""
    field = board.sight_field
    name = field.name((kind, index))
    if kind == BODY:
        return f"{name} in the way"
    if kind == CORRIDOR:
        return f"{name} within the {board.settings.a18_artillery_corridor_in:g}\" gap"
    if kind == WALL:
        crest = any(tid == name for tid, _ in board.crests)
        return f"the crest of {name}" if crest else f"the tree row {name}"
    if kind == DEPTH:
        return f"more than {LOS_MAX_DEPTH_IN_WOOD_OR_TOWN_IN:g}\" inside {name}"
    return "" if kind == CLEAR else name


def fire_over_facts(board: Board, gun: str) -> tuple[list[str], bool]:
    """(friends at least 2" from the battery front (rockets fire over them), whether any friend
    stands within 2" of the gun (no firing over units then)), ISD §6, A18; cached per gun."""
    cache = board.fire_memo.fire_over
    found = cache.get(gun)
    if found is None:
        found = cache[gun] = _fire_over(board, gun)
    return found


def _fire_over(board: Board, gun: str) -> tuple[list[str], bool]:
    info = board.infos[gun]
    members = board.front(gun).members
    clearance = board.mm(FIRE_OVER_FRIENDS_CLEARANCE_IN)

    def friend(i: str) -> bool:
        o = board.infos[i]
        return o.side == info.side and not o.is_general and i not in members

    friend_near = any(friend(i) for i in board.state.index.within(board.rect(gun).polygon,
                                                                  clearance))
    far: list[str] = []
    if info.rockets:
        gr = board.rect(gun)
        close = set(board.state.index.within(gr.front_edge, clearance - 1e-6))
        far = sorted(i for i in board.infos if friend(i) and i not in close)
    return far, friend_near
