"""Markdown tables for docs/rulesets/italia-se-desta.md, generated from the data so they cannot drift.

The doc holds each table between ``<!-- generated:NAME -->`` and ``<!-- /generated:NAME -->``;
a test checks every block equals what this module produces. To refresh the doc after changing a
setting or a table::

    .venv/bin/python -m campo.engine.rulesets.italia.doc_tables docs/rulesets/italia-se-desta.md
"""

from __future__ import annotations

from collections.abc import Callable

from campo.engine.rulesets.doc_common import cell, num, refresh_main, settings_table
from campo.engine.rulesets.italia.army_lists import ARMY_LISTS
from campo.engine.rulesets.italia.settings import ItaliaSettings
from campo.engine.rulesets.italia.tables_movement import MOVEMENT_TABLE, Mover


def settings_markdown() -> str:
    """One row per setting: name, default, choices, meaning with citation (floats as Python writes them)."""
    return settings_table(ItaliaSettings.describe(), short_floats=False)


def movement_markdown() -> str:
    """ISD §8 movement table as held (artillery rows by the default reading of ISD A19)."""
    names = {
        Mover.INFANTRY: "Infantry / Corps commanders",
        Mover.CAVALRY: "Cavalry / Division generals",
        Mover.FOOT_ARTILLERY: "Foot artillery (A19)",
        Mover.HORSE_ARTILLERY: "Horse artillery (A19)",
    }
    lines = [
        '| mover | move | road, march column | linear obstacle / ford | area / hills (cap) | marsh / rice (cap) |',
        "|---|---|---|---|---|---|",
    ]
    for mover, row in MOVEMENT_TABLE.items():
        lines.append(
            f'| {names[mover]} | {row.move_in:g}" | {row.road_march_column_in:g}" | '
            f'−{row.linear_deduction_in:g}" | {num(row.area_cap_in)} | {num(row.marsh_cap_in)} |'
        )
    return "\n".join(lines)


def artillery_bands_markdown() -> str:
    """ISD §6 range bands and their modifiers as held (edges by the default reading of ISD A7)."""
    from campo.engine.rulesets.italia.reference import band_spans
    from campo.engine.rulesets.italia.tables_fire import ARTILLERY_BANDS, RANGE_MODIFIER

    spans = band_spans(ARTILLERY_BANDS, ItaliaSettings())

    def row(name: str, battery: str) -> str:
        cells = [f"{RANGE_MODIFIER[battery][r.table]:+d}".replace("+0", "0").replace("-", "−")
                 for r in ARTILLERY_BANDS]
        return f"| {name} | " + " | ".join(cells) + " |"

    return "\n".join([f"| range | {' | '.join(spans)} |", "|---" * (len(spans) + 1) + "|",
                      row("divisional (and rockets)", "divisional"), row("reserve", "reserve")])


def army_lists_markdown() -> str:
    """ISD Lists as held; *italic* = carried down from the row above, (blank) = empty in source."""
    lines = ["| army | troop type | size | weapon | grade | cost | flags |", "|---|---|---|---|---|---|---|"]
    for e in ARMY_LISTS:
        def mark(field: str, text: str) -> str:
            return f"*{text}*" if field in e.carried and text else text

        weapon = mark("weapon", "/".join(e.weapons)) if e.weapons else ("—" if e.arm.value == "cavalry" and e.costs else "(blank)")
        grade = mark("grade", e.grade.value) if e.grade else "(blank)"
        cost = mark("cost", " - ".join(f"{k} {v}".strip() for k, v in e.costs)) if e.costs else "(blank)"
        flags = [f for f, on in (("guard", e.guard), ("light", e.light), ("marksmen", e.marksmen)) if on]
        if e.cavalry_class:
            flags.append(f"{e.cavalry_class.value} cavalry")
        lines.append(
            f"| {e.army} | {cell(e.troop)} | {' - '.join(e.sizes)} | {weapon} | {grade} | {cost} | "
            f"{', '.join(flags)}{(' — ' + cell(e.note)) if e.note else ''} |"
        )
    return "\n".join(lines)


GENERATORS: dict[str, Callable[[], str]] = {
    "settings": settings_markdown,
    "movement": movement_markdown,
    "artillery-bands": artillery_bands_markdown,
    "army-lists": army_lists_markdown,
}


if __name__ == "__main__":
    raise SystemExit(refresh_main(GENERATORS, module="campo.engine.rulesets.italia.doc_tables"))
