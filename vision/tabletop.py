"""The physical table the camera looks at: `table.toml` (anchors) and `roster.toml` (bases and
printed status tokens).

Both are strict: an unknown key, a wrong type, a duplicated marker or base id, or a base marker
that is also an anchor is an error naming the file, the line and the key. The roster's rules
vocabulary (ruleset, troop types, traits) is checked by the engine through the `check` hook of
`load_roster`, because only the engine knows the rulebooks.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import cv2
from annotated_types import Len
from pydantic import BaseModel, ConfigDict, Field, field_validator

from campo.vision.toml_files import LineFinder, Problem, load_toml_model, raise_problems, toml_value

# Bounds that keep every later computation finite and fast: beyond them a value is a typo.
MAX_TABLE_MM = 100_000.0
"""A table side: 100 m."""
MAX_POSITION_MM = 1_000_000.0
"""An anchor's position, 1 km either way."""
MAX_SIZE_MM = 10_000.0
"""A base's frontage or depth, a marker's side: 10 m."""
MAX_ANGLE_DEG = 36_000.0
"""An angle in degrees (any turn is accepted up to a hundred times round)."""
MAX_BASES = 1000
"""Bases in a roster: the largest predefined marker dictionary has 1000 markers."""
MAX_ANCHORS = 1000
TOKEN_REACH_MM = 15.0
"""How far from a base's outline a token's centre may lie and still be against that base."""

Pair = Annotated[list[Annotated[float, Field(ge=-MAX_SIZE_MM, le=MAX_SIZE_MM)]], Len(2, 2)]
Angle = Annotated[float, Field(ge=-MAX_ANGLE_DEG, le=MAX_ANGLE_DEG)]


class _Strict(BaseModel):
    # NaN and infinities (valid TOML: nan, inf) are refused: "must be a finite number"
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)


def dictionary_size(name: str) -> int:
    """Number of markers in an OpenCV predefined dictionary, e.g. 250 for ``DICT_4X4_250``."""
    code = getattr(cv2.aruco, name, None)
    if not name.startswith("DICT_") or not isinstance(code, int):
        raise ValueError(f"unknown marker dictionary {name!r} (e.g. DICT_4X4_250, DICT_5X5_100)")
    return int(cv2.aruco.getPredefinedDictionary(code).bytesList.shape[0])


def card_side_mm(size_mm: float, dictionary: str) -> float:
    """Side of a printed marker's card cut with its white quiet zone of one cell on each side
    (as `campo markers` prints it): 8/6 of the black square in a 4x4 dictionary.

    >>> card_side_mm(18.0, "DICT_4X4_250")
    24.0
    """
    code = getattr(cv2.aruco, dictionary, None)
    if not isinstance(code, int):
        raise ValueError(f"unknown marker dictionary {dictionary!r}")
    cells = int(cv2.aruco.getPredefinedDictionary(code).markerSize) + 2
    return size_mm * (cells + 2) / cells


class Anchor(_Strict):
    """A fixed marker glued flat on the table (z = 0); anchors locate the table in each frame."""

    marker: int = Field(ge=0, le=100_000)
    x_mm: float = Field(ge=-MAX_POSITION_MM, le=MAX_POSITION_MM)
    y_mm: float = Field(ge=-MAX_POSITION_MM, le=MAX_POSITION_MM)
    size_mm: float = Field(gt=0, le=MAX_SIZE_MM)
    up_deg: Angle = 90.0


class TableSpec(_Strict):
    """The `[table]` section."""

    width_mm: float = Field(gt=0, le=MAX_TABLE_MM)
    depth_mm: float = Field(gt=0, le=MAX_TABLE_MM)
    dictionary: str = Field("DICT_4X4_250", max_length=64)

    @field_validator("dictionary")
    @classmethod
    def _known_dictionary(cls, name: str) -> str:
        dictionary_size(name)
        return name


class TableConfig(_Strict):
    """Everything in `table.toml`."""

    table: TableSpec
    anchors: list[Anchor] = Field(min_length=2, max_length=MAX_ANCHORS)

    @property
    def anchor_ids(self) -> set[int]:
        return {a.marker for a in self.anchors}


