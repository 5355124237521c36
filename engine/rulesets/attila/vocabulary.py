"""The words ATTILA understands in a base's `type` and `traits` (shared/interfaces.md,
"Ruleset vocabulary"), each with its documentation and citation."""

from __future__ import annotations

from campo.engine.vocabulary import Trait, Vocabulary, state_traits

VOCABULARY = Vocabulary(
    ruleset="attila",
    types={
        "FP": "heavy foot (ATT 1)",
        "FLP": "light-heavy foot (ATT 1)",
        "SI": "irregular foot (ATT 1)",
        "FL": "light foot (ATT 1)",
        "CP": "heavy cavalry (ATT 1)",
        "CL": "light cavalry (ATT 1)",
        "chariot_light": "light chariots (ATT 1)",
        "chariot_heavy": "heavy chariots (ATT 1)",
        "general": "the general (ATT 8.C)",
        "camp": "the camp (ATT 8.B)",
    },
    traits={
        "melee_die": Trait("choice", "Melee die (ATT T).", ("d4", "d6", "d8", "d10", "d12")),
        "missile": Trait("choice", "Missile weapon (ATT 6, T).", ("javelins", "slings", "bows")),
        "phalanx": Trait("bool", "Phalanx (ATT 7)."),
        "tribal": Trait("bool", "Tribal band (ATT 13)."),
        "pikes": Trait("bool", "Pikes (ATT 7)."),
        "group": Trait("text", "The deployment group the base belongs to (ATT 4.B)."),
        "wounded": Trait("bool", "A wounded General: moves at most 10 cm, killed if wounded again "
                         "(ATT 8.C)."),
        **state_traits("ATT 8.A", "ATT 10", "ATT 10"),
    },
    general_types=frozenset({"general"}),
)
