"""The words Federico understands in a base's `type` and `traits` (shared/interfaces.md,
"Ruleset vocabulary"), each with its documentation and citation."""

from __future__ import annotations

from campo.engine.vocabulary import Trait, Vocabulary, state_traits

VOCABULARY = Vocabulary(
    ruleset="federico",
    types={
        "infantry": 'infantry (Federico "Classificazione truppe")',
        "cavalry": 'cavalry (Federico "Classificazione truppe")',
        "artillery": 'artillery (Federico "Classificazione truppe")',
        "commander": 'a commander (Federico "Comandanti")',
    },
    traits={
        "class": Trait("int", 'Troop class 3, 4 or 5 (Federico "Classificazione truppe").', (3, 4, 5)),
        "light": Trait("bool", "Light infantry."),
        "indians": Trait("bool", "Indians (skirmishing allies)."),
        "highlanders": Trait("bool", "Highlanders."),
        "weight": Trait("choice", "Cavalry and artillery weight.", ("heavy", "medium", "light")),
        "formation": Trait("choice", "line, march_column or limbered.", ("line", "march_column", "limbered")),
        "regiment": Trait("text", "The regiment or battery this base belongs to."),
        "rank": Trait("choice", "Commander's rank.", ("chief", "general")),
        "ability": Trait("int", 'Commander\'s ability 1 to 4 (Federico "Comandanti").', (1, 2, 3, 4)),
        # added by the Federico helper (fire modifiers need the unit's history, Federico F13):
        "fired": Trait("bool", 'The unit has already fired this game: no "first fire" -1 '
                       '(Federico "Modificatori"; Federico F13).'),
        "moved": Trait("bool", 'The unit moved in the last movement phase: +1 to its fire unless '
                       'Light Infantry (Federico "Modificatori"; Federico F13).'),
        **state_traits('Federico "Mischie"', 'Federico "Morale dell\'esercito"', 'Federico "Esecuzione del tiro"'),
    },
    general_types=frozenset({"commander"}),
)
