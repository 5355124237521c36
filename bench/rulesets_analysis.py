"""Benchmark: full `engine.analyze` of Federico and ATTILA battles of 25, 50, 100 and 200 bases.

Each battle is two armies facing each other in lines close enough to fight: Federico regiments
of four battalion bases with a second line, batteries and cavalry on the wings, commanders behind,
lines about 15 cm apart (inside musket range and charge reach), one melee already joined; ATTILA
deployment groups of heavy foot, archers, skirmishers and cavalry, a General and a Camp per side,
lines 12-20 cm apart. Every 900 mm of table holds a wood, a hill with its crest and a town in
no-man's land. The table grows with the number of bases (constant density), as real battles do,
so the growth exponent shows how the work scales. Scenarios are deterministic (seeded).

Run:  .venv/bin/python bench/rulesets_analysis.py [--repeat 5] [--sizes 25 50 100 200]
          [--ruleset federico|attila|both] [--profile]
Prints the median (and best) milliseconds of a full analysis per ruleset and size, wall clock and
process CPU time (CPU is the steadier figure when other work shares the machine's 2 cores), and
the growth exponent between sizes. ``--profile`` adds a cProfile of the largest size (top 15 by
cumulative time) per ruleset.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import math
import pstats
import random
import statistics
import time
from typing import Any


from campo import engine  # noqa: E402

SIZES = (25, 50, 100, 200)
DEPTH_MM = 1200.0
MM_PER_BASE = 22.0     # table width per base: 200 bases on a 4.4 m table, 100 on 2.2 m
MIN_WIDTH_MM = 1300.0  # small battles still on a table wider than deep (ATT AT31)


def _b(id_: str, side: str, type_: str, x: float, y: float, h: float, w: float, d: float,
       **traits: Any) -> dict[str, Any]:
    return {"id": id_, "side": side, "type": type_, "x_mm": round(x, 1), "y_mm": round(y, 1),
            "heading_deg": round(h % 360.0, 1), "width_mm": w, "depth_mm": d, "traits": traits}


def terrain(width_mm: float) -> list[dict[str, Any]]:
    """A wood, a hill (with its crest) and a town every 900 mm, in and around no-man's land."""
    out: list[dict[str, Any]] = []
    for i in range(max(1, round(width_mm / 900))):
        cx = 250 + 900 * i
        out.append({"id": f"wood-{i}", "kind": "wood", "polygon_mm": [
            [cx - 90, 560], [cx + 70, 545], [cx + 100, 640], [cx - 70, 655]]})
        out.append({"id": f"hill-{i}", "kind": "hill", "polygon_mm": [
            [cx + 230, 300], [cx + 450, 300], [cx + 450, 420], [cx + 230, 420]],
            "crest_mm": [[cx + 230, 360], [cx + 450, 360]]})
        out.append({"id": f"town-{i}", "kind": "town", "polygon_mm": [
            [cx + 560, 580], [cx + 660, 580], [cx + 660, 660], [cx + 560, 660]]})
    return out


