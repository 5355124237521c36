"""How big a recording gets: a simulated game at a given rate of changes, recorded for real.

A change is what the live server publishes: one base (sometimes two) picked up and slid a few
inches by hand over one to three seconds with marker jitter, so every state differs from the
last. Turns, losses and markers going stale happen now and then. The states carry a small live
`analysis` (as the server's do), so events are derived as live (moves, presence, losses, turns).

    .venv/bin/python bench/recording_size.py                 # 3 h at 10 changes/s, 24 bases
    .venv/bin/python bench/recording_size.py --minutes 20    # simulate 20 min, extrapolate to 3 h

Prints the file size, bytes per hour and per state, and the projection for `--hours`.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import tempfile
import time
from pathlib import Path


from campo.server.recording import Recorder, open_recording  # noqa: E402


def scenario(n_bases: int) -> dict:
    bases = []
    for i in range(n_bases):
        side = "A" if i % 2 == 0 else "B"
        bases.append({"id": f"{side.lower()}-{i // 2 + 1}", "side": side, "type": "B",
                      "name": f"Brigade {i}", "x_mm": 150.0 + (i // 2) * 130.0,
                      "y_mm": 300.0 if side == "A" else 900.0,
                      "heading_deg": 90.0 if side == "A" else 270.0, "width_mm": 80.0,
                      "depth_mm": 40.0, "marker": 10 + i,
                      "traits": {"arm": "infantry", "formation": "line", "quality": "regular",
                                 "weapon": "MR", "losses": 0, "division": "1st"}})
    return {"ruleset": "italia-se-desta", "table": {"width_mm": 1800.0, "depth_mm": 1200.0},
            "terrain": [{"id": "wood-1", "kind": "wood",
                         "polygon_mm": [[300, 500], [500, 500], [500, 660], [300, 660]]},
                        {"id": "road-1", "kind": "road", "line_mm": [[0, 600], [1800, 620]]}],
            "bases": bases, "turn": 1, "phase": "movement"}


def simulate(path: Path, seconds: float, rate_hz: float, n_bases: int, seed: int) -> int:
    """Record ``seconds`` of game at ``rate_hz`` changes per second; returns the states sent."""
    rng = random.Random(seed)
    state = scenario(n_bases)
    bases = state["bases"]
    top = {k: v for k, v in state.items() if k != "bases"}
    analysis = {"ruleset": "italia-se-desta", "bases": {}}
    move: dict | None = None
    sent = 0
    with Recorder(path) as rec:
        for k in range(int(seconds * rate_hz)):
            t = k / rate_hz
            if move is None or move["left"] <= 0:
                i = rng.randrange(len(bases))
                a = rng.uniform(0, 2 * math.pi)
                d = rng.uniform(20, 150)
                move = {"i": i, "left": rng.randint(10, 30), "dx": d * math.cos(a),
                        "dy": d * math.sin(a), "turn": rng.choice([0, 0, 0, 15, -30, 45])}
                move["steps"] = move["left"]
            b = bases[move["i"]]
            f = 1.0 / move["steps"]
            jitter = rng.uniform(-0.5, 0.5)
            new = {**b, "x_mm": round(min(1780, max(20, b["x_mm"] + move["dx"] * f + jitter)), 1),
                   "y_mm": round(min(1180, max(20, b["y_mm"] + move["dy"] * f + jitter)), 1),
                   "heading_deg": round((b["heading_deg"] + move["turn"] * f) % 360.0, 1)}
            if rng.random() < 0.002:
                new["traits"] = {**b["traits"], "losses": b["traits"]["losses"] + 1}
            if rng.random() < 0.003:
                new["stale"] = not b.get("stale", False)
            bases[move["i"]] = new
            move["left"] -= 1
            if k and k % int(rate_hz * 600) == 0:  # a turn every ten minutes
                top = {**top, "turn": top["turn"] + 1}
            rec.record_state({**top, "bases": list(bases), "analysis": analysis}, t=t)
            sent += 1
            if sent % 2000 == 0:
                rec.flush()  # keep the queue short (the live server is paced by the camera)
    return sent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hours", type=float, default=3.0, help="game length to report (default 3)")
    ap.add_argument("--minutes", type=float, default=None,
                    help="simulate only this many minutes and extrapolate (default: all of it)")
    ap.add_argument("--rate", type=float, default=10.0, help="changes per second (default 10)")
    ap.add_argument("--bases", type=int, default=24, help="bases on the table (default 24)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", type=Path, help="write the recording here instead of a temp file")
    args = ap.parse_args()

    seconds = (args.minutes * 60.0) if args.minutes else args.hours * 3600.0
    with tempfile.TemporaryDirectory() as tmp:
        path = args.keep or Path(tmp) / "bench.db"
        if path.exists():
            path.unlink()
        start = time.perf_counter()
        sent = simulate(path, seconds, args.rate, args.bases, args.seed)
        elapsed = time.perf_counter() - start
        size = sum(os.path.getsize(p) for p in (path, Path(f"{path}-wal")) if p.exists())
        with open_recording(path) as rec:
            states, total = rec.count("state"), rec.count()
    hours = seconds / 3600.0
    per_hour = size / hours
    projected = per_hour * args.hours
    print(f"simulated:   {seconds / 60:.1f} min at {args.rate:g} changes/s, {args.bases} bases "
          f"({sent} states sent)")
    print(f"recorded:    {states} state rows, {total - states} event rows")
    print(f"file:        {size:,} bytes ({size / 2**20:.2f} MiB)")
    print(f"per state:   {size / max(states, 1):.1f} bytes")
    print(f"per hour:    {per_hour:,.0f} bytes ({per_hour / 2**20:.2f} MiB)")
    print(f"{args.hours:g} h game: {projected:,.0f} bytes ({projected / 2**20:.2f} MiB)"
          + ("  [extrapolated]" if args.minutes else "  [measured]") + "  limit 50 MB")
    print(f"time:        {elapsed:.1f} s to record ({sent / elapsed:.0f} states/s; "
          "shared CPU, noisy)")
    return 0 if projected < 50e6 else 1


if __name__ == "__main__":
    sys.exit(main())
