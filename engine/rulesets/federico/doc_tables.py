"""Markdown tables for docs/rulesets/federico.md, generated from the data so they cannot drift.

The doc holds each table between ``<!-- generated:NAME -->`` and ``<!-- /generated:NAME -->``;
a test checks every block equals what this module produces. To refresh the doc::

    .venv/bin/python -m engine.rulesets.federico.doc_tables docs/rulesets/federico.md
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from engine.rulesets.federico.settings import GAP_PREFIX, describe_settings
from engine.rulesets.federico.units import DICE, MOVE_CM, RANGES_CM


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return f"{v:g}" if isinstance(v, float) else str(v)


def _table(rows: list[dict]) -> str:
    lines = ["| setting | default | choices | what it means (citation) |", "|---|---|---|---|"]
    for row in rows:
        choices = ", ".join(_value(c) for c in row["choices"]) if row["choices"] else row["type"]
        desc = row["description"]
        if row["gap"]:
            desc = "**" + GAP_PREFIX + "**" + desc[len(GAP_PREFIX):]
        lines.append(f"| `{row['name']}` | `{_value(row['default'])}` | {_cell(choices)} | "
                     f"{_cell(desc)} |")
    return "\n".join(lines)


def ambiguities_markdown() -> str:
    return _table([r for r in describe_settings() if r["ambiguity"]])


def gaps_markdown() -> str:
    return _table([r for r in describe_settings() if not r["ambiguity"]])


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


GENERATORS: dict[str, Callable[[], str]] = {
    "ambiguities": ambiguities_markdown,
    "gaps": gaps_markdown,
    "rules": rules_markdown,
}


def refresh(text: str) -> str:
    """The doc text with every generated block replaced by fresh output."""
    for name, gen in GENERATORS.items():
        pat = re.compile(rf"(<!-- generated:{name} -->\n)(.*?)(<!-- /generated:{name} -->)", re.S)
        if not pat.search(text):
            raise ValueError(f"the doc has no <!-- generated:{name} --> block")
        text = pat.sub(lambda m, g=gen: m.group(1) + g() + "\n" + m.group(3), text)
    return text


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m engine.rulesets.federico.doc_tables DOC.md", file=sys.stderr)
        return 2
    path = Path(args[0])
    path.write_text(refresh(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
