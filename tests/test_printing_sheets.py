"""`campo markers` and `campo board`: pages at exact scale whose markers detect with the right ids."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import cv2
import numpy as np
import pytest

from campo.calibration.charuco import BoardSpec
from campo.vision.printing import PAPER_MM, ruler_origin
from campo.vision.printing_board import board_page
from campo.vision.printing_render import render_png

DPI = 200.0
PX_PER_MM = DPI / 25.4
DICT = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_250)

TABLE = """[table]
width_mm = 1800.0
depth_mm = 1200.0
dictionary = "DICT_4X4_250"
{anchors}"""
ANCHOR = """
[[anchors]]
marker = {marker}
x_mm = {x}
y_mm = 40.0
size_mm = 40.0
up_deg = 90.0
"""
BASE = """
[[bases]]
marker = {marker}
id = "base-{marker}"
side = "{side}"
name = "Brigata {marker}"
type = "B"
width_mm = 80.0
depth_mm = 40.0
marker_size_mm = {size}
marker_offset_mm = [{offset}, 0.0]
marker_rotation_deg = {rotation}
traits = {{ arm = "infantry" }}
"""


def write_files(tmp_path: Path, bases: list[tuple[int, float, float, float]], ruleset: str = "italia-se-desta",
                anchors: tuple[int, ...] = (0, 1, 2, 3)) -> tuple[Path, Path]:
    """table.toml with `anchors`, roster.toml with bases (marker, size, offset_right, rotation)."""
    table = tmp_path / "table.toml"
    table.write_text(TABLE.format(anchors="".join(ANCHOR.format(marker=m, x=40.0 + 500 * i)
                                                  for i, m in enumerate(anchors))))
    roster = tmp_path / "roster.toml"
    roster.write_text(f'ruleset = "{ruleset}"\n' + "".join(
        BASE.format(marker=m, side="AB"[i % 2], size=s, offset=o, rotation=r) for i, (m, s, o, r) in enumerate(bases)))
    return table, roster


def detect(img: np.ndarray) -> dict[int, np.ndarray]:
    corners, ids, _ = cv2.aruco.ArucoDetector(DICT, cv2.aruco.DetectorParameters()).detectMarkers(img)
    if ids is None:
        return {}
    return {int(i): np.asarray(c).reshape(4, 2) for i, c in zip(np.asarray(ids).reshape(-1), corners)}


def black_square_px(img: np.ndarray, corners: np.ndarray) -> tuple[int, int]:
    """Width and height of the black connected shape holding the marker's border."""
    _, labels, stats, _ = cv2.connectedComponentsWithStats((img < 128).astype(np.uint8), connectivity=4)
    centre = corners.mean(axis=0)
    inward = corners[0] + (centre - corners[0]) * 0.05
    label = labels[int(round(inward[1])), int(round(inward[0]))]
    assert label != 0, "corner is not on black"
    return int(stats[label, cv2.CC_STAT_WIDTH]), int(stats[label, cv2.CC_STAT_HEIGHT])


def up_angle_deg(corners: np.ndarray) -> float:
    """Marker up on the page, CCW from page up (page y points down)."""
    up = (corners[0] + corners[1]) / 2 - corners.mean(axis=0)
    return float(np.degrees(np.arctan2(-up[0], -up[1])) % 360)


def media_boxes(pdf: Path) -> list[tuple[float, float]]:
    boxes = re.findall(rb"/MediaBox \[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", pdf.read_bytes())
    return [(float(w) * 25.4 / 72, float(h) * 25.4 / 72) for w, h in boxes]


def read_pages(directory: Path, stem: str) -> list[np.ndarray]:
    paths = sorted(directory.glob(f"{stem}-*.png"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))
    return [cv2.imread(str(p), cv2.IMREAD_GRAYSCALE) for p in paths]


