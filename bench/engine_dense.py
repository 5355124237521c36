"""Benchmark: the engine on dense battles (bench/battles.py: 6' x 4' table, ragged lines with
supports and reserves, a wood, a town, a hill with its crest and a wall), in every rulebook.

For each rulebook and size it prints, in CPU milliseconds (this process's time: the steadier
figure on a shared machine), best and median of --repeat runs:

- ``cold``: the whole table's analysis (`campo analyze --json`) of a fresh state;
- ``update``: a live game (`LiveAnalysis`) after one unit moves 4 cm toward the enemy: the
  summaries of the bases it can reach, the table-level facts, the problems;
- ``detail``: one base's full analysis in that moment (targets, charges with their paths,
  melee), asked of a fresh snapshot, for every base (``--detail-sample K``: K of them): median
  and worst, and which bases are the worst and why (what their detail holds);
- ``growth``: the cold analysis's exponent between consecutive sizes (n^k).

Budgets (issue 13): ISD cold 100 bases <= 100 ms and 200 <= 250 ms, Federico and ATTILA 100
bases <= 150 ms; update <= 15 ms and detail <= 10 ms at 100 bases. The host's speed
(`bench/host_speed.py`) is printed first: the machine is shared and its host changes.

Run:  .venv/bin/python bench/engine_dense.py [--rulesets italia-se-desta federico attila]
          [--sizes 50 100 200 400] [--repeat 5] [--detail-sample K] [--profile RULESET:N]
          [--profile-detail RULESET:N[:BASE]]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import math
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from battles import RULESETS, dense_battle, moved_unit  # noqa: E402
from host_speed import reference_ms  # noqa: E402

from campo.engine.analysis import analyze  # noqa: E402
from campo.engine.live import LiveAnalysis  # noqa: E402

BUDGET_COLD = {("italia-se-desta", 100): 100.0, ("italia-se-desta", 200): 250.0,
               ("federico", 100): 150.0, ("attila", 100): 150.0}
BUDGET_UPDATE, BUDGET_DETAIL = 15.0, 10.0


def cpu_ms(fn: Any) -> float:
    start = time.process_time()
    fn()
    return (time.process_time() - start) * 1000.0


def cold(scenario: dict[str, Any], repeat: int) -> list[float]:
    return [cpu_ms(lambda: analyze(scenario)) for _ in range(repeat)]


def update(scenario: dict[str, Any], repeat: int) -> tuple[list[float], int]:
    """CPU ms of the live update after one unit moves, and how many bases it re-summarised."""
    moved = moved_unit(scenario)
    times, counts = [], []
    for _ in range(repeat):
        live = LiveAnalysis()
        live.update(scenario)
        before = live.resummarised
        times.append(cpu_ms(lambda: live.update(moved)))
        counts.append(live.resummarised - before)
    return times, max(counts)


def detail(scenario: dict[str, Any], repeat: int, sample: int | None = None
           ) -> list[tuple[float, str, dict[str, Any]]]:
    """Per base (every one, or ``sample`` spread over the list), the median CPU ms of its full
    analysis in a fresh snapshot, its id and the analysis; slowest last."""
    ids = [b["id"] for b in scenario["bases"]]
    picked = ids if sample is None else ids[:: max(1, len(ids) // sample)][:sample]
    out = []
    for base_id in picked:
        runs, entry = [], {}
        for _ in range(repeat):
            snapshot = LiveAnalysis().update(scenario)
            start = time.process_time()
            entry = snapshot.base_analysis(base_id)
            runs.append((time.process_time() - start) * 1000.0)
        out.append((statistics.median(runs), base_id, entry))
    return sorted(out, key=lambda r: r[0])


def why(entry: dict[str, Any]) -> str:
    """What makes a base's detail heavy: its targets, charges (with a path, legal), melees."""
    charges = entry.get("charges", [])
    melee = entry.get("melee") or {}
    parts = [f"{len(entry.get('targets', []))} targets",
             f"{len(charges)} charges ({sum(1 for c in charges if c.get('path'))} with a path, "
             f"{sum(1 for c in charges if c.get('legal'))} legal)"]
    if melee.get("against"):
        parts.append(f"in melee with {melee['against']}")
    if melee.get("charges"):
        parts.append(f"{len(melee['charges'])} charge melees")
    return ", ".join(parts)


