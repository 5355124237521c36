"""Checking what the page sends before anything is written: a table or a roster as JSON.

The page's drafts have exactly the shape of the files (`table.toml`, `roster.toml` as JSON), and
are checked by the same code that reads the files (the strict pydantic models of
`campo.vision.tabletop`, the cross checks, the rulebook's vocabulary), so a draft the page accepts
is a file every `campo` command accepts. Each problem names its field by path
(``bases[2].traits.weapon``) so the page marks that very field; warnings (a base size that is not
the rulebook's) never block a save.
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from campo.errors import CampoInputError, FileFormatError
from campo.server.roster import roster_rules_problems
from campo.vision.tabletop import (
    Roster, TableConfig, anchor_clash_problems, dictionary_size, dump_roster, dump_table, roster_problems,
    table_problems,
)
from campo.vision.toml_files import Problem, format_loc, pydantic_problems, raise_problems

MARKER_MARGIN_MM = 2.0
"""Paper left around a marker's quiet zone when the builder proposes a marker size for a base."""
MAX_PROPOSED_MARKER_MM = 30.0
SMALL_MARKER_MM = 12.0
"""Below this a marker needs a close camera: the table check says whether it is read."""


@dataclass(frozen=True)
class Checked:
    """A draft's verdict: the value when it is valid, and every problem and warning with its field."""

    value: Any
    problems: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.value is not None and not self.problems

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "problems": self.problems, "warnings": self.warnings}


def _as_json(problems: list[Problem]) -> list[dict[str, Any]]:
    return [{"path": list(p.loc), "key": format_loc(p.loc), "message": p.message} for p in problems]


def marker_cells(dictionary: str) -> int:
    """Cells across a marker of ``dictionary``, its black border included (6 for 4x4)."""
    import cv2

    dictionary_size(dictionary)
    return int(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)).markerSize) + 2


def proposed_marker_mm(width_mm: float, depth_mm: float, dictionary: str) -> float:
    """The largest whole-mm marker whose one-cell quiet zone fits on the base with a margin.

    >>> proposed_marker_mm(80, 40, "DICT_4X4_250"), proposed_marker_mm(50, 20, "DICT_4X4_250")
    (28.0, 13.0)
    """
    cells = marker_cells(dictionary)
    fit = min(width_mm, depth_mm) - MARKER_MARGIN_MM
    return float(max(1, min(MAX_PROPOSED_MARKER_MM, math.floor(fit * cells / (cells + 2)))))


def check_table(data: Any) -> Checked:
    """A `table.toml` draft (as JSON)."""
    try:
        table = TableConfig.model_validate(data)
    except ValidationError as exc:
        return Checked(None, _as_json(pydantic_problems(exc)))
    problems = table_problems(table)
    warnings = []
    w, d = table.table.width_mm, table.table.depth_mm
    for i, a in enumerate(table.anchors):
        if not (0 <= a.x_mm <= w and 0 <= a.y_mm <= d):
            warnings.append(Problem(("anchors", i, "x_mm"), f"anchor {a.marker} is off the {w:g} x {d:g} mm table"))
    if len(table.anchors) < 4:
        warnings.append(Problem(("anchors",), "4 anchors, one near each corner, locate the table best; "
                                             "with 2 any one covered loses the table"))
    return Checked(None if problems else table, _as_json(problems), _as_json(warnings))


