"""The umpire's rules panel: the ruleset's unit, its settings (the rulebook's ambiguities and the
values the rulebook does not give) with the values in force, and quick-reference tables read
straight from the engine's rule data.

Every ruleset's settings come from its own ``describe_settings()``; Federico and ATTILA rows carry
a ``gap`` flag (the page shows those under "Not in the rulebook: set for your group"). Tables are
built from the engine's constants (never retyped here), so the page always shows the numbers the
engine uses. Each table is ``{"title", "cites", "columns", "rows"}`` of plain strings, plus
``"gap": true`` when its numbers are the group's choice rather than the rulebook's.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from typing import Any

SETTINGS_MODULES = {
    "italia-se-desta": "campo.engine.rulesets.italia.settings",
    "federico": "campo.engine.rulesets.federico.settings",
    "attila": "campo.engine.rulesets.attila.settings",
}
"""Where each ruleset's `describe_settings()` lives."""

GAP_HEADING = "Not in the rulebook: set for your group"


def _num(v: float | None, unit: str = '"') -> str:
    if v is None:
        return "cannot enter"
    return f"{v:g}{unit}"


def _words(name: str) -> str:
    return name.replace("_", " ")


def _jsonable(value: Any) -> Any:
    """A setting's value in JSON form (tuples and sets become lists)."""
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(_jsonable(v) for v in value)
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


# -- L'Italia s'è desta! -------------------------------------------------------------------------


