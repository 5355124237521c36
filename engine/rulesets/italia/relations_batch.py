"""Every base's contacts, supports and commanders at once: the fast path (``state.use_index``)
behind relations.py. An analysis asks about every base, so each table is built once per Board on
first use (cached in ``board.__dict__``) with numpy over the touching pairs or the general-base
pairs, instead of a Python call per pair. The arithmetic is relations.py's own, operation for
operation on the same floats, so the answers are the same bits; relations.py keeps the
per-pair code as the plain reference path (``use_index`` False) that the property tests
compare with."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import shapely

from campo.engine.geometry.rect import EDGE_NAMES
from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.pieces import COMMAND_RADIUS_IN

# edge_of_lengths breaks ties by priority front < flanks < rear, and between the flanks takes
# the first in EDGE_NAMES order (front, right, rear, left): so the first tied edge in this order
_TIE_ORDER = np.array([EDGE_NAMES.index(e) for e in ("front", "right", "left", "rear")])
_FRONT, _REAR = EDGE_NAMES.index("front"), EDGE_NAMES.index("rear")


class Contacts(NamedTuple):
    """Per base (every id a key): the friends supporting it and the enemies touching it, both in
    `Board.touching` order; and every (supporter, supported) pair, for `supports`."""

    supporters: dict[str, list[str]]
    foes: dict[str, list[str]]
    pairs: frozenset[tuple[str, str]]


def contacts(board: Board) -> Contacts:
    """The `Contacts` of the board (built once)."""
    found = board.__dict__.get("_contacts_batch")
    if found is None:
        found = board.__dict__["_contacts_batch"] = _contacts(board)
    return found


class Columns(NamedTuple):
    """What the tables read of each base, in index order (`Board._neighbours`'s rows)."""

    names: list[str]
    position: dict[str, int]
    side: np.ndarray          # a small integer per side
    general: np.ndarray
    can_be_supported: np.ndarray   # a unit or a gun
    can_support: np.ndarray        # ... and not a limbered gun nor rockets
    gun: np.ndarray
    attached: np.ndarray      # a general joined to a unit
    radius: np.ndarray        # command radius in (`relations.command_radius_in`), generals
    heading: np.ndarray
    division: list[str | None]
    commands: list[tuple[str, ...]]


def columns(board: Board) -> Columns:
    """The `Columns` of the board (built once)."""
    found = board.__dict__.get("_relations_columns")
    if found is None:
        names = board.state.index.ids
        infos = [board.infos[n] for n in names]
        code: dict[str, int] = {}
        side = np.array([code.setdefault(i.side, len(code)) for i in infos], dtype=np.int64)
        kind = np.array([i.kind for i in infos], dtype=object)
        general, gun = kind == "general", kind == "gun"
        can_be = (kind == "unit") | gun
        unfit = gun & np.array([i.limbered or i.rockets for i in infos], dtype=bool)
        division = np.array([i.rank == "division" for i in infos], dtype=bool)
        radius = np.where(division, float(COMMAND_RADIUS_IN["division"]),
                          float(COMMAND_RADIUS_IN["corps"]))
        if board.settings.weather == "fog":
            radius /= 2   # ISD §13
        found = board.__dict__["_relations_columns"] = Columns(
            names, board._neighbours[0], side, general, can_be, can_be & ~unfit, gun,
            np.array([bool(i.attached_to) for i in infos], dtype=bool), radius,
            np.array([board.rect(n).heading_deg for n in names], dtype=float),
            [i.division for i in infos], [i.commands for i in infos])
    return found


def _contacts(board: Board) -> Contacts:
    """`relations._supports` for every touching pair (x touched by s): the cheap tests as
    arrays over all pairs, the edge and its overlap from the shared lengths of the pairs left."""
    touching = board.touching
    col = columns(board)
    names, position, side = col.names, col.position, col.side
    xk = np.array([position[x] for x, others in touching.items() for _ in others], dtype=np.int64)
    sk = np.array([position[s] for others in touching.values() for s in others], dtype=np.int64)

    foes: dict[str, list[str]] = {n: [] for n in names}
    enemy = np.nonzero(side[xk] != side[sk])[0]
    for x, s in zip(xk[enemy].tolist(), sk[enemy].tolist()):
        foes[names[x]].append(names[s])

    # _same_facing: abs(angle_diff(supporter, supported)) <= tolerance, angle_diff in numpy
    turn = (col.heading[sk] - col.heading[xk]) % 360.0
    turn = np.where(turn > 180.0, turn - 360.0, turn)
    keep = (side[xk] == side[sk]) & col.can_be_supported[xk] & col.can_support[sk] & \
        (np.abs(turn) <= board.settings.support_heading_tolerance_deg)
    cand = np.nonzero(keep)[0]
    xs = [names[k] for k in xk[cand].tolist()]
    ss = [names[k] for k in sk[cand].tolist()]
    lengths = np.array([list(board.shared_lengths(x, s).values()) for x, s in zip(xs, ss)],
                       dtype=float).reshape(len(cand), len(EDGE_NAMES))
    edge = _edges(board, xs, ss, lengths)
    tol = board.contact_tol
    overlap = lengths[np.arange(len(cand)), edge] > 2 * tol + 1e-6    # relations._edge_overlap
    ok = (edge != _FRONT) & overlap & ~(col.gun[sk[cand]] & (edge == _REAR))

    supporters: dict[str, list[str]] = {n: [] for n in names}
    pairs = set()
    for k in np.nonzero(ok)[0].tolist():
        supporters[xs[k]].append(ss[k])
        pairs.add((ss[k], xs[k]))
    return Contacts(supporters, foes, frozenset(pairs))


def _edges(board: Board, xs: list[str], ss: list[str], lengths: np.ndarray) -> np.ndarray:
    """Index in EDGE_NAMES of `board.edge_touched(x, s)` for each pair: for the longest shared
    segment, `edge_of_lengths` over the rows (the same comparisons of the same floats)."""
    if board.settings.a33_contact_aspect != "longest_shared_segment" or not len(xs):
        return np.array([EDGE_NAMES.index(board.edge_touched(x, s)) for x, s in zip(xs, ss)],
                        dtype=np.int64)
    best = lengths.max(axis=1)
    tied = (lengths > 1e-9) & (lengths >= best[:, None] - board.contact_tol / 2)
    tied[~tied.any(axis=1)] = True
    return _TIE_ORDER[np.argmax(tied[:, _TIE_ORDER], axis=1)]


def general_pairs(board: Board) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(base positions, general positions, gap mm) in the index (`Board._neighbours` rows) of
    the generals within the widest command radius of each base, in index order: picked from the
    board's one bulk neighbour query (`near`'s own test), with the gap measured general to base
    (the operand order `command_of` always used: GEOS's distance may differ in the last bit the
    other way round), which the table holds too (the row of the general) but for a rare pair
    its box test left out: those are measured here. Cached; both paths of `command_of` use it."""
    found = board.__dict__.get("_general_pairs")
    if found is None:
        reach = board.mm(max(COMMAND_RADIUS_IN.values())) + 1e-6
        _, starts, others, gaps = board._neighbours
        general = columns(board).general
        keep = np.nonzero(general[others] & (gaps <= reach))[0] if len(others) else \
            np.zeros(0, dtype=np.int64)
        rows = np.searchsorted(starts, keep, side="right") - 1
        picked = others[keep]
        # the general's row, sorted by base: the entry (general, base)
        back = _find_in_rows(starts, others, picked, rows)
        measured = np.where(back >= 0, gaps[np.maximum(back, 0)], 0.0)
        lost = np.nonzero(back < 0)[0]
        if len(lost):
            shapes = board.state.index.shapes
            measured[lost] = shapely.distance(shapes[picked[lost]], shapes[rows[lost]])
        found = board.__dict__["_general_pairs"] = (rows, picked, measured)
    return found


def _find_in_rows(starts: np.ndarray, others: np.ndarray, rows: np.ndarray,
                  wanted: np.ndarray) -> np.ndarray:
    """Position in ``others`` of ``wanted[i]`` in row ``rows[i]`` (rows sorted), -1 if absent."""
    n = len(starts) - 1
    if not len(rows):
        return np.zeros(0, dtype=np.int64)
    keys = np.repeat(np.arange(n, dtype=np.int64), np.diff(starts)) * n + others
    want = rows * n + wanted
    at = np.minimum(np.searchsorted(keys, want), len(keys) - 1)
    return np.where(keys[at] == want, at, -1)


def commanders(board: Board) -> dict[str, list[tuple[str, float, float | None]]]:
    """Base id -> (general, distance in, margin in; margin None = attached) of the generals
    commanding it, sorted by general id: `relations._command_of_plain` for every base at once
    (built once; bases nobody commands are left out)."""
    found = board.__dict__.get("_commanders_batch")
    if found is None:
        found = board.__dict__["_commanders_batch"] = _commanders(board)
    return found


def _commanders(board: Board) -> dict[str, list[tuple[str, float, float | None]]]:
    infos = board.infos
    out: dict[str, list[tuple[str, float, float | None]]] = {}
    for gid, g in infos.items():   # joined to a unit: commands it, no radius (ISD §8)
        u = infos.get(g.attached_to) if g.is_general and g.attached_to else None
        if u is not None and not u.is_general and u.side == g.side:
            out.setdefault(g.attached_to, []).append((gid, 0.0, None))
    col = columns(board)
    names = col.names
    rows, found, gaps = general_pairs(board)
    d = board.inches(gaps)
    keep = ~col.general[rows] & (col.side[found] == col.side[rows]) & ~col.attached[found] & \
        (d <= col.radius[found] + 1e-6)
    pick = np.nonzero(keep)[0]
    division, commands = col.division, col.commands
    for k, b, dk, r in zip(rows[pick].tolist(), found[pick].tolist(), d[pick].tolist(),
                           col.radius[found[pick]].tolist()):
        if commands[b] and division[k] is not None and division[k] not in commands[b]:
            continue   # relations.commands_unit
        out.setdefault(names[k], []).append((names[b], round(dk, 2), round(r - dk, 2)))
    for entries in out.values():
        entries.sort(key=lambda e: e[0])
    return out
