"""The ChArUco board: its specification, and finding its corners in photos.

`BoardSpec` is what the user types (``--squares 7x5 --square-mm 40 --marker-mm 30 --dictionary
DICT_4X4_250``), checked with messages naming the option. `detect_board_views` turns photos into
`BoardView`s: matched 3-D board points and 2-D image points, ready for `cv2.calibrateCamera`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from campo.errors import CampoInputError
from campo.vision.detection.detector import to_gray
from campo.vision.image_files import read_image
from campo.vision.tabletop import dictionary_size

_SQUARES = re.compile(r"^\s*(\d+)\s*[xX]\s*(\d+)\s*$")


@dataclass(frozen=True)
class BoardSpec:
    """A ChArUco board: squares across and down, square and marker sides in mm, marker dictionary."""

    squares_x: int = 7
    squares_y: int = 5
    square_mm: float = 40.0
    marker_mm: float = 30.0
    dictionary: str = "DICT_4X4_250"

    def __post_init__(self) -> None:
        if not (3 <= self.squares_x <= 40 and 3 <= self.squares_y <= 40):
            raise CampoInputError(f"a board needs 3 to 40 squares each way (got {self.squares_x}x{self.squares_y})",
                                  key="--squares")
        if not (math.isfinite(self.square_mm) and self.square_mm > 0):
            raise CampoInputError(f"must be a positive number of mm (got {self.square_mm:g})", key="--square-mm")
        if not (math.isfinite(self.marker_mm) and 0 < self.marker_mm < self.square_mm):
            raise CampoInputError(f"must be positive and smaller than the square ({self.square_mm:g} mm), "
                                  f"got {self.marker_mm:g}", key="--marker-mm")
        try:
            size = dictionary_size(self.dictionary)
        except ValueError as exc:
            raise CampoInputError(str(exc), key="--dictionary") from None
        needed = (self.squares_x * self.squares_y) // 2
        if needed > size:
            raise CampoInputError(f"{self.dictionary} has {size} markers; a {self.squares_x}x{self.squares_y} "
                                  f"board needs {needed}", key="--dictionary")

    @classmethod
    def parse(cls, squares: str = "7x5", square_mm: float = 40.0, marker_mm: float = 30.0,
              dictionary: str = "DICT_4X4_250") -> BoardSpec:
        """From command-line text: ``squares`` is ``"7x5"`` (across x down)."""
        m = _SQUARES.match(squares)
        if not m:
            raise CampoInputError(f"must look like 7x5 (squares across x down), got {squares!r}", key="--squares")
        return cls(int(m.group(1)), int(m.group(2)), float(square_mm), float(marker_mm), dictionary)

    @property
    def inner_corners(self) -> int:
        """ChArUco corners on the board (where four squares meet)."""
        return (self.squares_x - 1) * (self.squares_y - 1)

    def cv_board(self) -> cv2.aruco.CharucoBoard:
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))
        return cv2.aruco.CharucoBoard((self.squares_x, self.squares_y), self.square_mm, self.marker_mm, dictionary)

    def describe(self) -> str:
        return (f"ChArUco {self.squares_x}x{self.squares_y}, squares {self.square_mm:g} mm, "
                f"markers {self.marker_mm:g} mm, {self.dictionary}")

    def cli_options(self) -> str:
        """The options that name this board on `campo calibrate-camera`."""
        return (f"--squares {self.squares_x}x{self.squares_y} --square-mm {self.square_mm:g} "
                f"--marker-mm {self.marker_mm:g} --dictionary {self.dictionary}")

    def to_json(self) -> dict[str, object]:
        return {"squares": [self.squares_x, self.squares_y], "square_mm": self.square_mm,
                "marker_mm": self.marker_mm, "dictionary": self.dictionary}


@dataclass(frozen=True)
class BoardView:
    """The board as seen in one photo: which corners, where on the board (mm) and in the image (px)."""

    name: str
    image_size: tuple[int, int]  # (width, height)
    corner_ids: np.ndarray  # (N,) int
    object_points: np.ndarray  # (N, 3) float32, board mm, z = 0
    image_points: np.ndarray  # (N, 2) float32, pixels
    markers_seen: int

    @property
    def corners(self) -> int:
        return int(len(self.corner_ids))


ImageInput = str | Path | tuple[str, np.ndarray]
Progress = Callable[[int, int, str, "BoardView | None"], None]


def _read_grey(item: ImageInput) -> tuple[str, np.ndarray]:
    if isinstance(item, tuple):
        name, image = item
    else:
        name = str(item)
        image = read_image(item, cv2.IMREAD_UNCHANGED)   # size checked from the header first
    image = to_gray(np.asarray(image))
    if image.dtype != np.uint8:
        image = cv2.normalize(image, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    return name, image


def board_detector(spec: BoardSpec) -> tuple[cv2.aruco.CharucoBoard, cv2.aruco.CharucoDetector]:
    """The board and a detector tuned for calibration photos (markers may be small and oblique)."""
    board = spec.cv_board()
    marker_params = cv2.aruco.DetectorParameters()
    marker_params.minMarkerPerimeterRate = 0.01
    charuco_params = cv2.aruco.CharucoParameters()
    charuco_params.tryRefineMarkers = True
    return board, cv2.aruco.CharucoDetector(board, charuco_params, marker_params, cv2.aruco.RefineParameters())


def detect_view(board: cv2.aruco.CharucoBoard, detector: cv2.aruco.CharucoDetector, name: str,
                grey: np.ndarray) -> BoardView | None:
    """The board's corners in one grey image, or None when too little of it is seen (< 4 corners)."""
    corners, ids, _, marker_ids = detector.detectBoard(grey)
    if ids is None or corners is None or len(ids) < 4:
        return None
    ids = np.asarray(ids).reshape(-1).astype(np.int32)
    corners = np.asarray(corners, np.float32).reshape(-1, 1, 2)
    obj, img = board.matchImagePoints(corners, ids)
    h, w = grey.shape[:2]
    markers = 0 if marker_ids is None else int(np.asarray(marker_ids).size)
    return BoardView(name, (int(w), int(h)), ids, np.asarray(obj, np.float32).reshape(-1, 3),
                     np.asarray(img, np.float32).reshape(-1, 2), markers)


