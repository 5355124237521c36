"""Federico's roster builder entries (`Ruleset.roster_catalogue`): base sizes from the group's
settings (F14 leaves them to the players)."""

from __future__ import annotations

from typing import Any

from campo.engine.roster_catalogue import RosterCatalogue, type_entry
from campo.engine.rulesets.federico.settings import FedericoSettings
from campo.engine.rulesets.federico.vocabulary import VOCABULARY

MAIN_TRAITS = {
    "infantry": ("class", "light", "indians", "highlanders", "formation", "regiment"),
    "cavalry": ("class", "weight", "formation", "regiment"),
    "artillery": ("class", "weight", "formation", "regiment"),
    "commander": ("rank", "ability"),
}
NO_SIZE_NOTE = "Federico gives no base size for commanders: enter your group's size."


def roster_catalogue(settings: FedericoSettings) -> RosterCatalogue:
    out = []
    for type_, meaning in VOCABULARY.types.items():
        traits: dict[str, Any] = {"class": 4} if type_ != "commander" else {"rank": "general", "ability": 2}
        if type_ in ("cavalry", "artillery"):
            traits["weight"] = "medium"
        out.append(type_entry(
            type_, meaning, MAIN_TRAITS[type_], size_mm=getattr(settings, f"base_size_{type_}_mm", None),
            size_cites=f"base_size_{type_}_mm (Federico F14: not in the rulebook, the group's setting)",
            size_note=NO_SIZE_NOTE, traits=traits))
    return RosterCatalogue(out)
