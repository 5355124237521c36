"""The setup's state: the game's files, the camera's role, the live calibration and the table check.

Files are read from disk whenever asked (they stay the truth: an edit by hand shows at the next
look) and written only whole, after the same checks `campo` applies when it reads them. The page
says what the camera is looking at by what it polls: the calibration's progress (the board) or
the table check (the table); the workers run only while someone looks, so a forgotten tab costs
nothing.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from campo.calibration.calibrate_intrinsics import CalibrationReport
from campo.calibration.camera_file import load_camera, save_camera
from campo.calibration.charuco import BoardSpec
from campo.errors import CampoInputError
from campo.server.setup import drafts
from campo.server.setup.calibrate_live import CalibrationWorker, LiveCalibrator
from campo.server.setup.catalogue import catalogue
from campo.server.setup.feed import FrameFeed
from campo.atomic_file import write_atomic
from campo.server.setup.files import GameFiles, check_version, version_of
from campo.server.setup.rehearsal import BoardScene, Scene, TableScene
from campo.server.sources import Frame
from campo.vision.camera_model import Intrinsics
from campo.vision.tabletop import Roster, TableConfig, load_table

log = logging.getLogger(__name__)

LOOKING_S = 4.0
"""The calibration or the table check keeps running this long after the page last asked for it."""
CHECK_INTERVAL_S = 0.5


@dataclass(frozen=True)
class FileState:
    """One file as the page sees it: there or not, its version, and whether Campo can read it."""

    exists: bool
    version: str | None
    error: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"exists": self.exists, "version": self.version, "error": self.error, "ok": self.exists and not self.error}


class SetupSession:
    """Everything the setup pages change, shared by the routes and the workers (thread-safe)."""

    def __init__(self, files: GameFiles, feed: FrameFeed) -> None:
        self.files = files
        self.feed = feed
        self._lock = threading.Lock()
        self._looking: dict[str, float] = {"calibrate": 0.0, "check": 0.0}
        self.board = BoardSpec()
        self.calibrator = LiveCalibrator(self.board, self._save_camera)
        self._check: dict[str, Any] | None = None
        self._check_frame: tuple[Frame, dict[str, Any]] | None = None
        self._stop = threading.Event()
        self._workers: list[threading.Thread] = []
        self._calibration_worker = CalibrationWorker(self.calibrator, feed.next_after, lambda: self.looking("calibrate"))

    # -- workers --------------------------------------------------------------------------------

    def start(self) -> None:
        self._calibration_worker.start()
        t = threading.Thread(target=self._check_loop, name="campo-table-check", daemon=True)
        t.start()
        self._workers.append(t)

    def stop(self) -> None:
        self._stop.set()
        self._calibration_worker.stop()
        for t in self._workers:
            t.join(5)

    def look(self, what: str) -> None:
        """The page is showing `what` ("calibrate" or "check") now."""
        with self._lock:
            self._looking[what] = time.monotonic()

    def looking(self, what: str) -> bool:
        with self._lock:
            t = self._looking[what]
            other = max(v for k, v in self._looking.items() if k != what)
        return time.monotonic() - t < LOOKING_S and t >= other

    # -- files ----------------------------------------------------------------------------------

    def file_state(self, name: str) -> FileState:
        path = self.files.named()[name]
        version = version_of(path)
        if version is None:
            return FileState(False, None)
        try:
            if name == "table":
                load_table(path)
            elif name == "roster":
                self.roster()
            elif name == "camera":
                load_camera(path)
        except CampoInputError as exc:
            return FileState(True, version, str(exc))
        return FileState(True, version)

    def table(self) -> TableConfig | None:
        """The table file, or None when there is none (`CampoInputError` when it is wrong)."""
        return load_table(self.files.table) if self.files.table.exists() else None

    def roster(self) -> Roster | None:
        """The roster file checked against the table (None when there is none)."""
        from campo.server.roster import load_checked_roster

        if not self.files.roster.exists():
            return None
        table = None
        try:
            table = self.table()
        except CampoInputError:
            pass
        return load_checked_roster(self.files.roster, table)

    def intrinsics(self) -> Intrinsics | None:
        return load_camera(self.files.camera).intrinsics if self.files.camera.exists() else None

    def settings_overrides(self, ruleset: str) -> dict[str, Any]:
        """The group's settings in terrain.json (Federico's base sizes), {} when there are none."""
        from campo.server.game_state import GameSetup

        if not self.files.terrain.exists():
            return {}
        try:
            return GameSetup.load(ruleset, self.files.terrain).snapshot()[2]
        except CampoInputError:
            return {}

    def catalogue(self, ruleset: str) -> dict[str, Any]:
        return catalogue(ruleset, self.settings_overrides(ruleset))

    def save_table(self, draft: Any, version: str | None) -> dict[str, Any]:
        checked = drafts.check_table(draft)
        if not checked.ok:
            return {"ok": False, **checked.to_json()}
        with self._lock:
            check_version(self.files.table, version)
            new = write_atomic(self.files.table, drafts.table_text(checked.value))
        return {"ok": True, "version": new, **checked.to_json()}

    def check_roster(self, draft: Any) -> drafts.Checked:
        table = None
        try:
            table = self.table()
        except CampoInputError:
            pass
        ruleset = draft.get("ruleset") if isinstance(draft, dict) else None
        cat = None
        if isinstance(ruleset, str):
            try:
                cat = self.catalogue(ruleset)
            except CampoInputError:
                cat = None
        return drafts.check_roster(draft, table, cat)

    def save_roster(self, draft: Any, version: str | None) -> dict[str, Any]:
        checked = self.check_roster(draft)
        if not checked.ok:
            return {"ok": False, **checked.to_json()}
        with self._lock:
            check_version(self.files.roster, version)
            new = write_atomic(self.files.roster, drafts.roster_text(checked.value))
        return {"ok": True, "version": new, **checked.to_json()}

    # -- the camera -----------------------------------------------------------------------------

    def set_board(self, spec: BoardSpec) -> None:
        """Calibrate with another board, or start over (what was kept belongs to the old one)."""
        calibrator = LiveCalibrator(spec, self._save_camera)
        worker = CalibrationWorker(calibrator, self.feed.next_after, lambda: self.looking("calibrate"))
        with self._lock:
            old, self._calibration_worker = self._calibration_worker, worker
            self.board, self.calibrator = spec, calibrator
        old.stop()      # (outside the lock: the worker asks `looking`, which takes it)
        worker.start()

    def restart_calibration(self) -> None:
        self.set_board(self.board)

    def _save_camera(self, report: CalibrationReport) -> str:
        save_camera(report.calibration, self.files.camera)
        log.info("camera calibrated: wrote %s (RMS %.3f px)", self.files.camera, report.calibration.rms_px)
        return str(self.files.camera)

    def rehearsal_scene(self) -> Scene:
        """What the rehearsal camera films now: the board while calibrating, else the table."""
        if self.looking("calibrate"):
            return BoardScene(self.board)
        try:
            table, roster = self.table(), self.roster()
        except CampoInputError:
            table = roster = None
        if table is None or roster is None:
            return BoardScene(self.board)
        key = f"{version_of(self.files.table)}/{version_of(self.files.roster)}"
        return TableScene(table, roster, key)

    # -- the table check ------------------------------------------------------------------------

    def table_check(self) -> dict[str, Any] | None:
        with self._lock:
            return self._check

    def check_frame(self) -> tuple[Frame, dict[str, Any]] | None:
        with self._lock:
            return self._check_frame

    def _check_loop(self) -> None:
        from campo.calibration.table_check import check_table_image

        serial = 0
        while not self._stop.is_set():
            if not self.looking("check"):
                self._stop.wait(0.2)
                continue
            serial, frame = self.feed.next_after(serial, 1.0)
            if frame is None:
                continue
            started = time.monotonic()
            try:
                table, roster, intrinsics = self.table(), self.roster(), self.intrinsics()
                if table is None or roster is None:
                    result = {"error": "save the table and the roster first"}
                else:
                    result = check_table_image(frame.image, table, roster, intrinsics).to_json()
                    result["calibrated"] = intrinsics is not None
            except CampoInputError as exc:
                result = {"error": str(exc)}
            result["frame"] = frame.index
            result["checked_unix"] = round(time.time(), 3)
            with self._lock:
                self._check = result
                self._check_frame = (frame, result)
            self._stop.wait(max(0.0, CHECK_INTERVAL_S - (time.monotonic() - started)))


def image_size(frame: Frame | None) -> tuple[int, int] | None:
    if frame is None:
        return None
    h, w = np.asarray(frame.image).shape[:2]
    return int(w), int(h)