class RosterBase(_Strict):
    """One unit base: its marker, identity, size, and how the marker sits on it."""

    marker: int = Field(ge=0, le=100_000)
    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$", max_length=64)
    side: Literal["A", "B"]
    name: str = Field("", max_length=200)
    type: str = Field(min_length=1, max_length=64)
    width_mm: float = Field(gt=0, le=MAX_SIZE_MM)
    depth_mm: float = Field(gt=0, le=MAX_SIZE_MM)
    marker_size_mm: float = Field(gt=0, le=MAX_SIZE_MM)
    marker_offset_mm: Pair = Field(default_factory=lambda: [0.0, 0.0])
    marker_rotation_deg: Angle = 0.0
    height_mm: float = Field(default=0.0, ge=0, le=200)
    traits: dict[str, Any] = Field(default_factory=dict)

    @property
    def label(self) -> str:
        """The name players read: `name` when given, else the id."""
        return self.name or self.id


TokenCount = Annotated[int, Field(ge=-1000, le=1000)]
TraitValue = bool | TokenCount | Annotated[str, Field(max_length=64)]


class RosterToken(_Strict):
    """A printed status token (a disorder token, a loss marker ...): a marker of the table's
    dictionary on a small card, laid against a base to set some of its state traits.

    ``sets`` gives fixed values (``disordered = true``, ``formation = "march_column"``),
    ``adds`` whole numbers added to a count (``losses = 1``); lifting the token takes back what
    it set. The trait names and values are the ruleset's state traits (checked by the engine).
    """

    marker: int = Field(ge=0, le=100_000)
    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$", max_length=64)
    name: str = Field("", max_length=200)
    sets: dict[str, TraitValue] = Field(default_factory=dict, max_length=16)
    adds: dict[str, TokenCount] = Field(default_factory=dict, max_length=16)
    size_mm: float = Field(default=20.0, gt=0, le=MAX_SIZE_MM)
    height_mm: float = Field(default=1.0, ge=0, le=200)

    @property
    def label(self) -> str:
        """The name players read: `name` when given, else the id."""
        return self.name or self.id

    @property
    def meaning(self) -> str:
        """What the token does, in words: ``disordered = true, losses + 1``."""
        parts = [f"{k} = {toml_value(v)}" for k, v in self.sets.items()]
        parts += [f"{k} {'+' if v >= 0 else '-'} {abs(v)}" for k, v in self.adds.items()]
        return ", ".join(parts)


class Roster(_Strict):
    """Everything in `roster.toml`."""

    ruleset: str = Field(max_length=64)
    bases: list[RosterBase] = Field(min_length=1, max_length=MAX_BASES)
    tokens: list[RosterToken] = Field(default_factory=list, max_length=MAX_BASES)
    token_reach_mm: float = Field(default=TOKEN_REACH_MM, gt=0, le=500)

    def by_marker(self) -> dict[int, RosterBase]:
        return {b.marker: b for b in self.bases}

    def tokens_by_marker(self) -> dict[int, RosterToken]:
        return {t.marker: t for t in self.tokens}

    @property
    def marker_sizes_mm(self) -> list[float]:
        """The sides of every marker the camera must read on the bases and tokens."""
        return [b.marker_size_mm for b in self.bases] + [t.size_mm for t in self.tokens]

    def by_id(self) -> dict[str, RosterBase]:
        return {b.id: b for b in self.bases}


RosterCheck = Callable[[Roster], list[Problem]]
"""A rules-aware check of a roster (supplied by the engine); returns problems located by key."""


def _duplicates(values: list[Any]) -> dict[int, int]:
    """Map index of each repeat -> index of its first occurrence."""
    first: dict[Any, int] = {}
    repeats = {}
    for i, v in enumerate(values):
        if v in first:
            repeats[i] = first[v]
        else:
            first[v] = i
    return repeats


def table_problems(table: TableConfig) -> list[Problem]:
    """Checks across anchors: unique markers, ids inside the dictionary."""
    size = dictionary_size(table.table.dictionary)
    problems = []
    for i, j in _duplicates([a.marker for a in table.anchors]).items():
        problems.append(Problem(("anchors", i, "marker"), f"marker {table.anchors[i].marker} is already anchor #{j + 1}"))
    for i, a in enumerate(table.anchors):
        if a.marker >= size:
            problems.append(Problem(("anchors", i, "marker"), f"marker {a.marker} is not in {table.table.dictionary} (0..{size - 1})"))
    return problems


