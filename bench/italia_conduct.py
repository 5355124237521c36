"""Benchmark: CPU time of the ISD movement answers inside a full `engine.analyze`.

Times `retreat_of`, `pursuit_of`, `movement_of` and `manoeuvre_of` (as the ISD analysis calls
them, base by base: the first call of each pays for the all-bases work) and the whole analysis,
on bench/engine_analysis.py's battles at constant density (200 bases on 1800 x 1200 mm).

Run:  .venv/bin/python bench/italia_conduct.py [--repeat 9] [--sizes 50 200 400]
Prints the median CPU ms over the repeats (CPU time: steadier than wall clock on a shared machine).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from campo import engine  # noqa: E402
import campo.engine.rulesets.italia.analysis as italia_analysis  # noqa: E402
from engine_analysis import battle  # noqa: E402

TIMED = ("retreat_of", "pursuit_of", "movement_of", "manoeuvre_of")


def _timed(name: str, spent: dict[str, float]) -> Any:
    original = getattr(italia_analysis, name)

    def wrapper(*args: Any) -> Any:
        start = time.process_time()
        try:
            return original(*args)
        finally:
            spent[name] += time.process_time() - start

    return wrapper


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 200, 400])
    args = parser.parse_args()
    engine.analyze(battle(20, 1800.0))   # warm imports and compiled kernels
    spent = dict.fromkeys(TIMED, 0.0)
    for name in TIMED:
        setattr(italia_analysis, name, _timed(name, spent))
    print(f"{'bases':>6} {'analyze':>9} " + " ".join(f"{n:>13}" for n in TIMED) + f" {'four':>7}")
    for n in args.sizes:
        sc = battle(n, 1800.0 * n / 200)
        totals: list[float] = []
        per: dict[str, list[float]] = {name: [] for name in TIMED}
        for _ in range(args.repeat):
            spent.update(dict.fromkeys(TIMED, 0.0))
            start = time.process_time()
            engine.analyze(sc)
            totals.append(time.process_time() - start)
            for name in TIMED:
                per[name].append(spent[name])
        med = {name: statistics.median(v) * 1000.0 for name, v in per.items()}
        print(f"{len(sc['bases']):>6} {statistics.median(totals) * 1000.0:>9.1f} "
              + " ".join(f"{med[name]:>13.2f}" for name in TIMED) + f" {sum(med.values()):>7.2f}")


if __name__ == "__main__":
    main()
