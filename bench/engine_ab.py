"""Benchmark: the current tree against an earlier commit, run in turns (A/B).

The project machine is a virtual machine on a shared host: the same analysis measures 55 or 65 ms
from one minute to the next, so two figures taken at different times say little. This script
checks the other commit out into a temporary git worktree and times `engine.analyze` of the same
battle in both trees alternately, in fresh processes, round after round; both sides see the same
host load, and the best and median of each side are comparable.

Run:  .venv/bin/python bench/engine_ab.py REV [--bases 200] [--rounds 10] [--repeat 5]
Prints each round's best CPU ms per side, then each side's best and median, and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# run inside each tree: the analysis of `engine_analysis.battle(n)` (constant density), best of
# `repeat`, after one warm-up analysis (caches filled; an older tree's numba kernels compiled).
# The editable install maps `campo.*` to the main checkout: its finder is dropped so that `campo`
# (or, before the namespace, the top-level `engine`) comes from the tree being timed.
TIMER = """
import os, sys, time, types
root = sys.argv[1]
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in type(f).__module__.lower()]
sys.path.insert(0, root); sys.path.insert(0, root + "/bench")
if os.path.isdir(root + "/campo"):
    campo = types.ModuleType("campo"); campo.__path__ = [root + "/campo", root]
    sys.modules["campo"] = campo
    from campo import engine
else:   # a tree from before the `campo` namespace: its engine was a top-level package
    engine = __import__("engine")
import engine_analysis as ea
n, repeat = int(sys.argv[2]), int(sys.argv[3])
scenario = ea.battle(n, 1800.0 * n / 200)
engine.analyze(scenario)
times = []
for _ in range(repeat):
    start = time.process_time(); engine.analyze(scenario); times.append(time.process_time() - start)
print(min(times) * 1000)
"""


def time_tree(tree: Path, bases: int, repeat: int) -> float:
    """Best CPU ms of `repeat` analyses in a fresh process running ``tree``'s code."""
    out = subprocess.run([sys.executable, "-c", TIMER, str(tree), str(bases), str(repeat)],
                         cwd=tree, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rev", help="the commit to compare with (e.g. HEAD~3, a hash)")
    parser.add_argument("--bases", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5, help="analyses per process (best kept)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="campo-ab-") as tmp:
        other = Path(tmp) / "tree"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(other), args.rev],
                       cwd=ROOT, check=True)
        try:
            print(f"{args.bases} bases, best of {args.repeat} per process; warming the other "
                  "tree first (an older tree compiles its numba kernels: up to a minute)", flush=True)
            time_tree(other, 20, 1)
            theirs, ours = [], []
            for r in range(args.rounds):
                theirs.append(time_tree(other, args.bases, args.repeat))
                ours.append(time_tree(ROOT, args.bases, args.repeat))
                print(f"round {r + 1:2d}: {args.rev} {theirs[-1]:7.1f} ms   this tree "
                      f"{ours[-1]:7.1f} ms", flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(other)], cwd=ROOT,
                           check=False)
    for name, values in ((args.rev, theirs), ("this tree", ours)):
        print(f"{name:>12}: best {min(values):7.1f} ms, median {statistics.median(values):7.1f} ms")
    print(f"ratio of medians (this tree / {args.rev}): "
          f"{statistics.median(ours) / statistics.median(theirs):.2f}")


if __name__ == "__main__":
    main()
