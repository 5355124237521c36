"""Whether distance and space permit an attack (Federico "Mischie", F18): the paths tried
(straight ahead, one wheel then straight ahead, F15; oblique slides when the group allows them,
``oblique_attack_max_deg``), the allowance over the ground swept (F16), room (no other base in the
way), woods and villages, and the aspect struck (F19).

`reach_many` judges many attacks at once: every pair's paths are searched together
(`attack_paths.paths_many`), then the shapes the best paths sweep are measured against the terrain
and the other bases in a few vectorised shapely calls for all pairs (a union of a path's pieces
is built only when bounds on its area cannot decide). `reach` is the same code for one pair, so
the two cannot disagree (the plain path of tests/test_rulesets_fast_path.py asks one pair at a
time; tests/test_federico_paths.py compares batch and single answers).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import shapely

from campo.engine.geometry.contact import edge_of_lengths, shared_lengths_many, touched_edge
from campo.engine.geometry.rect import EDGE_NAMES, Rect
from campo.engine.geometry.zones import beyond_front_line, zone_of
from campo.engine.results import Aspect, Zone
from campo.engine.rulesets.federico.attack_paths import TOUCH_MM, AttackPath, paths_many
from campo.engine.rulesets.federico.board import Board
from campo.engine.rulesets.federico.movement import (
    allowance_cm,
    base_rate_cm,
    broken_track_cm,
    over_one_mm2,
    terrain_touched_many,
    woods_problem,
)
from campo.engine.rulesets.federico.overlap_kernel import overlap_estimates, ring_arrays
from campo.engine.rulesets.federico.regiments import Regiments

CANDIDATE_SLACK_CM = 5.0


@dataclass
class Attack:
    """The verdict on one base attacking one enemy base."""

    attacker: str
    target: str
    legal: bool = False
    distance: float | None = None
    allowance: float | None = None
    contact_aspect: Aspect | None = None
    wheel_deg: float = 0.0
    oblique_deg: float | None = None     # None: oblique slides not allowed (the default)
    path: list[list[float]] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    morale: dict[str, Any] | None = None
    melee: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "target": self.target, "legal": self.legal,
            "distance": None if self.distance is None else round(self.distance, 2),
            "contact_aspect": self.contact_aspect.value if self.contact_aspect else None,
            "reasons": list(self.reasons),
            "allowance": None if self.allowance is None else round(self.allowance, 2),
            "margin": None if self.distance is None or self.allowance is None
            else round(self.allowance - self.distance, 2),
            "wheel_deg": round(self.wheel_deg, 1),
            "path": [[round(x, 1), round(y, 1)] for x, y in self.path],
        }
        if self.oblique_deg is not None:
            d["oblique_deg"] = round(self.oblique_deg, 1)
        if self.notes:
            d["notes"] = list(self.notes)
        if self.morale is not None:
            d["defender_morale"] = self.morale
        if self.melee is not None:
            d["melee"] = self.melee
        return d


# --- reaching the target (F15, F18) ---------------------------------------------------------
def _set_hulls(paths: list[AttackPath]) -> None:
    """Fill every path's `AttackPath.hulls` with one vectorised call for all of them."""
    todo = [p for p in paths if "hulls" not in p.__dict__]
    if not todo:
        return
    tracks = [p.track for p in todo]
    corners = np.array([q.corners for track in tracks for q in track], dtype=float)
    sizes = [len(track) for track in tracks]
    starts = np.cumsum([0] + sizes[:-1])
    first = np.concatenate([np.arange(s, s + n - 1) for s, n in zip(starts, sizes)])
    pairs = np.concatenate([corners[first], corners[first + 1]], axis=1)      # (h, 8, 2)
    hulls = shapely.convex_hull(shapely.multipoints(pairs))
    for p, chunk in zip(todo, np.split(hulls, np.cumsum([n - 1 for n in sizes])[:-1])):
        p.__dict__["hulls"] = chunk