def roster_problems(roster: Roster, text: str | None = None) -> list[Problem]:
    """Checks across bases and tokens: unique markers and ids, one marker and one id per thing
    (the first place named by line when known), and tokens that say what they set."""
    problems = []
    finder = LineFinder(text) if text else None
    places = [("bases", i) for i in range(len(roster.bases))] + [("tokens", i) for i in range(len(roster.tokens))]
    things: list[RosterBase | RosterToken] = [*roster.bases, *roster.tokens]
    for field in ("marker", "id"):
        values = [getattr(b, field) for b in things]
        for i, j in _duplicates(values).items():
            first = places[j]
            where = f"line {finder.line((*first, field))}" if finder else f"{first[0]}[{first[1]}]"
            kind = "" if places[i][0] == first[0] else f" ({'a base' if first[0] == 'bases' else 'a token'})"
            problems.append(Problem((*places[i], field), f"duplicated {field} {values[i]!r}{kind} (first used at {where})"))
    for i, token in enumerate(roster.tokens):
        if not token.sets and not token.adds:
            problems.append(Problem(("tokens", i, "sets"), "a token must set or add some state trait "
                                                           "(e.g. sets = { disordered = true } or adds = { losses = 1 })"))
        for key in sorted(set(token.sets) & set(token.adds)):
            problems.append(Problem(("tokens", i, "adds", key), f"{key!r} is both set and added by this token"))
        for key, value in token.adds.items():
            if value == 0:
                problems.append(Problem(("tokens", i, "adds", key), "adds nothing (0)"))
    return problems


def anchor_clash_problems(roster: Roster, table: TableConfig) -> list[Problem]:
    """A base marker that is also an anchor, or outside the table's dictionary."""
    size = dictionary_size(table.table.dictionary)
    anchors = table.anchor_ids
    problems = []
    for what, items in (("bases", roster.bases), ("tokens", roster.tokens)):
        for i, b in enumerate(items):
            if b.marker in anchors:
                problems.append(Problem((what, i, "marker"), f"marker {b.marker} is an anchor in table.toml; "
                                                             f"{what} need their own markers"))
            elif b.marker >= size:
                problems.append(Problem((what, i, "marker"), f"marker {b.marker} is not in {table.table.dictionary} (0..{size - 1})"))
    return problems


def load_table(path: str | Path) -> TableConfig:
    """Read and check `table.toml`."""
    path = Path(path)
    text, table = load_toml_model(path, TableConfig)
    raise_problems(path, text, table_problems(table))
    return table


def load_roster(
    path: str | Path,
    *,
    table: TableConfig | None = None,
    check: RosterCheck | None = None,
) -> Roster:
    """Read and check `roster.toml`; with `table`, also against its anchors and dictionary."""
    path = Path(path)
    text, roster = load_toml_model(path, Roster)
    problems = roster_problems(roster, text)
    if table is not None:
        problems += anchor_clash_problems(roster, table)
    if check is not None:
        problems += check(roster)
    raise_problems(path, text, problems)
    return roster


def _section(values: dict[str, Any]) -> list[str]:
    return [f"{k} = {toml_value(v)}" for k, v in values.items()]


def dump_table(table: TableConfig) -> str:
    """`table.toml` text that `load_table` reads back to an equal value."""
    out = ["[table]", *_section(table.table.model_dump())]
    for a in table.anchors:
        out += ["", "[[anchors]]", *_section(a.model_dump())]
    return "\n".join(out) + "\n"


def dump_roster(roster: Roster) -> str:
    """`roster.toml` text that `load_roster` reads back to an equal value."""
    out = [f"ruleset = {toml_value(roster.ruleset)}"]
    if roster.token_reach_mm != TOKEN_REACH_MM:
        out.append(f"token_reach_mm = {toml_value(roster.token_reach_mm)}")
    for b in roster.bases:
        out += ["", "[[bases]]", *_section(b.model_dump())]
    for t in roster.tokens:
        out += ["", "[[tokens]]", *_section(t.model_dump())]
    return "\n".join(out) + "\n"
