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

from dataclasses import dataclass, fields
from typing import Any, NamedTuple

from campo.engine.geometry.rect import Rect
from campo.engine.rulesets.italia.board import Board
from campo.engine.rulesets.italia.charge_fast import within_of
from campo.engine.rulesets.italia.charge_terrain import area_terrain_holding, terrain_at_point
from campo.engine.rulesets.italia.charges import (
    Charge,
    aspect_from_pose,
    candidates,
    flank_cover_of,
    hidden_from,
    judge_charge,
)
from campo.engine.rulesets.italia.fire import fire_arc, line_of_sight, measure_target
from campo.engine.rulesets.italia.fire import MUSKETRY_COVER, cover_terrain_of
from campo.engine.rulesets.italia.modifier import Modifier, score_total
from campo.engine.rulesets.italia.modifiers_melee import (MeleeFacts, MeleeUnit, counted_supports,
                                                    melee_modifiers)
from campo.engine.rulesets.italia.relations import ARTILLERY_SUPPORT_RANGE_IN, artillery_fire_support, supports
from campo.engine.rulesets.italia.relations_batch import contacts
from campo.engine.rulesets.italia.troops import GeneralQuality, MANOEUVRE_VALUE
from campo.errors import CampoInputError

LINEAR_OBSTACLES = frozenset({"hedge", "wall", "stone_wall", "low_wall", "parapet",
                              "fortification_line"})
"""Linear terrain a unit may defend (ISD §9 «Truppe che difendono ostacoli lineari»); the kinds
that deny a flank attack in charges.py."""

SOFT_GROUND = frozenset({"marsh", "rice", "wood"})
"""ISD §9 «Cavalleria su terreno molle (paludi o risaie) o in boschi» (−2), read at the base's
centre."""

QUALITIES = ("veteran", "regular", "green")
CAVALRY_CLASSES = ("heavy", "line", "light")


@dataclass(frozen=True)
class _Probe:
    """The few fields of a fire target that `artillery_fire_support` reads."""

    id: str
    in_arc: bool
    line_of_sight: bool
    distance: float


def fights(board: Board, base_id: str) -> bool:
    """Infantry, cavalry and guns in battery fight a melee; limbers and limbered guns do not."""
    info = board.infos[base_id]
    return info.is_unit or (info.is_gun and not info.limbered)


def enemies_in_contact(board: Board, base_id: str) -> list[str]:
    """The enemies touching this base that fight, sorted (on the fast path from every base's
    foes found at once: most bases have none)."""
    if board.state.use_index:
        foes = contacts(board).foes[base_id]
        return sorted(o for o in foes if fights(board, o)) if foes else []
    return sorted(o for o in board.touching[base_id]
                  if board.is_enemy(base_id, o) and fights(board, o))


def principal_enemy(board: Board, base_id: str) -> str | None:
    """The enemy this base fights (module docstring): its front's enemy, else its attacker."""
    foes = enemies_in_contact(board, base_id)
    if not foes:
        return None

    def key(o: str) -> tuple[int, float, str]:
        if board.edge_touched(base_id, o) == "front":
            return 0, -board.shared_lengths(base_id, o)["front"], o
        if board.edge_touched(o, base_id) == "front":
            return 1, -board.shared_lengths(o, base_id)["front"], o
        return 2, -max(board.shared_lengths(base_id, o).values()), o

    return min(foes, key=key)


def aspect_struck(board: Board, attacker: str, target: str) -> str | None:
    """The aspect of ``target`` that ``attacker``'s front strikes ("front", "flank", "rear"), or
    None when the attacker's front is not the edge in contact. ISD §1 flank attack (A2, A31), the
    same test as a charge's contact pose (charges.py), on the bases as they stand; the rear is
    a flank attack by ISD A3."""
    if board.edge_touched(attacker, target) != "front":
        return None
    edge = board.edge_touched(target, attacker)
    return aspect_from_pose(board, board.rect(attacker), board.rect(target), edge,
                            board.shared_lengths(target, attacker)[edge], board.contact_tol).value


