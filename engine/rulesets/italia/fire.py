"""Who can shoot at whom (ISD §6 bombardment, §7 musketry): arcs, ranges, bands, sight, flank
fire, cover, a clear arc and the compulsory target, for any set of shooters at once.

One implementation for every reading of the settings, array-first: `shots` measures the shots of
the shooters asked (one shooter: arrays of length one) and judges them as columns; `Shots.dicts`
gives ``campo analyze``'s target entries. Distances are inches. ``margin`` is positive when
inside (``in range by 1.8``) and negative when short (``0.6 short``). Verdicts at a boundary
(range, arc, clear arc) are decided by `engine.boundary.decide`: within ``close_call_mm`` of it
they are "too close to call: measure", listed in the entry's ``close_calls`` and, live, held.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import numpy as np
import shapely

from campo.engine.boundary import CLOSE_CALL, decide, key
from campo.engine.results import Band
from campo.engine.rulesets.italia import tables_fire as tf
from campo.engine.rulesets.italia.board import MM_PER_IN, WATCH_MM, Board
from campo.engine.rulesets.italia.fire_clear import clear_blockers, clear_margins
from campo.engine.rulesets.italia.fire_cover import cover_terrain_of, covers
from campo.engine.rulesets.italia.fire_geometry import (
    ARC_EPS_MM,
    Arcs,
    candidate_pairs,
    part_distances,
    parts_in_arc,
    sight_ends,
)
from campo.engine.rulesets.italia.fire_sight import blocker_words
from campo.engine.rulesets.italia.fire_sight import line_of_sight as trace_sight
from campo.engine.rulesets.italia.modifiers_fire import FireFacts, fire_modifiers
from campo.engine.rulesets.italia.tables_fire import ARTILLERY_COVER, DIFFICULT_GROUND, MUSKETRY_COVER
from campo.engine.rulesets.italia.tables_movement import MOVEMENT_TABLE, Mover

__all__ = ["ARTILLERY_COVER", "MUSKETRY_COVER", "Shots", "Target", "cover_terrain_of", "fire_arc",
           "probe", "probe_all", "shots", "shots_and_probes"]

EPS_IN = tf.EDGE_EPS_IN
ROUNDING_MM = 1e-6
"""A measurement exactly ``close_call_mm`` from its boundary, to rounding, is not a close call."""


@dataclass
class Target:
    """One enemy base in a shooter's arc or range (the fields of ``campo analyze``'s entry)."""

    id: str
    distance: float
    in_arc: bool
    in_range: bool
    band: Band | None
    line_of_sight: bool
    margin: float
    flank_fire: bool = False
    cover: str | None = None
    cover_terrain: str | None = None
    arc_clear: bool = True
    legal: bool = False
    priority: bool = False
    reasons: list[str] = field(default_factory=list)
    modifiers: list[dict[str, Any]] | None = None
    arc_margin: float = 0.0
    close_calls: list[str] = field(default_factory=list)


@dataclass
class Shots:
    """Every shot of some shooters as columns: row k is ``shooters[row[k]]`` at ``ids[k]``,
    rows grouped by shooter (``spans``) and sorted by target id."""

    spans: dict[str, tuple[int, int]]
    ids: list[str]
    distance: np.ndarray
    margin: np.ndarray
    arc_margin: np.ndarray
    in_arc: np.ndarray
    in_range: np.ndarray
    band: list[Band | None]
    seen: np.ndarray
    legal: np.ndarray
    priority: np.ndarray
    flank: np.ndarray
    clear: np.ndarray
    cover: list[str | None]
    cover_terrain: list[str | None]
    reasons: list[list[str]]
    modifiers: list[list[dict[str, Any]] | None]
    close_calls: dict[int, list[str]]

    @staticmethod
    def empty(shooters: Sequence[str]) -> Shots:
        z, b = np.zeros(0), np.zeros(0, dtype=bool)
        return Shots({s: (0, 0) for s in shooters}, [], z, z, z, b, b, [], b, b, b, b, b, [],
                     [], [], [], {})

    def dicts(self, shooter: str) -> list[dict[str, Any]]:
        """``campo analyze``'s target entries of one shooter (shared/interfaces.md)."""
        first, end = self.spans.get(shooter, (0, 0))
        return self.entries[first:end]

    @cached_property
    def entries(self) -> list[dict[str, Any]]:
        """Every row's entry, made in one pass."""
        return _entries(self)

    def of(self, shooter: str) -> list[Target]:
        """The shooter's shots as `Target` records (rules asking about single shots)."""
        first, end = self.spans.get(shooter, (0, 0))
        return [Target(self.ids[k], float(self.distance[k]), bool(self.in_arc[k]),
                       bool(self.in_range[k]), self.band[k], bool(self.seen[k]),
                       float(self.margin[k]), bool(self.flank[k]), self.cover[k],
                       self.cover_terrain[k], bool(self.clear[k]), bool(self.legal[k]),
                       bool(self.priority[k]), list(self.reasons[k]), self.modifiers[k],
                       float(self.arc_margin[k]), list(self.close_calls.get(k, ())))
                for k in range(first, end)]

    def priority_ids(self, shooter: str) -> list[str]:
        """ISD §6, §7: the compulsory targets (ties all listed)."""
        first, end = self.spans.get(shooter, (0, 0))
        return [self.ids[k] for k in range(first, end) if self.priority[k]]


