"""Regiments and batteries (Federico "Movimenti": «Il movimento avviene per Reggimento … e
batteria»): which bases form one unit, its connected groups, and the isolated bases (F17).

A regiment is the set of one side's troop bases sharing ``traits.regiment`` (a base without it is
a regiment of its own, named by its id). Its bases form groups when they touch edge to edge
within ``f17_cohesion_tolerance_cm``; the bases outside the largest group are isolated and must
rejoin it «appena possibile». With two or more groups of the largest size none is isolated, but
the regiment is reported as split.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from campo.engine.connected import components

if TYPE_CHECKING:
    from campo.engine.rulesets.federico.board import Board


@dataclass(frozen=True)
class Regiment:
    """One regiment or battery as the rules see it."""

    name: str
    side: str
    arm: str
    bases: tuple[str, ...]
    groups: tuple[tuple[str, ...], ...]   # largest first, then by first id
    isolated: tuple[str, ...]
    klass: int | None                     # the lowest class of its bases (F12: one class)

    @property
    def split(self) -> bool:
        return len(self.groups) > 1

    def to_dict(self) -> dict[str, Any]:
        return {"side": self.side, "arm": self.arm, "bases": list(self.bases),
                "class": self.klass, "groups": [list(g) for g in self.groups],
                "isolated": list(self.isolated), "split": self.split}


@dataclass(eq=False)
class Regiments:
    """All regiments of one game state (`Board.regiments`)."""

    board: Board

    @cached_property
    def by_name(self) -> dict[str, Regiment]:
        b = self.board
        members: dict[tuple[str, str], list[str]] = {}
        for i in b.troops():
            p = b.pieces[i]
            members.setdefault((p.side, p.regiment), []).append(i)
        names: dict[str, int] = {}
        for _, name in members:
            names[name] = names.get(name, 0) + 1
        links = self._links()
        out: dict[str, Regiment] = {}
        for (side, name), ids in sorted(members.items()):
            reg_key = name if names[name] == 1 else f"{side}:{name}"
            groups = sorted((tuple(sorted(g)) for g in components(ids, links.get((side, name), []))),
                            key=lambda g: (-len(g), g))   # largest first
            largest = len(groups[0])
            isolated = () if sum(1 for g in groups if len(g) == largest) > 1 else \
                tuple(sorted(m for g in groups[1:] for m in g))
            classes = [b.pieces[m].klass for m in ids if b.pieces[m].klass is not None]
            arms = sorted({b.pieces[m].arm for m in ids})
            out[reg_key] = Regiment(reg_key, side, arms[0] if len(arms) == 1 else "mixed",
                                    tuple(ids), tuple(groups), isolated,
                                    min(classes) if classes else None)
        return out

    def _links(self) -> dict[tuple[str, str], list[tuple[str, str]]]:
        """(side, regiment) -> pairs of its bases touching edge to edge (F17)."""
        b, p = self.board, self.board.pieces
        tol = b.mm(b.settings.f17_cohesion_tolerance_cm)
        pairs = [(x, y) for x, y in b.pairs_within(tol) if p[x].is_troop and p[y].is_troop
                 and (p[x].side, p[x].regiment) == (p[y].side, p[y].regiment)]
        out: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for (x, y), linked in zip(pairs, b.edge_to_edge(pairs, tol)):
            if linked:
                out.setdefault((p[x].side, p[x].regiment), []).append((x, y))
        return out

    @cached_property
    def of_base(self) -> dict[str, str]:
        return {m: r.name for r in self.by_name.values() for m in r.bases}

    def regiment(self, base_id: str) -> Regiment:
        return self.by_name[self.of_base[base_id]]

    def mates(self, base_id: str) -> tuple[str, ...]:
        return self.regiment(base_id).bases

    def group_of(self, base_id: str) -> tuple[str, ...]:
        return next(g for g in self.regiment(base_id).groups if base_id in g)

    @cached_property
    def isolated(self) -> list[str]:
        return sorted(m for r in self.by_name.values() for m in r.isolated)

    def problems(self) -> list[tuple[str, str, tuple[str, ...]]]:
        """(key, message, bases): regiments mixing arms or classes (F12: one class per unit)."""
        out = []
        for r in self.by_name.values():
            if r.arm == "mixed":
                out.append((f"regiments({r.name})", f"regiment {r.name} mixes arms "
                            "(infantry, cavalry, artillery)", r.bases))
            classes = {self.board.pieces[m].klass for m in r.bases}
            if len(classes) > 1:
                out.append((f"regiments({r.name})", f"bases of regiment {r.name} disagree on "
                            f"class ({', '.join(map(str, sorted(classes)))}); the lowest, "
                            f"{r.klass}, is used (Federico F12)", r.bases))
        return out

    def extent_mm(self) -> float:
        """The widest regiment's extent (its bases' bounding box diagonal, mm): how far a change
        to one base can reach another's isolation."""
        b = self.board
        widest = 0.0
        for r in self.by_name.values():
            if len(r.bases) > 1:
                corners = b.quads[[b.pos[m] for m in r.bases]].reshape(-1, 2)
                lo, hi = corners.min(axis=0), corners.max(axis=0)
                widest = max(widest, float(((hi - lo) ** 2).sum() ** 0.5))
        return widest