def melee_unit(board: Board, base_id: str, assumed: list[str]) -> MeleeUnit:
    """A base's grade, class and state (traits); a missing grade reads as regular (assumed).
    Cached per base (one object per base: `counted_supports` picks supports by identity)."""
    cache = board.__dict__.setdefault("_melee_units", {})
    found = cache.get(base_id)
    if found is None:
        notes: list[str] = []
        found = cache[base_id] = (_melee_unit(board, base_id, notes), notes)
    assumed.extend(found[1])
    return found[0]


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


def _probe(board: Board, gun: str, foe: str) -> _Probe:
    """Arc, distance and sight from a gun to one enemy, as bombardment measures them (cached:
    a battery near a melee is asked about by every unit in it)."""
    cache = board.__dict__.setdefault("_melee_probes", {})
    found = cache.get((gun, foe))
    if found is None:
        in_arc, dist, part = measure_target(board, gun, foe, fire_arc(board, gun))
        found = cache[(gun, foe)] = _Probe(foe, in_arc,
                                           in_arc and line_of_sight(board, gun, foe, part), dist)
    return found


def fire_supporters(board: Board, supported: str) -> list[str]:
    """Batteries supporting ``supported`` by fire (ISD §1 first case): the enemy in melee with it
    in arc, in sight, at 3" or less and not in contact — measured for these pairs only."""
    foes = [o for o in board.touching[supported] if board.is_enemy(supported, o)]
    side = board.infos[supported].side
    reach = board.mm(ARTILLERY_SUPPORT_RANGE_IN) + 1e-6
    out: set[str] = set()
    for foe in foes:
        for gun in board.state.index.within(board.rect(foe).polygon, reach):
            g = board.infos[gun]
            if gun == supported or not g.is_gun or g.side != side or g.limbered or g.rockets \
                    or g.stale or board.infos[foe].stale:
                continue
            if artillery_fire_support(board, gun, supported, [_probe(board, gun, foe)]):
                out.add(gun)
    return sorted(out)


def joined_general(board: Board, units: list[str]) -> str | None:
    """A general of the side joined to one of ``units`` (``traits.attached_to``, or its base in
    contact with the unit's), ISD §9 note (1); the best one when several: Division generals
    before Corps/Army (those give nothing, ISD §8), then by quality, then id. Cached per list
    of units (each charge by one charger asks again)."""
    cache = board.__dict__.setdefault("_joined_generals", {})
    key = tuple(units)
    if key not in cache:
        cache[key] = _joined_general(board, units)
    return cache[key]


def _joined_general(board: Board, units: list[str]) -> str | None:
    side = board.infos[units[0]].side
    found: set[str] = set()
    for u in units:
        for g in board.near(u, board.contact_tol):
            gi = board.infos[g]
            if gi.is_general and gi.side == side:
                found.add(g)
    generals = board.__dict__.get("_generals")
    if generals is None:   # every general, in board order (cached)
        generals = board.__dict__["_generals"] = [(g, gi) for g, gi in board.infos.items()
                                                  if gi.is_general]
    found |= {g for g, gi in generals if gi.side == side and gi.attached_to in units}
    if not found:
        return None

    def key(g: str) -> tuple[bool, int, str]:
        gi = board.infos[g]
        value = MANOEUVRE_VALUE[GeneralQuality(gi.quality)] if gi.quality in _GENERAL_QUALITIES else 1
        return gi.rank in ("corps", "army"), -value, g

    return min(found, key=key)


