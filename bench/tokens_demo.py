"""Status tokens on the demo's frames: are they attached to the base they lie against?

Renders the demo game (two tokens laid down and lifted during the loop, `script.json`), runs each
frame through the real `FramePipeline` and the live server's `TokenBoard`, and compares with the
script's truth, in the frames where a token is wholly visible (no hand over it, inside the image):

- **attached right**: the frame's attachment (what the camera sees now) is the scripted base;
- **attached wrong**: attached to another base (must be 0), or to a base while it is not on
  the table at all (a phantom);
- **settled right**: the state the token holds (after `PLACE_FRAMES` frames of hysteresis) is on
  the scripted base; the first frames after a token appears count against it (a new marker is
  found by the next full scan, then settles).
- **changes**: the `unit_state` changes the tokens made, with source "token".

    .venv/bin/python bench/tokens_demo.py [--fps 5] [--start 0] [--seconds 90] [--size 1920x1080]

With ``--cost``: the pipeline's CPU time per frame with the roster's tokens (the change watch and
the scans every second) against the same roster without them, on the same rendered frames
(150 frames from 20 s at 15 fps), in turns (A, B, A, B, A, B): best and median of the means.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class TokenScore:
    """What the frames showed."""

    frames: int = 0
    visible: int = 0            # (token, frame) pairs wholly visible
    right: int = 0
    unattached: int = 0         # visible, read or not, attached to nothing
    wrong: int = 0
    phantom: int = 0            # attached while not on the table
    settled_right: int = 0
    settled_wrong: int = 0
    changes: list[dict[str, Any]] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)   # (t, token, what) of frames not right

    @property
    def right_share(self) -> float:
        return self.right / self.visible if self.visible else float("nan")

    @property
    def settled_share(self) -> float:
        return self.settled_right / self.visible if self.visible else float("nan")


def measure(fps: float = 5.0, start: float = 0.0, seconds: float = 90.0,
            size: tuple[int, int] = (1920, 1080)) -> TokenScore:
    """Run the demo from ``start`` for ``seconds`` at ``fps`` and score the tokens."""
    from campo.calibration.pipeline import FramePipeline
    from campo.server.tokens import TokenBoard
    from campo.server.unit_state import UnitStates
    from campo.vision.synthetic.demo import DemoCamera

    cam = DemoCamera(size=size)
    game = cam.game
    pipeline = FramePipeline(game.table, game.roster, cam.intrinsics)
    units = UnitStates(game.roster)
    board = TokenBoard(game.roster, units, game.table.table.dictionary)
    markers = {t.id: t.marker for t in game.roster.tokens}
    score = TokenScore()
    n = int(round(seconds * fps))
    for k in range(n):
        t = start + k / fps
        render = cam.render(t)
        result = pipeline.process(render.image, t)
        changes = board.update(result.tokens.tokens, result.tracked, t, result.location.located)
        score.changes += [c.event() | {"t": round(t, 2)} for c in changes]
        status = {s["id"]: s for s in board.status()}
        truth = game.token_bases_at(t)
        score.frames += 1
        for token_id, marker in markers.items():
            s = status[token_id]
            base = truth.get(token_id)
            seen = render.truth.markers.get(marker)
            if base is None:
                score.phantom += s["against"] is not None
                continue
            if seen is None or seen.visible_fraction < 0.999:
                continue
            score.visible += 1
            if s["against"] == base:
                score.right += 1
            elif s["against"] is None:
                score.unattached += 1
                score.misses.append(f"{t:.1f}s {token_id}: {'read, ' + str(s['problem']) if s['seen'] else 'not read'}")
            else:
                score.wrong += 1
                score.misses.append(f"{t:.1f}s {token_id}: against {s['against']}, not {base}")
            score.settled_right += s["holds"] == base
            score.settled_wrong += s["holds"] not in (None, base)
    return score


def cost(rounds: int = 3, start: float = 20.0, frames: int = 150, fps: float = 15.0) -> dict[str, list[float]]:
    """Mean CPU ms per frame of `FramePipeline.process`, per round, without and with tokens."""
    from campo.calibration.pipeline import FramePipeline
    from campo.vision.synthetic.demo import DemoCamera

    cam = DemoCamera()
    game = cam.game
    images = [(start + k / fps, cam.render(start + k / fps).image) for k in range(frames)]
    rosters = {"without tokens": game.roster.model_copy(update={"tokens": []}), "with tokens": game.roster}
    out: dict[str, list[float]] = {k: [] for k in rosters}
    for _ in range(rounds):
        for name, roster in rosters.items():
            pipeline = FramePipeline(game.table, roster, cam.intrinsics)
            t0 = time.process_time()
            for t, image in images:
                pipeline.process(image, t)
            out[name].append((time.process_time() - t0) * 1000 / len(images))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fps", type=float, default=5.0, help="camera rate in game time")
    parser.add_argument("--start", type=float, default=0.0, help="demo time of the first frame (s)")
    parser.add_argument("--seconds", type=float, default=90.0, help="game time to run (the loop is 90 s)")
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--misses", action="store_true", help="list the frames not attached right")
    parser.add_argument("--cost", action="store_true", help="time the pipeline with and without tokens instead")
    args = parser.parse_args()
    if args.cost:
        import statistics

        for name, ms in cost().items():
            print(f"pipeline {name}: mean {min(ms):.1f} ms per frame best, {statistics.median(ms):.1f} median "
                  f"({', '.join(f'{m:.1f}' for m in ms)})")
        return
    w, h = (int(v) for v in args.size.lower().split("x"))
    t0 = time.process_time()
    s = measure(args.fps, args.start, args.seconds, (w, h))
    print(f"demo tokens: {s.frames} frames at {args.fps:g} fps from t = {args.start:g} s, {args.size}")
    print(f"  token visible in {s.visible} (token, frame) pairs")
    print(f"  attached right: {s.right} ({100 * s.right_share:.2f} %), attached to nothing: {s.unattached}, "
          f"attached wrong: {s.wrong}, phantom: {s.phantom}")
    print(f"  settled state right: {s.settled_right} ({100 * s.settled_share:.2f} %), settled wrong: {s.settled_wrong}")
    print(f"  unit_state changes from tokens: {len(s.changes)}")
    for c in s.changes:
        print(f"    t {c['t']:6.2f} s  {c['base']}: {c['before']} -> {c['traits']} ({c['source']})")
    if args.misses:
        for m in s.misses:
            print(f"    miss {m}")
    print(f"  CPU {time.process_time() - t0:.1f} s")


if __name__ == "__main__":
    main()
