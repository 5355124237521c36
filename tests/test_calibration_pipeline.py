"""The per-frame pipeline and `campo detect` end to end, on the project's synthetic camera.

Scenes are small (720p, a dozen bases) so the whole file runs in a few seconds; accuracy at
full scale is measured by bench/vision_accuracy.py, not here.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from campo.calibration.camera_file import CameraCalibration, save_camera
from campo.calibration.detection_merge import new_reads
from campo.calibration.pipeline import FramePipeline, analyse_image
from campo.server.cli import main
from campo.vision.camera_model import Intrinsics
from campo.vision.synthetic import Effects, Hand, PlacedBase, SyntheticCamera, look_at, overhead
from campo.vision.tabletop import Roster, RosterBase, TableConfig, dump_roster, dump_table

TABLE = TableConfig.model_validate({
    "table": {"width_mm": 1200.0, "depth_mm": 800.0, "dictionary": "DICT_4X4_250"},
    "anchors": [{"marker": i, "x_mm": x, "y_mm": y, "size_mm": 40.0, "up_deg": 90.0}
                for i, (x, y) in enumerate([(40.0, 40.0), (1160.0, 40.0), (1160.0, 760.0), (40.0, 760.0)])],
})
INTR = Intrinsics.ideal(1280, 720, 70.0, dist=(-0.08, 0.02, 0.0, 0.0, 0.0))


def roster_base(i: int, **kw) -> RosterBase:
    data = {"marker": 10 + i, "id": f"base-{i}", "side": "AB"[i % 2], "type": "B", "width_mm": 40.0,
            "depth_mm": 30.0, "marker_size_mm": 20.0, "marker_offset_mm": [0.0, -3.0],
            "marker_rotation_deg": [0.0, 90.0, 180.0, 270.0][i % 4], "height_mm": 3.0}
    data.update(kw)
    return RosterBase.model_validate(data)


BASES = [roster_base(i) for i in range(12)]
ROSTER = Roster(ruleset="italia-se-desta", bases=BASES)
STRANGER = roster_base(67, id="stranger")  # on the table, not in the roster: marker 77


def placed(shift: float = 0.0) -> list[PlacedBase]:
    rng = np.random.default_rng(4)
    out = []
    for i, b in enumerate(BASES):
        x = 180.0 + (i % 4) * 280.0 + rng.uniform(-20, 20) + shift
        y = 160.0 + (i // 4) * 240.0 + rng.uniform(-20, 20)
        out.append(PlacedBase(b, x, y, float(rng.uniform(0, 360))))
    return out


@pytest.fixture(scope="module")
def camera() -> SyntheticCamera:
    return SyntheticCamera(TABLE, INTR, overhead(TABLE, INTR, tilt_deg=10.0), effects=Effects.typical(), seed=3)


def check_poses(bases: list[dict] | list, truth, tol_mm: float = 0.6, tol_deg: float = 0.8) -> None:
    for b in bases:
        get = b.get if isinstance(b, dict) else b.__getattribute__
        t = truth.bases[get("id")]
        assert np.hypot(get("x_mm") - t.x_mm, get("y_mm") - t.y_mm) < tol_mm, get("id")
        assert abs((get("heading_deg") - t.heading_deg + 180) % 360 - 180) < tol_deg, get("id")


def test_pipeline_finds_every_base_accurately(camera):
    frame = camera.render(placed())
    result = analyse_image(frame.image, TABLE, ROSTER, INTR)
    assert result.location.located and result.location.anchors_seen == 4
    assert result.location.reprojection_error_px < 0.5
    assert sorted(b.id for b in result.report.bases) == sorted(b.id for b in BASES)
    check_poses(result.report.bases, frame.truth)
    assert result.report.unknown_markers == [] and result.report.duplicate_markers == []


def test_tracking_keeps_a_covered_base_stale_and_follows_a_move(camera):
    pipe = FramePipeline(TABLE, ROSTER, INTR)
    bases = placed()
    first = pipe.process(camera.render(bases).image, 0.0)
    assert first.full_scan and len(first.report.bases) == 12
    second = pipe.process(camera.render(bases).image, 0.1)
    assert not second.full_scan and len(second.report.bases) == 12  # followed, no full scan
    target = bases[5]
    hand = Hand.reaching((target.x_mm, -50.0), (target.x_mm, target.y_mm + 40.0), height_mm=20.0)
    covered = pipe.process(camera.render(bases, [hand]).image, 0.2)
    tracked = {b.id: b for b in covered.tracked}
    assert tracked[target.id].stale and tracked[target.id].last_seen_t == 0.1
    assert (tracked[target.id].x_mm - target.x_mm) ** 2 < 1.0  # kept where it was
    assert target.id not in {b.id for b in covered.report.bases}  # never guessed
    moved = [*bases[:5], PlacedBase(target.base, target.x_mm + 25.0, target.y_mm, target.heading_deg + 30.0), *bases[6:]]
    image = camera.render(moved).image
    for k in range(pipe.lost_search_every):  # a lost marker is looked for every few frames
        after = {b.id: b for b in pipe.process(image, 0.3 + k / 10).tracked}
        if not after[target.id].stale:
            break
    assert not after[target.id].stale
    assert abs(after[target.id].x_mm - (target.x_mm + 25.0)) < 0.6  # no lag after a real move


def test_lost_markers_are_searched_by_the_full_scans_first_stage_in_typical_light(camera):
    big = Roster(ruleset="italia-se-desta", bases=[roster_base(i, marker_size_mm=26.0, marker_offset_mm=[0.0, 0.0])
                                                   for i in range(12)])
    bases = [PlacedBase(b, p.x_mm, p.y_mm, p.heading_deg) for b, p in zip(big.bases, placed())]
    pipe = FramePipeline(TABLE, big, INTR)
    first = pipe.process(camera.render(bases).image, 0.0)
    assert pipe.scanner.small_stage is None and len(first.report.bases) == 12  # (~19 px: full size)
    finder = pipe.scanner.window_finder(pipe.scanner.tracking_detector)
    assert finder.settings.finder == "contours" and finder is pipe.scanner.window_stage
    # what a window search reads again of the markers already followed is not finished twice
    read = [(d.marker_id, d.corners_px + 0.7) for d in first.detections[:3]]
    elsewhere = (first.detections[3].marker_id, first.detections[3].corners_px + [200.0, 0.0])
    assert new_reads(read + [elsewhere], first.detections) == [elsewhere]
    assert new_reads(read, []) == read
    dim = FramePipeline(TABLE, big, INTR)
    dim.process(SyntheticCamera(TABLE, INTR, overhead(TABLE, INTR, tilt_deg=10.0), effects=Effects.dim(),
                                seed=3).render(bases).image, 0.0)
    assert dim.scanner.dim and dim.scanner.window_finder(dim.scanner.tracking_detector).settings.finder == "aruco"


def test_a_bumped_camera_reregisters_within_a_frame(camera):
    pipe = FramePipeline(TABLE, ROSTER, INTR)
    bases = placed()
    pipe.process(camera.render(bases).image, 0.0)
    pipe.process(camera.render(bases).image, 0.1)
    bumped = look_at((640.0, 250.0, 1100.0), (600.0, 420.0, 0.0), roll_deg=4.0)
    frame = camera.render(bases, pose=bumped)
    result = pipe.process(frame.image, 0.2)
    assert result.location.located and result.full_scan
    assert len(result.report.bases) == 12
    check_poses(result.report.bases, frame.truth)


# --- campo detect -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def files(camera, tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("detect")
    (d / "table.toml").write_text(dump_table(TABLE))
    (d / "roster.toml").write_text(dump_roster(ROSTER))
    save_camera(CameraCalibration(INTR, 0.2), d / "camera.json")
    normal = camera.render(placed() + [PlacedBase(STRANGER, 600.0, 60.0, 90.0)])
    cv2.imwrite(str(d / "normal.png"), normal.image)
    bumped = camera.render(placed(), pose=look_at((560.0, 300.0, 1150.0), (620.0, 400.0, 0.0), roll_deg=-3.0))
    cv2.imwrite(str(d / "bumped.png"), bumped.image)
    low = {"height_mm": 20.0}  # hands flat on the table, right over the anchors
    blank = camera.render(placed(), [Hand.reaching((40.0, -60.0), (60.0, 80.0), **low),
                                     Hand.reaching((1160.0, 860.0), (1150.0, 700.0), **low),
                                     Hand.reaching((1260.0, 40.0), (1120.0, 50.0), **low)])
    cv2.imwrite(str(d / "hands.png"), blank.image)
    (d / "broken.png").write_bytes(b"not a png")
    return {"dir": d, "normal": normal.truth, "bumped": bumped.truth}


def run_detect(files, capsys, *images: str, camera: bool = True, as_json: bool = True) -> tuple[int, list, str]:
    d = files["dir"]
    argv = ["detect", *[str(d / i) for i in images], "--table", str(d / "table.toml"), "--roster", str(d / "roster.toml")]
    if camera:
        argv += ["--camera", str(d / "camera.json")]
    if as_json:
        argv.append("--json")
    code = main(argv)
    out, err = capsys.readouterr()
    return code, [json.loads(line) for line in out.splitlines()] if as_json else out, err


def test_detect_json_one_line_per_image(files, capsys):
    code, lines, err = run_detect(files, capsys, "normal.png", "bumped.png")
    assert code == 0 and err == ""
    normal, bumped = lines
    assert normal["image"].endswith("normal.png") and normal["table_located"] is True and normal["anchors_seen"] == 4
    assert normal["unknown_markers"] == [77]
    assert set(normal) >= {"image", "table_located", "anchors_seen", "bases", "unknown_markers"}
    assert set(normal["bases"][0]) == {"id", "marker", "x_mm", "y_mm", "heading_deg"}
    assert len(normal["bases"]) == 12 and len(bumped["bases"]) == 12
    check_poses(normal["bases"], files["normal"])
    check_poses(bumped["bases"], files["bumped"])
    assert all(0 <= b["heading_deg"] < 360 for b in normal["bases"])


def test_detect_without_camera_warns_and_is_less_exact(files, capsys):
    code, (line,), _ = run_detect(files, capsys, "normal.png", camera=False)
    assert code == 0 and line["table_located"] and line["method"] == "homography"
    assert any("no camera calibration" in w for w in line["warnings"])
    check_poses(line["bases"], files["normal"], tol_mm=12.0, tol_deg=3.0)


def test_detect_reports_table_not_located(files, capsys):
    code, (line,), _ = run_detect(files, capsys, "hands.png")
    assert code == 0 and line["table_located"] is False and line["bases"] == []
    assert line["anchors_seen"] <= 1


def test_detect_unreadable_image_is_named_and_the_rest_still_analysed(files, capsys):
    code, lines, err = run_detect(files, capsys, "broken.png", "missing.png", "normal.png")
    assert code == 2
    assert "broken.png" in err and "missing.png" in err and "Traceback" not in err
    assert [("error" in line) for line in lines] == [True, True, False]
    assert len(lines[2]["bases"]) == 12


def test_detect_text_table(files, capsys):
    code, out, _ = run_detect(files, capsys, "normal.png", as_json=False)
    assert code == 0
    assert "table located (pnp, 4 anchors" in out and "base-3" in out and "unknown markers: 77" in out


def test_detect_bad_roster_is_one_clear_error(files, capsys, tmp_path):
    bad = tmp_path / "roster.toml"
    bad.write_text(dump_roster(ROSTER).replace("marker_size_mm", "marker_sise_mm", 1))
    d = files["dir"]
    code = main(["detect", str(d / "normal.png"), "--table", str(d / "table.toml"), "--roster", str(bad), "--json"])
    err = capsys.readouterr().err
    assert code == 2 and "roster.toml" in err and "marker_sise_mm" in err and "Traceback" not in err


def test_unknown_and_duplicated_markers_are_remembered_between_full_scans(camera):
    """Tracked frames only look at known markers; the last full scan's findings still count."""
    frame = camera.render(placed() + [PlacedBase(STRANGER, 600.0, 60.0, 90.0)])
    image = frame.image.copy()
    corners = frame.truth.markers[13].corners_px  # base-3's marker, copied a little to the left
    x0, y0 = np.floor(corners.min(axis=0) - 6).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0) + 6).astype(int)
    image[y0:y1, x0 - 110:x1 - 110] = frame.image[y0:y1, x0:x1]
    pipe = FramePipeline(TABLE, ROSTER, INTR)
    for k in range(3):
        result = pipe.process(image, k / 10)
        assert result.full_scan == (k == 0)
        assert result.report.duplicate_markers == [13] and result.report.unknown_markers == [77]
        assert "base-3" not in {b.id for b in result.report.bases}  # never guessed
        assert len(result.report.bases) == 11