_GENERAL_QUALITIES = {q.value for q in GeneralQuality}


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
    """ISD §9: uphill of the enemy by hill level (``under_centre``: the area terrain covering
    this base's centre); gentle or steep from the hill's ``slope`` (not given: gentle, assumed)."""
    hills = [t for t in under_centre if t.kind == "hill"]
    level = max((t.level for t in hills), default=0)
    if level <= board.level(enemy):
        return "none"
    top = [t for t in hills if t.level == level]
    if any(t.slope == "steep" for t in top):
        return "steep"
    if not any(t.slope == "gentle" for t in top):
        assumed.append(f"slope of {', '.join(sorted(t.id for t in top))} not given: gentle")
    return "gentle"


def _protection(features: list[Any]) -> str:
    """ISD §9, A35: the best cover class (musketry classes; a terrain's ``cover`` overrides)
    of the area terrain wholly holding a base."""
    rank = {"none": 0, "soft": 1, "hard": 2}
    classes = [t.cover if t.cover is not None else MUSKETRY_COVER.get(t.kind, "none") for t in features]
    return max(classes, key=rank.__getitem__, default="none")


def _defends_obstacle(board: Board, base_id: str, enemy: str) -> str | None:
    """ISD §9: the id of a linear obstacle its whole front lies along (within 0.5", as cover,
    ISD §7) with the enemy at its front, so the obstacle is between them; else None."""
    if board.edge_touched(base_id, enemy) != "front":
        return None
    return next((t.id for t, _ in cover_terrain_of(board, base_id)[1]
                 if t.kind in LINEAR_OBSTACLES and t.cover != "none"), None)


