"""Benchmark: the instructions one base's full detail costs, counted by valgrind's callgrind.

CPU time on the project's shared 2-core machine drifts by a third from hour to hour, more than
most changes to the engine; an instruction count does not. This script is the program callgrind
runs: it builds the dense battle, does every lazy import and first-call set-up once (numpy loads
`numpy.ma` at its first `np.unique`), then asks each base's detail on a fresh live snapshot
through `itertools.starmap`, so that callgrind can count only inside those calls:

    OPENBLAS_NUM_THREADS=1 PYTHONHASHSEED=0 valgrind --tool=callgrind --collect-atstart=no \\
        --toggle-collect=starmap_next --callgrind-out-file=/tmp/cg.out \\
        .venv/bin/python bench/detail_instructions.py italia-se-desta Au5-1,Au5-0 --repeat 2

callgrind's "Collected" figure divided by (bases x repeat) is the cost of one detail; two runs of
one tree agree to a few hundred instructions. ``--update`` counts instead the live update after
one unit moves (bench/battles.py's `moved_unit`) and ``--whole`` the whole table's cold analysis
(pass any base id; the figure is then divided by --repeat alone). OpenBLAS's threads must be held to one, or the
counts move by millions between identical runs. Run without valgrind, it prints CPU ms.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from battles import dense_battle, moved_unit  # noqa: E402

from campo.engine.analysis import analyze  # noqa: E402
from campo.engine.live import LiveAnalysis, Snapshot  # noqa: E402


def _detail(snapshot: Snapshot, base_id: str) -> dict:
    return snapshot.base_analysis(base_id)


def _count_table(ruleset: str, scenario: dict, repeat: int, update: bool) -> None:
    """The live update after one move (``update``) or the cold whole analysis, each inside
    `itertools.starmap` so that callgrind counts only them."""
    moved = moved_unit(scenario)
    live = LiveAnalysis()
    live.update(scenario)
    live.update(moved)
    analyze(scenario)
    spent = 0.0
    for _ in range(repeat):
        if update:
            live = LiveAnalysis()
            live.update(scenario)
            call, arguments = LiveAnalysis.update, (live, moved)
        else:
            call, arguments = analyze, (scenario,)
        start = time.process_time()
        list(itertools.starmap(call, [arguments]))
        spent += time.process_time() - start
    what = "live update after one move" if update else "whole analysis"
    print(f"{ruleset} {len(scenario['bases'])} bases: {1000 * spent / repeat:.1f} CPU ms per {what}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ruleset")
    parser.add_argument("bases", help="base ids, comma-separated (the bench's worst bases, say)")
    parser.add_argument("--size", type=int, default=100, help="bases in the dense battle")
    parser.add_argument("--repeat", type=int, default=2)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--update", action="store_true",
                      help="count the live update after one unit moves, not details")
    mode.add_argument("--whole", action="store_true",
                      help="count the whole table's cold analysis, not details")
    args = parser.parse_args()
    ids = args.bases.split(",")
    scenario = dense_battle(args.ruleset, args.size)
    gc.disable()   # a collection falls wherever it falls: not part of one detail's cost
    analyze(dense_battle(args.ruleset, 20))
    if args.update or args.whole:
        _count_table(args.ruleset, scenario, args.repeat, args.update)
        return
    for base_id in ids:   # every lazy import and first-call set-up, outside the count
        LiveAnalysis().update(scenario).base_analysis(base_id)
    spent = 0.0
    for _ in range(args.repeat):
        for base_id in ids:
            snapshot = LiveAnalysis().update(scenario)
            start = time.process_time()
            list(itertools.starmap(_detail, [(snapshot, base_id)]))
            spent += time.process_time() - start
    print(f"{args.ruleset} {args.size} bases, {','.join(ids)}: "
          f"{1000 * spent / (len(ids) * args.repeat):.1f} CPU ms per detail")


if __name__ == "__main__":
    main()
