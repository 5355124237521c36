"""Verdicts at a boundary: in range or not, in the arc or not, touching or not, a clear arc, a
charge's reach. Where the measurement lies within the tracking's uncertainty of the boundary
(the ruleset setting ``close_call_mm``) the verdict is *too close to call*: it is reported as
such ("too close to call: measure") and, in a live game, held at the value last shown, so
the overlay does not flicker while a base sits on a line.

Every ruleset decides its boundaries with `decide`, giving each verdict a key
(`key("range", shooter, target)`), so one memory (`HeldVerdicts`, owned by the live analysis
and handed to each new `GameState`) holds them all. A one-off analysis starts with an empty
memory: its close calls take the measured side and are flagged.

>>> held = HeldVerdicts()
>>> decide([5.0, 0.4, -3.0], 1.0, [key("range", "a", t) for t in "xyz"], held)
([True, True, False], [False, True, False])
>>> decide([-0.3], 1.0, [key("range", "a", "y")], held)   # still too close: held in range
([True], [True])
>>> decide([-2.0], 1.0, [key("range", "a", "y")], held)   # clearly out now
([False], [False])
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Sequence

import numpy as np

CLOSE_CALL = "too close to call: measure"
"""The words the page and the reasons use for a verdict within the tolerance of its boundary."""

VerdictKey = tuple[Hashable, ...]


def key(question: str, *ids: str) -> VerdictKey:
    """The memory key of one verdict: the question ("range", "arc", "contact", "clear",
    "reach", ...) and the bases it is about, in the ruleset's order."""
    return (question, *ids)


class HeldVerdicts:
    """The verdicts last shown, by key (thread-safe: a live game asks from several threads).

    Every decided verdict with a key is remembered; a later verdict too close to call takes
    the remembered value instead of the measured one (hysteresis)."""

    def __init__(self) -> None:
        self._values: dict[VerdictKey, bool] = {}
        self._lock = threading.Lock()

    def settle(self, keys: Sequence[VerdictKey], measured: np.ndarray,
               close: np.ndarray) -> np.ndarray:
        """The verdicts to show: the remembered ones where ``close``, else ``measured``; all
        remembered for next time."""
        out = measured.copy()
        with self._lock:
            for i, k in enumerate(keys):
                if close[i]:
                    prior = self._values.get(k)
                    if prior is not None:
                        out[i] = prior
                self._values[k] = bool(out[i])
        return out

    def forget(self, ids: set[str]) -> None:
        """Drop every verdict about these bases (they left the table)."""
        with self._lock:
            self._values = {k: v for k, v in self._values.items() if not ids.intersection(k[1:])}


def decide(margins: Sequence[float] | np.ndarray, tolerance: float,
           keys: Sequence[VerdictKey] | None = None, held: HeldVerdicts | None = None, *,
           inclusive: bool = True) -> tuple[list[bool], list[bool]]:
    """(verdicts, too close to call) of measurements against one boundary each.

    ``margins`` are signed distances (mm) from the boundary, positive on the side where the
    verdict is true (in range, in the arc, touching, clear, within reach); ``inclusive`` says
    whether a margin of exactly 0 counts as true. A margin within ``tolerance`` of 0 is too
    close to call; with ``keys`` and a memory, such a verdict keeps its last shown value."""
    m = np.asarray(margins, dtype=float)
    measured = m >= 0 if inclusive else m > 0
    close = np.abs(m) < tolerance
    if keys is not None and held is not None:
        measured = held.settle(keys, measured, close)
    return measured.tolist(), close.tolist()
