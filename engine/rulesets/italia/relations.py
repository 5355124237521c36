"""Contacts, support, artillery in support, Groups and command radius (ISD §1, §3, §8, §9, §13),
for every base at once from the board's contact pairs (one array pass) and, for command, one
STRtree query from the generals.

`Relations` (``board.relations``) holds the table-wide facts; the functions below read one
base's entry from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from campo.engine.boundary import decide, key
from campo.engine.connected import components
from campo.engine.geometry.contact import edge_aspect
from campo.engine.geometry.poses import xy
from campo.engine.geometry.rect import EDGE_NAMES
from campo.engine.rulesets.italia.board import WATCH_MM, Board
from campo.engine.rulesets.italia.tables_melee import ARTILLERY_SUPPORT_RANGE_IN
from campo.engine.rulesets.italia.troops import SIZE_RANK, command_radius_in

_FRONT, _REAR, _LEFT, _RIGHT = (EDGE_NAMES.index(e) for e in ("front", "rear", "left", "right"))


@dataclass(eq=False)
class Relations:
    """Who touches, supports and commands whom on one board (built on first use)."""

    board: Board
    _fire_support: dict[str, list[str]] = field(default_factory=dict)
    _sees: dict[tuple[str, str], bool] = field(default_factory=dict)
    _batteries: dict[tuple[str, str], list[str]] = field(default_factory=dict)

    # --- contacts and support (ISD §1, A24) -------------------------------------------------
    @cached_property
    def foes(self) -> dict[str, list[str]]:
        """Every base -> the enemies touching it, sorted by id."""
        infos = self.board.infos
        return {i: [o for o in others if infos[o].side != infos[i].side]
                for i, others in self.board.touching.items()}

    @cached_property
    def _support_rows(self) -> np.ndarray:
        """The contact rows where ``b`` supports ``a`` (ISD §1 SUPPORTO): a friend at the rear
        or flank, along a segment of that edge, facing the same way (ISD A24's tolerance); both
        units or guns in battery; a gun supports only on the flank, never rockets."""
        board = self.board
        c, p = board.contacts, board.poses
        infos = [board.infos[n] for n in board.order]
        side, gun = board.sides, board.guns
        fights = np.array([i.is_unit or i.is_gun for i in infos], dtype=bool)
        unfit = gun & np.array([i.limbered or i.rockets for i in infos], dtype=bool)
        a, b = c.a, c.b
        turn = (p.heading[b] - p.heading[a] + 180.0) % 360.0 - 180.0
        along = c.lengths[np.arange(len(a)), c.edge] > 2 * board.contact_tol + 1e-6
        ok = (side[a] == side[b]) & fights[a] & fights[b] & ~unfit[b] & \
            (np.abs(turn) <= board.settings.support_heading_tolerance_deg) & \
            (c.edge != _FRONT) & along & ~(gun[b] & (c.edge == _REAR))
        return np.nonzero(ok)[0]

    @cached_property
    def supporters(self) -> dict[str, list[str]]:
        """Every base -> the friends supporting it in contact, sorted by id."""
        names = self.board.state.index.ids
        out: dict[str, list[str]] = {i: [] for i in names}
        c = self.board.contacts
        for k in self._support_rows.tolist():
            out[names[int(c.a[k])]].append(names[int(c.b[k])])
        for found in out.values():
            found.sort()
        return out

    @cached_property
    def support_pairs(self) -> frozenset[tuple[str, str]]:
        """(supporter, supported) of every support in contact."""
        return frozenset((s, x) for x, found in self.supporters.items() for s in found)

    def fire_supporters(self, supported: str) -> list[str]:
        """ISD §1 artillery in support, first case: batteries of the side with an enemy in melee
        with ``supported`` in their arc, in sight, at 3" or less but not in contact."""
        found = self._fire_support.get(supported)
        if found is None:
            found = self._fire_support[supported] = _fire_supporters(self.board, supported,
                                                                     self.foes[supported])
        return found

    def batteries_near(self, foe: str, side: str) -> list[str]:
        """The guns of ``side`` that may support by fire against ``foe`` (ISD §1): within 3" of
        it, unlimbered, not rockets, seen, not in contact with it, in index order (whether each
        has it in its arc and in sight is `guns_seeing`'s question); once per pair (a copy)."""
        found = self._batteries.get((foe, side))
        if found is None:
            board, infos = self.board, self.board.infos
            found = self._batteries[(foe, side)] = [
                g for g in board.near(foe, board.mm(ARTILLERY_SUPPORT_RANGE_IN) + 1e-6, board.guns)
                if not (infos[g].limbered or infos[g].rockets or infos[g].stale)
                and infos[g].side == side and foe not in board.touching[g]]
        return list(found)

    def supported_by(self, base_id: str) -> list[str]:
        """ISD §1: the friends supporting this base, and the batteries supporting it by fire in
        a melee."""
        return sorted({*self.supporters[base_id], *self.fire_supporters(base_id)})

    # --- Groups (ISD §1, §8, A24) ----------------------------------------------------------
    @cached_property
    def groups(self) -> list[list[str]]:
        """Connected sets of units of one Division in mutual support; disordered or shaken units
        move alone. Sorted, singletons included."""
        infos = self.board.infos
        units = [i for i in self.board.state.index.ids if infos[i].is_unit]

        def free(u: str) -> bool:
            return infos[u].is_unit and not (infos[u].disordered or infos[u].shaken)

        links = [(s, x) for s, x in self.support_pairs
                 if free(s) and free(x) and infos[s].division == infos[x].division]
        return sorted(sorted(g) for g in components(units, links))

    @cached_property
    def batteries(self) -> dict[str, tuple[str, ...]]:
        """Gun id -> the guns side by side with it (itself included), sorted (ISD §6, A4): guns
        in battery touching flank to flank, facing alike (ISD A24's tolerance), fronts level."""
        board = self.board
        names = board.state.index.ids
        guns = [i for i in names if board.infos[i].is_gun and not board.infos[i].limbered]
        c, p = board.contacts, board.poses
        gun = np.isin(np.arange(len(names)), board.positions(guns))
        a, b = c.a, c.b
        turn = (p.heading[b] - p.heading[a] + 180.0) % 360.0 - 180.0
        # the other's front centre level with this front line (`Rect.ahead_of_front`)
        centre = p.front_centres[b] - xy(p.cx[a], p.cy[a])
        ahead = np.sum(centre * p.front[a], axis=1) - p.depth[a] / 2
        linked = gun[a] & gun[b] & (board.sides[a] == board.sides[b]) & \
            ((c.edge == _LEFT) | (c.edge == _RIGHT)) & \
            (np.abs(turn) <= board.settings.support_heading_tolerance_deg) & \
            (np.abs(ahead) <= np.maximum(board.contact_tol, 0.25 * p.depth[a]))
        links = [(names[x], names[y]) for x, y in zip(a[linked].tolist(), b[linked].tolist())]
        return {g: tuple(sorted(group)) for group in components(guns, links) for g in group}

    @cached_property
    def group_of(self) -> dict[str, list[str]]:
        return {m: g for g in self.groups for m in g}

    # --- command (ISD §3, §8, §13) ---------------------------------------------------------
    @cached_property
    def commanders(self) -> dict[str, list[dict[str, Any]]]:
        """Base id -> the generals commanding it (`command_of`'s entries), generals left out.

        A general joined to a unit commands it and has no radius (ISD §8). Otherwise the
        nearest points of the two bases within the general's radius (ISD §3: 9" Division,
        6" Corps, halved in fog, ISD §13), if he commands the unit's division; a gap within
        ``close_call_mm`` of the radius is too close to call (key "command")."""
        board = self.board
        infos, names = board.infos, board.state.index.ids
        out: dict[str, list[dict[str, Any]]] = {i: [] for i in names if not infos[i].is_general}
        for g in names:
            gi = infos[g]
            host = infos.get(gi.attached_to) if gi.is_general and gi.attached_to else None
            if host is not None and not host.is_general and host.side == gi.side:
                out[gi.attached_to].append({"id": g, "distance": 0.0, "margin": None,
                                            "attached": True})
        free = [g for g in names if infos[g].is_general and not infos[g].attached_to]
        if free:
            radius = np.array([_radius(board, g) for g in free])
            at = board.positions(free)
            tol = board.settings.close_call_mm
            rows, others, gaps = board.gaps_within(at, board.mm(radius) + tol + WATCH_MM)
            mine = np.array([names[o] in out and commands_unit(board, free[k], names[o])
                             for k, o in zip(rows.tolist(), others.tolist())], dtype=bool)
            rows, others, gaps = rows[mine], others[mine], gaps[mine]
            keys = [key("command", free[g], names[b])
                    for g, b in zip(rows.tolist(), others.tolist())]
            verdicts, close = decide(board.mm(radius[rows]) - gaps, tol, keys, board.state.held)
            for g, b, ok, near, d in zip(rows.tolist(), others.tolist(), verdicts, close,
                                         board.inches(gaps).tolist()):
                if ok:
                    entry = {"id": free[g], "distance": round(d, 2),
                             "margin": round(float(radius[g]) - d, 2)}
                    if near:
                        entry["close_calls"] = ["command"]
                    out[names[b]].append(entry)
        for entries in out.values():
            entries.sort(key=lambda e: e["id"])
        return out


def _radius(board: Board, general: str) -> float:
    """ISD §3 radius of a general not joined to a unit (Army read as Corps), halved in fog."""
    rank = board.infos[general].rank or "division"
    return command_radius_in(rank, weather=board.settings.weather)


def _fire_supporters(board: Board, supported: str, foes: list[str]) -> list[str]:
    info = board.infos[supported]
    if not foes or not (info.is_unit or info.is_gun):
        return []
    found: set[str] = set()
    for foe in foes:
        if not board.infos[foe].stale:
            guns = [g for g in board.relations.batteries_near(foe, info.side) if g != supported]
            found.update(guns_seeing(board, guns, foe))
    return sorted(found)


def guns_seeing(board: Board, guns: list[str], foe: str) -> list[str]:
    """The guns among ``guns`` that `gun_sees` the foe, in order, the shots not yet measured
    measured together (`fire.probe_all`: one question, not one per gun)."""
    from campo.engine.rulesets.italia.fire import probe_all

    probe_all(board, [g for g in guns if (g, foe) not in board.relations._sees], foe)
    return [g for g in guns if gun_sees(board, g, foe)]


def gun_sees(board: Board, gun: str, foe: str) -> bool:
    """ISD §1: the enemy is on the battery's front as it would bombard it: in its arc, at 3"
    or less, in sight (the fire rules' own measures, ISD A4–A6, A14); once per pair."""
    from campo.engine.rulesets.italia.fire import probe

    known = board.relations._sees
    found = known.get((gun, foe))
    if found is None:
        t = probe(board, gun, foe)
        found = known[(gun, foe)] = t is not None and t.in_arc and \
            t.distance <= ARTILLERY_SUPPORT_RANGE_IN + 1e-6 and t.line_of_sight
    return found


def contacts_of(board: Board, base_id: str) -> list[dict[str, Any]]:
    """Enemy bases touching this one, with the aspect of THIS base they touch (ISD A33)."""
    out = []
    for other in board.relations.foes[base_id]:
        k = board.contact_row(base_id, other)
        edge = EDGE_NAMES[int(board.contacts.edge[k])]
        entry: dict[str, Any] = {"id": other, "aspect": edge_aspect(edge), "edge": edge}
        if board.contacts.close[k]:
            entry["close_calls"] = ["contact"]
        out.append(entry)
    return out


def supports(board: Board, supporter: str, supported: str) -> bool:
    """ISD §1 SUPPORTO: ``supporter`` supports ``supported`` in contact."""
    return (supporter, supported) in board.relations.support_pairs


def group_leader(board: Board, members: list[str]) -> str:
    """ISD §8 the largest unit tests for the Group (A > B > C/D > E; ties: first id)."""
    return min(members, key=lambda m: (-SIZE_RANK.get(board.infos[m].letter or "", 0), m))


def commands_unit(board: Board, general: str, unit: str) -> bool:
    """The general's ``commands`` names the unit's division (or either is unknown)."""
    g, u = board.infos[general], board.infos[unit]
    if g.side != u.side:
        return False
    return not g.commands or u.division is None or u.division in g.commands


def command_of(board: Board, base_id: str) -> list[dict[str, Any]]:
    """Generals whose command radius reaches this base, with distance and margin (inches); an
    attached general commands its unit (margin None)."""
    return [dict(e) for e in board.relations.commanders.get(base_id, ())]


def out_of_command(board: Board, base_id: str) -> bool:
    """A unit no general's command radius reaches, nor a general joined to it (ISD §3)."""
    return board.infos[base_id].is_unit and not board.relations.commanders.get(base_id)

