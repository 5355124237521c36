"""Recall, corner error and false readings on real photos and independent renders; cold-scan time.

Campo was tuned on its own synthetic camera (vision/synthetic). This bench checks it on what it
was not tuned on, against the tuned OpenCV peer (ArucoDetector, minMarkerPerimeterRate 0.01,
CORNER_REFINE_SUBPIX):

- **recall** (per set): real photos (tests/data/vision_real, truth in its truth.json and
  README) and six sets drawn by the three independent renderers of bench/vision_render.py, each
  aimed at one weakness the issue lists (blurred 6x6 markers, steep tilt, 8-12 px markers, thin
  quiet zones in low contrast, AprilTags, mixed sizes over clutter). Campo here is
  `read_markers` (what `campo detect --dictionary D` prints). Per set: markers read, corner
  error in px (mean of the four corners' distances; for the real ChArUco photo the centre's
  distance, its truth being the board layout) median / p95, false readings (an id read where
  no such marker is), CPU ms per image;
- **false readings on marker-free real photos**, in every dictionary the sets use;
- **cold-scan time** (`--timing`): tables of 16-18 mm base markers and 40 mm anchors drawn by
  the three renderers in three scene styles (procedural cloth, tiled real photos, cloth with
  terrain clutter) at 1080p over 120 x 80 cm (60 bases) and 4K over 180 x 120 cm (120 bases):
  CPU ms of a cold `campo detect` (`analyse_image`, a fresh pipeline) against the peer's
  `detectMarkers`, timed in turns, best and median of `--repeat`, with each one's recall.

Usage: .venv/bin/python bench/vision_real.py [--timing] [--repeat 5] [--sets NAME ...]
OpenCV runs on one thread (CPU time then counts only the work).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import vision_render as vr  # noqa: E402

from campo.calibration.pipeline import analyse_image  # noqa: E402
from campo.vision.detection.raw import read_markers  # noqa: E402
from campo.vision.tabletop import Roster, RosterBase, TableConfig  # noqa: E402

REAL = Path(__file__).resolve().parents[1] / "tests" / "data" / "vision_real"


@dataclass
class Sample:
    """One image with its truth: (id, corners (4,2) or None, centre (2,) or None) per marker."""

    name: str
    image: np.ndarray
    dictionary: str
    truth: list[tuple[int, np.ndarray | None, np.ndarray | None]]
    partly_seen: list[tuple[int, np.ndarray]] = ()  # markers cut by the image's edge: neither found nor false


# --- the sets ---------------------------------------------------------------------------------------


def real_photos() -> list[Sample]:
    meta = json.loads((REAL / "truth.json").read_text())["markers"]
    out = []
    for name, t in meta.items():
        image = cv2.imread(str(REAL / name), cv2.IMREAD_GRAYSCALE)
        centres = t.get("centres_px", {})
        truth = [(i, None, np.array(centres[str(i)]) if str(i) in centres else None) for i in t["ids"]]
        out.append(Sample(name, image, t["dictionary"], truth))
    return out


def marker_free_photos() -> list[tuple[str, np.ndarray]]:
    names = json.loads((REAL / "truth.json").read_text())["no_markers"]
    return [(n, cv2.imread(str(REAL / n), cv2.IMREAD_GRAYSCALE)) for n in names]


def _photo(name: str) -> np.ndarray:
    return cv2.imread(str(REAL / name), cv2.IMREAD_GRAYSCALE)


def _grid_markers(dictionary: str, rows: int, cols: int, spacing: float, sizes: tuple[float, float], rng,
                  first_id: int = 0, **kw) -> list[vr.Marker]:
    out = []
    for k in range(rows * cols):
        r, c = divmod(k, cols)
        side = rng.uniform(*sizes)
        a = rng.uniform(0, 2 * np.pi)
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        centre = np.array([(c - (cols - 1) / 2) * spacing, (r - (rows - 1) / 2) * spacing]) + rng.uniform(-0.1, 0.1, 2) * spacing
        sq = np.array([[-1, 1], [1, 1], [1, -1], [-1, -1]]) * side / 2  # top-left first, y up on the plane
        out.append(vr.Marker(dictionary, first_id + k, sq @ rot.T + centre, **kw))
    return out


SIZE = (1280, 960)


def _set(name: str, n: int, make: Callable[[int, np.random.Generator], vr.Scene], dictionary: str) -> list[Sample]:
    out = []
    for i in range(n):
        scene = make(i, np.random.default_rng(1000 * len(name) + i))
        truth = [(m, c, None) for m, c in scene.truth()]
        out.append(Sample(f"{name}-{i}", scene.render(), dictionary, truth, scene.partly_seen()))
    return out


def blur6x6(n: int = 5) -> list[Sample]:
    """DICT_6X6_250, 23-40 px, Gaussian blur 1.5 px, noise, JPEG: warp renderer on real photos."""
    def make(i, rng):
        cam = vr.looking_at(SIZE, 1000, (0, 0), 600, rng.uniform(5, 30), rng.uniform(0, 360), rng.uniform(-10, 10))
        bg = vr.photo_texture(_photo(["fruits.jpg", "building.jpg"][i % 2]), SIZE, i)
        fx = vr.Effects(blur_px=1.5, noise=3.0, jpeg=90, light=(0.9, 1.1), seed=i)
        return vr.Scene(cam, _grid_markers("DICT_6X6_250", 4, 6, 95, (14, 24), rng, 10 * i), bg, "warp", fx)
    return _set("blur6x6", n, make, "DICT_6X6_250")


def tilt(n: int = 5) -> list[Sample]:
    """DICT_5X5_100 seen 60-72 degrees from face-on, radial distortion: polygon renderer on cloth."""
    def make(i, rng):
        cam = vr.looking_at(SIZE, 1000, (0, 0), 520, rng.uniform(60, 72), rng.uniform(0, 360), rng.uniform(-5, 5),
                            k1=-0.12)
        fx = vr.Effects(blur_px=0.7, shot=0.6, gamma=0.9, seed=i)
        return vr.Scene(cam, _grid_markers("DICT_5X5_100", 5, 5, 70, (34, 42), rng, 15 * i), vr.cloth(SIZE, i), "poly", fx)
    return _set("tilt", n, make, "DICT_5X5_100")


def small(n: int = 5) -> list[Sample]:
    """DICT_4X4_50 of 8-12 px, light blur and noise: exact renderer on cloth."""
    def make(i, rng):
        cam = vr.looking_at(SIZE, 1000, (0, 0), 1000, rng.uniform(0, 20), rng.uniform(0, 360))
        fx = vr.Effects(blur_px=0.6, noise=2.0, jpeg=92, seed=i)
        return vr.Scene(cam, _grid_markers("DICT_4X4_50", 6, 8, 100, (8, 12), rng), vr.cloth(SIZE, 50 + i), "exact", fx)
    return _set("small", n, make, "DICT_4X4_50")


def quiet(n: int = 5) -> list[Sample]:
    """DICT_5X5_100 with half a cell of quiet zone, grey on grey, uneven light: warp renderer."""
    def make(i, rng):
        cam = vr.looking_at(SIZE, 1000, (0, 0), 700, rng.uniform(0, 35), rng.uniform(0, 360))
        fx = vr.Effects(blur_px=0.8, noise=4.0, light=(0.6, 1.2), jpeg=85, seed=i)
        ms = _grid_markers("DICT_5X5_100", 4, 6, 85, (18, 30), rng, 15 * i, quiet_cells=0.5, black=60.0, white=185.0)
        return vr.Scene(cam, ms, vr.cloth(SIZE, 70 + i, level=55.0, contrast=20.0), "warp", fx)
    return _set("quiet", n, make, "DICT_5X5_100")


def april(n: int = 5) -> list[Sample]:
    """DICT_APRILTAG_36h11, 25-50 px, motion blur, over clutter: polygon renderer."""
    def make(i, rng):
        cam = vr.looking_at(SIZE, 1000, (0, 0), 700, rng.uniform(10, 40), rng.uniform(0, 360), k1=-0.05)
        fx = vr.Effects(motion_px=2.0, motion_deg=rng.uniform(0, 180), noise=2.5, seed=i)
        bg = vr.clutter(vr.cloth(SIZE, 90 + i, level=140.0), i)
        return vr.Scene(cam, _grid_markers("DICT_APRILTAG_36h11", 4, 5, 110, (18, 32), rng, 20 * i), bg, "poly", fx)
    return _set("april", n, make, "DICT_APRILTAG_36h11")


def mixed(n: int = 5) -> list[Sample]:
    """DICT_ARUCO_ORIGINAL of 12-60 px over real photos and clutter, vignetting, JPEG: exact renderer."""
    def make(i, rng):
        cam = vr.looking_at(SIZE, 1000, (0, 0), 800, rng.uniform(0, 45), rng.uniform(0, 360))
        fx = vr.Effects(blur_px=0.7, vignette=0.45, noise=2.0, jpeg=80, seed=i)
        bg = vr.clutter(vr.photo_texture(_photo("board.jpg"), SIZE, 30 + i), 40 + i, count=40)
        return vr.Scene(cam, _grid_markers("DICT_ARUCO_ORIGINAL", 4, 6, 120, (12, 48), rng, 30 * i), bg, "exact", fx)
    return _set("mixed", n, make, "DICT_ARUCO_ORIGINAL")


RENDERED = {"blur6x6": blur6x6, "tilt": tilt, "small": small, "quiet": quiet, "april": april, "mixed": mixed}


# --- the readers ------------------------------------------------------------------------------------


def peer_read(gray: np.ndarray, dictionary: str) -> list[tuple[int, np.ndarray]]:
    p = cv2.aruco.DetectorParameters()
    p.minMarkerPerimeterRate = 0.01
    p.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)), p)
    corners, ids, _ = det.detectMarkers(gray)
    ids = [] if ids is None else np.asarray(ids).reshape(-1).tolist()
    return [(int(i), np.asarray(c, np.float64).reshape(4, 2)) for i, c in zip(ids, corners)]


def campo_read(gray: np.ndarray, dictionary: str) -> list[tuple[int, np.ndarray]]:
    return [(d.marker_id, d.corners_px) for d in read_markers(gray, dictionary)]


READERS = {"opencv": peer_read, "campo": campo_read}


@dataclass
class Tally:
    truth: int = 0
    found: int = 0
    false: int = 0
    cpu_ms: float = 0.0
    images: int = 0

    def __post_init__(self) -> None:
        self.errors: list[float] = []


def score(readings: list[tuple[int, np.ndarray]], truth, tally: Tally, partly_seen=()) -> None:
    """Count readings against the truth: found, corner (or centre) errors, false readings."""
    used = set()
    readings = [(m, c) for m, c in readings
                if not any(m == p and np.linalg.norm(pc.mean(axis=0) - c.mean(axis=0)) < 0.5 * np.linalg.norm(pc[1] - pc[0])
                           for p, pc in partly_seen)]
    tally.truth += len(truth)
    for marker_id, corners in readings:
        centre = corners.mean(axis=0)
        side = float(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1).mean())
        hit = None
        for k, (tid, tc, tcentre) in enumerate(truth):
            if tid != marker_id or k in used:
                continue
            ref = tc.mean(axis=0) if tc is not None else tcentre
            if ref is None or np.linalg.norm(ref - centre) < 0.5 * side:
                hit = k
                break
        if hit is None:
            tally.false += 1
            continue
        used.add(hit)
        tally.found += 1
        _, tc, tcentre = truth[hit]
        if tc is not None:
            tally.errors.append(float(np.linalg.norm(corners - tc, axis=1).mean()))
        elif tcentre is not None:
            tally.errors.append(float(np.linalg.norm(centre - tcentre)))


def run_recall(sets: list[str]) -> list[str]:
    groups: dict[str, list[Sample]] = {}
    if "real" in sets:
        groups["real-photos"] = real_photos()
    for name in sets:
        if name in RENDERED:
            groups[name] = RENDERED[name]()
    lines = [f"{'set':<14}{'reader':<8}{'recall':>8}{'found':>10}{'err_med':>9}{'err_p95':>9}{'false':>7}{'cpu_ms':>8}"]
    for name, samples in groups.items():
        tallies = {r: Tally() for r in READERS}
        for s in samples:
            for r, fn in READERS.items():
                t0 = time.process_time()
                got = fn(s.image, s.dictionary)
                tallies[r].cpu_ms += 1000 * (time.process_time() - t0)
                tallies[r].images += 1
                score(got, s.truth, tallies[r], s.partly_seen)
        for r, t in tallies.items():
            e = np.array(t.errors) if t.errors else np.array([np.nan])
            lines.append(f"{name:<14}{r:<8}{100 * t.found / max(t.truth, 1):7.1f}%{t.found:>5}/{t.truth:<4}"
                         f"{np.median(e):9.3f}{np.percentile(e, 95):9.3f}{t.false:>7}{t.cpu_ms / max(t.images, 1):8.1f}")
    return lines


def run_false(dictionaries: list[str]) -> list[str]:
    photos = marker_free_photos()
    lines = []
    for r, fn in READERS.items():
        found = []
        for d in dictionaries:
            for name, img in photos:
                found += [f"{name}:{d}:{m}" for m, _ in fn(img, d)]
        lines.append(f"marker-free real photos ({len(photos)} x {len(dictionaries)} dictionaries), {r}: "
                     f"{len(found)} false readings {' '.join(found[:6])}")
    return lines


# --- cold-scan time on tables ------------------------------------------------------------------------


@dataclass(frozen=True)
class TableView:
    name: str
    size: tuple[int, int]
    table_mm: tuple[float, float]
    bases: int


VIEWS = [TableView("1080p-120x80", (1920, 1080), (1200.0, 800.0), 60),
         TableView("4k-180x120", (3840, 2160), (1800.0, 1200.0), 120)]
STYLES = {"cloth/poly": "poly", "photo/warp": "warp", "terrain/exact": "exact"}


def table_scene(view: TableView, style: str, seed: int = 3) -> tuple[vr.Scene, TableConfig, Roster]:
    rng = np.random.default_rng(seed)
    w, d = view.table_mm
    spots = [(40.0, 40.0), (w - 40.0, 40.0), (w - 40.0, d - 40.0), (40.0, d - 40.0)]
    table = TableConfig.model_validate({
        "table": {"width_mm": w, "depth_mm": d, "dictionary": "DICT_4X4_250"},
        "anchors": [{"marker": i, "x_mm": x, "y_mm": y, "size_mm": 40.0, "up_deg": 90.0} for i, (x, y) in enumerate(spots)]})
    cols = int(np.ceil(np.sqrt(view.bases * w / d)))
    rows = int(np.ceil(view.bases / cols))
    markers = [vr.Marker("DICT_4X4_250", i, np.array([[x - 20, y + 20], [x + 20, y + 20], [x + 20, y - 20], [x - 20, y - 20]]))
               for i, (x, y) in enumerate(spots)]
    bases = []
    for i in range(view.bases):
        side = float(np.round(rng.uniform(16.0, 18.0), 1))
        bases.append(RosterBase.model_validate({
            "marker": 10 + i, "id": f"b{i:03d}", "side": "AB"[i % 2], "type": "B", "width_mm": 40.0, "depth_mm": 20.0,
            "marker_size_mm": side, "marker_offset_mm": [0.0, 0.0], "marker_rotation_deg": 0.0, "height_mm": 0.0}))
        x = 120 + (i % cols + 0.5) * (w - 240) / cols + rng.uniform(-15, 15)
        y = 120 + (i // cols + 0.5) * (d - 240) / rows + rng.uniform(-15, 15)
        a = rng.uniform(0, 2 * np.pi)
        rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        sq = np.array([[-1, 1], [1, 1], [1, -1], [-1, -1]]) * side / 2
        markers.append(vr.Marker("DICT_4X4_250", 10 + i, sq @ rot.T + [x, y]))
    roster = Roster(ruleset="italia-se-desta", bases=bases)
    px_per_mm = view.size[0] / (1.2 * w)
    focal = 1.1 * view.size[0]
    cam = vr.looking_at(view.size, focal, (w / 2, d / 2), focal / px_per_mm, 8.0, 0.0, 1.0,
                        k1=-0.05 if style == "poly" else 0.0)
    if style == "poly":
        bg = vr.cloth(view.size, seed, level=95.0, contrast=35.0)
        fx = vr.Effects(blur_px=0.8, shot=0.7, seed=seed)
    elif style == "warp":
        bg = 0.8 * vr.photo_texture(_photo("fruits.jpg"), view.size, seed) + 20
        fx = vr.Effects(blur_px=0.9, noise=2.5, jpeg=90, light=(0.85, 1.1), seed=seed)
    else:
        bg = vr.clutter(vr.cloth(view.size, seed + 1, level=110.0, contrast=25.0), seed, count=120)
        fx = vr.Effects(blur_px=0.7, vignette=0.3, noise=2.0, jpeg=85, seed=seed)
    return vr.Scene(cam, markers, bg, style, fx), table, roster


def run_timing(repeat: int) -> list[str]:
    lines = [f"{'view':<14}{'style':<15}{'reader':<12}{'recall':>8}{'cpu_best':>10}{'cpu_med':>9}"]
    for view in VIEWS:
        for style_name, renderer in STYLES.items():
            scene, table, roster = table_scene(view, renderer)
            image = scene.render()
            visible = {m for m, _ in scene.truth()} - table.anchor_ids
            gray_bgr = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
            results: dict[str, list[float]] = {"opencv-peer": [], "campo-detect": []}
            recall: dict[str, float] = {}
            for _ in range(repeat):
                t0 = time.process_time()
                got = peer_read(cv2.cvtColor(gray_bgr, cv2.COLOR_BGR2GRAY), "DICT_4X4_250")
                results["opencv-peer"].append(1000 * (time.process_time() - t0))
                recall["opencv-peer"] = len({m for m, _ in got} & visible) / len(visible)
                t0 = time.process_time()
                res = analyse_image(gray_bgr, table, roster, None)
                results["campo-detect"].append(1000 * (time.process_time() - t0))
                recall["campo-detect"] = len({b.marker for b in res.report.bases} & visible) / len(visible)
            for r, ts in results.items():
                lines.append(f"{view.name:<14}{style_name:<15}{r:<12}{100 * recall[r]:7.1f}%{min(ts):10.1f}"
                             f"{float(np.median(ts)):9.1f}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", nargs="*", default=["real", *RENDERED], help="real and/or " + ", ".join(RENDERED))
    ap.add_argument("--timing", action="store_true", help="also the cold-scan time on tables (3 styles x 2 views)")
    ap.add_argument("--timing-only", action="store_true")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    cv2.setNumThreads(args.threads)
    if not args.timing_only:
        for line in run_recall(args.sets):
            print(line, flush=True)
        dicts = sorted({"DICT_4X4_250", "DICT_6X6_250", "DICT_5X5_100", "DICT_4X4_50", "DICT_APRILTAG_36h11",
                        "DICT_ARUCO_ORIGINAL"})
        for line in run_false(dicts):
            print(line, flush=True)
    if args.timing or args.timing_only:
        for line in run_timing(args.repeat):
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