# --- Federico ---------------------------------------------------------------------------------
def federico_battle(n: int, seed: int = 1) -> dict[str, Any]:
    """About ``n`` Federico bases in two facing lines (bases 40 x 20 / 30 / 40 mm)."""
    width = max(MIN_WIDTH_MM, MM_PER_BASE * n)
    rng = random.Random(seed)
    bases: list[dict[str, Any]] = []
    per_side = n // 2
    for side, y0, heading in (("A", 520.0, 90.0), ("B", 690.0, 270.0)):
        sign = 1 if side == "A" else -1
        count, x, reg = 0, 40.0, 0
        while count < per_side:
            reg += 1
            r = f"{side}{reg}"
            jitter, turn = rng.uniform(-12, 12), rng.uniform(-4, 4)
            if reg % 3 == 1:
                jitter += sign * 45      # some regiments pushed forward, within reach
            kind = reg % 6
            weight = rng.choice(["light", "medium", "heavy"])
            if kind == 0:      # a battery
                for k in range(2):
                    bases.append(_b(f"{r}-art{k}", side, "artillery", x + 20 + 42 * k,
                                    y0 - sign * 25 + jitter, heading + turn, 40, 40,
                                    regiment=r, weight=weight))
                x += 100
                count += 2
            elif kind == 3:    # cavalry regiment of three squadrons
                for k in range(3):
                    bases.append(_b(f"{r}-cav{k}", side, "cavalry", x + 20 + 40 * k,
                                    y0 - sign * 60 + jitter, heading + turn, 40, 30,
                                    regiment=r, weight=weight))
                x += 140
                count += 3
            else:              # infantry: four battalion bases, some light, one in column
                klass = rng.choice([3, 4, 4, 5])
                column = reg % 7 == 5
                for k in range(4):
                    if column:
                        bx, by = x + 20, y0 - sign * (22 * k) + jitter
                    else:
                        bx, by = x + 20 + 40 * k, y0 + jitter
                    traits: dict[str, Any] = {"regiment": r, "class": klass}
                    if column:
                        traits["formation"] = "march_column"
                    if reg % 5 == 4:
                        traits["light"] = True
                    if reg % 4 == 1:
                        traits["fired"] = True
                    bases.append(_b(f"{r}-inf{k}", side, "infantry", bx, by, heading + turn,
                                    40, 20, **traits))
                x += 60 if column else 175
                count += 4
            if reg % 4 == 2 and count < per_side:    # a commander behind the line
                bases.append(_b(f"{r}-cmd", side, "commander", x - 80, y0 - sign * 110,
                                heading, 30, 30, rank="chief" if reg == 2 else "general",
                                ability=rng.randint(1, 4)))
                count += 1
            if x > width - 180:
                x, y0 = 60.0 + rng.uniform(0, 60), y0 - sign * 130
    bases = bases[:n]
    # one melee already joined: the first A base pushed into contact with the B line
    a0 = next(b for b in bases if b["side"] == "A" and b["type"] == "infantry")
    b0 = min((b for b in bases if b["side"] == "B" and b["type"] == "infantry"),
             key=lambda b: abs(b["x_mm"] - a0["x_mm"]))
    a0.update(x_mm=b0["x_mm"], y_mm=round(b0["y_mm"] - 20.3, 1), heading_deg=90.0)
    b0["heading_deg"] = 270.0
    return {"ruleset": "federico", "table": {"width_mm": width, "depth_mm": DEPTH_MM},
            "terrain": terrain(width), "bases": bases, "turn": 2}


# --- ATTILA -----------------------------------------------------------------------------------
_ATTILA_GROUPS = (
    # (type, width, depth, count, traits)
    ("FP", 40, 20, 4, {}),
    ("FL", 40, 20, 3, {"missile": "bows"}),
    ("CL", 40, 30, 3, {"missile": "javelins"}),
    ("FP", 40, 20, 4, {"pikes": True}),
    ("SI", 40, 20, 3, {"missile": "slings"}),
    ("CP", 40, 30, 3, {}),
)


def attila_battle(n: int, seed: int = 1) -> dict[str, Any]:
    """About ``n`` ATTILA bases: deployment groups side by side, lines 12-20 cm apart."""
    width = max(MIN_WIDTH_MM, MM_PER_BASE * n)
    rng = random.Random(seed)
    bases: list[dict[str, Any]] = []
    per_side = n // 2
    for side, y0, heading in (("A", 520.0, 90.0), ("B", 690.0, 270.0)):
        sign = 1 if side == "A" else -1
        bases.append(_b(f"{side}-gen", side, "general", width / 2, y0 - sign * 150, heading,
                        40, 40))
        bases.append(_b(f"{side}-camp", side, "camp", width / 3, y0 - sign * 350, heading,
                        80, 60))
        count, x, g = 2, 40.0, 0
        while count < per_side:
            typ, w, d, k, traits = _ATTILA_GROUPS[g % len(_ATTILA_GROUPS)]
            g += 1
            label = f"{side}g{g}"
            jitter, turn = rng.uniform(-30, 30), rng.uniform(-3, 3)
            offset = -sign * 30 if typ in ("SI", "FL") else 0.0   # skirmishers a bit ahead
            for j in range(k):
                extra = dict(traits)
                if g % 5 == 4 and j == 0:
                    extra["disordered"] = True
                bases.append(_b(f"{label}-{j}", side, typ, x + w / 2 + w * j,
                                y0 - offset + jitter, heading + turn, w, d, group=label, **extra))
            x += w * k + 25
            count += k
            if x > width - 160:
                x, y0 = 60.0 + rng.uniform(0, 60), y0 - sign * 120
    bases = bases[:n]
    a0 = next(b for b in bases if b["side"] == "A" and b["type"] == "FP")
    b0 = min((b for b in bases if b["side"] == "B" and b["type"] in ("FP", "CP")),
             key=lambda b: abs(b["x_mm"] - a0["x_mm"]))
    a0.update(x_mm=b0["x_mm"], y_mm=round(b0["y_mm"] - b0["depth_mm"] / 2 - 10.2, 1),
              heading_deg=90.0)
    b0["heading_deg"] = 270.0
    return {"ruleset": "attila", "table": {"width_mm": width, "depth_mm": DEPTH_MM},
            "terrain": terrain(width), "bases": bases, "turn": 3,
            "armies": {"A": {"discipline": "regular"}, "B": {"discipline": "veteran"}}}