def _blockers_many(board: Board, items: list[tuple[str, str, AttackPath]]) -> list[list[str]]:
    """For each (attacker, target, path): the other bases the path runs through (no room,
    F18); touching does not count. A base meets the swept area when it meets one of the path's
    hulls (one index query for every hull of every path); the union is measured only against a
    base whose shrunk shape meets a hull."""
    out: list[list[str]] = [[] for _ in items]
    if not items:
        return out
    index = board.state.index
    ids = index.ids
    n = len(ids)
    flat = np.concatenate([p.hulls for _, _, p in items])
    owner = np.repeat(np.arange(len(items)), [len(p.hulls) for _, _, p in items])
    hull_i, base_i = board.meeting(flat)
    shrunk, may_block, unit = _shrunk_arrays(board)
    pos = {b: k for k, b in enumerate(ids)}
    own_unit = np.array([unit[pos[a]] for a, _, _ in items])
    target = np.array([pos[t] for _, t, _ in items])
    k_of = owner[hull_i]
    keep = may_block[base_i] & (unit[base_i] != own_unit[k_of]) & (base_i != target[k_of])
    hull_i, base_i, k_of = hull_i[keep], base_i[keep], k_of[keep]
    meets = shapely.intersects(flat[hull_i], shrunk[base_i])
    hull_i, base_i, k_of = hull_i[meets], base_i[meets], k_of[meets]
    estimates = overlap_estimates(flat, hull_i, _shrunk_rings(board), base_i)
    for k, b in over_one_mm2(
            k_of * n + base_i, estimates,
            lambda rows: shapely.area(shapely.intersection(flat[hull_i[rows]],
                                                           shrunk[base_i[rows]])),
            lambda k, b: shapely.intersection(items[k][2].swept, shrunk[b]).area, n):
        out[k].append(ids[b])
    for found in out:
        found.sort()
    return out


def _shrunk_rings(board: Board) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`overlap_kernel.ring_arrays` of the shrunk bases of `_shrunk_arrays` (cached)."""
    found = board.__dict__.get("_shrunk_rings")
    if found is None:
        found = board.__dict__["_shrunk_rings"] = ring_arrays(_shrunk_arrays(board)[0])
    return found


def _shrunk_arrays(board: Board) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per base, in index order: its shape less the contact tolerance (`_shrunk`, all at once),
    whether it can block a path (not a commander, not shrunk to nothing), and its unit's number
    (a regiment's bases never block its own attack). Cached on the board."""
    found = board.__dict__.get("_shrunk_arrays")
    if found is None:
        index = board.state.index
        regs = Regiments.of(board)
        shrunk = shapely.buffer(index.shapes, -max(board.contact_tol, TOUCH_MM))
        units = {name: k for k, name in enumerate(sorted(set(regs.of_base.values())))}
        unit = np.array([units.get(regs.of_base.get(i, ""), -1 - k)
                         for k, i in enumerate(index.ids)])
        may_block = ~shapely.is_empty(shrunk) & np.array(
            [not board.pieces[i].is_commander for i in index.ids], dtype=bool)
        found = board.__dict__["_shrunk_arrays"] = (shrunk, may_block, unit)
    return found


def aspect_struck(board: Board, final: Rect, t: Rect, edge: str | None = None) -> Aspect:
    """F19: flank if the attacker's front centre is beyond the defender's front line and it
    touches a side edge; rear if it touches the rear edge from the rear zone. The zone is read
    a little behind the attacker's front (its front lies on the edge it touches)."""
    probe = final.from_local(0.0, final.depth / 2 - max(board.contact_tol, 1.0))
    if board.settings.f19_flank_attack == "attacker_zone":
        return zone_of(t, *probe, board.settings.f1_zones).aspect
    if edge is None:      # the edge of the target touched (`touched_edge`), unless given
        edge = touched_edge(t, final, board.contact_tol + TOUCH_MM)
    if edge in ("left", "right") and beyond_front_line(t, final.front_centre, board.beyond_tol):
        return Aspect.FLANK
    if edge == "rear" and zone_of(t, *probe, board.settings.f1_zones) is Zone.REAR:
        return Aspect.REAR
    return Aspect.FRONT


def candidates(board: Board, attacker: str) -> list[str]:
    """Enemy troop bases within the attacker's full move (+5 cm) of it (cached; with the
    spatial index, every base's at the first call, in one query)."""
    cache = board.__dict__.get("_candidates")
    if cache is None:
        cache = board.__dict__["_candidates"] = {}
        if board.state.use_index:
            _all_candidates(board, cache)
    if attacker not in cache:
        cache[attacker] = _candidates(board, attacker)
    return cache[attacker]


