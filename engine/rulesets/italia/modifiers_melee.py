"""Melee score modifiers of one side (ISD §9), from MeleeFacts, combat factors included."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

from campo.engine.rulesets.italia.modifier import Cover, Modifier, score_total
from campo.engine.rulesets.italia.settings import ItaliaSettings
from campo.engine.rulesets.italia.troops import MANOEUVRE_VALUE, GeneralQuality, combat_factor

Hidden = Literal["none", "wood", "crest"]
Slope = Literal["none", "gentle", "steep"]


@dataclass(frozen=True)
class MeleeUnit:
    """One unit taking part in a melee (from type and traits).

    ``unit_type`` "A"–"E" or "gun"; ``arm``; ``quality`` veteran/regular/green;
    ``cavalry_class`` heavy/line/light; ``shaken``; ``march_column`` (fights as if shaken, ISD §1);
    ``rockets``.
    """

    unit_type: str
    arm: str | None = None
    quality: str = "regular"
    cavalry_class: str | None = None
    shaken: bool = False
    march_column: bool = False
    rockets: bool = False

    @property
    def resolved_arm(self) -> str:
        if self.arm:
            return self.arm
        return {"C": "cavalry", "gun": "artillery"}.get(self.unit_type, "infantry")

    @property
    def fights_shaken(self) -> bool:
        """ISD §1: a unit attacked in march column fights as if shaken."""
        return self.shaken or self.march_column


@dataclass(frozen=True)
class MeleeFacts:
    """One side of one melee, as the geometry engine and the roster see it.

    ``unit``: the side's fighting unit (its grade and class count); ``enemy``: the principal enemy
    unit it fights; ``other_in_contact``: further units of this side in contact with the enemy
    (full factor); ``supports``: supporting units NOT in contact (factor − 1; artillery here gives
    +1 each, rockets nothing).

    Situation: ``attacker`` moved to attack in its own manoeuvre phase; ``first_round`` False for
    melees that continue in place after a draw; ``pursuit`` the contact came from a pursuit;
    ``attack_bonus_in_pursuit`` "line" Garibaldini / French line or Guard infantry (cavalry always
    has it, ISD §9 note 2); ``flank_attack`` this side strikes the enemy's flank (ISD §1, A31,
    A3 for the rear); ``enemy_in_cover`` the enemy is in cover in area or linear terrain (then no
    flank attack, ISD §1); ``defending_linear_obstacle`` the whole front is on a linear obstacle it
    defends; ``area_protection`` the whole unit is inside protective area terrain (A35);
    ``general_quality``/``general_rank`` of a general joined to this side's units in contact or
    support; ``slope`` this side is uphill of the enemy; ``in_marsh_or_wood`` (cavalry −2);
    ``moved_half_or_less`` (cavalry flank exception, note 3); ``enemy_hidden``/``self_hidden``
    "wood" (wholly inside a wood) or "crest" (wholly behind a crest), note 4 and A34.
    """

    unit: MeleeUnit
    enemy: MeleeUnit
    other_in_contact: tuple[MeleeUnit, ...] = ()
    supports: tuple[MeleeUnit, ...] = ()
    attacker: bool = False
    first_round: bool = True
    pursuit: bool = False
    attack_bonus_in_pursuit: bool = False
    flank_attack: bool = False
    enemy_in_cover: bool = False
    defending_linear_obstacle: bool = False
    area_protection: Cover = "none"
    general_quality: str | None = None
    general_rank: str | None = None
    slope: Slope = "none"
    in_marsh_or_wood: bool = False
    moved_half_or_less: bool = False
    enemy_hidden: Hidden = "none"
    self_hidden: Hidden = "none"


def _factor(u: MeleeUnit, snow: bool) -> int:
    return combat_factor(u.unit_type, u.resolved_arm, rockets=u.rockets, snow=snow)


def counted_supports(unit: MeleeUnit, supports: Sequence[MeleeUnit], *, snow: bool = False) -> tuple[MeleeUnit, ...]:
    """The (at most 2) non-artillery supports that count (ISD §9 note [*]): both of the supported
    unit's arm, or one infantry and one cavalry; the best-scoring legal choice."""
    pool = [u for u in supports if u.resolved_arm in ("infantry", "cavalry")]
    best: tuple[MeleeUnit, ...] = ()
    best_score = -1
    own = unit.resolved_arm
    for n in (2, 1, 0):
        for combo in combinations(pool, n):
            arms = sorted(u.resolved_arm for u in combo)
            if n == 2 and not (arms == [own, own] or arms == ["cavalry", "infantry"]):
                continue
            score = sum(max(0, _factor(u, snow) - 1) for u in combo)
            if score > best_score:
                best, best_score = combo, score
    return best


_CAV_RANK = {"light": 0, "line": 1, "heavy": 2}


def _cavalry_class_bonus(own: str | None, enemy: str | None, s: ItaliaSettings) -> int:
    if own is None or enemy is None:
        return 0
    if s.a37_cavalry_classes == "two_classes":  # heavy and line are one class
        own = "line" if own == "heavy" else own
        enemy = "line" if enemy == "heavy" else enemy
    gap = _CAV_RANK[own] - _CAV_RANK[enemy]
    return gap if gap > 0 else 0  # HC v Drg +1, Drg v LC +1, HC v LC +2


