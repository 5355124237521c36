"""Write demo frames to a folder: PNG images plus their ground truth as JSON, for replays,
`campo detect` and golden data.

    python -m campo.vision.synthetic.export OUT_DIR [--times 0,10.5,47] [--effects typical] [--size 1920x1080]

Each frame t gives `frame_<t>.png` and `frame_<t>.json` (`GroundTruth.to_json()`); `camera.json`
holds the demo camera's intrinsics (the shape of shared/interfaces.md, with `rms_px` 0).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import cv2

from campo.vision.synthetic.demo import DemoCamera
from campo.vision.synthetic.effects import Effects


def export_demo_frames(out_dir: str | Path, times: Sequence[float], *, effects: Effects | None = None,
                       size: tuple[int, int] = (1920, 1080)) -> list[Path]:
    """Render the demo at `times` into `out_dir`; returns the image paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cam = DemoCamera(effects=effects, size=size)
    intr = cam.intrinsics
    (out / "camera.json").write_text(json.dumps({
        "version": 1, "image_size": list(intr.image_size), "camera_matrix": intr.camera_matrix.tolist(),
        "dist_coeffs": intr.dist_coeffs.reshape(-1).tolist(), "rms_px": 0.0}, indent=1))
    paths = []
    for t in times:
        r = cam.render(float(t))
        stem = f"frame_{float(t):07.2f}"
        cv2.imwrite(str(out / f"{stem}.png"), r.image)
        (out / f"{stem}.json").write_text(json.dumps({"t": float(t), **r.truth.to_json()}))
        paths.append(out / f"{stem}.png")
    return paths


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Write demo frames and their ground truth to a folder.")
    ap.add_argument("out_dir")
    ap.add_argument("--times", default="0,10,30,47,60,80", help="seconds into the demo, comma-separated")
    ap.add_argument("--effects", default="typical", choices=["clean", "typical", "dim"])
    ap.add_argument("--size", default="1920x1080")
    args = ap.parse_args(argv)
    try:
        times = [float(t) for t in args.times.split(",") if t.strip()]
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        ap.error("--times takes numbers separated by commas, --size looks like 1920x1080")
    paths = export_demo_frames(args.out_dir, times, effects=getattr(Effects, args.effects)(), size=(w, h))
    print(f"wrote {len(paths)} frames to {args.out_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
