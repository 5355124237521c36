"""What happens to a Federico base during a game, as data (`Ruleset.unit_state`): its formation
(Federico "Movimenti": line, march column, limbered), its class, which drops by one each time it
is beaten back («arretra ... e scende di una Classe», Federico "Mischie"), and whether it has
fired (Federico "Esecuzione del tiro": the first volley's bonus)."""

from __future__ import annotations

from campo.engine.rulesets.federico.units import ELITE_CLASS, LOWEST_CLASS
from campo.engine.scenario import BaseState
from campo.engine.unit_state import StateTrait


def unit_state(base: BaseState) -> list[StateTrait]:
    """The state traits of one base (none for commanders)."""
    if base.type == "commander":
        return []
    # «Fanteria o Artiglieria in colonna di marcia 12cm», «Artiglieria al traino 9cm»
    formations = (("line", "limbered", "march_column") if base.type == "artillery"
                  else ("line", "march_column"))
    out = [StateTrait("formation", "formation", "choice", 'Federico "Movimenti"', formations,
                      default="line")]
    # every unit, guns too, may drop a class («Causa il tiro o la mischia si può calare di
    # classe», Federico "Classificazione truppe"); a gun's dice and ranges stay its weight's
    out.append(StateTrait("class", "class", "count", 'Federico "Mischie"', most=ELITE_CLASS,
                          least=LOWEST_CLASS, default=base.traits.get("class"),
                          note=f"below {LOWEST_CLASS} the unit is eliminated: take it off"))
    if base.type != "artillery":
        out.append(StateTrait("fired", "has fired", "bool", 'Federico "Esecuzione del tiro"',
                              default=False))
    return out
