"""Sight questions as named sets of ids, for tests: each becomes the arrays of a
`geometry.sight.Sightlines` question (what the rulesets build from their own tables), so a test
can state "the firer and the target never block, a 1" corridor" plainly."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Polygon

from campo.engine.geometry.sight import Keyed, SightField, Sightlines


@dataclass(frozen=True)
class SightQuery:
    """What one sight question ignores and needs: ``exclude`` body ids that never block (the
    firer, the target); ``corridor`` the half-width of the band around each line that other
    bodies and walls may not touch, but bodies in ``corridor_exclude`` (they block only the line
    itself); ``ends`` shapes inside which a wall crossing does not count ("strictly between");
    ``ignore_bodies`` bodies fired over; ``uncounted_areas`` deep areas whose depth does not
    count."""

    exclude: frozenset[str] = frozenset()
    corridor: float = 0.0
    corridor_exclude: frozenset[str] = frozenset()
    ends: tuple[Polygon, ...] = ()
    ignore_bodies: frozenset[str] = frozenset()
    uncounted_areas: frozenset[str] = frozenset()


def clear(field: SightField, lines: np.ndarray, exclude: Collection[str] = (),
          corridor: float = 0.0) -> np.ndarray:
    """Per line (two-point linestrings), whether it is clear: ``exclude`` never block."""
    query = SightQuery(frozenset(exclude), corridor)
    return clear_many(field, lines, np.zeros(len(lines), dtype=int), [query])


def clear_many(field: SightField, lines: np.ndarray, owners: np.ndarray,
               queries: Sequence[SightQuery]) -> np.ndarray:
    """Line ``i`` belongs to question ``queries[owners[i]]``: whether each is clear."""
    if not len(lines):
        return np.ones(0, dtype=bool)
    xy = shapely.get_coordinates(lines).reshape(-1, 2, 2)
    return field.trace(sightlines(field, xy, np.asarray(owners), queries)).clear


def sightlines(field: SightField, xy: np.ndarray, owners: np.ndarray,
               queries: Sequence[SightQuery]) -> Sightlines:
    """The questions as the arrays of `Sightlines` (rows of the tables: questions)."""
    nq = len(queries)

    def table(names: Sequence[Collection[str]], index: dict[str, int], width: int) -> np.ndarray:
        out = np.zeros((nq, width), dtype=bool)
        for k, ids in enumerate(names):
            out[k, [index[i] for i in ids if i in index]] = True
        return out

    bodies = len(field.bodies)
    never = table([q.exclude | q.ignore_bodies for q in queries], field.body_index, bodies)
    thin = table([q.corridor_exclude for q in queries], field.body_index, bodies)
    uncounted = table([q.uncounted_areas for q in queries],
                      {a: k for k, a in enumerate(field.deep_area_ids)}, len(field.deep_areas))
    # every distinct end shape once; each question's ends as rows of them
    found: list[Polygon] = []
    width = max(1, *(len(q.ends) for q in queries))
    rows = np.full((nq, width), -1, dtype=np.int64)
    for k, q in enumerate(queries):
        for j, shape in enumerate(q.ends):
            rows[k, j] = len(found)
            found.append(shape)
    width_mm = np.array([q.corridor for q in queries], dtype=float)[owners]
    return Sightlines(xy, width_mm, [Keyed(owners, never)], [Keyed(owners, thin)], None,
                      rows[owners] if found else None,
                      np.array(found, dtype=object) if found else None,
                      [Keyed(owners, uncounted)])