def test_markers_pdf_and_png_at_exact_scale(tmp_path: Path, run_campo) -> None:
    bases = [(10, 18.0, 0.0, 0.0), (11, 20.0, 0.0, 90.0), (12, 16.0, 0.0, 0.0), (13, 25.0, 0.0, 180.0)]
    table, roster = write_files(tmp_path, bases)
    pdf = tmp_path / "markers.pdf"
    code, out, err = run_campo("markers", "--table", table, "--roster", roster, "-o", pdf,
                               "--png", tmp_path / "png", "--dpi", DPI)
    assert code == 0, err
    assert "actual size" in out
    boxes = media_boxes(pdf)
    assert len(boxes) == 2  # bases, then anchors on their own page
    for w, h in boxes:
        assert (w, h) == pytest.approx(PAPER_MM["A4"], abs=0.01)
    pages = read_pages(tmp_path / "png", "markers")
    assert len(pages) == 2
    assert pages[0].shape == (round(297 * PX_PER_MM), round(210 * PX_PER_MM))
    found = [detect(p) for p in pages]
    assert set(found[0]) == {10, 11, 12, 13}
    assert set(found[1]) == {0, 1, 2, 3}
    sizes = {m: s for m, s, _, _ in bases} | {a: 40.0 for a in (0, 1, 2, 3)}
    for page, markers in zip(pages, found):
        for marker, corners in markers.items():
            expected = sizes[marker] * PX_PER_MM
            w, h = black_square_px(page, corners)
            assert abs(w - expected) <= 1 and abs(h - expected) <= 1, (marker, w, h, expected)
            assert up_angle_deg(corners) == pytest.approx(0, abs=1) or up_angle_deg(corners) == pytest.approx(360, abs=1)


def test_every_page_has_a_100mm_ruler(tmp_path: Path, run_campo) -> None:
    table, roster = write_files(tmp_path, [(10, 18.0, 0.0, 0.0)])
    code, _, err = run_campo("markers", "--table", table, "--roster", roster, "-o", tmp_path / "m.pdf",
                             "--png", tmp_path, "--dpi", DPI)
    assert code == 0, err
    for img in read_pages(tmp_path, "m"):
        x0, y0 = ruler_origin_for(img)
        row = img[int(round((y0 + 4.0) * PX_PER_MM))]  # below the 1 and 3 mm ticks: only the 10 mm ones
        dark = np.flatnonzero(row < 128)
        clusters = np.split(dark, np.flatnonzero(np.diff(dark) > 2) + 1)
        centres = [c.mean() for c in clusters]
        assert len(centres) == 11
        assert centres[0] == pytest.approx(x0 * PX_PER_MM, abs=1.5)
        assert centres[-1] - centres[0] == pytest.approx(100 * PX_PER_MM, abs=1.0)


def ruler_origin_for(img: np.ndarray) -> tuple[float, float]:
    from campo.vision.printing import Page

    h_mm = img.shape[0] / PX_PER_MM
    return ruler_origin(Page(img.shape[1] / PX_PER_MM, round(h_mm, 1)))


def test_base_cut_places_marker_at_offset_and_rotation(tmp_path: Path, run_campo) -> None:
    bases = [(20, 18.0, 20.0, 90.0), (21, 18.0, -15.0, 30.0)]
    table, roster = write_files(tmp_path, bases)
    code, _, err = run_campo("markers", "--table", table, "--roster", roster, "-o", tmp_path / "m.pdf",
                             "--cut", "base", "--png", tmp_path, "--dpi", DPI)
    assert code == 0, err
    found = detect(read_pages(tmp_path, "m")[0])
    assert set(found) == {20, 21}
    # Marker up is the base front (page up) turned counter-clockwise by marker_rotation_deg.
    assert up_angle_deg(found[20]) == pytest.approx(90, abs=1)
    assert up_angle_deg(found[21]) == pytest.approx(30, abs=1.5)
    # Offset: 20 mm to the right of the base centre, so 35 mm right of marker 21's (offset -15).
    dx = (found[20].mean(axis=0)[0] - found[21].mean(axis=0)[0]) / PX_PER_MM
    assert dx == pytest.approx(35.0, abs=0.3)