def detect_board_views(images: Sequence[ImageInput], spec: BoardSpec,
                       progress: Progress | None = None) -> tuple[tuple[int, int], list[BoardView], list[str]]:
    """Find the board in every image: (image size, the views where it was found, names where not).

    All images must have the same size (one camera mode); a mismatch names the odd image.
    """
    board, detector = board_detector(spec)
    size: tuple[int, int] | None = None
    first = ""
    views, missed = [], []
    for i, item in enumerate(images, 1):
        name, grey = _read_grey(item)
        h, w = grey.shape[:2]
        if size is None:
            size, first = (w, h), name
        elif (w, h) != size:
            raise CampoInputError(f"image is {w}x{h} but {first} is {size[0]}x{size[1]}; calibrate one camera "
                                  "resolution at a time", path=name)
        view = detect_view(board, detector, name, grey)
        if view is None:
            missed.append(name)
        else:
            views.append(view)
        if progress is not None:
            progress(i, len(images), name, view)
    if size is None:
        raise CampoInputError("no images given", key="IMAGES")
    return size, views, missed


@dataclass(frozen=True)
class BoardSearch:
    """Where the board was found, and with which specification (`notes` say when it is not the
    one asked for)."""

    image_size: tuple[int, int]
    views: list[BoardView]
    missed: list[str]
    spec: BoardSpec
    notes: tuple[str, ...] = ()


def transposed(spec: BoardSpec) -> BoardSpec | None:
    """The same board with its squares counted the other way round (7x10 for 10x7), or None."""
    if spec.squares_x == spec.squares_y:
        return None
    return BoardSpec(spec.squares_y, spec.squares_x, spec.square_mm, spec.marker_mm, spec.dictionary)


def find_board_views(images: Sequence[ImageInput], spec: BoardSpec, progress: Progress | None = None) -> BoardSearch:
    """`detect_board_views`, and when the board is found in fewer than half the photos, the board
    with its squares counted the other way round too (kept when it finds twice the corners).

    With no board in any photo either way, a `CampoInputError` says which options to check and
    what the photos do show (another dictionary's markers, a plain chessboard: `no_board_message`).
    """
    greys = [_read_grey(item) for item in images]
    size, views, missed = detect_board_views(greys, spec, progress)
    if len(views) * 2 >= len(greys):
        return BoardSearch(size, views, missed, spec)
    other = transposed(spec)
    if other is not None:
        size2, views2, missed2 = detect_board_views(greys, other)
        if sum(v.corners for v in views2) > 2 * sum(v.corners for v in views):
            note = (f"the board was not found as {spec.squares_x}x{spec.squares_y} squares but as "
                    f"{other.squares_x}x{other.squares_y} in {len(views2)} of {len(greys)} photos: using "
                    f"--squares {other.squares_x}x{other.squares_y} (squares across x down, as the board is printed)")
            return BoardSearch(size2, views2, missed2, other, (note,))
    if not views:
        raise CampoInputError(no_board_message(greys, spec), key="IMAGES")
    return BoardSearch(size, views, missed, spec)


