"""Small value types shared by every ruleset: aspects, range bands, zones.

They are ``str`` enums so they serialise to JSON as their value (``Aspect.FLANK == "flank"``).
"""

from __future__ import annotations

from enum import Enum


class Aspect(str, Enum):
    """Which side of a base something touches or strikes."""

    FRONT = "front"
    FLANK = "flank"
    REAR = "rear"

    def __str__(self) -> str:  # "flank", not "Aspect.FLANK", in messages
        return self.value


class Zone(str, Enum):
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

    def __str__(self) -> str:
        return self.value


class Band(str, Enum):
    """Range bands. Which bands exist and where they end is the ruleset's business."""

    CLOSE = "close"
    SHORT = "short"
    MEDIUM = "medium"
    LONG = "long"

    def __str__(self) -> str:
        return self.value
