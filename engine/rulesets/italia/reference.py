"""Quick-reference tables for L'Italia s'è desta!, built from its tables modules (the numbers the verdicts use),
for the umpire's rules panel: ``{"title", "cites", "columns", "rows"[, "gap"]}`` of plain strings."""

from __future__ import annotations

from typing import Any

from collections.abc import Sequence

from campo.engine.rulesets.doc_common import num
from campo.engine.rulesets.italia.settings import ItaliaSettings
from campo.engine.rulesets.italia.tables_fire import BandRow, inclusive_edges


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
    artillery = {"title": "Artillery range bands", "cites": "ISD §6, ISD A7",
                 "columns": ["range", "band", "divisional", "reserve"],
                 "rows": [[span, r.band.value, *(f"{fire.RANGE_MODIFIER[b][r.table]:+d}"
                                                 for b in ("divisional", "reserve"))]
                          for span, r in zip(band_spans(fire.ARTILLERY_BANDS, settings),
                                             fire.ARTILLERY_BANDS)]}
    musket = fire.MUSKETRY_BANDS[-1].upper_in
    edge = "up to and at" if fire.inclusive_edges(settings) else "short of"
    fire_facts = {
        "title": "Fire", "cites": "ISD §6, ISD §7, ISD A7, ISD A15, ISD A18",
        "columns": ["what", "value"],
        "rows": [["musketry range", f"{edge} {num(musket)}"],
                 ["musketry arc (each side of front)", f"{fire.MUSKETRY_ARC_HALF_DEG:g}°"],
                 ["light infantry arc", f"{fire.LIGHT_INFANTRY_ARC_HALF_DEG:g}°"],
                 ["artillery arc", f"{fire.ARTILLERY_ARC_HALF_DEG:g}°"],
                 ["artillery maximum range", f"{edge} {num(fire.ARTILLERY_MAX_RANGE_IN)}"],
                 ["artillery sight gap", num(settings.a18_artillery_corridor_in)],
                 ["fire over friends at least", num(fire.FIRE_OVER_FRIENDS_CLEARANCE_IN)],
                 ["sight inside a wood or town at most",
                  num(fire.LOS_MAX_DEPTH_IN_WOOD_OR_TOWN_IN)],
                 ["musketry hits on", f"{fire.MUSKETRY_HIT_ON}+"]],
    }
    melee_table = {"title": "Melee results (score difference)", "cites": "ISD §9",
                   "columns": ["difference", "result"],
                   "rows": [[label, r.text] for label, r in melee.melee_rows()]}
    melee_facts = {
        "title": "Charges and melee", "cites": "ISD §9",
        "columns": ["what", "value"],
        "rows": [["charge arc (each side of front)", f"{melee.CHARGE_ARC_HALF_DEG:g}°"],
                 ["enemy zone", num(melee.ENEMY_ZONE_IN)],
                 ["supports at most", str(melee.MAX_SUPPORTS)],
                 ["artillery support range", num(melee.ARTILLERY_SUPPORT_RANGE_IN)]],
    }
    return [movement, fire_facts, artillery, melee_facts, melee_table,
            man.manoeuvre_table(False, "Manoeuvre: ordered unit"),
            man.manoeuvre_table(True, "Manoeuvre: disordered unit")]


def band_spans(rows: Sequence[BandRow], settings: ItaliaSettings) -> list[str]:
    """Each range band's edges as ISD A7 reads them in ``settings``: "over 3" to 12"" or "3" to
    under 12"" (the rules panel, and the docs under the default; the verdicts read the same
    table, `tables_fire.band_row`)."""
    out, lower = [], None
    inclusive = inclusive_edges(settings)
    for r in rows:
        if lower is None:
            out.append(f'up to {num(r.upper_in)}' if inclusive else f'under {num(r.upper_in)}')
        elif inclusive:
            out.append(f'over {num(lower)} to {num(r.upper_in)}')
        else:
            out.append(f'{num(lower)} to under {num(r.upper_in)}')
        lower = r.upper_in
    return out