def profile(ruleset: str, n: int, top: int = 25) -> None:
    scenario = dense_battle(ruleset, n)
    analyze(scenario)
    prof = cProfile.Profile()
    prof.enable()
    analyze(scenario)
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(top)
    print(out.getvalue())


def profile_detail(ruleset: str, n: int, base_id: str | None, top: int = 30) -> None:
    """cProfile of one base's full detail (the worst base of a sweep when none is named)."""
    scenario = dense_battle(ruleset, n)
    analyze(dense_battle(ruleset, 20))
    if base_id is None:
        ms, base_id, entry = detail(scenario, 1)[-1]
        print(f"worst base {base_id}: {ms:.1f} ms, {why(entry)}")
    prof = cProfile.Profile()
    for _ in range(5):
        snapshot = LiveAnalysis().update(scenario)
        prof.enable()
        snapshot.base_analysis(base_id)
        prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(top)
    print(out.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rulesets", nargs="+", default=list(RULESETS), choices=RULESETS)
    parser.add_argument("--sizes", nargs="+", type=int, default=[50, 100, 200, 400])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-live", action="store_true", help="only the cold analyses")
    parser.add_argument("--detail-sample", type=int, metavar="K",
                        help="time the detail of K bases spread over the list (default: every base)")
    parser.add_argument("--profile", metavar="RULESET:N", help="cProfile one cold analysis")
    parser.add_argument("--profile-detail", metavar="RULESET:N[:BASE]",
                        help="cProfile one base's detail (default: the worst base)")
    args = parser.parse_args()
    if args.profile_detail:
        name, n, *base = args.profile_detail.split(":")
        profile_detail(name, int(n), base[0] if base else None)
        return
    if args.profile:
        name, n = args.profile.split(":")
        profile(name, int(n))
        return
    print(f"host reference (bench/host_speed.py): {reference_ms():.1f} CPU ms; CPU ms here are "
          "comparable across days only in proportion to it")
    for name in args.rulesets:
        analyze(dense_battle(name, 20))   # imports and first calls
        print(f"\n{name}")
        print(f"{'bases':>6} {'cold best':>10} {'cold med':>9} {'growth':>7} {'budget':>7}"
              f" {'update':>8} {'resumm.':>8} {'detail med':>10} {'detail max':>10}  worst")
        previous: tuple[int, float] | None = None
        worst: list[str] = []
        for n in args.sizes:
            scenario = dense_battle(name, n)
            times = cold(scenario, args.repeat)
            best = min(times)
            growth = ""
            if previous is not None:
                growth = f"n^{math.log(best / previous[1]) / math.log(n / previous[0]):.2f}"
            previous = (n, best)
            budget = BUDGET_COLD.get((name, n))
            verdict = "" if budget is None else ("ok" if best <= budget else "OVER")
            row = f"{n:>6} {best:>10.1f} {statistics.median(times):>9.1f} {growth:>7} {verdict:>7}"
            if not args.no_live and n <= 200:
                up, count = update(scenario, args.repeat)
                details = detail(scenario, max(1, args.repeat // 2), args.detail_sample)
                spent = [ms for ms, _, _ in details]
                row += (f" {min(up):>8.1f} {count:>8} {statistics.median(spent):>10.1f}"
                        f" {spent[-1]:>10.1f}  {details[-1][1]}")
                worst += [f"  {n} bases, {b}: {ms:.1f} ms: {why(e)}" for ms, b, e in details[-3:]]
            print(row, flush=True)
        if worst:
            print("slowest details:\n" + "\n".join(worst))
    print(f"\nbudgets: cold {BUDGET_COLD}; update <= {BUDGET_UPDATE} ms, detail <= "
          f"{BUDGET_DETAIL} ms at 100 bases")


if __name__ == "__main__":
    main()