def test_the_periodic_scan_starts_from_the_followed_markers_and_finds_new_ones(camera, monkeypatch):
    """Every `full_scan_every` frames the table is scanned again from the markers followed into
    the frame (`TableScanner.rescan`, no anchor scan): a base laid down meanwhile, an unknown
    marker and a repeated one are found as by a full scan."""
    pipe = FramePipeline(TABLE, ROSTER, INTR, full_scan_every=3)
    bases = placed()
    first = pipe.process(camera.render(bases[:11]).image, 0.0)
    assert first.full_scan and len(first.report.bases) == 11
    frame = camera.render(bases + [PlacedBase(STRANGER, 600.0, 60.0, 90.0)])
    image = frame.image.copy()
    corners = frame.truth.markers[13].corners_px  # base-3's marker, copied a little to the left
    x0, y0 = np.floor(corners.min(axis=0) - 6).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0) + 6).astype(int)
    image[y0:y1, x0 - 110:x1 - 110] = frame.image[y0:y1, x0:x1]
    scans: list[str] = []
    real = pipe.scanner.full_scan
    monkeypatch.setattr(pipe.scanner, "full_scan", lambda *a: scans.append("full") or real(*a))
    results = [pipe.process(image, k / 10) for k in range(1, 5)]
    assert [r.full_scan for r in results] == [False, False, False, True] and scans == []
    last = results[-1]
    assert "base-11" in {b.id for b in last.report.bases}  # laid down after the first frame
    assert last.report.duplicate_markers == [13] and last.report.unknown_markers == [77]
    check_poses(last.report.bases, frame.truth)


