"""Benchmark: how fast this host runs the kind of work the engine does, to read CPU ms across days.

The project's machine is shared and its host changes: on 2026-12-02 the same code and the same
instruction counts (callgrind) took about twice the CPU ms of the day before. A CPU-ms figure
means little without the host's speed beside it, so the engine benches print this reference:
CPU ms of a fixed mix of what a detail spends its time on (Python calls and attribute reads,
small numpy arrays, small shapely 2 vectorised calls). Compare two hosts by the ratio of their
references; compare two trees only A/B in turns on one host, or by instructions
(`bench/detail_instructions.py` under callgrind).

Run:  .venv/bin/python bench/host_speed.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import shapely


def _python_work() -> int:
    total = 0
    for i in range(200_000):
        total += (i * 7) % 13
    return total


def _numpy_work() -> float:
    a = np.arange(12.0).reshape(6, 2)
    acc = 0.0
    for _ in range(4_000):
        b = np.hypot(*(a - a[::-1]).T)
        acc += float(b.max()) + int((b > 3).nonzero()[0].sum())
    return acc


def _shapely_work() -> int:
    boxes = shapely.box(np.arange(20.0), 0.0, np.arange(20.0) + 1.5, 1.0)
    hits = 0
    for _ in range(400):
        hits += int(shapely.intersects(boxes[:, None], boxes[None, :]).sum())
        hits += int(shapely.area(shapely.buffer(boxes[:3], 0.5)).sum() > 0)
    return hits


def reference_ms(repeat: int = 3) -> float:
    """Best CPU ms of the fixed mix over ``repeat`` runs (the best: the least disturbed)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        _python_work()
        _numpy_work()
        _shapely_work()
        best = min(best, (time.process_time() - start) * 1000.0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"host reference: {reference_ms(args.repeat):.1f} CPU ms (best of {args.repeat})")


if __name__ == "__main__":
    main()
