"""Quick-reference tables for ATTILA, built from its tables modules (the numbers the verdicts use),
for the umpire's rules panel: ``{"title", "cites", "columns", "rows"[, "gap"]}`` of plain strings."""

from __future__ import annotations

import functools
from typing import Any

from campo.engine.rulesets.attila.settings import GAP_PREFIX, AttilaSettings
from campo.engine.rulesets.doc_common import num, words


@functools.lru_cache(maxsize=8)
def _group_costs(scale_key: tuple[tuple[str, Any], ...]) -> list[list[str]]:
    """The Control Point cost of moving one group in each situation, asked of the engine itself
    (tiny scenarios through `engine.analyze`), so the table is what the engine charges."""
    from campo.engine import analyze

    settings = dict(scale_key)

    def cost(with_general: bool, demoralised: bool) -> int:
        bases = [{"id": "g", "side": "A", "type": "FP", "x_mm": 600, "y_mm": 200, "heading_deg": 90,
                  "width_mm": 40, "depth_mm": 20, "traits": {"group": "g"}}]
        if with_general:
            bases.append({"id": "gen", "side": "A", "type": "general", "x_mm": 700, "y_mm": 200,
                          "heading_deg": 90, "width_mm": 40, "depth_mm": 40, "traits": {}})
        scenario = {"ruleset": "attila", "table": {"width_mm": 1800, "depth_mm": 1200}, "terrain": [],
                    "bases": bases, "settings": settings,
                    "armies": {"A": {"discipline": "regular", "demoralised": demoralised}}}
        return int(analyze(scenario)["bases"]["g"]["move_cost"])

    return [["General alive, free and within 40 cm", str(cost(True, False)), str(cost(True, True))],
            ["General dead, in contact or farther than 40 cm", str(cost(False, False)), str(cost(False, True))]]


def reference(settings: AttilaSettings) -> list[dict[str, Any]]:
    """Shooting bands and ranges, Control Points, movement rates (gaps), rally scores (ATTILA)."""
    from campo.engine.rulesets.attila import contact, morale, shooting, units
    s = settings
    bands = {"title": "Shooting bands", "cites": "ATT 6.A, ATT 6.B, ATT T, ATT AT6",
             "columns": ["band", "distance", "score needed"],
             "rows": [["short", f"< {shooting.SHORT_CM:g} cm", f"{units.SCORE_NEEDED['short']}+"],
                      ["medium", f"{shooting.SHORT_CM:g}–{shooting.MEDIUM_CM:g} cm (inclusive)"
                       if s.at6_band_edges == "chapter_6" else f"{shooting.SHORT_CM:g}–<{shooting.SUMMARY_LONG_CM:g} cm",
                       f"{units.SCORE_NEEDED['medium']}+"],
                      ["long", f"> {shooting.MEDIUM_CM:g} cm" if s.at6_band_edges == "chapter_6"
                       else f"{shooting.SUMMARY_LONG_CM:g} cm or more", f"{units.SCORE_NEEDED['long']}+"]]}
    weapons = {"title": "Missile weapons", "cites": "ATT T, ATT 6.A",
               "columns": ["weapon", "die", "maximum range", "arc (each side)"],
               "rows": [[w, units.SHOOTING_DIE[w], num(cm * s.at18_distance_scale, " cm"),
                         f"{shooting.ARC_HALF_DEG:g}°"] for w, cm in units.MAX_RANGE_CM.items()]}
    key = tuple((k, getattr(s, k)) for k in ("at14_general_distance", "at18_distance_scale"))
    costs = {"title": "Control Points: cost to move a unit or group", "cites": "ATT 4.C, ATT 10.A, ATT AT14",
             "columns": ["situation", "cost", "army Demoralised"], "rows": _group_costs(key)}
    dice = {"title": "Control Point dice and rallying", "cites": "ATT 4.E, ATT 9.A, ATT T",
            "columns": ["discipline", "PC die", "wing die (optional)", "rally on 1d8"],
            "rows": [[d, morale.PC_DIE[d], morale.WING_PC_DIE[d], f"{morale.RALLY_ON[d]}+"]
                     for d in morale.PC_DIE]}
    dice["rows"].append([f"General's reach: {contact.GENERAL_REACH_CM * s.at18_distance_scale:g} cm", "", "", ""])
    moves = [[words(t), num(getattr(s, f"move_cm_{t.lower()}") * s.at18_distance_scale, " cm"),
              GAP_PREFIX] for t in units.TROOP_TYPES]
    moves.append(["General", num(units.GENERAL_MOVE_CM * s.at18_distance_scale, " cm"), "ATT 5.E"])
    moves.append(["wounded General", num(units.WOUNDED_GENERAL_MOVE_CM * s.at18_distance_scale, " cm"), "ATT 8.C"])
    movement = {"title": "Movement rates", "cites": "ATT 5, ATT AT11", "gap": True,
                "columns": ["troops", "move", "source"], "rows": moves}
    army = {"title": "Army morale and victory", "cites": "ATT 10, ATT 15",
            "columns": ["what", "value"],
            "rows": [["Demoralised at losses of", f"{morale.DEMORALISED_SHARE:.0%} of the army total"],
                     ["beaten at losses of", f"{morale.VICTORY_SHARE:.0%}"],
                     ["General counts as", f"{morale.GENERAL_COUNTS} units"],
                     ["Camp counts as", f"{morale.CAMP_COUNTS} units"],
                     ["last turn", str(morale.LAST_TURN)]]}
    return [bands, weapons, costs, dice, movement, army]
