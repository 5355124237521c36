"""Machinery shared by every ruleset's settings model (one strict pydantic model per ruleset).

Each ruleset names its ambiguities ``<prefix><N>_<name>`` (``a`` for ISD, ``f`` for Federico, ``at``
for ATTILA), cites its rulebook with its own pattern, and (for rulebooks with holes) marks values
the text does not give with `GAP_PREFIX`. Its model declares those differences as class variables
of `RulesetSettings`, whose class methods (`RulesetSettings.describe`, `RulesetSettings.load` ...)
serve all three.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from campo.errors import CampoInputError

MAX_SETTING = 1_000_000
"""Largest magnitude of any number in a setting (a distance in inches or cm, a count, an angle):
beyond it a value is a typo or an attack, and would overflow the engine's geometry."""
GAP_PREFIX = "not in the rulebook: set for your group"
"""How the description of a value the rulebook does not give starts (Federico, ATTILA): the
overlay and the docs show it as the group's choice, never as a rule."""


UMPIRE_ONLY = "Procedure for the umpire: no answer of the engine depends on it."
"""How the description of a reading the umpire applies by hand ends (ISD's melee dice, morale
test ...): the settings panel and the docs show it, the engine reads nothing of it."""


def gap(text: str) -> str:
    """The description of a setting the rulebook does not give (`GAP_PREFIX`, then ``text``)."""
    return f"{GAP_PREFIX}. {text}"


def umpire_only(text: str) -> str:
    """The description of a reading no answer of the engine depends on (``text``, then
    `UMPIRE_ONLY`)."""
    return f"{text} {UMPIRE_ONLY}"


def _absurd(value: Any) -> Any:
    """The first number in ``value`` (a scalar, or a list/tuple/map of them) beyond `MAX_SETTING`."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value if abs(value) > MAX_SETTING else None
    items = value.values() if isinstance(value, Mapping) else value if isinstance(value, (list, tuple)) else ()
    return next((bad for v in items if (bad := _absurd(v)) is not None), None)


class RulesetSettings(BaseModel):
    """Base of every ruleset's settings: a typo'd key is an error, and a game's settings never change.

    Every number is finite (``allow_inf_nan=False``: Infinity or NaN would poison every verdict)
    and within ±`MAX_SETTING`, whatever the ruleset's own bounds say. A ruleset's model sets the
    class variables below: its ambiguities' field prefix, its citation pattern, whether it has
    gap settings (`GAP_PREFIX`) and how a bad key is named in an error."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    ambiguity_prefix: ClassVar[str] = ""
    cite_pattern: ClassVar[re.Pattern[str]] = re.compile(r"(?!)")
    has_gaps: ClassVar[bool] = False
    key_prefix: ClassVar[str] = ""
    """What an error puts before a bad key (ATTILA: ``settings.``, its place in the scenario)."""

    @field_validator("*", mode="after")
    @classmethod
    def _not_absurd(cls, value: Any) -> Any:
        bad = _absurd(value)
        if bad is not None:
            raise ValueError(f"{bad:g} is beyond ±{MAX_SETTING:g}: not a playable value")
        return value

    close_call_mm: float = Field(
        1.0, ge=0.0, le=25.0,
        description="A verdict measured within this many mm of its boundary (a range, an arc's "
                    "edge, contact, a clear arc, a charge's reach) is too close to call: it says "
                    "so (\"too close to call: measure\") and, live, keeps the value last shown "
                    "instead of flickering with the camera's noise. 1 mm is about three times the "
                    "tracking's 95th-percentile position error on the hardest view "
                    "(docs/vision.md); 0 turns it off.")

    @classmethod
    def ambiguity_number(cls, field_name: str) -> int | None:
        """The N of a ``<prefix><N>_...`` field (``at12_group_links``: 12), or None for any other
        setting."""
        m = re.fullmatch(rf"{re.escape(cls.ambiguity_prefix)}(\d+)_[a-z0-9_]+", field_name)
        return int(m.group(1)) if m else None

    @classmethod
    def is_gap(cls, field_name: str) -> bool:
        """The setting holds a value the rulebook does not give (the group must set it)."""
        return cls.has_gaps and (cls.model_fields[field_name].description or "").startswith(
            GAP_PREFIX)

    @classmethod
    def describe(cls) -> list[dict[str, Any]]:
        """One dict per field for the overlay's settings panel and the docs.

        Keys: name, default, type ("choice", "bool", "number", "list", "size" or "map"),
        description, cites (every `cite_pattern` match in the description), choices (or None),
        ambiguity (N or None) and, only for a ruleset with gap settings, gap (True when not in
        the rulebook).
        """
        rows: list[dict[str, Any]] = []
        for name, field in cls.model_fields.items():
            choices = field_choices(field.annotation)
            kind, default = _kind_and_default(
                field.annotation, field.get_default(call_default_factory=True), choices
            )
            desc = field.description or ""
            row: dict[str, Any] = {
                "name": name,
                "default": default,
                "type": kind,
                "description": desc,
                "cites": cls.cite_pattern.findall(desc),
                "choices": choices,
                "ambiguity": cls.ambiguity_number(name),
            }
            if cls.has_gaps:
                row["gap"] = cls.is_gap(name)
            rows.append(row)
        return rows

    @classmethod
    def load(cls, values: Mapping[str, Any] | None, *,
             path: str | Path | None = None) -> typing.Self:
        """The settings from a mapping (a scenario's "settings"); a bad key or value raises
        CampoInputError naming the key (`key_prefix` + dotted location) and the file.

        Every problem is reported at once: the first without its key (the error carries it),
        the rest as ``key: message``, joined by "; ".
        """
        items = dict(values or {})
        try:
            key = (cls, frozenset((k, type(v), v) for k, v in items.items()))   # 1 is not True
            hash(key)
        except TypeError:   # an unhashable value: checked below, not remembered
            key = None
        found = _LOADED.get(key) if key is not None else None
        if found is not None:
            return found   # settings are frozen: one checked value serves every state
        try:
            loaded = cls.model_validate(items)
        except ValidationError as exc:
            errs = exc.errors()
            keys = [cls.key_prefix + ".".join(str(p) for p in e["loc"]) for e in errs]
            texts = [e["msg"].removeprefix("Value error, ") for e in errs]
            msg = "; ".join(f"{k}: {t}" if i else t for i, (k, t) in enumerate(zip(keys, texts)))
            raise CampoInputError(msg, path=path, key=keys[0] or None) from None
        if key is not None:
            if len(_LOADED) >= 64:
                _LOADED.clear()
            _LOADED[key] = loaded
        return loaded


def field_choices(annotation: Any) -> list[Any] | None:
    """The values an overlay offers for a field: a Literal's members, both booleans, or None."""
    if typing.get_origin(annotation) is Literal:
        return list(typing.get_args(annotation))
    if annotation is bool:
        return [True, False]
    return None


def _kind_and_default(annotation: Any, default: Any, choices: list[Any] | None) -> tuple[str, Any]:
    """The panel widget for a field and its default in JSON form (tuples become lists)."""
    if annotation is bool:
        return "bool", default
    if choices:
        return "choice", default
    if annotation == tuple[float, float]:
        return "size", list(default)
    if isinstance(default, tuple):
        return "list", list(default)
    if isinstance(default, dict):
        return "map", default
    return "number", default


# settings already checked, by model and values (a live game asks for the same ones at every
# change of the table)
_LOADED: dict[tuple[type, frozenset], Any] = {}
