"""What happens to an ATTILA base during a game, as data (`Ruleset.unit_state`): disorder, which
steps its melee die down (ATT 8.A), and a General's wound (ATT 8.C: at most 10 cm a move, killed
if wounded again)."""

from __future__ import annotations

from campo.engine.rulesets.attila.tables import WOUNDED_GENERAL_MOVE_CM
from campo.engine.scenario import BaseState
from campo.engine.unit_state import StateTrait


def unit_state(base: BaseState) -> list[StateTrait]:
    """The state traits of one base (none for the Camp)."""
    if base.type == "camp":
        return []
    if base.type == "general":
        return [StateTrait("wounded", "wounded", "bool", "ATT 8.C", default=False,
                           note=f"moves at most {WOUNDED_GENERAL_MOVE_CM:g} cm; "
                                "killed if wounded again")]
    return [StateTrait("disordered", "disordered", "bool", "ATT 8.A", default=False,
                       note="melee die one step down")]
