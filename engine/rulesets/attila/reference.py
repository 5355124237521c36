"""Quick-reference tables for ATTILA, for the umpire's rules panel: ``{"title", "cites",
"columns", "rows"[, "gap"]}`` of plain strings, built from `tables` and the readings the verdicts
use (`shooting.band_table`), so the panel shows the numbers the engine applies."""

from __future__ import annotations

from typing import Any

from campo.engine.rulesets.attila import tables
from campo.engine.rulesets.attila.settings import GAP_PREFIX, AttilaSettings
from campo.engine.rulesets.attila.shooting import BandRow, band_table
from campo.engine.rulesets.doc_common import num, words


def band_range(row: BandRow) -> str:
    """The band's distances as the umpire reads them: '< 5 cm', '5–10 cm (inclusive)', 'over 10
    cm, up to 15 cm', 'from 5 to under 11 cm' ..."""
    lo, hi = f"{row.lower:g}", f"{row.upper:g}"
    if row.lower == 0.0:
        return f"< {hi} cm" if not row.upper_included else f"up to {hi} cm"
    if row.lower_included and row.upper_included:
        return f"{lo}–{hi} cm (inclusive)"
    if row.lower_included:
        return f"from {lo} to under {hi} cm"
    return f"over {lo} cm, up to {hi} cm"


def reference(settings: AttilaSettings) -> list[dict[str, Any]]:
    """Shooting bands and ranges, Control Points, movement rates (gaps), rally scores, morale."""
    s = settings
    k = s.at18_distance_scale
    longest = max(tables.MAX_RANGE_CM.values()) * k
    bands = {"title": "Shooting bands", "cites": "ATT 6.A, ATT 6.B, ATT T, ATT AT6",
             "columns": ["band", "distance", "score needed"],
             "rows": [[r.band.value, band_range(r), f"{tables.SCORE_NEEDED[r.band.value]}+"]
                      for r in band_table(s, longest)]}
    weapons = {"title": "Missile weapons", "cites": "ATT T, ATT 6.A",
               "columns": ["weapon", "die", "maximum range", "arc (each side)"],
               "rows": [[w, tables.SHOOTING_DIE[w], num(cm * k, " cm"),
                         f"{tables.ARC_HALF_DEG:g}°"] for w, cm in tables.MAX_RANGE_CM.items()]}
    costs = {"title": "Control Points: cost to move a unit or group",
             "cites": "ATT 4.C, ATT 10.A, ATT AT14",
             "columns": ["situation", "cost", "army Demoralised"],
             "rows": [[f"General alive, free and within {tables.GENERAL_REACH_CM * k:g} cm",
                       str(tables.PC_COST[(False, False)]), str(tables.PC_COST[(True, False)])],
                      [f"General dead, in contact or farther than "
                       f"{tables.GENERAL_REACH_CM * k:g} cm",
                       str(tables.PC_COST[(False, True)]), str(tables.PC_COST[(True, True)])]]}
    dice = {"title": "Control Point dice and rallying", "cites": "ATT 4.E, ATT 9.A, ATT T",
            "columns": ["discipline", "PC die", "wing die (optional)", "rally on 1d8"],
            "rows": [[d, tables.PC_DIE[d], tables.WING_PC_DIE[d], f"{tables.RALLY_ON[d]}+"]
                     for d in tables.PC_DIE]}
    dice["rows"].append([f"General's reach: {tables.GENERAL_REACH_CM * k:g} cm", "", "", ""])
    moves = [[words(t), num(getattr(s, f"move_cm_{t.lower()}") * k, " cm"), GAP_PREFIX]
             for t in tables.TROOP_TYPES]
    moves.append(["General", num(tables.GENERAL_MOVE_CM * k, " cm"), "ATT 5.E"])
    moves.append(["wounded General", num(tables.WOUNDED_GENERAL_MOVE_CM * k, " cm"), "ATT 8.C"])
    movement = {"title": "Movement rates", "cites": "ATT 5, ATT AT11", "gap": True,
                "columns": ["troops", "move", "source"], "rows": moves}
    army = {"title": "Army morale and victory", "cites": "ATT 10, ATT 15",
            "columns": ["what", "value"],
            "rows": [["Demoralised at losses of",
                      f"{tables.DEMORALISED_SHARE:.0%} of the army total"],
                     ["beaten at losses of", f"{tables.VICTORY_SHARE:.0%}"],
                     ["General counts as", f"{tables.GENERAL_COUNTS} units"],
                     ["Camp counts as", f"{tables.CAMP_COUNTS} units"],
                     ["last turn", str(tables.LAST_TURN)]]}
    return [bands, weapons, costs, dice, movement, army]
