"""What the projector draws, as plain values: the umpire's choice (base, ruler, terrain), checked
strictly, and the static facts the projector page needs (marker footprints to keep dark, the
selected general's command radius).

Everything is in table mm; the projector page maps it to its pixels with projector.json's
homography (calibration/projector.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from campo.vision.tabletop import Roster, TableConfig

Coordinate = Annotated[float, Field(ge=-100_000, le=100_000)]


class ProjectorView(BaseModel):
    """The umpire's choice, sent by the tablet (`PUT /api/projector/view`) and echoed to every
    page: the selected base (or none), the ruler's points (0 to 2, table mm) and whether the
    terrain's edges are drawn."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    base: str | None = Field(None, min_length=1, max_length=64)
    ruler: list[tuple[Coordinate, Coordinate]] = Field(default_factory=list, max_length=2)
    terrain: bool = False


class ProjectorScreen(BaseModel):
    """The projector page's picture size in device pixels (`PUT /api/projector/screen`)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    width: int = Field(ge=64, le=16384)
    height: int = Field(ge=64, le=16384)


class ProjectorShown(BaseModel):
    """The projector page shows the picture the server asked for (`PUT /api/projector/shown`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    step: int = Field(ge=0, lt=2**31)


MARKER_MARGIN_MM = 6.0
"""Dark border kept round every marker beyond its quiet zone: the projector's blur, the parallax
of a base a few mm high and the calibration's residual together stay well inside it."""


def dark_footprints(table: TableConfig, roster: Roster) -> dict[str, Any]:
    """What the projector page keeps dark: every base's marker (side, offset and rotation from
    the roster, placed by the base's live pose) and every anchor (fixed), with a margin."""
    markers = {b.id: {"size_mm": b.marker_size_mm, "offset_mm": list(b.marker_offset_mm),
                      "rotation_deg": b.marker_rotation_deg} for b in roster.bases}
    anchors = [{"x_mm": a.x_mm, "y_mm": a.y_mm, "size_mm": a.size_mm, "up_deg": a.up_deg} for a in table.anchors]
    return {"markers": markers, "anchors": anchors, "margin_mm": MARKER_MARGIN_MM,
            "quiet_factor": 0.25}   # a quarter of the side: more than any dictionary's white cell


def token_darkness(latest: Callable[[], Any], roster: Roster) -> Callable[[], dict[str, Any]]:
    """A part of the live status (`LiveTracker.status_parts`): where the status tokens lie in
    the latest frame, ``projector_tokens: [[x_mm, y_mm, side_mm], ...]``, so the projector page
    keeps them dark too (a token's card can lie at any angle: the page darkens the square that
    holds it however it is turned). ``latest`` gives the latest frame's pipeline result."""
    sizes = {t.marker: t.size_mm for t in roster.tokens}

    def part() -> dict[str, Any]:
        result = latest()
        readings = [] if result is None else result.tokens.tokens
        return {"projector_tokens": [[round(t.x_mm, 1), round(t.y_mm, 1), sizes.get(t.marker, 20.0)]
                                     for t in readings]}

    return part