def test_intrinsics_follow_the_image_size_or_refuse_another_aspect():
    from campo.calibration.pipeline import fit_intrinsics
    from campo.errors import CampoInputError

    half = fit_intrinsics(INTR, 640, 360)
    assert half.image_size == (640, 360) and half.camera_matrix[0, 0] == pytest.approx(INTR.camera_matrix[0, 0] / 2)
    assert fit_intrinsics(INTR, 1280, 720) is INTR and fit_intrinsics(None, 10, 10) is None
    with pytest.raises(CampoInputError, match="frame.png.*640x480.*1280x720"):
        fit_intrinsics(INTR, 640, 480, "frame.png")


def test_tracking_without_intrinsics_uses_the_homography(camera):
    pipe = FramePipeline(TABLE, ROSTER, None)
    image = camera.render(placed()).image
    first, second = pipe.process(image, 0.0), pipe.process(image, 0.1)
    assert first.location.method == second.location.method == "homography"
    assert not second.full_scan and len(second.report.bases) == 12
    assert any("no camera calibration" in w for w in second.warnings)


def test_small_markers_in_dim_light_are_read_without_phantoms():
    """13-px markers (15 mm at 0.9 px/mm) under an evening lamp: the upsampled stage, its dim-light
    settings and the blur-aware frame check read nearly all, and nothing that is not there."""
    rng = np.random.default_rng(5)
    bases = [roster_base(i, marker_size_mm=15.0, marker_offset_mm=[0.0, 0.0]) for i in range(40)]
    scene = [PlacedBase(b, 150 + (i % 8) * 125 + rng.uniform(-10, 10), 140 + (i // 8) * 130 + rng.uniform(-10, 10),
                        float(rng.uniform(0, 360))) for i, b in enumerate(bases)]
    cam = SyntheticCamera(TABLE, INTR, overhead(TABLE, INTR, tilt_deg=8.0, margin=1.05), effects=Effects.dim(), seed=2)
    render = cam.render(scene)
    sides = [np.linalg.norm(m.corners_px[1] - m.corners_px[0]) for m in render.truth.markers.values() if not m.is_anchor]
    assert 11 < np.median(sides) < 14  # small enough for the upsampled stage
    result = analyse_image(render.image, TABLE, Roster(ruleset="italia-se-desta", bases=bases), INTR)
    assert len(result.report.bases) >= 36 and result.report.unknown_markers == []
    for b in result.report.bases:
        truth = render.truth.bases[b.id]
        assert np.hypot(b.x_mm - truth.x_mm, b.y_mm - truth.y_mm) < 1.0


def test_full_scans_come_every_few_seconds_at_a_low_frame_rate(camera):
    """New bases must not wait 30 frames (15 s at 2 fps): a full scan also every 5 s."""
    pipe = FramePipeline(TABLE, ROSTER, INTR)
    image = camera.render(placed()).image
    flags = [pipe.process(image, float(t)).full_scan for t in range(7)]
    assert flags == [True, False, False, False, False, True, False]
    fast = FramePipeline(TABLE, ROSTER, INTR, full_scan_every=3)
    assert [fast.process(image, t / 30).full_scan for t in range(5)] == [True, False, False, False, True]


def small_marker_scene(effects: Effects, seed: int = 5):
    rng = np.random.default_rng(seed)
    bases = [roster_base(i, marker_size_mm=15.0, marker_offset_mm=[0.0, 0.0]) for i in range(40)]
    scene = [PlacedBase(b, 150 + (i % 8) * 125 + rng.uniform(-10, 10), 140 + (i // 8) * 130 + rng.uniform(-10, 10),
                        float(rng.uniform(0, 360))) for i, b in enumerate(bases)]
    cam = SyntheticCamera(TABLE, INTR, overhead(TABLE, INTR, tilt_deg=8.0, margin=1.05), effects=effects, seed=2)
    return cam.render(scene), Roster(ruleset="italia-se-desta", bases=bases)


def test_small_markers_are_searched_only_where_a_marker_can_be(monkeypatch):
    """In typical light the upsampled stage runs on windows around dark-and-light places: it reads
    what the upsampled search of the whole table reads."""
    import campo.calibration.table_scan as table_scan

    render, roster = small_marker_scene(Effects.typical())
    windowed = analyse_image(render.image, TABLE, roster, INTR)
    seen = []
    real = table_scan.marker_windows
    monkeypatch.setattr(table_scan, "marker_windows", lambda *a, **k: seen.append(real(*a, **k)) or [a[1]])
    whole = analyse_image(render.image, TABLE, roster, INTR)
    assert len(seen) == 1 and 1 < len(seen[0])  # windows were found (then replaced by the whole table)
    assert sum(w.area for w in seen[0]) < 0.5 * 1280 * 720
    assert sorted(b.id for b in windowed.report.bases) == sorted(b.id for b in whole.report.bases)
    assert len(windowed.report.bases) >= 38 and windowed.report.unknown_markers == []
    for b in windowed.report.bases:
        truth = render.truth.bases[b.id]
        assert np.hypot(b.x_mm - truth.x_mm, b.y_mm - truth.y_mm) < 1.0


def test_table_is_located_by_the_full_size_stages_when_the_anchor_scan_cannot(camera, monkeypatch):
    """Anchors too small for the halved frame: the full-size stages find them, as before."""
    import campo.calibration.table_scan as table_scan

    frame = camera.render(placed())
    monkeypatch.setattr(table_scan, "ANCHOR_MIN_SIDE_PX", 400.0)  # no anchor is this large in the halved frame
    pipe = FramePipeline(TABLE, ROSTER, INTR)
    assert not pipe._anchor_scan(cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY), None, INTR, 1280, 720)[1].located
    result = pipe.process(frame.image, 0.0)
    assert result.location.located and result.location.anchors_seen == 4
    assert sorted(b.id for b in result.report.bases) == sorted(b.id for b in BASES)
    check_poses(result.report.bases, frame.truth)
