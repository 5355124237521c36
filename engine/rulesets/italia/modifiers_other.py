"""Manoeuvre Table (ISD ManTab), limbering (ISD §8), pursuit (ISD §9), risks to generals (ISD §10)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from campo.engine.rulesets.italia.modifier import Cover, Modifier, score_total
from campo.engine.rulesets.italia.settings import ItaliaSettings
from campo.engine.rulesets.italia.tables_manoeuvre import NEAR_ARTILLERY_IN, NEAR_INFANTRY_IN
from campo.engine.rulesets.italia.troops import MANOEUVRE_VALUE, GeneralQuality
from campo.engine.rulesets.italia.weather import TWILIGHT_MANOEUVRE_MODIFIER


@dataclass(frozen=True)
class ManoeuvreFacts:
    """One unit (or a Group's largest unit) testing on the Manoeuvre Table.

    ``arm``; ``march_column``; ``fresh`` (not shaken; artillery until it takes losses, ISD §8);
    ``losses`` so far; ``general_quality``: the best general that gives its modifier — a detached
    general commanding the unit whose command radius reaches it, or the general attached to it
    (ISD §8); ``french_guard``; ``light_infantry``; ``enemy_infantry_within_6``,
    ``enemy_artillery_within_3`` (nearest points, ISD A25); ``enemy_cavalry_in_sight`` enemy
    cavalry with line of sight within charge distance (``a25_cavalry_charge_distance_in``);
    ``corps_commander`` a Corps commander testing to move (no modifiers, ISD §8);
    ``twilight`` overrides the settings' twilight when not None.
    """

    arm: str = "infantry"
    march_column: bool = False
    fresh: bool = True
    losses: int = 0
    general_quality: str | None = None
    french_guard: bool = False
    light_infantry: bool = False
    enemy_infantry_within_6: bool = False
    enemy_artillery_within_3: bool = False
    enemy_cavalry_in_sight: bool = False
    corps_commander: bool = False
    twilight: bool | None = None


def manoeuvre_modifiers(facts: ManoeuvreFacts, settings: ItaliaSettings | None = None) -> list[Modifier]:
    """Modifiers to the 2d6 on the Manoeuvre Table (ISD ManTab; proximity read by ISD A25)."""
    s = settings or ItaliaSettings()
    f = facts
    if f.corps_commander:
        return []
    out: list[Modifier] = []
    if f.march_column:
        out.append(Modifier("in march column: +1", "ISD §1, ISD ManTab", score_delta=+1))
    if f.fresh:
        out.append(Modifier("fresh troops: +2", "ISD ManTab", score_delta=+2))
    if f.general_quality:
        value = MANOEUVRE_VALUE[GeneralQuality(f.general_quality)]
        out.append(Modifier(f"{f.general_quality} general in command: {value:+d}", "ISD ManTab, ISD §8",
                            score_delta=value))
    if f.french_guard:
        out.append(Modifier("French Guard: +1", "ISD ManTab", score_delta=+1))
    if f.light_infantry and f.arm == "infantry":
        out.append(Modifier("light infantry: +1", "ISD §8, ISD ManTab", score_delta=+1))
    if f.losses >= 3:
        out.append(Modifier("at least 3 losses: -1", "ISD ManTab", score_delta=-1))
    if f.enemy_infantry_within_6:
        out.append(Modifier(f'enemy infantry within {NEAR_INFANTRY_IN:g}": -1', "ISD ManTab, ISD A25",
                            score_delta=-1))
    if f.enemy_artillery_within_3:
        out.append(Modifier(f'enemy artillery within {NEAR_ARTILLERY_IN:g}": -1', "ISD ManTab, ISD A25",
                            score_delta=-1))
    if s.twilight if f.twilight is None else f.twilight:
        out.append(Modifier(f"twilight/darkness: {TWILIGHT_MANOEUVRE_MODIFIER:+d}", "ISD ManTab",
                            score_delta=TWILIGHT_MANOEUVRE_MODIFIER))
    if f.arm == "infantry" and f.enemy_cavalry_in_sight:
        out.append(Modifier("enemy cavalry in sight at charge distance: -2", "ISD ManTab, ISD A25",
                            score_delta=-2))
    return out


@dataclass(frozen=True)
class LimberFacts:
    """A battery in battery testing to limber up (ISD §8): ``general_quality`` of its own general
    joined to it; ``horse``; ``quality`` of the artillery; ``flanked_by_gun`` another gun beside it
    at the start of the move; ``has_losses``."""

    general_quality: str | None = None
    horse: bool = False
    quality: str = "regular"
    flanked_by_gun: bool = False
    has_losses: bool = False


def limbering_modifiers(facts: LimberFacts) -> list[Modifier]:
    """Modifiers to the limbering 2d6 (ISD §8; 7 or more limbers)."""
    f = facts
    out: list[Modifier] = []
    if f.general_quality:
        value = MANOEUVRE_VALUE[GeneralQuality(f.general_quality)]
        out.append(Modifier(f"own {f.general_quality} general joined: {value:+d}", "ISD §8", score_delta=value))
    if f.horse:
        out.append(Modifier("horse artillery: +1", "ISD §8", score_delta=+1))
    if f.quality == "veteran":
        out.append(Modifier("veteran artillery: +1", "ISD §8", score_delta=+1))
    if f.flanked_by_gun:
        out.append(Modifier("flanked by another gun: +1", "ISD §8", score_delta=+1))
    if f.has_losses:
        out.append(Modifier("has taken losses: -1", "ISD §8", score_delta=-1))
    if f.quality == "green":
        out.append(Modifier("inexperienced artillery: -1", "ISD §8", score_delta=-1))
    return out


@dataclass(frozen=True)
class PursuitFacts:
    """The winning unit that has the enemy falling back on its own front (ISD §9).

    ``arm``, ``cavalry_class``, ``quality``, ``shaken``, ``disordered`` of the fighting unit;
    ``defensive_terrain`` it is in or behind (value by ISD A35); ``french_infantry_or_garibaldini``;
    ``general_within_3`` quality of a general within 3" of it or of its support.
    """

    arm: str = "infantry"
    cavalry_class: str | None = None
    quality: str = "regular"
    shaken: bool = False
    disordered: bool = False
    defensive_terrain: Cover = "none"
    french_infantry_or_garibaldini: bool = False
    general_within_3: str | None = None


def pursuit_modifiers(facts: PursuitFacts, settings: ItaliaSettings | None = None) -> list[Modifier]:
    """Modifiers to the pursuit 1d6 (ISD §9); ± entries are the player's choice."""
    s = settings or ItaliaSettings()
    f = facts
    out: list[Modifier] = []
    if f.shaken:
        out.append(Modifier("shaken: -2", "ISD §9", score_delta=-2))
    if f.disordered:
        out.append(Modifier("disordered: -1", "ISD §9", score_delta=-1))
    if f.defensive_terrain != "none":
        value = {"soft_1_hard_2": {"soft": 1, "hard": 2}, "all_1": {"soft": 1, "hard": 1},
                 "all_2": {"soft": 2, "hard": 2}}[s.a35_area_protection][f.defensive_terrain]
        out.append(Modifier(f"in/behind defensive terrain: -{value}", "ISD §9, ISD A35", score_delta=-value))
    if f.french_infantry_or_garibaldini and f.arm == "infantry":
        out.append(Modifier("French infantry or Garibaldini: +1", "ISD §9", score_delta=+1))
    if f.general_within_3 in ("decisive", "capable"):
        value = 2 if f.general_within_3 == "decisive" else 1
        out.append(Modifier(f'{f.general_within_3} general within 3": ±{value}', "ISD §9",
                            score_delta=value, players_choice=True))
    if f.arm == "cavalry":
        value = 2 if f.cavalry_class == "light" else 1
        kind = "light cavalry" if f.cavalry_class == "light" else "other cavalry"
        out.append(Modifier(f"{kind}: ±{value}", "ISD §9", score_delta=value, players_choice=True))
    if f.quality == "veteran":
        out.append(Modifier("veterans: ±1", "ISD §9", score_delta=1, players_choice=True))
    elif f.quality == "green":
        out.append(Modifier("inexperienced: -1", "ISD §9", score_delta=-1))
    return out


def pursuit_total(d6: int, mods: Sequence[Modifier], *, want_pursuit: bool) -> int:
    """The pursuit test total with every ± choice made the way the player wants (ISD §9)."""
    sign = 1 if want_pursuit else -1
    return d6 + score_total(mods) + sign * sum(m.score_delta for m in mods if m.players_choice)


@dataclass(frozen=True)
class GeneralRiskFacts:
    """A general attached to a unit that was fired at or fought (ISD §10): ``unit_dispersed``,
    ``unit_shaken`` (one of his units became shaken), ``fought_or_supported``, ``quality``."""

    quality: str = "mediocre"
    unit_dispersed: bool = False
    unit_shaken: bool = False
    fought_or_supported: bool = False


def general_risk_modifiers(facts: GeneralRiskFacts) -> list[Modifier]:
    """Modifiers to the 2d6 risk roll (ISD §10; hit on 5 or less)."""
    f = facts
    out: list[Modifier] = []
    if f.unit_dispersed:
        out.append(Modifier("a unit he is attached to was dispersed: -2", "ISD §10", score_delta=-2))
    if f.unit_shaken:
        out.append(Modifier("a unit he is attached to became shaken: -1", "ISD §10", score_delta=-1))
    if f.fought_or_supported:
        out.append(Modifier("attached to units that fought or supported: -1", "ISD §10", score_delta=-1))
    if f.quality == "capable":
        out.append(Modifier("capable general: -1", "ISD §10", score_delta=-1))
    elif f.quality == "decisive":
        out.append(Modifier("decisive general: -2", "ISD §10", score_delta=-2))
    return out