def melee_modifiers(facts: MeleeFacts, settings: ItaliaSettings | None = None) -> list[Modifier]:
    """Everything one side adds to its 1d6 in a melee (ISD §9; arithmetic ISD A41), combat
    factors included, so ``score = d6 + score_total(melee_modifiers(...))``."""
    s = settings or ItaliaSettings()
    snow = s.weather == "snow"
    f, u, e = facts, facts.unit, facts.enemy
    arm, enemy_arm = u.resolved_arm, e.resolved_arm
    out: list[Modifier] = []
    halved = " (halved in snow)" if snow else ""

    for unit in (u, *f.other_in_contact):
        out.append(Modifier(f"combat factor, unit {unit.unit_type} in contact{halved}: {_factor(unit, snow):+d}",
                            "ISD §4, ISD §9" + (", ISD §13" if snow else ""), score_delta=_factor(unit, snow)))
    supp = counted_supports(u, f.supports, snow=snow)
    if supp:
        value = sum(max(0, _factor(x, snow) - 1) for x in supp)
        out.append(Modifier(f"{len(supp)} support(s) not in contact (factor - 1): {value:+d}",
                            "ISD §1, ISD §9, ISD A41", score_delta=value))
    guns = [x for x in f.supports if x.resolved_arm == "artillery" and not x.rockets]
    if guns:
        out.append(Modifier(f"artillery in support x{len(guns)}: {len(guns):+d}", "ISD §9",
                            score_delta=len(guns)))
    if f.defending_linear_obstacle:
        out.append(Modifier("defending a linear obstacle: +1", "ISD §9", score_delta=+1))
    if f.area_protection != "none":
        value = {"soft_1_hard_2": {"soft": 1, "hard": 2}, "all_1": {"soft": 1, "hard": 1},
                 "all_2": {"soft": 2, "hard": 2}}[s.a35_area_protection][f.area_protection]
        out.append(Modifier(f"inside protective area terrain ({f.area_protection}): {value:+d}",
                            "ISD §9, ISD A35", score_delta=value))
    if f.general_quality and f.general_rank not in ("corps", "army"):
        value = 1
        if s.a36_general_melee_bonus == "by_quality":
            value = MANOEUVRE_VALUE[GeneralQuality(f.general_quality)]
        out.append(Modifier(f"general in contact: {value:+d}", "ISD §9, ISD A36", score_delta=value))
    if _attack_bonus(f, arm, enemy_arm, snow):
        out.append(Modifier("attacker: +1", "ISD §9", score_delta=+1))
    if u.quality == "veteran":
        out.append(Modifier("veteran unit: +2", "ISD §9", score_delta=+2))
    elif u.quality == "regular":
        out.append(Modifier("regular unit: +1", "ISD §9", score_delta=+1))
    if arm == "cavalry" and enemy_arm == "cavalry":
        bonus = _cavalry_class_bonus(u.cavalry_class, e.cavalry_class, s)
        if bonus:
            out.append(Modifier(f"{u.cavalry_class} cavalry v {e.cavalry_class} cavalry: {bonus:+d}",
                                "ISD §9, ISD A37", score_delta=bonus))
    if f.slope == "gentle":
        out.append(Modifier("uphill on a gentle slope: +1", "ISD §9", score_delta=+1))
    elif f.slope == "steep":
        out.append(Modifier("uphill on a steep slope: +2", "ISD §9", score_delta=+2))
    if any(x.fights_shaken for x in (u, *f.other_in_contact)):
        why = "march column fights as shaken" if not u.shaken and u.march_column else "shaken troops in contact"
        out.append(Modifier(f"{why}: -1", "ISD §1, ISD §9", score_delta=-1))
    if arm == "infantry" and u.fights_shaken and enemy_arm == "cavalry":
        out.append(Modifier("shaken infantry attacked by cavalry: -1", "ISD §9", score_delta=-1))
    if arm == "cavalry" and f.in_marsh_or_wood:
        out.append(Modifier("cavalry in marsh, rice fields or woods: -2", "ISD §9", score_delta=-2))
    if arm == "cavalry" and f.attacker and enemy_arm == "infantry" and not e.fights_shaken:
        flank_ok = f.flank_attack and not f.enemy_in_cover
        exempt = flank_ok and (s.a32_cavalry_flank_minus2 == "never_on_flank" or f.moved_half_or_less)
        if not exempt:
            out.append(Modifier("cavalry attacking infantry not shaken: -2", "ISD §9, ISD A32",
                                score_delta=-2))
    hidden = f.enemy_hidden if s.a34_hidden_penalty_side == "opponent_of_hidden" else f.self_hidden
    if hidden != "none":
        value = -2 if hidden == "wood" else -1
        where = "wholly in a wood" if hidden == "wood" else "wholly behind a crest"
        out.append(Modifier(f"contact with a hidden unit ({where}): {value:+d}", "ISD §9, ISD A34",
                            score_delta=value))
    if f.flank_attack and not f.enemy_in_cover:
        out.append(Modifier("flank attack: +3", "ISD §1, ISD §9", score_delta=+3))
    return out


def _attack_bonus(f: MeleeFacts, arm: str, enemy_arm: str, snow: bool) -> bool:
    """ISD §9 note (2) and ISD §13 snow."""
    if not f.attacker or not f.first_round or arm == "artillery":
        return False
    if f.pursuit and not (arm == "cavalry" or f.attack_bonus_in_pursuit):
        return False
    if arm == "infantry" and enemy_arm == "cavalry":
        return False
    return not (snow and arm == "cavalry")


def melee_score(d6: int, facts: MeleeFacts, settings: ItaliaSettings | None = None) -> int:
    """One side's melee score: 1d6 + factors + modifiers (ISD §9, ISD A41)."""
    if not 1 <= d6 <= 6:
        raise ValueError(f"a d6 is 1..6, got {d6}")
    return d6 + score_total(melee_modifiers(facts, settings))