_FAMILIES = ("DICT_4X4_1000", "DICT_5X5_1000", "DICT_6X6_1000", "DICT_7X7_1000", "DICT_ARUCO_ORIGINAL",
             "DICT_APRILTAG_36h11", "DICT_APRILTAG_25h9", "DICT_ARUCO_MIP_36h12")
CHESSBOARD_PATTERNS = ((9, 6), (7, 6), (8, 6), (6, 4), (7, 5), (8, 5), (9, 7), (10, 7), (11, 8), (6, 5), (5, 4))
"""Plain chessboards tried (inner corners across, down) when no ChArUco board is found, besides
the ones the given --squares would have."""


def _markers_seen(grey: np.ndarray) -> tuple[str, int, int]:
    """(dictionary family, markers read, largest id) of the family reading most markers."""
    best = ("", 0, -1)
    for name in _FAMILIES:
        p = cv2.aruco.DetectorParameters()
        p.minMarkerPerimeterRate = 0.01
        det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name)), p)
        _, ids, _ = det.detectMarkers(grey)
        n = 0 if ids is None else len(ids)
        if n > best[1]:
            best = (name, n, int(np.max(ids)))
    return best


def _smallest_dictionary(family: str, largest_id: int) -> str:
    """The smallest predefined dictionary of `family` (e.g. DICT_5X5_1000) holding `largest_id`."""
    stem = family.rsplit("_", 1)[0]
    for size in (50, 100, 250, 1000):
        name = f"{stem}_{size}"
        if hasattr(cv2.aruco, name) and largest_id < size:
            return name
    return family


def _chessboard(grey: np.ndarray, spec: BoardSpec) -> tuple[int, int] | None:
    """Inner corners (across, down) of a plain chessboard in `grey`, or None."""
    scale = min(1.0, 1000.0 / max(grey.shape[:2]))
    small = cv2.resize(grey, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else grey
    own = [(spec.squares_x - 1, spec.squares_y - 1), (spec.squares_y - 1, spec.squares_x - 1)]
    # largest first: a smaller pattern is also found inside a larger board
    for pattern in sorted(dict.fromkeys(own + list(CHESSBOARD_PATTERNS)), key=lambda p: -p[0] * p[1]):
        # (the classic finder: the sector-based one also "finds" a row more on a board's edge)
        found, _ = cv2.findChessboardCorners(small, pattern, flags=cv2.CALIB_CB_ADAPTIVE_THRESH
                                             | cv2.CALIB_CB_NORMALIZE_IMAGE | cv2.CALIB_CB_FAST_CHECK)
        if found:
            return pattern
    return None


def no_board_message(greys: Sequence[tuple[str, np.ndarray]], spec: BoardSpec, look_at: int = 3) -> str:
    """Why no photo showed the board, and what to check: the options, and what the first photos
    do show (markers of another dictionary, a plain chessboard)."""
    other = transposed(spec)
    both = f" (nor as {other.squares_x}x{other.squares_y})" if other else ""
    msg = (f"no {spec.describe()} board in any of the {len(greys)} photos{both}. Check the options against the "
           f"printed board: --squares counts squares across x down (squares, not inner corners), --dictionary "
           f"is the markers' dictionary (`campo board` prints the exact options under the board), and "
           f"--marker-mm is the marker's side, smaller than --square-mm")
    sample = list(greys[:look_at])
    for name, grey in sample:
        family, count, largest = _markers_seen(grey)
        if count >= 2 and family:
            wanted = _smallest_dictionary(family, largest)
            if wanted != spec.dictionary and not (family.startswith(spec.dictionary.rsplit("_", 1)[0])
                                                  and largest < dictionary_size(spec.dictionary)):
                return msg + (f". {name} shows {count} markers of {family.rsplit('_', 1)[0]}_* (ids up to {largest}): "
                              f"try --dictionary {wanted}")
            break
    for name, grey in sample:
        pattern = _chessboard(grey, spec)
        if pattern is not None:
            return msg + (f". {name} shows a plain chessboard ({pattern[0]}x{pattern[1]} inner corners, "
                          f"{pattern[0] + 1}x{pattern[1] + 1} squares) with no markers: Campo calibrates from a "
                          f"ChArUco board, which it finds even partly outside the picture; print one with "
                          f"`campo board` and photograph it")
    return msg
