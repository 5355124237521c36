"""What happens to an ISD base during a game, as data (`Ruleset.unit_state`): losses against the
Efficacy table (fresh -> shaken -> dispersed, ISD §4), disorder (ISD §1), march column (ISD §1),
limbered or in battery (ISD §8), a battery's reduced ammunition (ISD §6). Shaken and dispersed follow from the losses; the limits are read
from `troops`."""

from __future__ import annotations

from campo.engine.rulesets.italia.troops import ARTILLERY_LOSSES_TO_ELIMINATE, EFFICACY, Quality
from campo.engine.scenario import BaseState
from campo.engine.unit_state import StateTrait


def unit_state(base: BaseState) -> list[StateTrait]:
    """The state traits of one base (none for generals and limbers)."""
    if base.type == "gun":
        most = ARTILLERY_LOSSES_TO_ELIMINATE[Quality(base.traits.get("quality", "regular"))]
        return [StateTrait("losses", "losses", "count", "ISD §4, §8", most=most, default=0,
                           note=f"eliminated at {most}"),
                StateTrait("limbered", "limbered", "bool", "ISD §8", default=False,
                           note="limbered guns move and do not fire"),
                StateTrait("disordered", "disordered", "bool", "ISD §6", default=False),
                StateTrait("reduced_ammunition", "reduced ammunition", "bool", "ISD §6, ISD A46",
                           default=False, note="a natural double 1 on the fire table")]
    efficacy = EFFICACY.get(base.type)
    if efficacy is None:
        return []
    dispersed = efficacy.to_dispersed
    return [StateTrait("losses", "losses", "count", "ISD §4", most=dispersed, default=0,
                       note=(f"shaken at {efficacy.to_shaken}, dispersed at {dispersed}"
                             if efficacy.further_to_dispersed else f"dispersed at {dispersed}")),
            StateTrait("disordered", "disordered", "bool", "ISD §1", default=False),
            StateTrait("formation", "formation", "choice", "ISD §1", ("line", "march_column"),
                       default="line")]