def italia_reference(values: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """Quick-reference tables for L'Italia s'è desta! (ISD)."""
    from campo.engine.rulesets.italia import tables_fire as fire
    from campo.engine.rulesets.italia import tables_manoeuvre as man
    from campo.engine.rulesets.italia import tables_melee as melee
    from campo.engine.rulesets.italia import tables_movement as move

    movement = {
        "title": "Movement (inches)", "cites": "ISD §8, ISD A19",
        "columns": ["mover", "move", "road (march column)", "linear / ford (deduct)", "area / hill (cap)",
                    "marsh / rice (cap)"],
        "rows": [[m.value.replace("_", " "), _num(r.move_in), _num(r.road_march_column_in),
                  _num(r.linear_deduction_in), _num(r.area_cap_in), _num(r.marsh_cap_in)]
                 for m, r in move.MOVEMENT_TABLE.items()],
    }
    lower = 0.0
    bands = []
    for band, upper in fire.BAND_UPPER_IN.items():
        bands.append([f'{lower:g}" – {upper:g}"', f"{fire.RANGE_MODIFIER['divisional'][band]:+d}",
                      f"{fire.RANGE_MODIFIER['reserve'][band]:+d}"])
        lower = upper
    artillery = {"title": "Artillery range bands", "cites": "ISD §6, ISD A7",
                 "columns": ["range", "divisional", "reserve"], "rows": bands}
    fire_facts = {
        "title": "Fire", "cites": "ISD §6, ISD §7",
        "columns": ["what", "value"],
        "rows": [["musketry range", _num(fire.MUSKETRY_RANGE_IN)],
                 ["musketry arc (each side of front)", f"{fire.MUSKETRY_ARC_HALF_DEG:g}°"],
                 ["light infantry arc", f"{fire.LIGHT_INFANTRY_ARC_HALF_DEG:g}°"],
                 ["artillery arc", f"{fire.ARTILLERY_ARC_HALF_DEG:g}°"],
                 ["artillery maximum range", _num(fire.ARTILLERY_MAX_RANGE_IN)],
                 ["musketry hits on", f"{fire.MUSKETRY_HIT_ON}+"]],
    }
    results = []
    for low, high, r in melee.MELEE_RESULTS:
        results.append([f"{low}–{high}" if high is not None else f"{low}+", r.text])
    melee_table = {"title": "Melee results (score difference)", "cites": "ISD §9",
                   "columns": ["difference", "result"], "rows": results}
    melee_facts = {
        "title": "Charges and melee", "cites": "ISD §9",
        "columns": ["what", "value"],
        "rows": [["charge arc (each side of front)", f"{melee.CHARGE_ARC_HALF_DEG:g}°"],
                 ["enemy zone", _num(melee.ENEMY_ZONE_IN)],
                 ["supports at most", str(melee.MAX_SUPPORTS)],
                 ["artillery support range", _num(melee.ARTILLERY_SUPPORT_RANGE_IN)]],
    }

    def manoeuvre(rows: tuple[tuple[int, Any], ...], title: str) -> dict[str, Any]:
        out, low = [], None
        for upper, r in rows:
            label = f"up to {upper}" if low is None else (f"{low}–{upper}" if upper < 99 else f"{low}+")
            out.append([label, r.italian, r.text])
            low = upper + 1
        return {"title": title, "cites": "ISD ManTab", "columns": ["2d6 total", "result", "effect"], "rows": out}

    return [movement, fire_facts, artillery, melee_facts, melee_table,
            manoeuvre(man.ORDERED_ROWS, "Manoeuvre: ordered unit"),
            manoeuvre(man.DISORDERED_ROWS, "Manoeuvre: disordered unit")]


# -- Federico ------------------------------------------------------------------------------------


def federico_reference(values: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """Fire ranges and dice per weapon, movement rates, fall-back distances, classes (Federico)."""
    from campo.engine.rulesets.federico import units

    fire = {"title": "Fire ranges (cm)", "cites": 'Federico "Raggio di tiro", Federico "Esecuzione del tiro"',
            "columns": ["weapon", "short", "long", "dice per base"],
            "rows": [[_words(w), _num(s, " cm"), _num(lg, " cm"), str(units.DICE[w])]
                     for w, (s, lg) in units.RANGES_CM.items()]}
    movement = {"title": "Movement (cm per turn)", "cites": 'Federico "Movimenti"',
                "columns": ["troops", "formation", "move"],
                "rows": [[arm, _words(form), _num(cm, " cm")] for (arm, form), cm in units.MOVE_CM.items()]}
    melee = {"title": "Melee and classes", "cites": 'Federico "Mischie", Federico "Classificazione truppe"',
             "columns": ["what", "value"],
             "rows": [*[[f"fall back: {arm}", _num(cm, " cm")] for arm, cm in units.FALL_BACK_CM.items()],
                      *[[f"class of {w} cavalry / artillery", str(c)] for w, c in units.CLASS_BY_WEIGHT.items()],
                      ["below this class the unit is eliminated", str(units.LOWEST_CLASS)]]}
    return [fire, movement, melee]


# -- ATTILA --------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=8)
def _attila_group_costs(scale_key: tuple[tuple[str, Any], ...]) -> list[list[str]]:
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


def attila_reference(values: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """Shooting bands and ranges, Control Points, movement rates (gaps), rally scores (ATTILA)."""
    from campo.engine.rulesets.attila import contact, morale, shooting, units
    from campo.engine.rulesets.attila.settings import load_settings

    s = load_settings(values or {})
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
               "rows": [[w, units.SHOOTING_DIE[w], _num(cm * s.at18_distance_scale, " cm"),
                         f"{shooting.ARC_HALF_DEG:g}°"] for w, cm in units.MAX_RANGE_CM.items()]}
    key = tuple(sorted((k, v) for k, v in (values or {}).items()
                       if k in ("at14_general_distance", "at18_distance_scale")))
    costs = {"title": "Control Points: cost to move a unit or group", "cites": "ATT 4.C, ATT 10.A, ATT AT14",
             "columns": ["situation", "cost", "army Demoralised"], "rows": _attila_group_costs(key)}
    dice = {"title": "Control Point dice and rallying", "cites": "ATT 4.E, ATT 9.A, ATT T",
            "columns": ["discipline", "PC die", "wing die (optional)", "rally on 1d8"],
            "rows": [[d, morale.PC_DIE[d], morale.WING_PC_DIE[d], f"{morale.RALLY_ON[d]}+"]
                     for d in morale.PC_DIE]}
    dice["rows"].append([f"General's reach: {contact.GENERAL_REACH_CM * s.at18_distance_scale:g} cm", "", "", ""])
    moves = [[_words(t), _num(getattr(s, f"move_cm_{t.lower()}") * s.at18_distance_scale, " cm"),
              GAP_HEADING.lower()] for t in units.TROOP_TYPES]
    moves.append(["General", _num(units.GENERAL_MOVE_CM * s.at18_distance_scale, " cm"), "ATT 5.E"])
    moves.append(["wounded General", _num(units.WOUNDED_GENERAL_MOVE_CM * s.at18_distance_scale, " cm"), "ATT 8.C"])
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


REFERENCES = {"italia-se-desta": italia_reference, "federico": federico_reference, "attila": attila_reference}


def settings_rows(ruleset: str, values: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ruleset's `describe_settings()` rows with `value` (in force) and `overridden`."""
    from campo.engine.rulesets import get_ruleset

    describe = importlib.import_module(SETTINGS_MODULES[ruleset]).describe_settings
    in_force = get_ruleset(ruleset).load_settings(values)
    rows = describe()
    for row in rows:
        row["value"] = _jsonable(getattr(in_force, row["name"]))
        row["default"] = _jsonable(row["default"])
        row["overridden"] = row["name"] in values
        row.setdefault("gap", False)
    return rows


def rules_info(ruleset: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """What `/api/rules` returns: unit, settings (with `value` in force and `gap`), the gap
    heading, and the reference tables."""
    from campo.engine.rulesets import get_ruleset

    rs = get_ruleset(ruleset)
    return {"ruleset": rs.name, "unit": rs.unit, "mm_per_unit": rs.mm_per_unit,
            "gap_heading": GAP_HEADING,
            "settings": settings_rows(ruleset, values),
            "reference": REFERENCES[ruleset](values)}
