"""Bombardment (ISD §6) and musketry (ISD §7) modifiers of one shot, from FireFacts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from campo.engine.rulesets.italia.modifier import Cover, Modifier, score_total
from campo.engine.rulesets.italia.settings import ItaliaSettings
from campo.engine.rulesets.italia.tables_fire import (
    MIN_MUSKETRY_DICE,
    RangeBand,
    artillery_band,
    range_modifier,
)
from campo.engine.rulesets.italia.troops import WEAPONS, Weapon, musketry_base_dice
from campo.engine.rulesets.italia.weather import weather_effects


@dataclass(frozen=True)
class FireFacts:
    """Everything that decides the modifiers of one shot.

    Firer (from type/traits): ``firer_type`` "A"–"E" or "gun"; ``firer_arm``;
    ``weapon`` FO/ML/MR/FRR (musketry); ``marksmen`` (traits.marksmen: Jagers/KaiserJagers,
    Bersaglieri, French foot Cacciatori, Carabinieri genovesi, ISD §7); ``french_guard``
    (traits.french_guard); ``firer_shaken``/``firer_disordered``; artillery: ``battery``
    divisional/reserve, ``rockets``, ``reduced_ammunition``, ``moved_and_unlimbered`` (French Guard
    horse artillery or Voloire firing in the impulse they moved and unlimbered, ISD §8).

    Geometry: ``distance_in`` as measured for range (ISD A6) and ``band``, the artillery band
    the verdict read off the range table for it (None: read it from ``distance_in``);
    ``flank_fire``: the firer's front
    is wholly beyond the target's front line (ISD §1, A2, A3); ``target_cover``: "soft"/"hard"
    cover between or around the target (ISD §6/§7 rows, A35); ``gun_on_difficult_terrain``:
    the gun stands in battery on difficult terrain (ISD §6).

    Target (traits): ``target_arm``; ``target_in_battery`` (unlimbered artillery);
    ``target_limbered``; ``target_single_rank`` (ISD A13); ``target_march_column``.
    """

    firer_type: str
    distance_in: float
    firer_arm: str | None = None
    weapon: str | None = None
    marksmen: bool = False
    french_guard: bool = False
    firer_shaken: bool = False
    firer_disordered: bool = False
    battery: str = "divisional"
    rockets: bool = False
    reduced_ammunition: bool = False
    moved_and_unlimbered: bool = False
    gun_on_difficult_terrain: bool = False
    flank_fire: bool = False
    target_cover: Cover = "none"
    target_arm: str = "infantry"
    target_in_battery: bool = False
    target_limbered: bool = False
    target_single_rank: bool = False
    target_march_column: bool = False
    band: RangeBand | None = None

    @property
    def is_artillery(self) -> bool:
        return _is_artillery(self.firer_type, self.firer_arm)


def _is_artillery(firer_type: str, firer_arm: str | None) -> bool:
    return firer_type == "gun" or firer_arm == "artillery"


def fire_modifiers(facts: FireFacts, settings: ItaliaSettings | None = None) -> list[Modifier]:
    """The modifiers of one shot: bombardment (ISD §6) for guns, musketry (ISD §7) otherwise.

    Out-of-range shots get no range modifier (the geometry engine decides legality).
    """
    s = settings or ItaliaSettings()
    if facts.is_artillery:
        return _bombardment_modifiers(facts, s)
    return _musketry_modifiers(facts, s)


def _bombardment_modifiers(f: FireFacts, s: ItaliaSettings) -> list[Modifier]:
    out: list[Modifier] = []
    band = f.band if f.band is not None else artillery_band(f.distance_in, s)
    if band is not None:
        kind = "rockets (as divisional)" if f.rockets else f"{f.battery} artillery"
        value = range_modifier(band, f.battery, rockets=f.rockets)
        out.append(Modifier(f"range {band.value.replace('_', ' ')}\", {kind}: {value:+d}",
                            "ISD §6", score_delta=value))
    weather = weather_effects(s.weather)
    if f.gun_on_difficult_terrain or weather.artillery_modifier:
        why = "in battery on difficult terrain" if f.gun_on_difficult_terrain else f"deployed in {s.weather}"
        # One −1 row («terreno difficile (o in caso di maltempo)»); snow «non cumulativo» (ISD §13).
        out.append(Modifier(f"artillery {why}: -1", "ISD §6, ISD §13", score_delta=-1))
    if f.firer_disordered:
        out.append(Modifier("artillery disordered: -1", "ISD §6", score_delta=-1))
    if f.target_cover == "soft":
        out.append(Modifier("target behind soft cover: -1", "ISD §6", score_delta=-1))
    elif f.target_cover == "hard":
        out.append(Modifier("target behind hard cover: -2", "ISD §6", score_delta=-2))
    if f.target_in_battery or (f.target_single_rank and f.target_arm == "infantry"):
        what = "artillery in battery" if f.target_in_battery else "infantry in a single rank"
        out.append(Modifier(f"target is {what}: -1", "ISD §6", score_delta=-1))
    plus = []
    if f.flank_fire:
        plus.append("hit in the flank")
    if f.target_march_column:
        plus.append("target in march column")
    if f.rockets and f.target_arm == "cavalry":
        plus.append("rockets at cavalry")
    if plus:  # one row, «o»: +1 once however many apply
        out.append(Modifier(" / ".join(plus) + ": +1", "ISD §1, ISD §6", score_delta=+1))
    if f.moved_and_unlimbered:
        out.append(Modifier("moved and unlimbered this impulse (Guard horse / Voloire): -1",
                            "ISD §8", score_delta=-1))
    if f.reduced_ammunition and s.a46_reduced_ammunition == "minus_1":
        out.append(Modifier("reduced ammunition: -1", "ISD §6, ISD A46", score_delta=-1))
    return out


def can_bombard(reduced_ammunition: bool, settings: ItaliaSettings | None = None) -> bool:
    """ISD A46: a battery in reduced ammunition cannot fire (default reading) until rested."""
    s = settings or ItaliaSettings()
    return not (reduced_ammunition and s.a46_reduced_ammunition == "no_fire_until_rested")


def bombardment_modifier_total(facts: FireFacts, settings: ItaliaSettings | None = None) -> int:
    """Sum to add to each gun's 2d6 (feed to ``tables_fire.bombardment_result``)."""
    return score_total(_bombardment_modifiers(facts, settings or ItaliaSettings()))


