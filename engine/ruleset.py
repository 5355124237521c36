"""The small protocol every ruleset implements, and the problem record `validate()` returns.

A ruleset is ONE object (no subclass tree): it knows its unit, parses its settings, checks a game
state, and answers questions about it. Generic geometry lives in `engine.geometry`; a ruleset
composes it with its own numbers and readings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

    from campo.engine.results import Allowance
    from campo.engine.state import GameState
    from campo.engine.vocabulary import Vocabulary


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a game state; ``bases`` names the bases involved."""

    key: str
    message: str
    severity: Literal["error", "warning"] = "error"
    bases: tuple[str, ...] = field(default_factory=tuple)

    def __str__(self) -> str:
        return f"{self.key}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "message": self.message, "severity": self.severity,
                "bases": list(self.bases)}


def vocabulary_problems(state: GameState, vocab: Vocabulary) -> list[Problem]:
    """Every base's type and traits checked against the ruleset's vocabulary, as errors."""
    return [
        Problem(f"bases[{n}]({b.id}).{key}", message, "error", (b.id,))
        for n, b in enumerate(state.bases)
        for key, message in vocab.base_problems(b.type, b.traits)
    ]


OFF_TABLE_TOLERANCE_MM = 1.0
"""A base may stick out over a table edge by this much before it is reported (tracking noise)."""
OVERLAP_REPORTED_MM2 = 25.0
"""Overlaps larger than 5 x 5 mm are reported; smaller ones are tracking noise."""


def placement_problems(state: GameState) -> list[Problem]:
    """Warnings every ruleset shares: a base partly off the table, two bases overlapping."""
    import numpy as np
    import shapely

    width, depth = state.scenario.table.width_mm, state.scenario.table.depth_mm
    tol = OFF_TABLE_TOLERANCE_MM
    table = shapely.box(-tol, -tol, width + tol, depth + tol)
    shapely.prepare(table)
    # the index's polygons (built in one vectorised call, and the analysis needs them anyway),
    # each test over all bases or pairs in one shapely call: the same GEOS answers as one by one
    index = state.index
    position = {i: k for k, i in enumerate(index.ids)}
    order = [position[b.id] for b in state.bases]
    on_table = shapely.covers(table, index.shapes[order]) if order else []
    out = [Problem(f"bases({b.id})", "base lies partly off the table", "warning", (b.id,))
           for b, inside in zip(state.bases, np.asarray(on_table).tolist()) if not inside]
    pairs = index.pairs_within(0.0)
    if pairs:
        left = np.array([position[a] for a, _ in pairs])
        right = np.array([position[b] for _, b in pairs])
        # the overlap lies in both bounding boxes: where theirs is clearly below the reported
        # area (bases side by side merely touch), GEOS's intersection is not needed
        box = shapely.bounds(index.shapes)
        wide = np.minimum(box[left, 2], box[right, 2]) - np.maximum(box[left, 0], box[right, 0])
        high = np.minimum(box[left, 3], box[right, 3]) - np.maximum(box[left, 1], box[right, 1])
        maybe = np.clip(wide, 0, None) * np.clip(high, 0, None) > 0.99 * OVERLAP_REPORTED_MM2
        areas = np.zeros(len(pairs))
        areas[maybe] = _overlap_areas(index.shapes[left[maybe]], index.shapes[right[maybe]])
        for (a, b), area in zip(pairs, areas.tolist()):
            if area > OVERLAP_REPORTED_MM2:
                out.append(Problem(f"bases({a},{b})", f"{a} and {b} overlap by {area:.0f} mm²",
                                   "warning", (a, b)))
    return out


def _overlap_areas(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``shapely.area(shapely.intersection(first, second))`` of rectangles, as far as the
    warnings read it (above OVERLAP_REPORTED_MM2, rounded to the mm²): compiled
    (`gap_kernel.overlap_areas`, about 20 µs less per pair), GEOS for any area too close to the
    threshold or to a rounding boundary for the two to be sure to agree."""
    import numpy as np
    import shapely

    from campo.engine.geometry.gap_kernel import overlap_areas

    quads = shapely.get_coordinates(np.concatenate([first, second])).reshape(-1, 5, 2)[:, :4]
    n = len(first)
    # called even with no pairs, so the analysis of any scenario compiles it (engine.warmup)
    areas = overlap_areas(np.ascontiguousarray(quads), np.arange(n), np.arange(n, 2 * n))
    unsure = np.isnan(areas) | (np.abs(areas - OVERLAP_REPORTED_MM2) < AREA_DOUBT_MM2) \
        | (np.abs(areas - np.floor(areas) - 0.5) < AREA_DOUBT_MM2)
    if unsure.any():
        areas[unsure] = shapely.area(shapely.intersection(first[unsure], second[unsure]))
    return areas


AREA_DOUBT_MM2 = 1e-6
"""Compiled and GEOS areas agree far closer than this (mm²); closer to a boundary, GEOS decides."""


@runtime_checkable
class Ruleset(Protocol):
    """What the engine needs from a rulebook."""

    name: str          # e.g. "italia-se-desta"
    unit: str          # "in" or "cm"
    mm_per_unit: float

    def load_settings(self, values: Mapping[str, Any] | None) -> Any:
        """The ruleset's settings model from a scenario's ``settings`` overrides."""

    def problems(self, state: GameState) -> list[Problem]:
        """Everything wrong with the state under this ruleset (errors and warnings)."""

    def analyze(self, state: GameState) -> dict[str, Any]:
        """The ``bases`` member of ``campo analyze --json`` plus optional extra members."""

    def charge(self, state: GameState, charger: str, target: str) -> Any:
        """One charge's verdict (has ``legal``); used by `GameState.legal_charges`."""

    def charge_candidates(self, state: GameState, charger: str) -> list[str]:
        """Enemy base ids the charger could consider charging."""

    def overlay_geometry(self, state: GameState, base_id: str) -> dict[str, Any]:
        """Polygons and paths (table mm) the overlay draws for one base."""

    def movement_allowance(self, state: GameState, base_id: str,
                           terrain_kinds: Sequence[str]) -> Allowance | None:
        """The base's full move (rules units) over ground of these scenario terrain kinds.

        ``terrain_kinds`` are the kinds the move touched (empty or ``["open"]``: open ground);
        the base's type and traits (formation, arm ...) are read from ``state``. A base the rules
        do not let move there gets ``amount = 0`` and a ``basis`` saying why (a Camp; terrain it
        may not enter). ``None`` only when the ruleset gives no movement rate at all."""
