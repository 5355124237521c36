"""Groups of adjacent bases (ATT 4.B, 4.F-M, 5.I, 8.D; readings AT12, AT13).

A group is formed at deployment (``traits.group`` names it) and lives on as the connected set of
its bases that are still linked: side edge to side edge (echelon allowed) or front edge to rear
edge, facing the same way. When links break the group splits (``G.1``, ``G.2``...); two groups
never merge, because a link only joins bases with the same deployment label. Light and heavy
bases are never linked (ATT 4.H). Bases without a label are grouped by their links alone (as at
deployment, ATT 4.L «La minima separazione fisica delle unità produce dei Gruppo separati»).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any


from campo.engine.geometry.rect import angle_diff
from campo.engine.rulesets.attila.board import Board
from campo.engine.rulesets.attila.tables import COLUMN_FEATURES

_FRONT, _RIGHT, _REAR, _LEFT = range(4)     # `Board.touching_pairs`' columns


@dataclass(frozen=True)
class Group:
    id: str
    label: str | None
    members: tuple[str, ...]
    kind: str | None          # "light"/"heavy" (ATT 4.G-H) or the 4.B classes
    split: bool               # the deployment group has broken into several (ATT 4.M)
    aligned: bool             # every front on one line: may wheel as a whole (ATT 5.I)
    on_column_features: tuple[str, ...] = ()   # roads, bridges, fords under its bases (4.B)
    in_column: bool = True    # one base wide: every link front to rear (ATT 4.B)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"id": self.id, "label": self.label, "members": list(self.members),
                             "kind": self.kind, "split": self.split, "aligned": self.aligned}
        if self.on_column_features:
            d["column"] = {"on": list(self.on_column_features), "in_column": self.in_column,
                           "note": "moving along a road, over a bridge or a ford, a group moves "
                                   "in column (ATT 4.B)"}
        return d


def same_facing(board: Board, a: str, b: str) -> bool:
    return abs(angle_diff(board.rect(a).heading_deg, board.rect(b).heading_deg)) <= \
        board.settings.group_heading_tolerance_deg


@dataclass(frozen=True)
class Link:
    """Two bases of one group touching (AT12): "side" (flank along flank) or "column" (front
    along rear); ``behind`` names the one whose front lies along the other's rear."""

    kind: str
    behind: str | None


def links(board: Board) -> dict[tuple[str, str], Link]:
    """Every pair of bases that belong together in one group (AT12, AT13, ATT 4.M), keyed
    (a, b) with a < b: same side, both troops, same deployment label and group class, facing the
    same way, and an edge lying along the other's for more than contact_min_shared_mm (within
    the contact tolerance) both ways. A base the camera has lost keeps its last pose: losing
    sight of it for a moment must not split its group for good. Once per state, from
    `Board.touching_pairs`; a live game's moment takes over from the moment before the verdict
    on each pair of bases given as then (`GameState.changes`) under the same settings."""
    def build() -> dict[tuple[str, str], Link]:
        s = board.settings
        p = board.touching_pairs
        need = s.contact_min_shared_mm
        columns = s.at12_group_links == "side_or_front_rear"
        changed = board.state.changes.changed
        before = board.state.handed_on("attila.links")
        was = before[1] if before is not None and before[0] == s else {}
        judged: dict[tuple[str, str], Link | None] = {}
        out = {}
        for n, (x, y) in enumerate(zip(p.a.tolist(), p.b.tolist())):
            if p.gaps[n] > board.contact_tol:
                continue
            a, b = board.order[x], board.order[y]
            if (a, b) in was and a not in changed and b not in changed:
                judged[(a, b)] = found = was[(a, b)]
                if found is not None:
                    out[(a, b) if a < b else (b, a)] = found
                continue
            judged[(a, b)] = None
            ua, ub = board.units[a], board.units[b]
            if not (ua.side == ub.side and ua.is_troops and ub.is_troops
                    and ua.group_label == ub.group_label
                    and ua.group_class(s) == ub.group_class(s) and same_facing(board, a, b)):
                continue
            la, lb = p.ab[n] > need, p.ba[n] > need       # x's edges along y, and the reverse
            if (la[_LEFT] and lb[_RIGHT]) or (la[_RIGHT] and lb[_LEFT]):
                link = Link("side", None)
            elif columns and la[_FRONT] and lb[_REAR]:
                link = Link("column", a)                  # x's front along y's rear
            elif columns and la[_REAR] and lb[_FRONT]:
                link = Link("column", b)
            else:
                continue
            out[(a, b) if a < b else (b, a)] = judged[(a, b)] = link
        board.state.hand_on("attila.links", (s, judged))
        return out
    return board.state.cached("attila.links", build)