def test_many_bases_flow_onto_several_pages(tmp_path: Path, run_campo) -> None:
    bases = [(30 + i, 30.0, 0.0, 0.0) for i in range(24)]
    table, roster = write_files(tmp_path, bases)
    code, out, err = run_campo("markers", "--table", table, "--roster", roster, "-o", tmp_path / "m.pdf",
                               "--paper", "letter", "--png", tmp_path, "--dpi", 100)
    assert code == 0, err
    boxes = media_boxes(tmp_path / "m.pdf")
    assert len(boxes) >= 3 and all(b == pytest.approx(PAPER_MM["letter"], abs=0.01) for b in boxes)
    seen: list[int] = []
    for img in read_pages(tmp_path, "m"):
        seen += sorted(detect(img))
    assert sorted(seen) == [0, 1, 2, 3] + [30 + i for i in range(24)]


def test_png_records_its_dpi(tmp_path: Path, run_campo) -> None:
    table, roster = write_files(tmp_path, [(10, 18.0, 0.0, 0.0)])
    run_campo("markers", "--table", table, "--roster", roster, "-o", tmp_path / "m.pdf", "--png", tmp_path,
              "--dpi", 150)
    data = (tmp_path / "m-1.png").read_bytes()
    at = data.index(b"pHYs")
    x, y, unit = struct.unpack(">IIB", data[at + 4:at + 13])
    assert unit == 1 and x == y == round(150 / 0.0254)


@pytest.mark.parametrize(("args", "words"), [
    (("--paper", "A5"), "--paper: unknown paper 'A5'"),
    (("--dpi", "5"), "--dpi: must be between"),
])
def test_bad_options_are_one_line(tmp_path: Path, run_campo, args, words) -> None:
    table, roster = write_files(tmp_path, [(10, 18.0, 0.0, 0.0)])
    code, _, err = run_campo("markers", "--table", table, "--roster", roster, "-o", tmp_path / "m.pdf",
                             "--png", tmp_path, *args)
    assert code == 2 and words in err and "Traceback" not in err


def test_unknown_ruleset_errors_cleanly(tmp_path: Path, run_campo) -> None:
    table, roster = write_files(tmp_path, [(10, 18.0, 0.0, 0.0)], ruleset="chess")
    pdf = tmp_path / "m.pdf"
    code, _, err = run_campo("markers", "--table", table, "--roster", roster, "-o", pdf)
    assert code == 2
    assert str(roster) in err and "ruleset" in err and "chess" in err
    assert err.count("\n") == 1 and not pdf.exists()


def test_base_marker_that_is_an_anchor_is_refused(tmp_path: Path, run_campo) -> None:
    table, roster = write_files(tmp_path, [(2, 18.0, 0.0, 0.0)])
    code, _, err = run_campo("markers", "--table", table, "--roster", roster, "-o", tmp_path / "m.pdf")
    assert code == 2 and "anchor" in err and str(roster) in err


def test_marker_too_big_for_its_base_in_base_cut(tmp_path: Path, run_campo) -> None:
    table, roster = write_files(tmp_path, [(10, 36.0, 0.0, 0.0)])
    code, _, err = run_campo("markers", "--table", table, "--roster", roster, "-o", tmp_path / "m.pdf",
                             "--cut", "base")
    assert code == 2 and "does not fit on base 'base-10'" in err


