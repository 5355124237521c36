"""Benchmark: the ISD charge verdicts and melee modifiers inside a full `engine.analyze`.

Times, as CPU milliseconds per analysis (best of --repeat, and the median to show the noise when
other work shares the machine): the whole analysis, the charges judged (`charges._judge`, every
verdict a fresh board asks) and the melee entries (`melee.melee_of` for every base, mostly the
legal charges' `charge_melee`). Battles of bench/engine_analysis.py (200 bases on 6' x 4') and
the demo game at its busiest moment.

Run:  .venv/bin/python bench/charge_judging.py [--repeat 30]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any


from campo import engine  # noqa: E402
import campo.engine.rulesets.italia.analysis as analysis  # noqa: E402
import campo.engine.rulesets.italia.charges as charges  # noqa: E402
from bench.engine_analysis import battle  # noqa: E402

_spent = {"judge": 0.0, "melee": 0.0}


def _timed(module: Any, name: str, key: str) -> None:
    """Wrap ``module.name`` to add its CPU time to ``_spent[key]`` (outermost calls only)."""
    inner = getattr(module, name)
    depth = [0]

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if depth[0]:
            return inner(*args, **kwargs)
        depth[0] += 1
        start = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            _spent[key] += time.process_time() - start
            depth[0] -= 1

    setattr(module, name, wrapper)


def measure(scenario: dict[str, Any], repeat: int) -> dict[str, tuple[float, float]]:
    """{"analyze"|"judge"|"melee": (best ms, median ms)} over ``repeat`` analyses."""
    engine.analyze(scenario)   # warm imports, compiled kernels and caches
    rows: dict[str, list[float]] = {"analyze": [], "judge": [], "melee": []}
    for _ in range(repeat):
        _spent["judge"] = _spent["melee"] = 0.0
        start = time.process_time()
        engine.analyze(scenario)
        rows["analyze"].append(time.process_time() - start)
        rows["judge"].append(_spent["judge"])
        rows["melee"].append(_spent["melee"])
    return {k: (min(v) * 1000.0, statistics.median(v) * 1000.0) for k, v in rows.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    _timed(charges, "_judge", "judge")
    _timed(analysis, "melee_of", "melee")
    from campo.vision.synthetic import DemoGame

    cases = [("200 bases", battle(200, 1800.0)), ("demo t=40s", DemoGame.load().scenario_at(40.0))]
    print(f"{'case':<12} {'analyze ms':>16} {'judge ms':>16} {'melee ms':>16}   (CPU: best / median)")
    for label, scenario in cases:
        got = measure(scenario, args.repeat)
        print(f"{label:<12} " + " ".join(f"{got[k][0]:>7.2f} / {got[k][1]:>6.2f}"
                                         for k in ("analyze", "judge", "melee")))


if __name__ == "__main__":
    main()
