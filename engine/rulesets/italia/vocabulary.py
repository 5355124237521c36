"""The words L'Italia s'è desta! understands in a base's `type` and `traits` (shared/interfaces.md,
"Ruleset vocabulary"), each with its documentation and citation."""

from __future__ import annotations

from campo.engine.vocabulary import Trait, Vocabulary, state_traits

VOCABULARY = Vocabulary(
    ruleset="italia-se-desta",
    types={
        "A": "unit letter A (ISD §4, Lists)",
        "B": "unit letter B (ISD §4, Lists)",
        "C": "unit letter C (ISD §4, Lists)",
        "D": "unit letter D (ISD §4, Lists)",
        "E": "unit letter E, infantry or cavalry (ISD §4, Lists)",
        "gun": "an artillery piece (ISD §6)",
        "limber": "an artillery limber (ISD §8)",
        "general": "a general (ISD §3)",
    },
    traits={
        "arm": Trait("choice", "infantry, cavalry or artillery (letter E exists for both infantry and cavalry).",
                     ("infantry", "cavalry", "artillery")),
        "quality": Trait("choice", "Troops: veteran, regular, green (ISD §4). Generals: decisive, capable, mediocre (ISD §3).",
                         ("veteran", "regular", "green", "decisive", "capable", "mediocre")),
        "weapon": Trait("choice", "Infantry firearm: FO, ML, MR, FRR (ISD §4, §7).", ("FO", "ML", "MR", "FRR")),
        "light": Trait("bool", "Light infantry: 45° arc, skirmish rules (ISD §8)."),
        "cavalry": Trait("choice", "Cavalry class (ISD §9).", ("heavy", "line", "light")),
        "battery": Trait("choice", "Artillery battery kind (ISD §6).", ("divisional", "reserve")),
        "horse": Trait("bool", "Horse artillery (ISD §6, §8)."),
        "rockets": Trait("bool", "Rocket battery (ISD §6)."),
        "limbered": Trait("bool", "The gun is limbered (ISD §8)."),
        "formation": Trait("choice", "line or march_column (ISD §1).", ("line", "march_column")),
        "division": Trait("text", "The division the unit belongs to (ISD §2)."),
        "rank": Trait("choice", "General's rank (ISD §3).", ("division", "corps", "army")),
        "commands": Trait("text_or_list", "The division, or list of divisions, a general commands (ISD §3)."),
        # added by the engine helper (geometry verdicts):
        "attached_to": Trait("text", "A general joined to this unit id: no command radius (ISD §8)."),
        "single_rank": Trait("bool", "Infantry in a single rank of figures (ISD §6, §7; ISD A13)."),
        # read by the modifiers of the umpire's tables (docs/rulesets/italia-se-desta.md §12):
        "marksmen": Trait("bool", "Marksmen (Jäger, Bersaglieri, Cacciatori, Carabinieri genovesi): +1 d6 in musketry (ISD §7, Lists)."),
        "french_guard": Trait("bool", "French Guard: +1 d6 in musketry, +1 on the Manoeuvre Table (ISD §7, ISD ManTab)."),
        "nation": Trait("text", "The unit's nation (e.g. french, garibaldini): pursuit and generals' rolls (ISD §3, §9)."),
        "reduced_ammunition": Trait("bool", "Short of ammunition (ISD §1, §6, ISD A46)."),
        "garrison": Trait("bool", "Garrison troops: cavalry may not attack them (ISD §9)."),
        **state_traits("ISD §1, §8", "ISD §1, §9", "ISD §4"),
    },
    general_types=frozenset({"general"}),
    per_type={  # ISD §4, Lists: A is infantry only, C cavalry only; B, D and E are either
        "A": {"arm": ("infantry",)},
        "B": {"arm": ("infantry", "cavalry")},
        "C": {"arm": ("cavalry",)},
        "D": {"arm": ("infantry", "cavalry")},
        "E": {"arm": ("infantry", "cavalry")},
        "gun": {"arm": ("artillery",)},
        "limber": {"arm": ("artillery",)},
    },
)
