"""Which ISD modifiers apply to one shot, one melee, one Manoeuvre test: pure functions on FACTS.

The geometry engine decides the facts (range, flank fire, cover class, contact aspect, who is
within 6" ...) and the roster gives the traits; these functions turn them into the list of
modifiers an umpire would read out, each with its citation, e.g. ``flank fire: double dice``
(ISD §1, §7). Nothing here measures anything. Every Facts field is documented where declared.

Conventions of :class:`Modifier`: ``score_delta`` adds to the roll (2d6 for bombardment and
manoeuvre, 1d6 for melee and pursuit, *each die* for musketry); ``dice_delta`` and
``dice_multiplier`` change the number of musketry dice; ``players_choice`` marks a ± the player
chooses (pursuit), whose magnitude is ``score_delta``.
"""

from campo.engine.rulesets.italia.modifier import Cover, Modifier, score_total
from campo.engine.rulesets.italia.modifiers_fire import (
    FireFacts,
    MusketryPool,
    bombardment_modifier_total,
    can_bombard,
    fire_modifiers,
    musketry_pool,
)
from campo.engine.rulesets.italia.modifiers_melee import (
    Hidden,
    MeleeFacts,
    MeleeUnit,
    Slope,
    counted_supports,
    melee_modifiers,
    melee_score,
)
from campo.engine.rulesets.italia.modifiers_other import (
    GeneralRiskFacts,
    LimberFacts,
    ManoeuvreFacts,
    PursuitFacts,
    general_risk_modifiers,
    limbering_modifiers,
    manoeuvre_modifiers,
    pursuit_modifiers,
    pursuit_total,
)

__all__ = [
    "Cover", "FireFacts", "GeneralRiskFacts", "Hidden", "LimberFacts", "ManoeuvreFacts",
    "MeleeFacts", "MeleeUnit", "Modifier", "MusketryPool", "PursuitFacts", "Slope",
    "bombardment_modifier_total", "can_bombard", "counted_supports", "fire_modifiers",
    "general_risk_modifiers", "limbering_modifiers", "manoeuvre_modifiers", "melee_modifiers",
    "melee_score", "musketry_pool", "pursuit_modifiers", "pursuit_total", "score_total",
]