def shooters_of(board: Board, ids: Sequence[str] | None = None) -> list[str]:
    """The bases among ``ids`` (all when None) that can fire (ISD §6, §7) and are present."""
    infos = board.infos
    pool = infos if ids is None else ids
    return sorted(i for i in pool if infos[i].can_fire and not infos[i].stale)


def shots(board: Board, ids: Sequence[str] | None = None,
          among: Sequence[str] | Mapping[str, Sequence[str]] | None = None) -> Shots:
    """Every present enemy base in the arc (at any distance) or within range of each shooter
    among ``ids`` (every base when None), judged; only the targets ``among`` these when given
    (a rule asking about a few shots: their compulsory target is then not marked), for every
    shooter or, a mapping, per shooter (one it does not name: every target)."""
    shooters = shooters_of(board, ids)
    if not shooters:
        return Shots.empty(ids if ids is not None else sorted(board.infos))
    if among is None:
        for table in board.fire_memo.tables:     # measured already (the whole table, say)
            if all(s in table.spans for s in shooters):
                return table
    arcs = Arcs.of(board, shooters)
    names = board.state.index.ids
    side = board.sides
    enemy = (side[None, :] != side[arcs.at][:, None]) & board.present[None, :]
    for r, shooter in enumerate(arcs.shooters if among is not None else ()):
        wanted = among.get(shooter) if isinstance(among, Mapping) else among
        if wanted is not None:
            asked = np.zeros(len(names), dtype=bool)
            asked[board.positions(wanted)] = True
            enemy[r] &= asked
    pairs = candidate_pairs(board, arcs, enemy)
    tol = board.settings.close_call_mm
    in_arc, arc_close = _settle(board, "arc", arcs, pairs.row, pairs.at,
                                pairs.arc_mm + ARC_EPS_MM, tol)
    # the range measured to the whole target (its nearest point, or centre to centre) for those
    # out of the arc; the part in arc for those in it (never nearer): those out of the arc
    # are asked about within `WATCH_MM` beyond the range, bounded first, then measured
    rough = pairs.near_mm
    if board.settings.a6_range_measure == "centre_to_centre":
        frames = board.rect_table.frames
        rough = np.hypot(*(frames[pairs.at, :2] - frames[arcs.at[pairs.row], :2]).T)
    maybe = (in_arc | (rough <= arcs.range_mm[pairs.row] + WATCH_MM)).nonzero()[0]
    parts = parts_in_arc(board, arcs, pairs.row[maybe], pairs.at[maybe], in_arc[maybe])
    dist_mm = part_distances(board, arcs, pairs.row[maybe], pairs.at[maybe], parts)
    prow = np.arange(len(maybe))                                  # their rows of ``parts``
    if board.settings.a6_range_measure != "centre_to_centre":   # bounded, now measured
        prow = (in_arc[maybe] | (dist_mm <= arcs.range_mm[pairs.row[maybe]] + WATCH_MM)
                ).nonzero()[0]
        maybe, dist_mm = maybe[prow], dist_mm[prow]
    row, at = pairs.row[maybe], pairs.at[maybe]
    in_range, range_close = _settle_range(board, arcs, row, at, dist_mm)
    listed = (in_arc[maybe] | in_range).nonzero()[0]
    # rows grouped by shooter, by target id within
    rank = np.empty(len(names), dtype=np.int64)
    rank[np.argsort(np.array(names, dtype=str), kind="stable")] = np.arange(len(names))
    listed = listed[np.lexsort((rank[at[listed]], row[listed]))]
    out = _judge(board, arcs, row[listed], at[listed], parts, prow[listed], dist_mm[listed],
                  in_arc[maybe][listed], arc_close[maybe][listed], pairs.arc_mm[maybe][listed],
                  in_range[listed], range_close[listed])
    if among is None:
        board.fire_memo.tables.append(out)      # rules asking about single shots read it (`probe`)
    return out