BATTLES = {"federico": federico_battle, "attila": attila_battle}


# --- timing -----------------------------------------------------------------------------------
def time_analysis(scenario: dict[str, Any], repeat: int) -> dict[str, float]:
    """Median and best wall ms, median CPU ms, and answer counts of a full analysis."""
    walls, cpus = [], []
    result: dict[str, Any] = {}
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        result = engine.analyze(scenario)
        walls.append((time.perf_counter() - t0) * 1000.0)
        cpus.append((time.process_time() - c0) * 1000.0)
    bases = result["bases"].values()
    return {"median": statistics.median(walls), "best": min(walls),
            "cpu": statistics.median(cpus), "spread": max(walls) - min(walls),
            "targets": sum(len(b["targets"]) for b in bases),
            "charges": sum(len(b["charges"]) for b in bases),
            "legal": sum(c["legal"] for b in bases for c in b["charges"])}


def series(ruleset: str, sizes: list[int], repeat: int) -> list[tuple[int, dict[str, float]]]:
    build = BATTLES[ruleset]
    print(f"\n{ruleset} (constant density: {MM_PER_BASE:g} mm of table width per base)")
    print(f"{'bases':>6} {'table mm':>9} {'median ms':>10} {'best ms':>8} {'cpu ms':>8} "
          f"{'spread':>7} {'growth':>7} {'targets':>8} {'charges':>8} {'legal':>6}")
    rows: list[tuple[int, dict[str, float]]] = []
    for n in sizes:
        sc = build(n)
        t = time_analysis(sc, repeat)
        growth = ""
        if rows:
            n0, t0 = rows[-1]
            growth = f"n^{math.log(t['cpu'] / t0['cpu']) / math.log(n / n0):.2f}"
        rows.append((n, t))
        print(f"{len(sc['bases']):>6} {sc['table']['width_mm']:>9.0f} {t['median']:>10.1f} "
              f"{t['best']:>8.1f} {t['cpu']:>8.1f} {t['spread']:>7.1f} {growth:>7} "
              f"{t['targets']:>8} {t['charges']:>8} {t['legal']:>6}")
    return rows


def profile(ruleset: str, n: int, top: int = 15) -> None:
    sc = BATTLES[ruleset](n)
    engine.analyze(sc)
    prof = cProfile.Profile()
    prof.enable()
    engine.analyze(sc)
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(top)
    print(f"\n--- profile: {ruleset}, {n} bases (top {top} by cumulative time) ---")
    print("\n".join(line for line in out.getvalue().splitlines() if line.strip())[:6000])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--ruleset", choices=["federico", "attila", "both"], default="both")
    parser.add_argument("--profile", action="store_true",
                        help="cProfile one analysis of the largest size (top 15)")
    args = parser.parse_args()
    names = list(BATTLES) if args.ruleset == "both" else [args.ruleset]
    for name in names:
        engine.analyze(BATTLES[name](20))    # warm imports
    results = {name: series(name, args.sizes, args.repeat) for name in names}
    print()
    for name, rows in results.items():
        for n, t in rows:
            if n == 100:
                print(f"{name} 100 bases: median {t['median']:.1f} ms (budget 100 ms) -> "
                      f"{'OK' if t['median'] <= 100 else 'OVER BUDGET'}")
    print("(timings are noisy: the machine's 2 cores are shared with other work)")
    if args.profile:
        for name in names:
            profile(name, max(args.sizes))


if __name__ == "__main__":
    main()
