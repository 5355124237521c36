"""Modifiers to the Manoeuvre Table's 2d6 (ISD ManTab)."""

from __future__ import annotations

from dataclasses import dataclass

from campo.engine.rulesets.italia.modifier import Modifier
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