def _all_candidates(board: Board, cache: dict[str, list[str]]) -> None:
    """`_candidates` of every base that may attack, from one index query."""
    ids = [i for i in board.state.index.ids if board.pieces[i].can_attack
           and not board.pieces[i].stale]
    if not ids:
        return
    reach_mm = np.array([board.mm(base_rate_cm(board, i) + CANDIDATE_SLACK_CM) for i in ids])
    si, bi = board.state.index.query_many([board.rect(i).polygon for i in ids], reach_mm)
    found: dict[str, list[str]] = {i: [] for i in ids}
    all_ids = board.state.index.ids
    for s, b in zip(si.tolist(), bi.tolist()):
        o, me = all_ids[b], board.pieces[ids[s]]
        if board.pieces[o].side != me.side and board.pieces[o].is_troop:
            found[ids[s]].append(o)
    for i, found_i in found.items():
        cache[i] = sorted(found_i)


def _candidates(board: Board, attacker: str) -> list[str]:
    p = board.pieces[attacker]
    if not p.can_attack or p.stale:
        return []
    reach = board.mm(base_rate_cm(board, attacker) + CANDIDATE_SLACK_CM)
    return sorted(o for o in board.state.index.within(board.rect(attacker).polygon, reach)
                  if board.pieces[o].side != p.side and board.pieces[o].is_troop)


def reach(board: Board, attacker: str, target: str) -> Attack:
    """Distance, space and aspect of an attack, without the melee modifiers (cached). With the
    spatial index, asking one attack judges all the attacker's candidates in one batch (the
    overlay and `GameState.legal_charges` ask them in turn); the plain path asks one pair."""
    cache = board.__dict__.setdefault("_reach", {})
    key = (attacker, target)
    if key not in cache:
        if board.state.use_index:
            prepare_reaches(board, [key] + [(attacker, t) for t in candidates(board, attacker)])
        else:
            cache[key] = reach_many(board, [key])[0]
    return cache[key]


def prepare_reaches(board: Board, pairs: Sequence[tuple[str, str]]) -> None:
    """Judge every pair not judged yet in one batch (`reach_many`) and cache the verdicts."""
    cache = board.__dict__.setdefault("_reach", {})
    todo = sorted({p for p in pairs if p not in cache})
    for key, v in zip(todo, reach_many(board, todo)):
        cache[key] = v


def reach_many(board: Board, pairs: Sequence[tuple[str, str]]) -> list[Attack]:
    """The verdicts on many (attacker, target) pairs (uncached): paths pair by pair, then the
    ground swept and the room for all the best paths at once."""
    checked = [_reach_checks(board, attacker, target) for attacker, target in pairs]
    out = [v for v, _ in checked]
    todo = [v for v, done in checked if not done]
    found = paths_many(board, [(board.rect(v.attacker), board.rect(v.target)) for v in todo])
    pending: list[tuple[Attack, AttackPath]] = []
    for v, paths in zip(todo, found):
        best = _choose_path(board, v, paths)
        if best is not None:
            pending.append((v, best))
    if pending:
        _set_aspects(board, pending)
        _set_hulls([p for _, p in pending])
        touched = terrain_touched_many(board, [p.hulls for _, p in pending],
                                       [_union_of(p) for _, p in pending])
        blocked = _blockers_many(board, [(v.attacker, v.target, p) for v, p in pending])
        for (v, best), t, b in zip(pending, touched, blocked):
            _reach_finish(board, v, best, t, b)
    if board.settings.oblique_attack_max_deg > 0.0:    # every verdict shows it when allowed
        for v in out:
            if v.oblique_deg is None:
                v.oblique_deg = 0.0
    return out