def _musketry_modifiers(f: FireFacts, s: ItaliaSettings) -> list[Modifier]:
    out: list[Modifier] = []
    base = musketry_base_dice(f.firer_type, f.firer_arm)
    if base == 0:
        return out  # cavalry never fires musketry (ISD §7)
    out.append(Modifier(f"fire factor, unit {f.firer_type}: {base} d6", "ISD §7", dice_delta=base))
    if f.weapon:
        w = WEAPONS[Weapon(f.weapon)]
        if w.dice_delta:
            out.append(Modifier(f"{f.weapon} ({w.name}): {w.dice_delta:+d} d6", "ISD §7, ISD A12",
                                dice_delta=w.dice_delta))
        if w.reroll_ones:
            out.append(Modifier(f"rifled arms ({f.weapon}): re-roll 1s", "ISD §7", reroll_ones=True))
    if f.marksmen or f.french_guard:
        who = "French Guard" if f.french_guard else "Jagers/Bersaglieri/Cacciatori/Carabinieri"
        out.append(Modifier(f"firer is {who}: +1 d6", "ISD §7", dice_delta=+1))
    if f.firer_shaken:
        out.append(Modifier("firer shaken: -1 d6", "ISD §7", dice_delta=-1))
    if f.target_cover == "soft":
        out.append(Modifier("target in soft cover: -1 d6", "ISD §7", dice_delta=-1))
    elif f.target_cover == "hard":
        out.append(Modifier("target behind solid cover: -1 d6 and -1", "ISD §7",
                            dice_delta=-1, score_delta=-1))
    if (f.target_in_battery or (f.target_single_rank and f.target_arm == "infantry")) and (
        f.target_cover == "none" and f.target_arm != "cavalry"  # note [*]
    ):
        what = "artillery in battery" if f.target_in_battery else "infantry in a single rank"
        out.append(Modifier(f"target is {what}: -1", "ISD §7", score_delta=-1))
    if f.target_limbered or f.target_march_column:
        what = "limbered artillery" if f.target_limbered else "troops in march column"
        out.append(Modifier(f"target is {what}: +1", "ISD §1, ISD §7", score_delta=+1))
    w_dice = weather_effects(s.weather).musketry_dice_delta
    if w_dice:
        out.append(Modifier(f"{s.weather} weather: {w_dice:+d} d6", "ISD §13", dice_delta=w_dice))
    if f.flank_fire:
        out.append(Modifier("flank fire: double dice", "ISD §1, ISD §7", dice_multiplier=2))
    return out


@dataclass(frozen=True)
class MusketryPool:
    """What to roll for one musketry shot (ISD §7)."""

    dice: int
    score_delta: int  # added to each die; natural 6 always hits, natural 1 always misses
    reroll_ones: bool
    modifiers: tuple[Modifier, ...]


def musketry_pool(facts: FireFacts, settings: ItaliaSettings | None = None) -> MusketryPool:
    """Dice to roll, per-die modifier and re-roll right, in the order of ISD A12.

    ``adjust_then_double``: base ± every d6 change, then ×2 for flank fire, then at least 1 d6.
    ``double_then_adjust``: base ×2 first, then the changes, then at least 1 d6.

    >>> p = musketry_pool(FireFacts("B", 4.0, weapon="MR", flank_fire=True, target_cover="soft"))
    >>> p.dice, p.score_delta, p.reroll_ones
    (4, 0, True)
    """
    s = settings or ItaliaSettings()
    return pool_of(_musketry_modifiers(facts, s), s)


def pool_of(mods: Sequence[Modifier], settings: ItaliaSettings | None = None) -> MusketryPool:
    """The pool of a shot whose musketry modifiers are ``mods`` (the first: the fire factor),
    as `musketry_pool` gives it; the fire resolution reads the analysis's modifiers with it."""
    s = settings or ItaliaSettings()
    if not mods:
        return MusketryPool(0, 0, False, ())
    base = mods[0].dice_delta
    deltas = sum(m.dice_delta for m in mods[1:])
    mult = 1
    for m in mods:
        mult *= m.dice_multiplier
    if s.a12_dice_order == "adjust_then_double":
        dice = (base + deltas) * mult
    else:
        dice = base * mult + deltas
    return MusketryPool(
        max(MIN_MUSKETRY_DICE, dice),
        score_total(mods),
        any(m.reroll_ones for m in mods),
        tuple(mods),
    )
