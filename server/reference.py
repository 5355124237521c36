"""The umpire's rules panel: the ruleset's unit, its settings (the rulebook's ambiguities) with the
values in force, and quick-reference tables read straight from the engine's rule data.

Tables are built from the engine's constants (never retyped here), so the page always shows the
numbers the engine uses. Each table is `{"title", "cites", "columns", "rows"}` of plain strings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _num(v: float | None, unit: str = '"') -> str:
    if v is None:
        return "cannot enter"
    return f"{v:g}{unit}"


def italia_reference() -> list[dict[str, Any]]:
    """Quick-reference tables for L'Italia s'è desta! (ISD)."""
    from engine.rulesets.italia import tables_fire as fire
    from engine.rulesets.italia import tables_manoeuvre as man
    from engine.rulesets.italia import tables_melee as melee
    from engine.rulesets.italia import tables_movement as move

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


def rules_info(ruleset: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """What `/api/rules` returns: unit, settings (with `value` in force) and reference tables."""
    from engine.rulesets import get_ruleset

    rs = get_ruleset(ruleset)
    info: dict[str, Any] = {"ruleset": rs.name, "unit": rs.unit, "mm_per_unit": rs.mm_per_unit,
                            "settings": [], "reference": []}
    if ruleset == "italia-se-desta":
        from engine.rulesets.italia.settings import describe_settings

        in_force = rs.load_settings(values)
        rows = describe_settings()
        for row in rows:
            row["value"] = getattr(in_force, row["name"])
            row["overridden"] = row["name"] in values
        info["settings"] = rows
        info["reference"] = italia_reference()
    return info
