"""A scripted game for tests and benches: known moves played out as a stream of states.

`ScriptedMove` is the ground truth (base, when, how far, how much it turns); `play` turns a
script into the states a live server would publish at ``rate_hz`` while bases slide along
straight lines, so a test can check that recorded ``move`` events measure exactly the scripted
distances. Nothing here touches the disk or the engine.
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ScriptedMove:
    base: str
    t_start: float
    duration: float
    dx_mm: float
    dy_mm: float
    turn_deg: float = 0.0

    @property
    def distance_mm(self) -> float:
        return math.hypot(self.dx_mm, self.dy_mm)


def demo_scenario(per_side: int = 4) -> dict[str, Any]:
    """Two lines of ISD bases facing each other 360 mm apart (front to front), and a wood."""
    bases = []
    for i in range(per_side):
        x = 300.0 + i * 250.0
        bases.append({"id": f"a-{i + 1}", "side": "A", "type": "B", "x_mm": x, "y_mm": 300.0,
                      "heading_deg": 90.0, "width_mm": 80.0, "depth_mm": 40.0,
                      "traits": {"arm": "infantry", "formation": "line", "losses": 0}})
        bases.append({"id": f"b-{i + 1}", "side": "B", "type": "C" if i == 0 else "B",
                      "x_mm": x, "y_mm": 700.0, "heading_deg": 270.0, "width_mm": 80.0,
                      "depth_mm": 40.0,
                      "traits": {"arm": "cavalry" if i == 0 else "infantry",
                                 "formation": "line", "losses": 0}})
    return {"ruleset": "italia-se-desta", "table": {"width_mm": 1800.0, "depth_mm": 1200.0},
            "terrain": [{"id": "wood-1", "kind": "wood",
                         "polygon_mm": [[1000, 380], [1100, 380], [1100, 500], [1000, 500]]}],
            "bases": bases, "turn": 1, "phase": "movement"}


def play(scenario: dict[str, Any], moves: list[ScriptedMove], *, rate_hz: float = 10.0,
         noise_mm: float = 0.0, seed: int = 0,
         until: float | None = None) -> Iterator[tuple[float, dict[str, Any]]]:
    """(t, state) at every tick where some base is moving (the server publishes only changes).

    Each move slides its base linearly from its pose at ``t_start`` over ``duration`` seconds.
    ``noise_mm`` adds marker jitter to moving bases only (still bases are not republished).
    """
    rng = random.Random(seed)
    state = copy.deepcopy(scenario)
    by_id = {b["id"]: b for b in state["bases"]}
    origin: dict[int, tuple[float, float, float]] = {}
    end = until if until is not None else max((m.t_start + m.duration for m in moves),
                                              default=0.0) + 1.0 / rate_hz
    n_ticks = int(round(end * rate_hz))
    yield 0.0, copy.deepcopy(state)
    for k in range(1, n_ticks + 1):
        t = k / rate_hz
        changed = False
        for i, m in enumerate(moves):
            if not (m.t_start < t <= m.t_start + m.duration + 0.5 / rate_hz):
                continue
            b = by_id[m.base]
            if i not in origin:
                origin[i] = (b["x_mm"], b["y_mm"], b["heading_deg"])
            x0, y0, h0 = origin[i]
            f = min(1.0, (t - m.t_start) / m.duration)
            jitter = (noise_mm * rng.uniform(-1, 1), noise_mm * rng.uniform(-1, 1)) \
                if f < 1.0 else (0.0, 0.0)
            b["x_mm"] = round(x0 + f * m.dx_mm + jitter[0], 2)
            b["y_mm"] = round(y0 + f * m.dy_mm + jitter[1], 2)
            b["heading_deg"] = round((h0 + f * m.turn_deg) % 360.0, 2)
            changed = True
        if changed:
            yield t, copy.deepcopy(state)


def demo_script() -> list[ScriptedMove]:
    """Ground truth for tests, in inches of 25 mm (ISD §8 allowances in the comments)."""
    return [
        ScriptedMove("a-1", 1.0, 2.0, 0.0, 100.0),                  # 4" of 6": fine
        ScriptedMove("a-2", 1.5, 2.0, 75.0, 100.0, turn_deg=15.0),  # 5" oblique, turning
        ScriptedMove("a-3", 5.0, 3.0, 0.0, 225.0),                  # 9" of 6": exceeded
        ScriptedMove("b-1", 6.0, 2.0, 0.0, -260.0),                 # cavalry 10.4" of 12",
                                                                    # into a-1's front
        ScriptedMove("a-4", 9.0, 2.0, 0.0, 100.0),                  # 4" into a wood (cap 3")
    ]
