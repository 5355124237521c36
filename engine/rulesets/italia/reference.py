"""Quick-reference tables for L'Italia s'è desta!, built from its tables modules (the numbers the verdicts use),
for the umpire's rules panel: ``{"title", "cites", "columns", "rows"[, "gap"]}`` of plain strings."""

from __future__ import annotations

from typing import Any

from campo.engine.rulesets.italia.settings import ItaliaSettings
from campo.engine.rulesets.doc_common import num, words


def reference(settings: ItaliaSettings) -> list[dict[str, Any]]:
    """Quick-reference tables for L'Italia s'è desta! (ISD)."""
    from campo.engine.rulesets.italia import tables_fire as fire
    from campo.engine.rulesets.italia import tables_manoeuvre as man
    from campo.engine.rulesets.italia import tables_melee as melee
    from campo.engine.rulesets.italia import tables_movement as move

    movement = {
        "title": "Movement (inches)", "cites": "ISD §8, ISD A19",
        "columns": ["mover", "move", "road (march column)", "linear / ford (deduct)", "area / hill (cap)",
                    "marsh / rice (cap)"],
        "rows": [[m.value.replace("_", " "), num(r.move_in), num(r.road_march_column_in),
                  num(r.linear_deduction_in), num(r.area_cap_in), num(r.marsh_cap_in)]
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
        "rows": [["musketry range", num(fire.MUSKETRY_RANGE_IN)],
                 ["musketry arc (each side of front)", f"{fire.MUSKETRY_ARC_HALF_DEG:g}°"],
                 ["light infantry arc", f"{fire.LIGHT_INFANTRY_ARC_HALF_DEG:g}°"],
                 ["artillery arc", f"{fire.ARTILLERY_ARC_HALF_DEG:g}°"],
                 ["artillery maximum range", num(fire.ARTILLERY_MAX_RANGE_IN)],
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
                 ["enemy zone", num(melee.ENEMY_ZONE_IN)],
                 ["supports at most", str(melee.MAX_SUPPORTS)],
                 ["artillery support range", num(melee.ARTILLERY_SUPPORT_RANGE_IN)]],
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