def _set_aspects(board: Board, pending: list[tuple[Attack, AttackPath]]) -> None:
    """`aspect_struck` of every best path, the edges touched measured all at once."""
    tol = board.contact_tol + TOUCH_MM
    targets = [board.rect(v.target) for v, _ in pending]
    lengths = shared_lengths_many(targets, [p.final for _, p in pending], tol)
    for (v, p), t, row in zip(pending, targets, lengths.tolist()):
        edge = edge_of_lengths(dict(zip(EDGE_NAMES, row)), tol)
        v.contact_aspect = aspect_struck(board, p.final, t, edge)


def _union_of(p: AttackPath) -> Callable[[], Any]:
    return lambda: p.swept


def _reach_checks(board: Board, attacker: str, target: str) -> tuple[Attack, bool]:
    """(verdict, True) when the bases alone decide it, else (the verdict to complete with the
    paths, `_choose_path`; False)."""
    a, t = board.pieces[attacker], board.pieces[target]
    v = Attack(attacker, target)
    if not a.can_attack:
        v.reasons.append("artillery does not attack" if a.arm == "artillery"
                         else "commanders do not attack")
        return v, True
    if t.side == a.side:
        v.reasons.append(f"{target} is a friend")
        return v, True
    if t.is_commander:
        v.reasons.append(f"{target} is a commander, not a unit")
        return v, True
    if a.stale:
        v.reasons.append(f"{attacker} not seen (last known position)")
    if t.stale:
        v.reasons.append(f"{target} not seen (last known position)")
    if target in board.touching[attacker]:
        v.reasons.append(f"already in contact with {target}")
        return v, True
    return v, False


def _choose_path(board: Board, v: Attack, paths: list[AttackPath]) -> AttackPath | None:
    """Fill the verdict from the paths found: the best path when the ground and the room still
    have to be measured (else None: the verdict is complete)."""
    attacker, target = v.attacker, v.target
    c, tr = board.rect(attacker), board.rect(target)
    if board.settings.f18_attack_reach == "distance_only":
        gap = float(shapely.distance(c.polygon, tr.polygon))
        v.distance = board.cm(gap)
        v.allowance, v.notes = allowance_cm(board, attacker, None)
        if paths:
            best = min(paths, key=lambda q: q.length_mm)
            v.contact_aspect = aspect_struck(board, best.final, tr)
            v.path = [list(best.start.front_centre), list(best.final.front_centre)]
        if v.distance > v.allowance + 1e-6:
            v.reasons.append(f"out of reach: {v.distance:.1f} cm, may move {v.allowance:.1f} cm")
        v.legal = not v.reasons
        return None
    if not paths:
        limit = board.settings.oblique_attack_max_deg
        how = (f"straight ahead, obliquely (up to {limit:g}°) or after one wheel" if limit > 0
               else "straight ahead or after one wheel")
        v.reasons.append(f"{attacker} cannot bring its front into contact with {target} moving "
                         f"{how}")
        return None
    best = min(paths, key=lambda q: (round(q.length_mm, 2), abs(q.wheel_deg),
                                     abs(q.oblique_deg)))
    v.wheel_deg = best.wheel_deg
    if board.settings.oblique_attack_max_deg > 0.0:
        v.oblique_deg = best.oblique_deg
    v.distance = board.cm(best.length_mm)
    v.path = [list(q.front_centre) for q in best.track]
    return best


def _reach_finish(board: Board, v: Attack, best: AttackPath, touched: dict[str, list[str]],
                  blocked: list[str]) -> None:
    """Complete the verdict with the allowance over the ground swept (F16), the room (F18) and
    woods and villages (Federico "Movimenti")."""
    attacker = v.attacker
    v.allowance, v.notes = allowance_cm(board, attacker, None, touched)
    if (extra := broken_track_cm(board, attacker, v.path)) > 0:
        v.distance += extra
        v.notes.append(f"{extra:.1f} cm of the way on broken ground counts double "
                       '(Federico "Movimenti"; Federico F16)')
    if v.distance > v.allowance + 1e-6:
        v.reasons.append(f"out of reach: needs {v.distance:.1f} cm, may move "
                         f"{v.allowance:.1f} cm ({v.distance - v.allowance:.1f} cm short)")
    if blocked:
        v.reasons.append(f"no room: {', '.join(blocked)} in the way")
    if why := woods_problem(board, attacker, _union_of(best), touched):
        v.reasons.append(why)
    v.legal = not v.reasons
