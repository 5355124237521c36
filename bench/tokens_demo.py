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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fps", type=float, default=5.0, help="camera rate in game time")
    parser.add_argument("--start", type=float, default=0.0, help="demo time of the first frame (s)")
    parser.add_argument("--seconds", type=float, default=90.0, help="game time to run (the loop is 90 s)")
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--misses", action="store_true", help="list the frames not attached right")
    args = parser.parse_args()
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
