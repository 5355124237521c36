"""Quick-reference tables for Federico, built from its tables modules (the numbers the verdicts use),
for the umpire's rules panel: ``{"title", "cites", "columns", "rows"[, "gap"]}`` of plain strings."""

from __future__ import annotations

from typing import Any

from campo.engine.rulesets.federico.settings import FedericoSettings
from campo.engine.rulesets.doc_common import num, words


def reference(settings: FedericoSettings) -> list[dict[str, Any]]:
    """Fire ranges and dice per weapon, movement rates, fall-back distances, classes (Federico)."""
    from campo.engine.rulesets.federico import units

    fire = {"title": "Fire ranges (cm)", "cites": 'Federico "Raggio di tiro", Federico "Esecuzione del tiro"',
            "columns": ["weapon", "short", "long", "dice per base"],
            "rows": [[words(w), num(s, " cm"), num(lg, " cm"), str(units.DICE[w])]
                     for w, (s, lg) in units.RANGES_CM.items()]}
    movement = {"title": "Movement (cm per turn)", "cites": 'Federico "Movimenti"',
                "columns": ["troops", "formation", "move"],
                "rows": [[arm, words(form), num(cm, " cm")] for (arm, form), cm in units.MOVE_CM.items()]}
    melee = {"title": "Melee and classes", "cites": 'Federico "Mischie", Federico "Classificazione truppe"',
             "columns": ["what", "value"],
             "rows": [*[[f"fall back: {arm}", num(cm, " cm")] for arm, cm in units.FALL_BACK_CM.items()],
                      *[[f"class of {w} cavalry / artillery", str(c)] for w, c in units.CLASS_BY_WEIGHT.items()],
                      ["below this class the unit is eliminated", str(units.LOWEST_CLASS)]]}
    return [fire, movement, melee]