def test_board_default_fits_a3_and_detects_fully(tmp_path: Path, run_campo) -> None:
    pdf, png = tmp_path / "board.pdf", tmp_path / "board.png"
    code, out, err = run_campo("board", "-o", pdf, "--png", png, "--dpi", 100)
    assert code == 0, err
    assert media_boxes(pdf) == [pytest.approx((420.0, 297.0), abs=0.01)]
    assert "--squares 7x5 --square-mm 40 --marker-mm 30" in out or "ChArUco 7x5" in out
    img = cv2.imread(str(png), cv2.IMREAD_GRAYSCALE)
    spec = BoardSpec()
    corners, ids, _, _ = cv2.aruco.CharucoDetector(spec.cv_board()).detectBoard(img)
    assert ids is not None and sorted(np.asarray(ids).reshape(-1)) == list(range(spec.inner_corners))
    # Squares are 40 mm: neighbouring corners 0 and 1 are 40 mm apart on paper.
    pts = dict(zip(np.asarray(ids).reshape(-1), np.asarray(corners).reshape(-1, 2)))
    assert np.linalg.norm(pts[1] - pts[0]) == pytest.approx(40 * 100 / 25.4, abs=1.0)  # edges snap to pixels


def test_board_page_is_opencvs_board(tmp_path: Path) -> None:
    """Same squares and markers as OpenCV's own raster, for odd and even square counts."""
    for squares in ("5x7", "6x4"):
        spec = BoardSpec.parse(squares, 20.0, 14.0, "DICT_5X5_100")  # whole pixels per cell
        board = spec.cv_board()
        page = board_page(board, ["test"], "A4")
        dpi = 127.0  # 5 px per mm: squares are 100 px
        img = render_png(page, dpi)
        x0 = round((page.width_mm - spec.squares_x * 20) / 2 * 5)
        y0 = round(28.0 * 5)  # MARGIN_MM + HEADER_MM of printing_board
        ours = img[y0:y0 + spec.squares_y * 100, x0:x0 + spec.squares_x * 100]
        theirs = board.generateImage((spec.squares_x * 100, spec.squares_y * 100), marginSize=0, borderBits=1)
        assert ours.shape == theirs.shape
        assert np.mean(ours != theirs) < 0.002, squares


def test_board_too_big_for_chosen_paper_suggests_a_size(tmp_path: Path, run_campo) -> None:
    code, _, err = run_campo("board", "-o", tmp_path / "b.pdf", "--paper", "A4")
    assert code == 2 and "--square-mm: a 7x5 board of 40 mm squares" in err and "on A4 use --square-mm 29 --marker-mm 21" in err
    code, _, err = run_campo("board", "-o", tmp_path / "b.pdf", "--paper", "A4", "--square-mm", "29",
                             "--marker-mm", "21")
    assert code == 0, err
    assert media_boxes(tmp_path / "b.pdf") == [pytest.approx((297.0, 210.0), abs=0.01)]


@pytest.mark.parametrize(("args", "words"), [
    (("--squares", "7by5"), "--squares: must look like 7x5"),
    (("--marker-mm", "45"), "--marker-mm: must be positive and smaller than the square"),
    (("--dictionary", "DICT_9X9_1"), "--dictionary: unknown marker dictionary"),
    (("--squares", "30x30", "--square-mm", "5", "--marker-mm", "4", "--dictionary", "DICT_4X4_50"),
     "--dictionary: DICT_4X4_50 has 50 markers"),
])
def test_board_bad_options(tmp_path: Path, run_campo, args, words) -> None:
    code, _, err = run_campo("board", "-o", tmp_path / "b.pdf", *args)
    assert code == 2 and words in err, err


def pdf_page_rects(pdf: Path) -> list[np.ndarray]:
    """The filled rectangles (x, y, w, h in pt, PDF y up) of each page's content stream.

    Enough of PDF for reportlab's output: ASCII85 + Flate streams and an identity `cm`."""
    import base64
    import zlib

    pages = []
    for m in re.finditer(rb"stream\r?\n(.*?)endstream", pdf.read_bytes(), re.S):
        raw = m.group(1).strip().removesuffix(b"~>")
        text = zlib.decompress(base64.a85decode(raw)).decode("latin-1")
        assert all(c == "1 0 0 1 0 0" for c in re.findall(r"([-\d. ]+) cm", text)), "unexpected transform"
        nums = re.findall(r"([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+) re", text)
        pages.append(np.array(nums, np.float64))
    return pages


