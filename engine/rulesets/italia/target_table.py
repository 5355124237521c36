"""Every shooter's targets as one table of columns (a battle of 200 bases has some 7,000 rows).

Building one `fire.Target` object per row, then one dict per object, costs more than measuring
them; the table keeps columns, answers ``campo analyze``'s dicts straight from them, and builds
`Target` objects only for the shooters a rule asks about (artillery support, priority).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress
from typing import Any

import numpy as np

from campo.engine.results import Band
from campo.engine.rulesets.italia.fire import Target


@dataclass
class TargetTable:
    """Rows grouped by shooter (``spans[shooter]`` = (first, end)), each group sorted by
    target id. Columns are Python lists (what the JSON dicts are made of)."""

    spans: dict[str, tuple[int, int]]
    ids: list[str]
    distance: list[float]
    in_arc: list[bool]
    in_range: list[bool]
    band: list[Band | None]
    line_of_sight: list[bool]
    margin: list[float]
    arc_margin: list[float]
    legal: list[bool]
    priority: list[bool]
    flank_fire: list[bool]
    cover: list[str | None]
    cover_terrain: list[str | None]
    arc_clear: list[bool]
    reasons: list[list[str]]
    modifiers: list[list[dict[str, Any]] | None]
    _objects: dict[str, list[Target]] = field(default_factory=dict, repr=False)
    # distance, margin and arc margin as arrays, when the builder has them (saves converting
    # the lists back for `round2_all`)
    number_arrays: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(default=None,
                                                                          repr=False)

    @staticmethod
    def from_lists(shooters: Sequence[str], by_shooter: Mapping[str, list[Target]]) -> TargetTable:
        """The table of `Target` lists (the plain path's answers); ``shooters``: every base."""
        rows = [t for s in shooters for t in by_shooter.get(s, [])]
        spans, at = {}, 0
        for s in shooters:
            n = len(by_shooter.get(s, []))
            spans[s] = (at, at + n)
            at += n
        table = TargetTable(spans, *([getattr(t, name) for t in rows] for name in (
            "id", "distance", "in_arc", "in_range", "band", "line_of_sight", "margin",
            "arc_margin", "legal", "priority", "flank_fire", "cover", "cover_terrain",
            "arc_clear", "reasons", "modifiers")))
        table._objects = {s: list(by_shooter.get(s, [])) for s in shooters}
        return table

    def dicts(self, shooter: str) -> list[dict[str, Any]]:
        """`Target.to_dict` of each of the shooter's rows (built for every row at once, on the
        first call: one pass is cheaper than one per shooter)."""
        first, end = self.spans.get(shooter, (0, 0))
        return self._all_dicts()[first:end] if first < end else []

    def _all_dicts(self) -> list[dict[str, Any]]:
        found = self.__dict__.get("_dicts")
        if found is not None:
            return found
        distance, margin, arc_margin, band = self._json_columns()
        out: list[dict[str, Any]] = []
        append = out.append
        for (id_, dist, in_arc, in_range, band_value, sight, marg, arc_marg, legal, priority,
             flank, cover, terrain, clear, reasons, modifiers) in zip(
                self.ids, distance, self.in_arc, self.in_range, band, self.line_of_sight,
                margin, arc_margin, self.legal, self.priority, self.flank_fire, self.cover,
                self.cover_terrain, self.arc_clear, self.reasons, self.modifiers):
            d = {"id": id_, "distance": dist, "in_arc": in_arc, "in_range": in_range,
                 "band": band_value, "line_of_sight": sight, "margin": marg,
                 "arc_margin": arc_marg, "legal": legal, "priority": priority,
                 "flank_fire": flank, "cover": cover}
            if terrain:
                d["cover_terrain"] = terrain
            if not clear:
                d["arc_clear"] = False
            if reasons:
                d["reasons"] = reasons      # each row's own list (`fire_reasons_many`)
            if modifiers is not None:
                d["fire_modifiers"] = modifiers
            append(d)
        self.__dict__["_dicts"] = out
        return out

    def _json_columns(self) -> tuple[list[float], list[float], list[float], list[str | None]]:
        """Every row's rounded distance, margin and arc margin and its band's value, worked out
        once per table for all shooters (`round2_all`: numpy, Python's ``round`` to the bit)."""
        found = self.__dict__.get("_json_cache")
        if found is None:
            values = {b: b.value for b in set(self.band) if b is not None}
            values[None] = None
            numbers = self.number_arrays or (self.distance, self.margin, self.arc_margin)
            found = self.__dict__["_json_cache"] = (*map(round2_all, numbers),
                                                    [values[b] for b in self.band])
        return found

    def priority_ids(self, shooter: str) -> list[str]:
        first, end = self.spans.get(shooter, (0, 0))
        return list(compress(self.ids[first:end], self.priority[first:end]))

    def of(self, shooter: str) -> list[Target]:
        """The shooter's rows as `Target` objects (built on first request)."""
        found = self._objects.get(shooter)
        if found is None:
            first, end = self.spans.get(shooter, (0, 0))
            found = self._objects[shooter] = [self._target(k) for k in range(first, end)]
        return found

    def get(self, shooter: str, default: list[Target] | None = None) -> list[Target]:
        """`of`, as a mapping's ``get`` (rules helpers take ``{shooter: targets}``)."""
        return self.of(shooter) if shooter in self.spans else (default or [])

    def __getitem__(self, shooter: str) -> list[Target]:
        return self.of(shooter)

    def _target(self, k: int) -> Target:
        return Target(id=self.ids[k], distance=self.distance[k], in_arc=self.in_arc[k],
                      in_range=self.in_range[k], band=self.band[k],
                      line_of_sight=self.line_of_sight[k], margin=self.margin[k],
                      flank_fire=self.flank_fire[k], cover=self.cover[k],
                      cover_terrain=self.cover_terrain[k], arc_clear=self.arc_clear[k],
                      legal=self.legal[k], priority=self.priority[k],
                      reasons=list(self.reasons[k]), modifiers=self.modifiers[k],
                      arc_margin=self.arc_margin[k])


def group_spans(shooters: Sequence[str], row_shooter: np.ndarray) -> dict[str, tuple[int, int]]:
    """(first, end) rows of each shooter (``shooters[row_shooter[k]]`` owns row k; rows grouped
    by shooter in ``shooters`` order)."""
    bounds = np.searchsorted(row_shooter, np.arange(len(shooters) + 1)).tolist()
    return {s: (bounds[p], bounds[p + 1]) for p, s in enumerate(shooters)}


def round2_all(values: Sequence[float] | np.ndarray) -> list[float]:
    """``[round(v, 2) for v in values]``, the same floats to the bit, by numpy.

    ``np.rint(v * 100) / 100`` is Python's answer whenever ``v * 100`` rounds to the same
    integer as the exact product (both are then the double nearest k / 100); the product's
    error is under 1e-8 for |v * 100| < 1e8, so only values within 1e-7 of a half (and huge or
    non-finite ones) can differ, and those are left to Python's ``round``."""
    if not len(values):
        return []
    x = np.asarray(values, dtype=float)
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = x * 100.0
        out = (np.rint(scaled) / 100.0).tolist()
        doubtful = ~(np.abs(scaled - np.floor(scaled) - 0.5) > 1e-7) | ~(np.abs(scaled) < 1e8)
    for k in np.nonzero(doubtful)[0].tolist():
        out[k] = round(float(x[k]), 2)
    return out