def _settle(board: Board, question: str, arcs: Arcs, row: np.ndarray, at: np.ndarray,
            margin_mm: np.ndarray, tol: float, inclusive: bool = True
            ) -> tuple[np.ndarray, np.ndarray]:
    """`boundary.decide` of many verdicts: measured, the close calls held (verdicts within
    `WATCH_MM` of the boundary keyed, so the live memory has them next moment)."""
    tol = max(0.0, tol - ROUNDING_MM)
    verdict = margin_mm >= 0 if inclusive else margin_mm > 0
    close = np.abs(margin_mm) < tol
    near = (np.abs(margin_mm) < max(WATCH_MM, tol)).nonzero()[0]
    if len(near):
        names = board.state.index.ids
        keys = [key(question, arcs.shooters[r], names[a])
                for r, a in zip(row[near].tolist(), at[near].tolist())]
        held, _ = decide(margin_mm[near], tol, keys, board.state.held, inclusive=inclusive)
        verdict[near] = held
    return verdict, close


def _settle_range(board: Board, arcs: Arcs, row: np.ndarray, at: np.ndarray,
                  dist_mm: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """In range (ISD §6, §7; edges ISD A7): the range table's last edge, read as
    `tables_fire.within` reads every band's."""
    inclusive = tf.inclusive_edges(board.settings)
    margin = arcs.range_mm[row] - dist_mm + (1 if inclusive else -1) * EPS_IN * MM_PER_IN
    return _settle(board, "range", arcs, row, at, margin, board.settings.close_call_mm,
                   inclusive)


def _judge(board: Board, arcs: Arcs, row: np.ndarray, at: np.ndarray, parts: Any,
           prow: np.ndarray, dist_mm: np.ndarray, in_arc: np.ndarray, arc_close: np.ndarray,
           arc_mm: np.ndarray, in_range: np.ndarray, range_close: np.ndarray) -> Shots:
    """The verdicts of the listed shots (``prow``: their rows of ``parts``)."""
    s = board.settings
    names = board.state.index.ids
    n = len(row)
    dist_in = dist_mm / MM_PER_IN
    max_in = arcs.range_mm[row] / MM_PER_IN
    gun = arcs.gun[row]
    band = _bands(board, dist_in, gun, in_range)
    sight = trace_sight(board, arcs, row, at, sight_ends(parts, prow))
    flank = flank_fire(board, arcs.at[row], at)
    shooter_ids = [arcs.shooters[r] for r in row.tolist()]
    target_ids = [names[a] for a in at.tolist()]
    cover, cover_terrain = covers(board, shooter_ids, target_ids)
    clear = np.ones(n, dtype=bool)
    clear_close = np.zeros(n, dtype=bool)
    friends: dict[int, list[str]] = {}
    musket = (~gun & in_arc & in_range).nonzero()[0]
    if len(musket):
        margin, c_shot, c_friend, c_margin = clear_margins(
            board, arcs, row[musket], at[musket], parts, prow[musket], dist_mm[musket])
        clear[musket], clear_close[musket] = _settle(board, "clear", arcs, row[musket],
                                                     at[musket], margin, s.close_call_mm)
        spoilt = ~clear[musket[c_shot]]
        friends = {int(musket[k]): v for k, v in clear_blockers(
            board, c_shot[spoilt], c_friend[spoilt], c_margin[spoilt]).items()}
    legal = in_arc & in_range & sight.seen & clear
    reasons = _reasons(board, in_arc, arc_close, in_range, range_close, max_in - dist_in,
                       sight, clear, clear_close, friends)
    modifiers: list[list[dict[str, Any]] | None] = [None] * n
    memo: dict[tuple, list[dict[str, Any]]] = board.fire_memo.modifiers
    for k in legal.nonzero()[0].tolist():
        modifiers[k] = shot_modifiers(board, shooter_ids[k], target_ids[k], float(dist_in[k]),
                                      band[k], bool(flank[k]), cover[k] or "none", memo)
    close_calls: dict[int, list[str]] = {}
    for name, flags in (("range", range_close), ("arc", arc_close), ("clear", clear_close)):
        for k in flags.nonzero()[0].tolist():
            close_calls.setdefault(k, []).append(name)
    bounds = np.searchsorted(row, np.arange(len(arcs.shooters) + 1)).tolist()
    spans = {sh: (bounds[p], bounds[p + 1]) for p, sh in enumerate(arcs.shooters)}
    out = Shots(spans, target_ids, dist_in, max_in - dist_in, arc_mm / MM_PER_IN, in_arc,
                in_range, band, sight.seen, legal, np.zeros(n, dtype=bool), flank, clear, cover,
                cover_terrain, reasons, modifiers, close_calls)
    _mark_priority(board, arcs, row, at, out)
    return out


def _bands(board: Board, dist_in: np.ndarray, gun: np.ndarray, in_range: np.ndarray
           ) -> list[Band | None]:
    """Each shot's band, read off the range table (`tables_fire.band_indices`) like its
    range: a shot in range has a band (held in range just beyond the edge: the last band)."""
    k = tf.band_indices(dist_in, gun, board.settings)
    out: list[Band | None] = [None] * len(k)
    for weapon in (True, False):
        rows = tf.bands(weapon)
        names = [r.band for r in rows]
        pick = (in_range & (gun == weapon)).nonzero()[0]
        at = np.where(k[pick] < 0, len(rows) - 1, k[pick])
        for i, b in zip(pick.tolist(), at.tolist()):
            out[i] = names[b]
    return out


def _reasons(board: Board, in_arc: np.ndarray, arc_close: np.ndarray,
             in_range: np.ndarray, range_close: np.ndarray, margin_in: np.ndarray, sight: Any,
             clear: np.ndarray, clear_close: np.ndarray, friends: dict[int, list[str]]
             ) -> list[list[str]]:
    """Why each shot is not allowed (empty: it is), the close calls said so."""
    maybe = " (" + CLOSE_CALL + ")"
    words: dict[tuple[int, int], str] = {}
    named: dict[int, list[str]] = {}
    for shot, kind, index in zip(sight.blocker_shot.tolist(), sight.blockers[:, 0].tolist(),
                                 sight.blockers[:, 1].tolist()):
        text = words.get((kind, index))
        if text is None:
            text = words[(kind, index)] = blocker_words(board, kind, index)
        named.setdefault(shot, []).append(text)
    # (a shot held out of range while measured a hair inside is 0.0 short)
    short = np.maximum(-margin_in, 0.0).tolist()
    out: list[list[str]] = []
    for k, (arc, arc_c, rng, rng_c, seen, ok, ok_c) in enumerate(zip(
            in_arc.tolist(), arc_close.tolist(), in_range.tolist(), range_close.tolist(),
            sight.seen.tolist(), clear.tolist(), clear_close.tolist())):
        texts = []
        if not arc:
            texts.append("not in arc of fire" + (maybe if arc_c else ""))
        if not rng:
            texts.append(f"out of range: {short[k]:.1f} in short" + (maybe if rng_c else ""))
        if not seen:
            texts.append("no line of sight: " + ", ".join(named[k]) if k in named
                         else "no line of sight")
        if not ok:
            who = friends.get(k)
            in_way = f": {', '.join(who)} in the way" if who else ""
            texts.append("arc of fire not clear of friends" + in_way + (maybe if ok_c else ""))
        out.append(texts)
    return out


def flank_fire(board: Board, shooter_at: np.ndarray, target_at: np.ndarray) -> np.ndarray:
    """ISD §1 flank fire of (shooter, target) pairs (index positions): the firer's front
    completely beyond the target's front line (ISD A2: by more than the tolerance; ISD A3: a
    firer wholly behind the target's rear counts unless the setting says otherwise)."""
    table = board.rect_table
    corners, frames = table.corners.take(shooter_at, axis=0), table.frames.take(target_at, axis=0)
    fl, fr, cx, cy = corners[:, 0], corners[:, 1], frames[:, 0], frames[:, 1]
    f, half = frames[:, 4:6], frames[:, 7]

    def ahead(p: np.ndarray) -> np.ndarray:     # `Rect.to_local(...)[1]`
        return (p[:, 0] - cx) * f[:, 0] + (p[:, 1] - cy) * f[:, 1]

    v_left, v_right = ahead(fl), ahead(fr)
    tol = board.beyond_tol
    out = ((v_left - half) < -tol) & ((v_right - half) < -tol)
    if not board.settings.a3_rear_counts_as_flank:
        out &= ~((v_left < -half) & (v_right < -half))
    return out


def _mark_priority(board: Board, arcs: Arcs, row: np.ndarray, at: np.ndarray, out: Shots) -> None:
    """ISD §7 nearest legal target (A8); ISD §6 artillery fires first at units within their own
    full move of it (A9). Ties within ``equal_distance_tolerance_in`` are all marked."""
    s = board.settings
    tie = s.equal_distance_tolerance_in
    for p, shooter in enumerate(arcs.shooters):
        first, end = out.spans[shooter]
        legal = out.legal[first:end]
        if not legal.any():
            continue
        dist = out.distance[first:end]
        pool = legal.copy()
        if arcs.gun[p] and s.a9_artillery_priority == "within_enemy_full_move":
            threat = _threats(board, shooter, at[first:end]) & legal
            if not threat.any():
                out.priority[first:end] = legal      # free choice on its front
                continue
            pool = threat
        elif s.a8_nearest_target == "nearest_enemy" and not arcs.gun[p]:
            pool = np.ones(end - first, dtype=bool)
        nearest = dist[pool].min()
        out.priority[first:end] = pool & legal & (dist <= nearest + tie)


def _threats(board: Board, gun: str, targets: np.ndarray) -> np.ndarray:
    """ISD A9: the units no farther from the battery than their own full move (ISD §8)."""
    names = board.state.index.ids
    infos = [board.infos[names[t]] for t in targets.tolist()]
    unit = np.array([i.is_unit for i in infos], dtype=bool)
    full = np.array([MOVEMENT_TABLE[Mover.CAVALRY if i.arm == "cavalry" else Mover.INFANTRY]
                     .move_in for i in infos])
    gap = np.full(len(targets), np.inf)
    ask = unit.nonzero()[0]
    if len(ask):
        shapes = board.state.index.shapes
        gap[ask] = shapely.distance(board.rect(gun).polygon, shapes[targets[ask]]) / MM_PER_IN
    return unit & (gap <= full + EPS_IN)


def shot_modifiers(board: Board, shooter: str, target: str, distance_in: float,
                   band: Band | None, flank: bool, cover: str,
                   memo: dict[tuple, list[dict[str, Any]]] | None = None) -> list[dict[str, Any]]:
    """The tables' `fire_modifiers` of one shot, as dicts; remembered per kind of shot (the
    firer's and target's facts, flank, cover and band: all of the shot a modifier reads)."""
    firer, target_facts = _firer_facts(board, shooter), _target_facts(board, target)
    table_band = None
    if board.infos[shooter].is_gun and band is not None:
        table_band = next(r.table for r in tf.ARTILLERY_BANDS if r.band == band)
    key_ = (tuple(firer.items()), tuple(target_facts.items()), flank, cover, table_band)
    try:
        found = memo.get(key_) if memo is not None else None
    except TypeError:        # a trait value that cannot be hashed
        found, memo = None, None
    if found is None:
        facts = FireFacts(distance_in=distance_in, flank_fire=flank, target_cover=cover,
                          band=table_band, **firer, **target_facts)
        found = [m.to_dict() for m in fire_modifiers(facts, board.settings)]
        if memo is not None:
            memo[key_] = found
    return [dict(m) for m in found]


def _firer_facts(board: Board, shooter: str) -> dict[str, Any]:
    """The firer's part of `FireFacts` (its type and traits; a gun's ground)."""
    fb, fi = board.state.base(shooter), board.infos[shooter]
    ft = fb.traits
    under = set(board.terrain_table.kinds_meeting(
        board.state.index.shapes[[board.pos[shooter]]])[0]) if fi.is_gun else set()
    return dict(firer_type=fb.type, firer_arm=fi.arm, weapon=ft.get("weapon"),
                marksmen=bool(ft.get("marksmen", False)),
                french_guard=bool(ft.get("french_guard", False)), firer_shaken=fi.shaken,
                firer_disordered=fi.disordered, battery=fi.battery, rockets=fi.rockets,
                reduced_ammunition=bool(ft.get("reduced_ammunition", False)),
                gun_on_difficult_terrain=fi.is_gun and bool(under & DIFFICULT_GROUND))


def _target_facts(board: Board, target: str) -> dict[str, Any]:
    """The target's part of `FireFacts` (its traits)."""
    ti = board.infos[target]
    return dict(target_arm=ti.arm, target_in_battery=ti.is_gun and not ti.limbered,
                target_limbered=ti.kind == "limber" or (ti.is_gun and ti.limbered),
                target_single_rank=bool(board.state.base(target).traits.get("single_rank", False)),
                target_march_column=ti.march_column)


def _entries(shots_: Shots) -> list[dict[str, Any]]:
    """``campo analyze``'s target entries of every row."""
    out: list[dict[str, Any]] = []
    append = out.append
    for (id_, dist, in_arc, in_range, band, seen, marg, arc_marg, legal, priority, flank,
         cover, terrain, clear, reasons, modifiers, close) in zip(
            shots_.ids, np.round(shots_.distance, 2).tolist(), shots_.in_arc.tolist(),
            shots_.in_range.tolist(), [None if b is None else b.value for b in shots_.band],
            shots_.seen.tolist(), np.round(shots_.margin, 2).tolist(),
            np.round(shots_.arc_margin, 2).tolist(), shots_.legal.tolist(),
            shots_.priority.tolist(), shots_.flank.tolist(), shots_.cover,
            shots_.cover_terrain, shots_.clear.tolist(), shots_.reasons, shots_.modifiers,
            [shots_.close_calls.get(k) for k in range(len(shots_.ids))]):
        d = {"id": id_, "distance": dist, "in_arc": in_arc, "in_range": in_range, "band": band,
             "line_of_sight": seen, "margin": marg, "arc_margin": arc_marg, "legal": legal,
             "priority": priority, "flank_fire": flank, "cover": cover}
        if terrain:
            d["cover_terrain"] = terrain
        if not clear:
            d["arc_clear"] = False
        if reasons:
            d["reasons"] = reasons
        if modifiers is not None:
            d["fire_modifiers"] = modifiers
        if close:
            d["close_calls"] = close
        append(d)
    return out


# --- one shooter, one target: the same code with arrays of length one ---------------------------

def fire_arc(board: Board, shooter: str, reach_in: float | None = None) -> Any:
    """The shooter's arc as a polygon (for drawing), out to ``reach_in`` (default: 3" beyond
    its range)."""
    arcs = Arcs.of(board, [shooter])
    reach = arcs.reach_mm if reach_in is None else np.array([reach_in * MM_PER_IN])
    return arcs.polygons(np.zeros(1, dtype=np.int64), reach)[0]


def probe(board: Board, shooter: str, target: str) -> Target | None:
    """One shot as the shooter's target list judges it (None: the target is neither in its arc
    nor in range): read from a table measured on the board, else measured alone (arrays of
    length one) and kept."""
    table = next((t for t in board.fire_memo.tables if shooter in t.spans), None)
    if table is not None:
        return next((t for t in table.of(shooter) if t.id == target), None)
    found = board.fire_memo.probes.get((shooter, target), False)
    if found is False:
        one = shots(board, [shooter], among=[target]).of(shooter)
        found = board.fire_memo.probes[(shooter, target)] = one[0] if one else None
    return found


def probe_all(board: Board, shooters: Sequence[str], target: str) -> None:
    """The shots of ``shooters`` at ``target`` that `probe` would measure alone, measured
    together (one `shots` question) and kept for it."""
    shots_and_probes(board, [], [(s, target) for s in shooters])


def shots_and_probes(board: Board, ids: Sequence[str],
                     probes: Sequence[tuple[str, str]]) -> Shots:
    """`shots(board, ids)`, and the single (shooter, target) shots ``probes`` that `probe`
    would measure alone, measured in the same `shots` question and kept for it: the fire
    rules' fixed costs paid once (a base's detail and the batteries supporting its charges)."""
    memo, tables = board.fire_memo.probes, board.fire_memo.tables
    own = shooters_of(board, ids)
    if any(all(s in t.spans for s in own) for t in tables):
        own = []                                  # measured already: `shots` reads it
    wanted: dict[str, list[str]] = {}
    for s, target in dict.fromkeys(probes):
        if s not in own and (s, target) not in memo and not any(s in t.spans for t in tables):
            wanted.setdefault(s, []).append(target)
    if not wanted:
        return shots(board, ids)
    table = shots(board, [*own, *wanted], among=wanted)
    for s, targets in wanted.items():
        found = {t.id: t for t in table.of(s)}
        for target in targets:
            memo[(s, target)] = found.get(target)
    if not own:
        return shots(board, ids)
    table = replace(table, spans={s: table.spans[s] for s in own})
    tables.append(table)                          # rules asking about single shots read it
    return table


