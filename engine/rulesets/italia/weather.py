"""ISD §13 "Condizioni atmosferiche" as data: what each weather setting changes."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WeatherEffects:
    """Effects of one weather condition; the modifier functions and move tables read these."""

    name: str
    italian: str
    musketry_dice_delta: int  # «al fuoco di fucileria viene sottratto 1d6»
    moves_less_ford_amount: bool  # «Tutti i movimenti sono ridotti della misura prevista per il guado»
    hill_extra_deduction_in: float  # snow: «pendenze collinari ... ridotto di ulteriore 1"»
    artillery_modifier: int  # «L'artiglieria applica sempre il fattore di –1»
    command_radius_factor: float  # fog: «ridotto alla metà»
    combat_factors_halved: bool  # snow, rounding up
    cavalry_attack_bonus: bool  # snow: «La cavalleria non applica il bonus di +1»
    cites: str = "ISD §13"


WEATHER: dict[str, WeatherEffects] = {
    "clear": WeatherEffects("clear", "sereno", 0, False, 0.0, 0, 1.0, False, True, cites="ISD §13"),
    "storm": WeatherEffects("storm", "temporale/fango", -1, True, 0.0, -1, 1.0, False, True),
    "fog": WeatherEffects("fog", "nebbia/buio", 0, False, 0.0, 0, 0.5, False, True),
    "snow": WeatherEffects("snow", "neve", 0, True, 1.0, -1, 1.0, True, False),
}
"""ISD §13 (1. temporale/fango, 2. nebbia/buio, 3. neve). Settings key: ``weather``."""

TWILIGHT_MANOEUVRE_MODIFIER = -1
"""ISD ManTab: «- 1 durante il crepuscolo/buio» (settings key ``twilight``)."""


def weather_effects(name: str) -> WeatherEffects:
    """Effects for a ``settings.weather`` value."""
    return WEATHER[name]
