"""Contacts, support and commanders (Federico "Mischie", "Comandanti"; F1, F20, F27), for the
whole table at once from the board's pairs (`Board.near`, `Board.contact`): cheap facts the
board summary and every base's entry read.

- Contacts: enemy troop bases touching this one, with the aspect of THIS base they touch (F1: the
  edge with the longest shared segment, ties to the front).
- Support: «le basette amiche che non sono impegnate in mischia e che sono adiacenti di lato o
  sul retro dell'unità che vogliono supportare» — friendly bases of another regiment, not in
  melee, touching this base's side or rear edge along a segment (F20).
- Commanders: attached when touching a friendly troop base (F27); lost when not attached and
  within ``f27_commander_adjacent_cm`` of an enemy base.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from campo.engine.geometry.contact import edge_aspect

if TYPE_CHECKING:
    from campo.engine.rulesets.federico.board import Board

COMMANDERS = 'Federico "Comandanti"'


@dataclass(eq=False)
class Relations:
    """Who touches, supports and commands whom on one board (`Board.relations`)."""

    board: Board

    def contacts_of(self, base_id: str) -> list[dict[str, Any]]:
        """Enemy bases touching this one, with the aspect of this base they touch."""
        b = self.board
        if b.pieces[base_id].is_commander:
            return []
        regs = b.regiments
        out = []
        for other in b.touching[base_id]:
            if not b.is_enemy(base_id, other):
                continue
            edge = b.edges[(base_id, other)]
            entry = {"id": other, "aspect": edge_aspect(edge), "edge": edge,
                     "regiment": regs.of_base[other]}
            if b.contact[min(base_id, other), max(base_id, other)]:
                entry["close_calls"] = ["contact"]
            out.append(entry)
        return out

    @cached_property
    def adjacent_friends(self) -> dict[str, list[str]]:
        """Troop base -> the friendly bases, of any regiment, not in melee, touching its side
        or rear edge along a segment: «le basette amiche che non sono impegnate in mischia e
        che sono adiacenti di lato o sul retro» count in melee numbers (F20). A regiment's own
        base beside an engaged one counts too: it is a friendly base not engaged."""
        b = self.board
        melee = {i for i in b.troops() if b.in_melee(i)}
        out: dict[str, list[str]] = {i: [] for i in b.order}
        for x, found in b.touching.items():
            out[x] = [s for s in found if not b.is_enemy(x, s) and s not in melee
                      and b.edges[(x, s)] in ("left", "right", "rear")
                      and (x, s) in b.segment_contacts]
        return out

    @cached_property
    def supporters(self) -> dict[str, list[str]]:
        """Troop base -> the `adjacent_friends` of other regiments (``supported_by``: a
        regiment's own bases are part of the unit, not its supports)."""
        of = self.board.regiments.of_base
        return {x: [s for s in found if of[s] != of[x]]
                for x, found in self.adjacent_friends.items()}

    @cached_property
    def attached(self) -> dict[str, list[str]]:
        """Every base -> the friendly bases it is attached to or that are attached to it: a
        troop base's commanders, a commander's troop bases (F27 «aggregato»)."""
        p = self.board.pieces
        return self.board.both_ways((x, y) for x, y in self.board.contact
                                    if p[x].side == p[y].side
                                    and p[x].is_commander != p[y].is_commander)

    @cached_property
    def regiment_commanders(self) -> dict[str, list[str]]:
        """Regiment name -> the commanders attached to any of its bases."""
        b = self.board
        return {name: sorted({c for m in r.bases for c in self.attached[m]})
                for name, r in b.regiments.by_name.items()}

    @cached_property
    def within_command(self) -> dict[str, list[str]]:
        """Troop base -> friendly commanders within ``command_radius_cm`` (0: none), and
        commander -> the troop bases within it."""
        b, p = self.board, self.board.pieces
        radius = b.mm(b.settings.command_radius_cm)
        return b.both_ways((x, y) for x, y in (b.pairs_within(radius) if radius > 0 else ())
                           if p[x].side == p[y].side and p[x].is_commander != p[y].is_commander)

    def commanded_by(self, base_id: str) -> list[str]:
        """Attached commanders of the regiment, plus those within ``command_radius_cm`` (a gap
        setting, 0 by default: the text gives no radius)."""
        b = self.board
        if b.pieces[base_id].is_commander:
            return []
        return sorted(set(self.regiment_commanders[b.regiments.of_base[base_id]])
                      | set(self.within_command[base_id]))

    @cached_property
    def enemies_adjacent(self) -> dict[str, list[str]]:
        """Commander -> enemy troop bases within ``f27_commander_adjacent_cm`` (at least the
        contact tolerance), and troop base -> such enemy commanders."""
        b, p = self.board, self.board.pieces
        reach = max(b.contact_tol, b.mm(b.settings.f27_commander_adjacent_cm))
        return b.both_ways((x, y) for x, y in b.pairs_within(reach)
                           if p[x].side != p[y].side and p[x].is_commander != p[y].is_commander)

    def commander_status(self, cid: str) -> dict[str, Any]:
        """Attached to which bases; lost when isolated and adjacent to the enemy (F27)."""
        c = self.board.pieces[cid]
        attached = self.attached[cid]
        enemies = self.enemies_adjacent[cid]
        out: dict[str, Any] = {"rank": c.rank, "ability": c.ability, "attached_to": attached,
                               "lost": bool(enemies) and not attached}
        if out["lost"]:
            out["reasons"] = [f"isolated and adjacent to {', '.join(enemies)} "
                              f"({COMMANDERS}; Federico F27)"]
        return out
