"""Small value types shared by every ruleset: aspects, range bands, zones, move allowances.

The enums are ``str`` enums so they serialise to JSON as their value (``Aspect.FLANK == "flank"``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any


class _Word(str, Enum):
    """An enum written as its value in messages ("flank", not "Aspect.FLANK")."""

    def __str__(self) -> str:
        return self.value


class Aspect(_Word):
    """Which side of a base something touches or strikes."""

    FRONT = "front"
    FLANK = "flank"
    REAR = "rear"


class Zone(_Word):
    """Where a point lies around a base, in the base's own frame (ISD A1 style partition)."""

    FRONT = "front"
    LEFT = "left"
    RIGHT = "right"
    REAR = "rear"
    INSIDE = "inside"

    @property
    def aspect(self) -> Aspect:
        if self in (Zone.LEFT, Zone.RIGHT):
            return Aspect.FLANK
        return Aspect.REAR if self is Zone.REAR else Aspect.FRONT


class Band(_Word):
    """Range bands. Which bands exist and where they end is the ruleset's business."""

    CLOSE = "close"
    SHORT = "short"
    MEDIUM = "medium"
    LONG = "long"


@dataclass(frozen=True)
class Allowance:
    """A base's full move over some kinds of terrain, as its ruleset gives it.

    ``amount`` is in rules units (``unit``); 0 means the rules let the base not move there at all
    (a Camp, terrain it may not enter) and ``basis`` says why. ``basis`` is one readable line
    ("line infantry, broken ground: half of 9 cm"); ``cites`` names the rules used; ``gap`` is
    True when the number comes from a "not in the rulebook" setting (the group's own choice).
    """

    amount: float
    unit: str
    basis: str
    cites: tuple[str, ...] = ()
    gap: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"amount": self.amount, "unit": self.unit, "basis": self.basis,
                "cites": list(self.cites), "gap": self.gap}


def _rounded(value: float | None, digits: int = 2) -> float | None:
    return None if value is None else round(value, digits)


def charge_entry(target: str, legal: bool, distance: float | None, contact_aspect: Aspect | None,
                 reasons: list[str], allowance: float | None, margin: float | None,
                 wheel_deg: float) -> dict[str, Any]:
    """The members every rulebook's charge verdict has (shared/interfaces.md, "charges"), rounded
    as `campo analyze` prints them; each ruleset adds its own after these."""
    return {"target": target, "legal": legal, "distance": _rounded(distance),
            "contact_aspect": contact_aspect.value if contact_aspect else None,
            "reasons": list(reasons), "margin": _rounded(margin),
            "allowance": _rounded(allowance), "wheel_deg": round(wheel_deg, 1)}


def with_lists(entry: dict[str, Any], **lists: list[Any]) -> dict[str, Any]:
    """``entry`` with each non-empty list added under its name (empty ones are left out)."""
    entry.update({name: list(values) for name, values in lists.items() if values})
    return entry