class Groups:
    """Every group of one state, computed once (cached on the board's state)."""

    def __init__(self, board: Board) -> None:
        self.board = board

    @staticmethod
    def of(board: Board) -> Groups:
        return board.state.cached("attila.groups", lambda: Groups(board))

    @cached_property
    def links(self) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {i: set() for i in self.board.ids}
        for a, b in links(self.board):
            out[a].add(b)
            out[b].add(a)
        return out

    @cached_property
    def groups(self) -> list[Group]:
        b = self.board
        seen: set[str] = set()
        comps: list[list[str]] = []
        for i in b.ids:
            if i in seen or not b.units[i].is_troops:
                continue
            stack, comp = [i], []
            seen.add(i)
            while stack:
                x = stack.pop()
                comp.append(x)
                for y in sorted(self.links[x]):
                    if y not in seen:
                        seen.add(y)
                        stack.append(y)
            comps.append(sorted(comp))
        by_label: dict[str | None, list[list[str]]] = {}
        for comp in sorted(comps):
            by_label.setdefault(b.units[comp[0]].group_label, []).append(comp)
        out = []
        for label, parts in by_label.items():
            for n, comp in enumerate(parts, 1):
                if label is None:
                    gid, split = f"~{comp[0]}", False
                else:
                    gid = label if len(parts) == 1 else f"{label}.{n}"
                    split = len(parts) > 1
                out.append(Group(gid, label, tuple(comp),
                                 b.units[comp[0]].group_class(b.settings), split,
                                 self._aligned(comp), self._column_features(comp),
                                 self._in_column(comp)))
        return sorted(out, key=lambda g: g.id)

    def _column_features(self, members: list[str]) -> tuple[str, ...]:
        """Roads, bridges and fords (ATT 4.B) passing under any base of the group."""
        b = self.board
        found = []
        for f in b.state.scenario.terrain:
            if f.kind not in COLUMN_FEATURES:
                continue
            shape = b.areas.get(f.id) or b.lines.get(f.id)
            if shape is not None and any(shape.intersects(b.poly(m)) for m in members):
                found.append(f.id)
        return tuple(sorted(found))

    def _in_column(self, members: list[str]) -> bool:
        """ATT 4.B «devono muovere in colonna»: no two bases of the group side by side."""
        found = links(self.board)
        return not any(found[(x, y)].kind == "side"
                       for x in members for y in self.links[x] if x < y)

    def _aligned(self, members: list[str]) -> bool:
        """ATT 5.I «Se le unità del Gruppo non sono allineate»: all front edges on one line."""
        b = self.board
        first = b.rect(members[0])
        fx, fy = first.front_centre
        for m in members[1:]:
            r = b.rect(m)
            if not same_facing(b, members[0], m):
                return False
            for p in (r.front_left, r.front_right):
                if abs(first.ahead_of_front(*p)) > b.contact_tol:
                    return False
        return True

    @cached_property
    def group_of(self) -> dict[str, Group]:
        return {m: g for g in self.groups for m in g.members}

    def split_labels(self) -> dict[str, str]:
        """New ``traits.group`` values that make a split permanent (ATT 4.M: never merged again).

        Apply them to the roster/state so that pieces which touch again stay separate groups."""
        return {m: g.id for g in self.groups if g.split for m in g.members}


def supported_by(board: Board, base_id: str) -> list[str]:
    """ATT 8.D: the friendly base adjacent behind, same group, same troop type, same facing."""
    u = board.units[base_id]
    if not u.is_troops:
        return []
    groups = Groups.of(board)
    mine = groups.group_of.get(base_id)
    found = links(board)
    return [other for other in sorted(groups.links[base_id])
            if board.units[other].type == u.type and groups.group_of.get(other) is mine
            and found[tuple(sorted((base_id, other)))].behind == other]
