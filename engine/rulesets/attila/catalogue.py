"""ATTILA's roster builder entries (`Ruleset.roster_catalogue`): every type, no base sizes."""

from __future__ import annotations

from campo.engine.roster_catalogue import RosterCatalogue, type_entry
from campo.engine.rulesets.attila.vocabulary import VOCABULARY

MAIN_TRAITS = {"troops": ("melee_die", "missile", "phalanx", "pikes", "tribal", "group"),
               "general": ("group",), "camp": ()}
NO_SIZE_NOTE = ("ATTILA gives no base sizes («imbasettamento» is left to the players, ATT 2): "
                "enter your group's size; every base of a type should match.")


def roster_catalogue() -> RosterCatalogue:
    return RosterCatalogue([type_entry(t, meaning, MAIN_TRAITS.get(t, MAIN_TRAITS["troops"]),
                                       size_note=NO_SIZE_NOTE)
                            for t, meaning in VOCABULARY.types.items()])