def _size_warnings(roster: Roster, table: TableConfig | None, catalogue: dict[str, Any] | None) -> list[Problem]:
    """Sizes that differ from the rulebook's (or the group's) for the type; markers that overhang."""
    out = []
    sizes = {}
    for t in (catalogue or {}).get("types", []):
        if t["size_mm"]:
            sizes[(t["type"], t["traits"].get("arm"))] = t["size_mm"]
    cells = marker_cells(table.table.dictionary) if table else 6
    for i, b in enumerate(roster.bases):
        nominal = sizes.get((b.type, b.traits.get("arm"))) or sizes.get((b.type, None))
        if nominal and (abs(b.width_mm - nominal[0]) > 0.5 or abs(b.depth_mm - nominal[1]) > 0.5):
            out.append(Problem(("bases", i, "width_mm"),
                               f"the rulebook's {b.type} base is {nominal[0]:g} x {nominal[1]:g} mm; this one is "
                               f"{b.width_mm:g} x {b.depth_mm:g}"))
        outer = b.marker_size_mm * (cells + 2) / cells
        if outer > min(b.width_mm, b.depth_mm) + 1e-9:
            out.append(Problem(("bases", i, "marker_size_mm"),
                               f"a {b.marker_size_mm:g} mm marker with its white margin is {outer:.0f} mm: wider than "
                               f"the base's {min(b.width_mm, b.depth_mm):g} mm"))
        elif b.marker_size_mm < SMALL_MARKER_MM:
            out.append(Problem(("bases", i, "marker_size_mm"),
                               f"a {b.marker_size_mm:g} mm marker needs a close camera: check it in the table check"))
    return out


def check_roster(data: Any, table: TableConfig | None, catalogue: dict[str, Any] | None = None) -> Checked:
    """A `roster.toml` draft (as JSON), against the table's anchors and dictionary when known."""
    try:
        roster = Roster.model_validate(data)
    except ValidationError as exc:
        problems = pydantic_problems(exc)
        # the rulebook's words are checked too where the shape allows, so every mistake shows at once
        if isinstance(data, dict) and isinstance(data.get("bases"), list) and isinstance(data.get("ruleset"), str):
            problems += _vocabulary_problems(data)
        return Checked(None, _as_json(_unique(problems)))
    problems = roster_problems(roster)
    if table is not None:
        problems += anchor_clash_problems(roster, table)
    problems += roster_rules_problems(roster)
    return Checked(None if problems else roster, _as_json(problems),
                   _as_json(_size_warnings(roster, table, catalogue)))


def _vocabulary_problems(data: dict[str, Any]) -> list[Problem]:
    from campo.engine.registry import get_ruleset
    from campo.errors import UnknownRulesetError

    try:
        vocab = get_ruleset(data["ruleset"]).vocabulary
    except UnknownRulesetError:
        return []
    out = []
    for i, b in enumerate(data["bases"]):
        if isinstance(b, dict) and isinstance(b.get("type"), str) and isinstance(b.get("traits", {}), dict):
            for key, message in vocab.base_problems(b["type"], b.get("traits", {})):
                out.append(Problem(("bases", i, *key.split(".")), message))
    return out


def _unique(problems: list[Problem]) -> list[Problem]:
    seen, out = set(), []
    for p in problems:
        if (p.loc, p.message) not in seen:
            seen.add((p.loc, p.message))
            out.append(p)
    return out


def table_text(table: TableConfig) -> str:
    return dump_table(table)


def roster_text(roster: Roster) -> str:
    return dump_roster(roster)


def parse_toml_text(text: str, name: str) -> dict[str, Any]:
    """An uploaded file's TOML; a syntax error is one line naming the file and line."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FileFormatError(f"invalid TOML: {exc}", path=name) from None


def import_roster(text: str, name: str, table: TableConfig | None) -> Roster:
    """An uploaded `roster.toml`, checked in full; every problem in one error, named by file line and key."""
    data = parse_toml_text(text, name)
    checked = check_roster(data, table)
    if not checked.ok:
        raise_problems(Path(name), text, [Problem(tuple(p["path"]), p["message"]) for p in checked.problems])
    return checked.value  # type: ignore[no-any-return]


def import_table(text: str, name: str) -> TableConfig:
    """An uploaded `table.toml`, checked in full."""
    data = parse_toml_text(text, name)
    checked = check_table(data)
    if not checked.ok:
        raise_problems(Path(name), text, [Problem(tuple(p["path"]), p["message"]) for p in checked.problems])
    return checked.value  # type: ignore[no-any-return]


def error_lines(exc: CampoInputError) -> list[str]:
    """A multi-problem error as one line per problem (``raise_problems`` joins them with "also")."""
    lines = str(exc).splitlines()
    return [lines[0]] + [line.strip().removeprefix("also ") for line in lines[1:]]
