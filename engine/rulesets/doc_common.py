"""Shared machinery for the rulesets' generated Markdown tables (docs/rulesets/*.md).

A ruleset's ``doc_tables`` module names its generators (block name -> function returning Markdown);
the doc holds each table between ``<!-- generated:NAME -->`` and ``<!-- /generated:NAME -->`` and
``refresh_blocks`` rewrites them, so the docs cannot drift from the data.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

Generators = Mapping[str, Callable[[], str]]

SETTINGS_HEADER = ["| setting | default | choices | what it means (citation) |", "|---|---|---|---|"]


def cell(text: object) -> str:
    """Text safe inside one Markdown table cell (pipes escaped, one line)."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def value_literal(v: object, *, short_floats: bool = True) -> str:
    """A setting value as the docs spell it: JSON-like booleans, quoted strings, [lists].

    ``short_floats`` writes 12.0 as ``12`` (``:g``); without it floats keep Python's ``str``.
    """
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, list):
        return "[" + ", ".join(value_literal(x, short_floats=short_floats) for x in v) + "]"
    if short_floats and isinstance(v, float):
        return f"{v:g}"
    return str(v)


def settings_table(
    rows: Iterable[Mapping[str, Any]], *, gap_prefix: str | None = None, short_floats: bool = True
) -> str:
    """One Markdown row per ``describe_settings`` row: name, default, choices (or the type), meaning.

    With ``gap_prefix``, rows marked ``gap`` show that prefix in bold (the group's choice, not a rule).
    """
    lines = list(SETTINGS_HEADER)
    for row in rows:
        if row["choices"]:
            choices = ", ".join(value_literal(c, short_floats=short_floats) for c in row["choices"])
        else:
            choices = row["type"]
        desc = row["description"]
        if gap_prefix is not None and row.get("gap"):
            desc = "**" + gap_prefix + "**" + desc[len(gap_prefix):]
        default = value_literal(row["default"], short_floats=short_floats)
        lines.append(f"| `{row['name']}` | `{default}` | {cell(choices)} | {cell(desc)} |")
    return "\n".join(lines)


def block_pattern(name: str) -> re.Pattern[str]:
    """The generated block NAME in a doc: opening marker, body, closing marker."""
    return re.compile(rf"(<!-- generated:{name} -->\n)(.*?)(<!-- /generated:{name} -->)", re.S)


def refresh_blocks(text: str, generators: Generators) -> str:
    """The doc text with every generated block replaced by fresh output; a missing block is an error."""
    for name, gen in generators.items():
        pat = block_pattern(name)
        if not pat.search(text):
            raise ValueError(f"the doc has no <!-- generated:{name} --> block")
        text = pat.sub(lambda m, g=gen: m.group(1) + g() + "\n" + m.group(3), text)
    return text


def refresh_main(generators: Generators, *, module: str) -> int:
    """Command line of a module that generates doc blocks (``python -m MODULE DOC.md``):
    rewrite the one doc given, in place."""
    args = sys.argv[1:]
    if len(args) != 1:
        print(f"usage: python -m {module} DOC.md", file=sys.stderr)
        return 2
    path = Path(args[0])
    path.write_text(refresh_blocks(path.read_text(encoding="utf-8"), generators), encoding="utf-8")
    return 0


def num(v: float | None, unit: str = '"') -> str:
    """A reference table's length: ``12"`` or ``9 cm``; None is terrain the troops cannot enter."""
    if v is None:
        return "cannot enter"
    return f"{v:g}{unit}"


def words(name: str) -> str:
    """A code name as words (``march_column`` -> ``march column``)."""
    return name.replace("_", " ")
