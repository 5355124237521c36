"""Markdown tables for docs/rulesets/federico.md, generated from the data so they cannot drift.

The doc holds each table between ``<!-- generated:NAME -->`` and ``<!-- /generated:NAME -->``;
a test checks every block equals what this module produces. To refresh the doc::

    .venv/bin/python -m campo.engine.rulesets.federico.doc_tables docs/rulesets/federico.md
"""

from __future__ import annotations

from collections.abc import Callable

from campo.engine.rulesets.doc_common import refresh_main, settings_table
from campo.engine.rulesets.federico.settings import GAP_PREFIX, FedericoSettings
from campo.engine.rulesets.federico import units
from campo.engine.rulesets.federico.units import DICE, MOVE_CM, RANGES_CM


def ambiguities_markdown() -> str:
    rows = [r for r in FedericoSettings.describe() if r["ambiguity"]]
    return settings_table(rows, gap_prefix=GAP_PREFIX)


def gaps_markdown() -> str:
    rows = [r for r in FedericoSettings.describe() if not r["ambiguity"]]
    return settings_table(rows, gap_prefix=GAP_PREFIX)


def rules_markdown() -> str:
    """Ranges, dice and moves as held (Federico "Raggio di tiro", "Esecuzione del tiro",
    "Movimenti")."""
    lines = ["| weapon | short (cm) | long (cm) | dice per base |", "|---|---|---|---|"]
    for weapon, (short, long_) in RANGES_CM.items():
        lines.append(f"| {weapon.replace('_', ' ')} | {short:g} | {long_:g} | {DICE[weapon]} |")
    lines += ["", "| troops | formation | move (cm) |", "|---|---|---|"]
    for (arm, formation), cm in MOVE_CM.items():
        lines.append(f"| {arm} | {formation.replace('_', ' ')} | {cm:g} |")
    return "\n".join(lines)


def modifiers_markdown() -> str:
    """The fire, morale-test and melee-die modifier tables and the melee results, as the
    verdicts read them (`units`; Federico "Modificatori", "Mischie")."""
    out: list[str] = []
    for title, rows in (("Fire, each die (Federico \"Modificatori\")", units.FIRE_MODIFIERS),
                        ("Defender's morale test, 1D6 (Federico \"Mischie\")",
                         units.MORALE_MODIFIERS),
                        ("Melee die (Federico \"Mischie\")", units.MELEE_MODIFIERS)):
        out += [f"| {title} | ± | the text |", "|---|---|---|"]
        out += [f"| {r.text} | {r.delta:+d} | «{r.quote}» |" for r in rows.values()]
        out.append("")
    out += ["| melee die, modified | result |", "|---|---|"]
    out += [f"| {span} | {text} |" for span, _, text in units.melee_result_spans()]
    return "\n".join(out)


GENERATORS: dict[str, Callable[[], str]] = {
    "ambiguities": ambiguities_markdown,
    "gaps": gaps_markdown,
    "rules": rules_markdown,
    "modifiers": modifiers_markdown,
}


if __name__ == "__main__":
    raise SystemExit(refresh_main(GENERATORS, module="campo.engine.rulesets.federico.doc_tables"))