def test_pdf_markers_are_the_png_markers(tmp_path: Path, run_campo) -> None:
    """Draw the PDF's own vector rectangles: same ids, same corners as the PNG (no flip, exact scale)."""
    table, roster = write_files(tmp_path, [(10, 18.0, 0.0, 0.0), (11, 22.0, 0.0, 0.0)])
    pdf = tmp_path / "m.pdf"
    code, _, err = run_campo("markers", "--table", table, "--roster", roster, "-o", pdf, "--png", tmp_path,
                             "--dpi", DPI)
    assert code == 0, err
    pngs = read_pages(tmp_path, "m")
    for rects, png in zip(pdf_page_rects(pdf), pngs, strict=True):
        img = np.full(png.shape, 255, np.uint8)
        s = DPI / 72.0
        height_pt = png.shape[0] / s
        for x, y, w, h in rects:
            x0, x1 = round(x * s), round((x + w) * s)
            y0, y1 = round((height_pt - y - h) * s), round((height_pt - y) * s)
            img[y0:y1, x0:x1] = 0
        from_pdf, from_png = detect(img), detect(png)
        assert set(from_pdf) == set(from_png) and from_pdf
        for marker, corners in from_pdf.items():
            assert np.abs(corners - from_png[marker]).max() <= 1.0  # pixel rounding at 200 dpi


def test_base_front_arrow_points_where_the_base_front_will_be() -> None:
    """marker_rotation_deg 90: the marker's up is the front turned 90 CCW, so the front is to its right."""
    from campo.vision.printing import Stroke
    from campo.vision.printing_markers import roster_sheets
    from campo.vision.tabletop import Anchor, Roster, RosterBase, TableConfig, TableSpec

    table = TableConfig(table=TableSpec(width_mm=1800.0, depth_mm=1200.0),
                        anchors=[Anchor(marker=0, x_mm=40.0, y_mm=40.0, size_mm=40.0),
                                 Anchor(marker=1, x_mm=1760.0, y_mm=40.0, size_mm=40.0)])
    for rotation, direction in ((0.0, (0, -1)), (90.0, (1, 0)), (180.0, (0, 1)), (-90.0, (-1, 0))):
        base = RosterBase(marker=5, id="b", side="A", type="B", width_mm=80.0, depth_mm=40.0,
                          marker_size_mm=18.0, marker_rotation_deg=rotation)
        page = roster_sheets(table, Roster(ruleset="italia-se-desta", bases=[base]))[0]
        shaft = next(i for i in page.items if isinstance(i, Stroke) and i.width_mm == 0.3)
        (x0, y0), (x1, y1) = shaft.points
        unit = np.array([x1 - x0, y1 - y0]) / np.hypot(x1 - x0, y1 - y0)
        assert unit == pytest.approx(direction, abs=1e-9), rotation


def test_board_pdf_detects_as_the_board(tmp_path: Path, run_campo) -> None:
    pdf = tmp_path / "b.pdf"
    code, _, err = run_campo("board", "-o", pdf)
    assert code == 0, err
    (rects,) = pdf_page_rects(pdf)
    s = 100 / 72.0  # 100 dpi
    img = np.full((round(297 * 100 / 25.4), round(420 * 100 / 25.4)), 255, np.uint8)
    for x, y, w, h in rects:
        img[round((297 / 25.4 * 72 - y - h) * s):round((297 / 25.4 * 72 - y) * s), round(x * s):round((x + w) * s)] = 0
    corners, ids, _, _ = cv2.aruco.CharucoDetector(BoardSpec().cv_board()).detectBoard(img)
    assert ids is not None and sorted(np.asarray(ids).reshape(-1)) == list(range(24))
