"""Which base a status token lies against: pure geometry in table millimetres.

A token is a small card laid on the table against a base (a disorder token behind a unit, a loss
marker at its side). Its ``gap`` to a base is the distance from its centre to the base's outline
less the card's half side: 0 when the card's edge touches the base. A token is against a base
when the gap is at most ``reach_mm``. Where several bases are within reach:

1. the nearest wins when it is nearer than every other by at least ``ambiguity_mm``;
2. otherwise, of the bases that near, the one the token lies behind (its centre behind the rear
   edge, within the frontage: where tokens are put) wins when it is the only one;
3. otherwise the token is ambiguous and attached to nothing: the bases are named, never guessed.

A token no base reaches is attached to nothing.

>>> aosta = Rect(100.0, 100.0, 90.0, 80.0, 40.0)   # facing +y: its rear edge is at y = 80
>>> regina = Rect(200.0, 100.0, 90.0, 80.0, 40.0)
>>> [a.base for a in attach([TokenPlace("dis", 100.0, 66.0, 13.0)], {"aosta": aosta, "regina": regina})]
['aosta']
>>> a = attach([TokenPlace("dis", 150.0, 66.0, 13.0)], {"aosta": aosta, "regina": regina})[0]
>>> a.base, a.candidates
(None, ('aosta', 'regina'))
>>> attach([TokenPlace("dis", 100.0, 20.0, 13.0)], {"aosta": aosta})[0].base is None
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from campo.engine.geometry.rect import Rect

AMBIGUITY_MM = 5.0
"""Two bases whose gaps to a token differ by less than this are equally near: ambiguous."""


@dataclass(frozen=True)
class TokenPlace:
    """Where a token lies: its centre (table mm) and half the side of its card."""

    id: str
    x_mm: float
    y_mm: float
    half_mm: float = 0.0


@dataclass(frozen=True)
class Attachment:
    """The base a token is against (``base``), or none: ``candidates`` names the bases that tie
    when it is ambiguous (empty when no base is within reach)."""

    token: str
    base: str | None
    gap_mm: float | None = None
    behind: bool = False
    candidates: tuple[str, ...] = ()

    @property
    def ambiguous(self) -> bool:
        return self.base is None and bool(self.candidates)

    def problem(self) -> str | None:
        """Why the token sets nothing, in words, or None when it is attached."""
        if self.base is not None:
            return None
        if self.candidates:
            return f"token {self.token} is as near to {' and '.join(self.candidates)}: move it against one base"
        return f"token {self.token} lies against no base"


def gaps_and_behind(x_mm: float, y_mm: float, half_mm: float,
                    rects: Sequence[Rect]) -> tuple[np.ndarray, np.ndarray]:
    """For one token centre, each base's gap (mm, negative when the card overlaps the base) and
    whether the token lies behind it.

    >>> g, b = gaps_and_behind(100.0, 66.0, 13.0, [Rect(100.0, 100.0, 90.0, 80.0, 40.0)])
    >>> float(g[0]), bool(b[0])
    (1.0, True)
    """
    if not rects:
        return np.zeros(0), np.zeros(0, bool)
    cx = np.array([r.cx for r in rects])
    cy = np.array([r.cy for r in rects])
    a = np.radians([r.heading_deg for r in rects])
    half_w = np.array([r.width for r in rects]) / 2
    half_d = np.array([r.depth for r in rects]) / 2
    dx, dy = x_mm - cx, y_mm - cy
    front = dx * np.cos(a) + dy * np.sin(a)        # along the heading
    right = dx * np.sin(a) - dy * np.cos(a)        # to the base's right
    out_u = np.maximum(np.abs(right) - half_w, 0.0)
    out_v = np.maximum(np.abs(front) - half_d, 0.0)
    inside = (out_u == 0.0) & (out_v == 0.0)
    depth_in = np.minimum(half_w - np.abs(right), half_d - np.abs(front))
    distance = np.where(inside, -depth_in, np.hypot(out_u, out_v))
    behind = (front < -half_d) & (np.abs(right) <= half_w)
    return distance - half_mm, behind


def attach_one(token: TokenPlace, ids: Sequence[str], rects: Sequence[Rect], *, reach_mm: float,
               ambiguity_mm: float = AMBIGUITY_MM) -> Attachment:
    """The base ``token`` is against among ``rects`` (named by ``ids``), by the rule above."""
    gaps, behind = gaps_and_behind(token.x_mm, token.y_mm, token.half_mm, rects)
    near = np.flatnonzero(gaps <= reach_mm)
    if not len(near):
        return Attachment(token.id, None)
    ties = near[gaps[near] - gaps[near].min() < ambiguity_mm]
    if len(ties) > 1:
        behind_ties = ties[behind[ties]]
        if len(behind_ties) != 1:
            return Attachment(token.id, None, candidates=tuple(sorted(ids[k] for k in ties)))
        ties = behind_ties
    best = int(ties[0])
    return Attachment(token.id, ids[best], round(float(gaps[best]), 2), bool(behind[best]))


def attach(tokens: Sequence[TokenPlace], bases: Mapping[str, Rect], *, reach_mm: float = 15.0,
           ambiguity_mm: float = AMBIGUITY_MM) -> list[Attachment]:
    """`attach_one` for every token, against the same bases."""
    ids = list(bases)
    rects = [bases[k] for k in ids]
    return [attach_one(t, ids, rects, reach_mm=reach_mm, ambiguity_mm=ambiguity_mm) for t in tokens]