def side_facts(board: Board, me: str, enemy: str) -> tuple[MeleeFacts, dict[str, Any], list[str]]:
    """(MeleeFacts of ``me``'s side against ``enemy``, the ids and geometry behind them for the
    output, the assumptions made). Situation facts take the neutral reading."""
    assumed = ["attacker=false: who moved to attack is not on the table (no +1 attack bonus)",
               "first_round=true", "pursuit=false"]
    info = board.infos[me]
    side = info.side
    others = sorted(o for o in board.touching[enemy]
                    if o != me and board.infos[o].side == side and fights(board, o))
    in_melee = [me, *others]
    support_ids: set[str] = set()
    for u in in_melee:
        for s in board.touching[u]:
            if s in in_melee or s in support_ids or not supports(board, s, u):
                continue
            if any(board.is_enemy(s, o) for o in board.touching[s]):
                continue   # fighting its own enemy: not a support here
            support_ids.add(s)
        support_ids.update(g for g in fire_supporters(board, u) if g not in in_melee)
    unit = melee_unit(board, me, assumed)
    enemy_unit = melee_unit(board, enemy, [])
    other_units = [melee_unit(board, o, assumed) for o in others]
    supp_ids = sorted(support_ids)
    supp_units = [melee_unit(board, s, assumed) for s in supp_ids]
    general = joined_general(board, [*in_melee, *supp_ids])
    g_quality, g_rank = _general_facts(board, general, assumed)
    aspect = aspect_struck(board, me, enemy)
    cover = flank_cover_of(board, enemy)
    here = _centre_in(board, board.rect(me))
    inside = cover_terrain_of(board, me)[0]
    if info.arm == "cavalry" and board.infos[enemy].arm == "infantry":
        assumed.append("moved_half_or_less=false: how far the cavalry moved is not on the table")
    if info.arm == "cavalry" and board.infos[enemy].arm == "cavalry" and \
            None in (unit.cavalry_class, enemy_unit.cavalry_class):
        assumed.append("cavalry class not given (traits.cavalry): no class bonus")
    facts = MeleeFacts(
        unit=unit, enemy=enemy_unit, other_in_contact=tuple(other_units), supports=tuple(supp_units),
        flank_attack=aspect == "flank" or (aspect == "rear" and board.settings.a3_rear_counts_as_flank),
        enemy_in_cover=cover is not None,
        defending_linear_obstacle=(obstacle := _defends_obstacle(board, me, enemy)) is not None,
        area_protection=_protection([t for t, _ in inside]),  # type: ignore[arg-type]
        general_quality=g_quality, general_rank=g_rank,
        slope=_slope(board, here, enemy, assumed),  # type: ignore[arg-type]
        in_marsh_or_wood=any(t.kind in SOFT_GROUND for t in here),
        enemy_hidden=hidden_from(board, me, enemy) or "none",  # type: ignore[arg-type]
        self_hidden=hidden_from(board, enemy, me) or "none",  # type: ignore[arg-type]
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


_MODIFIER_FIELDS = tuple(f.name for f in fields(Modifier))
"""`Modifier.to_dict` without `dataclasses.asdict`'s deep copy (the fields are plain values)."""


def _modifiers(facts: MeleeFacts, board: Board) -> tuple[list[dict[str, Any]], int]:
    """`melee_modifiers` under the board's settings as output rows, and their total; cached per
    facts (several charges by one charger, or at alike targets, share them): each caller gets
    its own copies of the rows."""
    cache = board.__dict__.setdefault("_melee_modifiers", {})
    found = cache.get(facts)
    if found is None:
        mods = melee_modifiers(facts, board.settings)
        found = cache[facts] = ([{name: getattr(m, name) for name in _MODIFIER_FIELDS}
                                 for m in mods], score_total(mods))
    rows, total = found
    return [dict(row) for row in rows], total


def _entry(facts: MeleeFacts, board: Board, shown: dict[str, Any], assumed: list[str]) -> dict[str, Any]:
    rows, total = _modifiers(facts, board)
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


def melee_of(board: Board, base_id: str) -> dict[str, Any] | None:
    """The melee this base is in, as its side's modifiers against its principal enemy:
    ``{"against", "modifiers", "total", "assumed", "facts"}``, and under ``"charges"`` its
    modifiers if each legal charge goes in (docs/rulesets/italia-se-desta.md 7.1); None when it
    is in no melee and has no legal charge."""
    if not fights(board, base_id):
        return None
    out: dict[str, Any] = {}
    enemy = principal_enemy(board, base_id)
    if enemy is not None:
        try:
            facts, shown, assumed = side_facts(board, base_id, enemy)
            out = {"against": enemy, **_entry(facts, board, shown, assumed)}
        except CampoInputError as err:   # a type/arm pair the combat-factor table lacks
            out = {"against": enemy, "error": str(err)}
    charges = {}
    for target in candidates(board, base_id):
        charge = judge_charge(board, base_id, target)
        if charge.legal:
            try:
                charges[target] = charge_melee(board, charge)
            except CampoInputError as err:
                charges[target] = {"error": str(err)}
    if charges:
        out["charges"] = charges
    return out or None


def _area_terrain_at(board: Board, rect: Rect) -> list[Any]:
    """Area terrain features holding ``rect`` wholly (within the contact tolerance)."""
    return area_terrain_holding(board, rect, board.contact_tol)


def _area_terrain_at_plain(board: Board, rect: Rect) -> list[Any]:
    """`_area_terrain_at` by the STRtree query, as first written (the tests' reference)."""
    return [t for t, g in board.terrain_near(rect.polygon)
            if t.polygon_mm is not None
            and board.grown(g, board.contact_tol).covers(rect.polygon)]


def _centre_in(board: Board, rect: Rect) -> list[Any]:
    """Area terrain features covering the rectangle's centre."""
    return [t for t, _ in terrain_at_point(board, rect.cx, rect.cy) if t.polygon_mm is not None]


def charge_melee(board: Board, charge: Charge) -> dict[str, Any]:
    """The charger's side if this legal charge goes in (attacker, first round): its facts at the
    contact pose (flank attack, half move and hidden from the charge verdict; protection, slope
    and soft ground where it stops), its supports and general as they stand now."""
    me, enemy = charge.charger, charge.target
    assumed = ["supports and general as they stand (moving with it as a Group)",
               "only the charger contacts the target", "first_round=true", "pursuit=false"]
    pose = charge.final_pose or {}
    r = board.rect(me)
    final = Rect(pose.get("x_mm", r.cx), pose.get("y_mm", r.cy), pose.get("heading_deg", r.heading_deg),
                 r.width, r.depth)
    own = _charging_side(board, me)
    unit = own.unit
    assumed.extend(own.notes)
    guns = sorted(g for g in _guns_near(board, enemy) if _covers_target(board, g, me, enemy))
    supp_units = [*own.supports, *(melee_unit(board, g, assumed) for g in guns)]
    general, g_quality, g_rank = own.general, own.general_quality, own.general_rank
    assumed.extend(own.general_notes)
    here = _centre_in(board, final)
    facts = MeleeFacts(
        unit=unit, enemy=melee_unit(board, enemy, []), supports=tuple(supp_units),
        attacker=True, flank_attack=charge.flank_attack,
        enemy_in_cover=flank_cover_of(board, enemy) is not None,
        area_protection=_protection(_area_terrain_at(board, final)),  # type: ignore[arg-type]
        general_quality=g_quality, general_rank=g_rank,
        slope=_slope(board, here, enemy, assumed),  # type: ignore[arg-type]
        in_marsh_or_wood=any(t.kind in SOFT_GROUND for t in here),
        moved_half_or_less=charge.within_half_move,
        enemy_hidden=charge.hidden or "none",  # type: ignore[arg-type]
        self_hidden=hidden_from(board, enemy, me) or "none",  # type: ignore[arg-type]
    )
    shown = {"supports": own.counted_ids + guns, "general": general,
             "moved_half_or_less": charge.within_half_move}
    entry = _entry(facts, board, shown, assumed)
    entry["facts"].pop("defending_linear_obstacle")
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
    """The `_ChargingSide` of charger ``me`` (cached: a charger with several legal charges is
    asked once per charge)."""
    cache = board.__dict__.setdefault("_charging_sides", {})
    found = cache.get(me)
    if found is None:
        notes: list[str] = []
        unit = melee_unit(board, me, notes)
        support_ids = sorted(s for s in board.touching[me] if supports(board, s, me)
                             and board.infos[s].is_unit
                             and not any(board.is_enemy(s, o) for o in board.touching[s]))
        supp_units = [melee_unit(board, s, notes) for s in support_ids]
        general = joined_general(board, [me, *support_ids])
        general_notes: list[str] = []
        g_quality, g_rank = _general_facts(board, general, general_notes)
        counted = counted_supports(unit, supp_units, snow=board.settings.weather == "snow")
        counted_ids = [s for s, u in zip(support_ids, supp_units) if any(u is c for c in counted)]
        found = cache[me] = _ChargingSide(unit, supp_units, counted_ids, general, g_quality,
                                          g_rank, notes, general_notes)
    return found


def _guns_near(board: Board, target: str) -> list[str]:
    """Guns within 3" of ``target`` (`within_of`, in index order; cached per target)."""
    cache = board.__dict__.setdefault("_guns_near", {})
    found = cache.get(target)
    if found is None:
        found = cache[target] = within_of(board, target,
                                          board.mm(ARTILLERY_SUPPORT_RANGE_IN) + 1e-6,
                                          lambda g: board.infos[g].is_gun)
    return found


def _covers_target(board: Board, gun: str, charger: str, target: str) -> bool:
    """A battery of the charger's side that will support by fire (ISD §1): the target in its
    arc, in sight, at 3" or less and not in contact with it."""
    g = board.infos[gun]
    if not g.is_gun or g.limbered or g.rockets or g.stale or g.side != board.infos[charger].side \
            or target in board.touching[gun]:
        return False
    p = _probe(board, gun, target)
    return p.in_arc and p.line_of_sight and p.distance <= ARTILLERY_SUPPORT_RANGE_IN + 1e-6


__all__ = ["aspect_struck", "charge_melee", "fire_supporters", "joined_general", "melee_of",
           "principal_enemy", "side_facts"]
