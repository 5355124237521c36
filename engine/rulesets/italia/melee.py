"""The melee modifiers the board makes applicable (ISD §9), worked out per base in contact.

For each unit or gun touching enemy bases, the geometry and the traits give the ``MeleeFacts``
of its side: the principal enemy, friends in contact and in support, the aspect struck (ISD §1,
A2, A3, A31), cover, obstacles, protection (A35), slope, marsh or wood, hidden units (A34) and
generals joined (note 1, A36). ``modifiers_melee.melee_modifiers`` turns them into the umpire's
list. What the table cannot show (who attacked, which round, a pursuit, how far cavalry moved)
takes the neutral reading and is listed under ``assumed``. For each legal charge the charger's
side is worked out as if the charge went in (``charge_melee``: attacker, first round).

Readings not in the digest (docs/rulesets/italia-se-desta.md section 10):

* principal enemy: the enemy touching this base's front edge along the longest segment; if none
  touches its front, the enemy whose own front touches it (it is being attacked); then any enemy
  in contact; ties by id. Limbers and limbered guns do not fight (ISD §9: they flee or are
  captured), so they are never the principal enemy and get no entry;
* a base strikes the enemy's flank only when its own front edge is the edge in contact;
* friends "in contact" are those touching the principal enemy; "supports" are friends supporting
  (ISD §1) this base or those friends, in contact with no enemy, plus batteries supporting by fire.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple

import numpy as np

from campo.engine.geometry.poses import Poses, xy
from campo.engine.results import Aspect
from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.charges import Charge, aspects_struck, flank_cover, hidden_from
from campo.engine.rulesets.italia.fire import MUSKETRY_COVER
from campo.engine.rulesets.italia.modifier import Modifier, score_total
from campo.engine.rulesets.italia.modifiers_melee import (MeleeFacts, MeleeUnit, counted_supports,
                                                          melee_modifiers)
from campo.engine.rulesets.italia.relations import guns_seeing, supports
from campo.engine.rulesets.italia.tables_melee import LINEAR_OBSTACLES, SOFT_GROUND
from campo.engine.rulesets.italia.troops import MANOEUVRE_VALUE, GeneralQuality
from campo.errors import CampoInputError

QUALITIES = ("veteran", "regular", "green")
CAVALRY_CLASSES = ("heavy", "line", "light")
_GENERAL_QUALITIES = {q.value for q in GeneralQuality}
_MODIFIER_FIELDS = tuple(f.name for f in fields(Modifier))


@dataclass(eq=False)
class MeleeBook:
    """What the melees of one board share, each worked out once: the units' grades, the
    terrain holding and under each base, joined generals, modifier lists."""

    board: Board
    _units: dict[str, tuple[MeleeUnit, list[str]]] = field(default_factory=dict)
    _places: dict[str, tuple[str, list[Any], bool]] = field(default_factory=dict)
    _generals: dict[tuple[str, ...], str | None] = field(default_factory=dict)
    _modifiers: dict[MeleeFacts, tuple[list[dict[str, Any]], int]] = field(default_factory=dict)
    _entries: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    _sides: dict[str, _ChargingSide] = field(default_factory=dict)

    def unit(self, base_id: str, assumed: list[str]) -> MeleeUnit:
        """A base's grade, class and state (traits); a missing grade reads as regular (listed
        in ``assumed``). One object per base: `counted_supports` picks supports by identity."""
        found = self._units.get(base_id)
        if found is None:
            notes: list[str] = []
            found = self._units[base_id] = (_melee_unit(self.board, base_id, notes), notes)
        assumed.extend(found[1])
        return found[0]

    def places(self, ids: Sequence[str]) -> list[tuple[str, list[Any], bool]]:
        """(protection class of the area terrain wholly holding it, the area features under
        its centre, whether marsh, rice or wood holds it wholly) of each base as it stands."""
        missing = [i for i in dict.fromkeys(ids) if i not in self._places]
        if missing:
            poses = self.board.poses.take(self.board.positions(missing))
            self._places.update(zip(missing, _places(self.board, poses)))
        return [self._places[i] for i in ids]

    def joined_general(self, units: Sequence[str]) -> str | None:
        """ISD §9 note (1): a general of the side joined to one of ``units``
        (``traits.attached_to``, or its base in contact with the unit's); Division generals
        before Corps/Army (those give nothing, ISD §8), then by quality, then id."""
        k = tuple(units)
        if k not in self._generals:
            self._generals[k] = _joined_general(self.board, units)
        return self._generals[k]

    def modifiers(self, facts: MeleeFacts) -> tuple[list[dict[str, Any]], int]:
        """`melee_modifiers` under the board's settings as output rows, and their total (each
        caller gets its own copies of the rows)."""
        found = self._modifiers.get(facts)
        if found is None:
            mods = melee_modifiers(facts, self.board.settings)
            found = self._modifiers[facts] = ([{name: getattr(m, name) for name in _MODIFIER_FIELDS}
                                               for m in mods], score_total(mods))
        rows, total = found
        return [dict(row) for row in rows], total

    def entries(self, ids: Sequence[str]) -> dict[str, dict[str, Any] | None]:
        missing = [i for i in dict.fromkeys(ids) if i not in self._entries]
        if missing:
            self._entries.update(_melees(self.board, missing))
        return {i: self._entries[i] for i in ids}


def _melee_unit(board: Board, base_id: str, assumed: list[str]) -> MeleeUnit:
    info = board.infos[base_id]
    base = board.state.base(base_id)
    quality = info.quality
    if quality not in QUALITIES:
        assumed.append(f"quality of {base_id} not given: regular")
        quality = "regular"
    cavalry = base.traits.get("cavalry") if info.arm == "cavalry" else None
    return MeleeUnit(unit_type=base.type, arm=info.arm, quality=quality,
                     cavalry_class=cavalry if cavalry in CAVALRY_CLASSES else None,
                     shaken=info.shaken, march_column=info.march_column, rockets=info.rockets)


def _places(board: Board, poses: Poses) -> list[tuple[str, list[Any], bool]]:
    """`MeleeBook.places` of rectangles (ISD §9, A35). Soft ground for cavalry's -2 is ground
    holding the whole base, as every combat effect of area terrain (ISD §8: «gli effetti sul
    combattimento sono applicabili solo quando l'intera Unità è all'interno del terreno»)."""
    table = board.terrain_table
    holding = table.holding(poses.polygons, board.contact_tol)
    under = table.at_points(xy(poses.cx, poses.cy))
    return [(_protection(h), u, any(t.kind in SOFT_GROUND for t in h))
            for h, u in zip(holding, under)]


def _protection(features: list[Any]) -> str:
    """ISD §9, A35: the best cover class (musketry classes; a terrain's ``cover`` overrides)
    of the area terrain wholly holding a base."""
    rank = {"none": 0, "soft": 1, "hard": 2}
    classes = [t.cover if t.cover is not None else MUSKETRY_COVER.get(t.kind, "none")
               for t in features]
    return max(classes, key=rank.__getitem__, default="none")


def fights(board: Board, base_id: str) -> bool:
    """Infantry, cavalry and guns in battery fight a melee; limbers and limbered guns do not,
    nor a dispersed unit or an eliminated gun (ISD §4)."""
    info = board.infos[base_id]
    return (info.is_unit or (info.is_gun and not info.limbered)) and not info.dispersed


def enemies_in_contact(board: Board, base_id: str) -> list[str]:
    """The enemies touching this base that fight, sorted."""
    return [o for o in board.relations.foes[base_id] if fights(board, o)]


def principal_enemy(board: Board, base_id: str) -> str | None:
    """The enemy this base fights (module docstring): its front's enemy, else its attacker."""
    foes = enemies_in_contact(board, base_id)
    if not foes:
        return None

    def rank(o: str) -> tuple[int, float, str]:
        if board.edge_touched(base_id, o) == "front":
            return 0, -board.shared_lengths(base_id, o)["front"], o
        if board.edge_touched(o, base_id) == "front":
            return 1, -board.shared_lengths(o, base_id)["front"], o
        return 2, -max(board.shared_lengths(base_id, o).values()), o

    return min(foes, key=rank)


def aspect_struck(board: Board, attacker: str, target: str) -> str | None:
    """The aspect of ``target`` that ``attacker``'s front strikes ("front", "flank", "rear"), or
    None when the attacker's front is not the edge in contact: the test of a charge's contact
    pose (`charges.aspects_struck`) on the bases as they stand."""
    if board.edge_touched(attacker, target) != "front":
        return None
    k = board.contact_row(target, attacker)
    at = board.positions([attacker, target])
    aspect, *_ = aspects_struck(board, board.poses.take(at[:1]), board.poses.take(at[1:]),
                                board.state.index.shapes[at[1:]], board.contact_tol,
                                board.contacts.edge[[k]])
    return aspect[0].value


def _joined_general(board: Board, units: Sequence[str]) -> str | None:
    generals = board.generals & (board.sides == board.sides[board.pos[units[0]]])
    found = {g for u in units for g in board.near(u, board.contact_tol, generals)}
    found |= {g for g in (board.order[k] for k in np.nonzero(generals)[0].tolist())
              if board.infos[g].attached_to in units}
    if not found:
        return None

    def rank(g: str) -> tuple[bool, int, str]:
        gi = board.infos[g]
        value = MANOEUVRE_VALUE[GeneralQuality(gi.quality)] if gi.quality in _GENERAL_QUALITIES \
            else 1
        return gi.rank in ("corps", "army"), -value, g

    return min(found, key=rank)


def _general_facts(board: Board, general: str | None,
                   assumed: list[str]) -> tuple[str | None, str | None]:
    """(quality, rank) of the joined general for MeleeFacts; a missing quality reads as
    mediocre (+1 either way under A36's default), listed as assumed."""
    if general is None:
        return None, None
    gi = board.infos[general]
    quality = gi.quality
    if quality not in _GENERAL_QUALITIES:
        assumed.append(f"quality of general {general} not given: mediocre")
        quality = "mediocre"
    return quality, gi.rank


def _slope(board: Board, under_centre: list[Any], enemy: str, assumed: list[str]) -> str:
    """ISD §9: uphill of the enemy by hill level (``under_centre``: the area terrain under this
    base's centre); gentle or steep from the hill's ``slope`` (not given: gentle, assumed)."""
    hills = [t for t in under_centre if t.kind == "hill"]
    level = max((t.level for t in hills), default=0)
    # no base stands below the lowest hill or the table: the enemy's (costly) level, if above
    lowest = min((t.level for t in board.area_features if t.kind == "hill"), default=0)
    if level <= min(lowest, 0) or level <= board.level(enemy):
        return "none"
    top = [t for t in hills if t.level == level]
    if any(t.slope == "steep" for t in top):
        return "steep"
    if not any(t.slope == "gentle" for t in top):
        assumed.append(f"slope of {', '.join(sorted(t.id for t in top))} not given: gentle")
    return "gentle"


def _defends_obstacle(board: Board, base_id: str, enemy: str) -> str | None:
    """ISD §9: the id of a linear obstacle its whole front lies along (within 0.5", as cover,
    ISD §7) with the enemy at its front, so the obstacle is between them; else None."""
    if board.edge_touched(base_id, enemy) != "front":
        return None
    front = board.poses.take(board.positions([base_id])).front_lines
    along = board.terrain_table.lines_along(front, board.mm(0.5), LINEAR_OBSTACLES)[0]
    return next((t.id for t in along if t.cover != "none"), None)


def side_facts(board: Board, me: str, enemy: str) -> tuple[MeleeFacts, dict[str, Any], list[str]]:
    """(MeleeFacts of ``me``'s side against ``enemy``, the ids and geometry behind them for the
    output, the assumptions made). Situation facts take the neutral reading."""
    book = board.melee_book
    assumed = ["attacker=false: who moved to attack is not on the table (no +1 attack bonus)",
               "first_round=true", "pursuit=false"]
    info = board.infos[me]
    side = info.side
    others = [o for o in board.touching[enemy]
              if o != me and board.infos[o].side == side and fights(board, o)]
    in_melee = [me, *others]
    support_ids: set[str] = set()
    for u in in_melee:
        for s in board.touching[u]:
            if s in in_melee or s in support_ids or not supports(board, s, u):
                continue
            if board.relations.foes[s]:
                continue   # fighting its own enemy: not a support here
            support_ids.add(s)
        support_ids.update(g for g in board.relations.fire_supporters(u) if g not in in_melee)
    unit = book.unit(me, assumed)
    enemy_unit = book.unit(enemy, [])
    other_units = [book.unit(o, assumed) for o in others]
    supp_ids = sorted(support_ids)
    supp_units = [book.unit(s, assumed) for s in supp_ids]
    general = book.joined_general([*in_melee, *supp_ids])
    g_quality, g_rank = _general_facts(board, general, assumed)
    aspect = aspect_struck(board, me, enemy)
    cover = flank_cover(board, [enemy])[0]
    protection, here, soft = book.places([me])[0]
    hidden = hidden_from(board, [me, enemy], [enemy, me])
    if info.arm == "cavalry" and board.infos[enemy].arm == "infantry":
        assumed.append("moved_half_or_less=false: how far the cavalry moved is not on the table")
    if info.arm == "cavalry" and board.infos[enemy].arm == "cavalry" and \
            None in (unit.cavalry_class, enemy_unit.cavalry_class):
        assumed.append("cavalry class not given (traits.cavalry): no class bonus")
    obstacle = _defends_obstacle(board, me, enemy)
    facts = MeleeFacts(
        unit=unit, enemy=enemy_unit, other_in_contact=tuple(other_units), supports=tuple(supp_units),
        flank_attack=aspect == "flank" or (aspect == "rear" and board.settings.a3_rear_counts_as_flank),
        enemy_in_cover=cover is not None,
        defending_linear_obstacle=obstacle is not None,
        area_protection=protection,  # type: ignore[arg-type]
        general_quality=g_quality, general_rank=g_rank,
        slope=_slope(board, here, enemy, assumed),  # type: ignore[arg-type]
        in_marsh_or_wood=soft,
        enemy_hidden=hidden[0] or "none",  # type: ignore[arg-type]
        self_hidden=hidden[1] or "none",  # type: ignore[arg-type]
    )
    counted = counted_supports(unit, supp_units, snow=board.settings.weather == "snow")
    counted_ids = [s for s, u in zip(supp_ids, supp_units)
                   if (u.resolved_arm == "artillery" and not u.rockets) or any(u is c for c in counted)]
    if obstacle is not None:
        assumed.append(f"defending_linear_obstacle=true: its front lies along {obstacle} "
                       "(the side that crossed it to attack does not count it)")
    shown = {"in_contact": others, "supports": counted_ids, "general": general, "strikes": aspect,
             "enemy_cover": cover}
    return facts, shown, assumed


def _entry(facts: MeleeFacts, board: Board, shown: dict[str, Any], assumed: list[str]) -> dict[str, Any]:
    rows, total = board.melee_book.modifiers(facts)
    return {
        "modifiers": rows,
        "total": total,
        "assumed": assumed,
        "facts": {
            **shown,
            "flank_attack": facts.flank_attack, "enemy_in_cover": facts.enemy_in_cover,
            "defending_linear_obstacle": facts.defending_linear_obstacle,
            "area_protection": facts.area_protection, "slope": facts.slope,
            "in_marsh_or_wood": facts.in_marsh_or_wood, "enemy_hidden": facts.enemy_hidden,
            "self_hidden": facts.self_hidden,
        },
    }


def side_entry(board: Board, me: str, enemy: str) -> dict[str, Any]:
    """``me``'s side of its melee with ``enemy``: its modifiers, their total and what was
    assumed (the shape of `melee_of`'s entry; the fire and melee resolution reads it)."""
    facts, shown, assumed = side_facts(board, me, enemy)
    return _entry(facts, board, shown, assumed)


def melee_of(board: Board, base_id: str) -> dict[str, Any] | None:
    """The melee this base is in, as its side's modifiers against its principal enemy:
    ``{"against", "modifiers", "total", "assumed", "facts"}``, and under ``"charges"`` its
    modifiers if each legal charge goes in (docs/rulesets/italia-se-desta.md 7.1); None when it
    is in no melee and has no legal charge."""
    return board.melee_book.entries([base_id])[base_id]


def _melees(board: Board, ids: list[str]) -> dict[str, dict[str, Any] | None]:
    """`melee_of` of several bases, their legal charges' places measured in one batch."""
    fighters = [i for i in ids if fights(board, i)]
    charges = board.charge_book.charges_of(fighters)
    legal = [c for i in fighters for c in charges[i] if c.legal]
    places = _charge_places(board, legal)
    out: dict[str, dict[str, Any] | None] = {i: None for i in ids}
    for i in fighters:
        entry: dict[str, Any] = {}
        enemy = principal_enemy(board, i)
        if enemy is not None:
            try:
                facts, shown, assumed = side_facts(board, i, enemy)
                entry = {"against": enemy, **_entry(facts, board, shown, assumed)}
            except CampoInputError as err:   # a type/arm pair the combat-factor table lacks
                entry = {"against": enemy, "error": str(err)}
        found = {}
        for c in charges[i]:
            if c.legal:
                try:
                    found[c.target] = charge_melee(board, c, places[id(c)])
                except CampoInputError as err:
                    found[c.target] = {"error": str(err)}
        if found:
            entry["charges"] = found
        out[i] = entry or None
    return out


def _charge_places(board: Board, charges: list[Charge]) -> dict[int, tuple[str, list[Any], bool]]:
    """`MeleeBook.places` of each charge's charger at its contact pose, in one batch."""
    if not charges:
        return {}
    at = board.positions([c.charger for c in charges])
    poses = Poses(np.array([c.final_pose["x_mm"] for c in charges]),
                  np.array([c.final_pose["y_mm"] for c in charges]),
                  np.array([c.final_pose["heading_deg"] for c in charges]), board.poses.width[at],
                  board.poses.depth[at])
    return {id(c): place for c, place in zip(charges, _places(board, poses))}


def charge_melee(board: Board, charge: Charge, place: tuple[str, list[Any], bool]
                 ) -> dict[str, Any]:
    """The charger's side if this legal charge goes in (attacker, first round): its facts at the
    contact pose (flank attack, half move and hidden from the charge verdict; protection, slope
    and soft ground where it stops: ``place``, `_charge_places`), its supports and general as
    they stand now."""
    me, enemy = charge.charger, charge.target
    book = board.melee_book
    assumed = ["supports and general as they stand (moving with it as a Group)",
               "only the charger contacts the target", "first_round=true", "pursuit=false"]
    protection, here, soft = place
    own = _charging_side(board, me)
    assumed.extend(own.notes)
    near = board.relations.batteries_near(enemy, board.infos[me].side)
    guns = sorted(guns_seeing(board, near, enemy))
    supp_units = [*own.supports, *(book.unit(g, assumed) for g in guns)]
    assumed.extend(own.general_notes)
    facts = MeleeFacts(
        unit=own.unit, enemy=book.unit(enemy, []), supports=tuple(supp_units),
        attacker=True, flank_attack=charge.flank_attack,
        enemy_in_cover=flank_cover(board, [enemy])[0] is not None,
        area_protection=protection,  # type: ignore[arg-type]
        general_quality=own.general_quality, general_rank=own.general_rank,
        slope=_slope(board, here, enemy, assumed),  # type: ignore[arg-type]
        in_marsh_or_wood=soft,
        moved_half_or_less=charge.within_half_move,
        enemy_hidden=charge.hidden or "none",  # type: ignore[arg-type]
        self_hidden=hidden_from(board, [enemy], [me])[0] or "none",  # type: ignore[arg-type]
    )
    shown = {"supports": own.counted_ids + guns, "general": own.general,
             "moved_half_or_less": charge.within_half_move}
    entry = _entry(facts, board, shown, assumed)
    entry["facts"].pop("defending_linear_obstacle")
    # ISD §1: attacked in march column it fights as shaken, «qualora fosse già in questo stato
    # si disperde automaticamente»
    target = board.infos[enemy]
    entry["facts"]["enemy_disperses_at_once"] = target.march_column and target.shaken
    return entry


class _ChargingSide(NamedTuple):
    """What `charge_melee` reads of the charger's side as it stands, whichever the target:
    the charger, its supports' units, the ids of the supports that count, the joined general,
    and the assumptions each of those added (in the order `charge_melee` lists them)."""

    unit: MeleeUnit
    supports: list[MeleeUnit]
    counted_ids: list[str]
    general: str | None
    general_quality: str | None
    general_rank: str | None
    notes: list[str]
    general_notes: list[str]


def _charging_side(board: Board, me: str) -> _ChargingSide:
    """The `_ChargingSide` of charger ``me`` (once per charger: each legal charge asks)."""
    book = board.melee_book
    if me in book._sides:
        return book._sides[me]
    notes: list[str] = []
    unit = book.unit(me, notes)
    support_ids = sorted(s for s in board.touching[me] if supports(board, s, me)
                         and board.infos[s].is_unit and not board.relations.foes[s])
    supp_units = [book.unit(s, notes) for s in support_ids]
    general = book.joined_general([me, *support_ids])
    general_notes: list[str] = []
    g_quality, g_rank = _general_facts(board, general, general_notes)
    counted = counted_supports(unit, supp_units, snow=board.settings.weather == "snow")
    counted_ids = [s for s, u in zip(support_ids, supp_units) if any(u is c for c in counted)]
    found = book._sides[me] = _ChargingSide(unit, supp_units, counted_ids, general, g_quality,
                                            g_rank, notes, general_notes)
    return found


def battery_shots(board: Board, ids: Sequence[str]) -> list[tuple[str, str]]:
    """The (gun, target) shots `charge_melee` asks about for the legal charges of ``ids``
    (`relations.guns_seeing`), for the fire rules to measure with the bases' own shots."""
    fighters = [i for i in ids if fights(board, i)]
    return [(g, c.target) for found in board.charge_book.charges_of(fighters).values()
            for c in found if c.legal
            for g in board.relations.batteries_near(c.target, board.infos[c.charger].side)]


__all__ = ["Aspect", "aspect_struck", "charge_melee", "melee_of", "principal_enemy", "side_facts"]
