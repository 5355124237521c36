"""`campo serve --source A --source B`: the options, and the live server over two demo cameras,
one of which is unplugged mid-game (server/cameras.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from campo.server.sources import Frame, SourceError
from tests.server_fixtures import LAYOUT, ROSTER, TABLE, render_frames, state_bases, wait_for

Run = Callable[..., tuple[int, str, str]]
BASE = "http://127.0.0.1"


@pytest.mark.parametrize("args, message", [
    (["--source", "demo", "--source", "0"], "demo cannot be mixed with real cameras"),
    (["--source", "demo", "--source", "demo", "--source", "demo"], "the demo has a two-camera mode only"),
    (["--source", "demo", "--source", "demo", "--camera", "c.json"], "2 --source but 1 --camera"),
    (["--source", "demo", "--camera", "a.json", "--camera", "b.json"], "2 --camera for one --source"),
    (["--source", "phone", "--source", "demo"], "demo cannot be mixed"),
    (["--source", "demo", "--source", "demo", "--https"], "--https is for a phone camera"),
])
def test_bad_camera_options_give_one_clear_line(run_campo: Run, args: list[str], message: str) -> None:
    code, _, err = run_campo("serve", *args)
    assert code == 2
    assert message in err and "Traceback" not in err


def test_several_real_cameras_need_the_table_and_the_roster(run_campo: Run, tmp_path: Path) -> None:
    render_frames(tmp_path / "a", [LAYOUT])
    code, _, err = run_campo("serve", "--source", str(tmp_path / "a"), "--source", str(tmp_path / "a"))
    assert code == 2 and "several cameras need --table and --roster" in err
    code, _, err = run_campo("serve", "--source", str(tmp_path / "a"), "--source", str(tmp_path / "nope"),
                             "--table", str(TABLE), "--roster", str(ROSTER))
    assert code == 2 and "nope" in err


class Unpluggable:
    """A demo camera whose cable can be pulled: then it gives no frame and cannot be opened."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.name = inner.name  # type: ignore[attr-defined]
        self.unplugged = threading.Event()

    def open(self) -> None:
        if self.unplugged.is_set():
            raise SourceError(f"cannot open {self.name} (unplugged)")
        self.inner.open()  # type: ignore[attr-defined]

    def read(self) -> Frame | None:
        return None if self.unplugged.is_set() else self.inner.read()  # type: ignore[attr-defined]

    def close(self) -> None:
        self.inner.close()  # type: ignore[attr-defined]


@pytest.mark.slow
def test_two_demo_cameras_play_one_table_and_survive_losing_one(caplog: pytest.LogCaptureFixture) -> None:
    from dataclasses import replace

    from campo.server.app import build_services, create_app
    from campo.calibration.cameras import HOLD_S
    from campo.server.rig import ServerSettings, load_rig

    settings = ServerSettings(source="demo", sources=("demo", "demo"), fps=5.0, status_interval_s=0.2)
    rig = load_rig(settings)
    assert rig.table.table.width_mm == 1800 and len(rig.table.anchors) == 6
    cable = Unpluggable(rig.cameras[1].source)
    rig = replace(rig, cameras=(rig.cameras[0], replace(rig.cameras[1], source=cable)))
    services = build_services(settings, rig)
    n = len(rig.roster.bases)
    with caplog.at_level("ERROR"), TestClient(create_app(settings, services=services), base_url=BASE) as client:
        def status() -> dict:
            return client.get("/api/status").json()

        def poll(predicate: Callable[[], object], timeout: float) -> bool:
            return wait_for(predicate, timeout, interval=0.2)  # (reads are rate limited: 20 a second)

        assert poll(lambda: len(state_bases(client.get("/api/state"))) >= n - 2, timeout=60)
        assert poll(lambda: all(c["fps"] > 0 for c in status()["cameras"]), timeout=20)
        s = status()
        assert s["table_located"] and s["anchors_seen"] == 6 and s["anchors_total"] == 6
        assert [(c["camera"], c["signal"], c["table_located"], c["anchors_seen"], c["registration"])
                for c in s["cameras"]] == [("demo camera 1", True, True, 4, "ok"), ("demo camera 2", True, True, 4, "ok")]
        assert s["unknown_areas"] == [] and s["disagreements"] == []
        # camera 2 unplugged: camera 1 goes on, camera 2's half is unknown and its bases stale
        cable.unplugged.set()
        assert poll(lambda: not status()["cameras"][1]["signal"], timeout=10)
        assert poll(lambda: status()["unknown_areas"] != [], timeout=10 + HOLD_S)
        s = status()
        assert s["anchors_seen"] == 4  # camera 1's: the lost camera's old anchors are not counted
        (area,) = s["unknown_areas"]
        assert area["camera"] == "demo camera 2" and area["reason"].startswith("no frame for")
        assert s["table_located"] and s["cameras"][0]["used"] and s["cameras"][0]["fps"] > 0
        assert not s["cameras"][1]["used"] and s["cameras"][1]["registration"].startswith("no signal")
        frames = s["frames"]
        assert poll(lambda: status()["frames"] > frames + 3, timeout=10)  # the loop goes on
        state = client.get("/api/state").json()
        assert len(state["bases"]) >= n - 2  # nobody emptied
        right = [b for b in state["bases"] if b["x_mm"] > 1100]
        assert right and all(b.get("stale") for b in right)
        assert any(not b.get("stale") for b in state["bases"] if b["x_mm"] < 700)
        # plugged back in: camera 2 reconnects by itself and counts again
        cable.unplugged.clear()
        assert poll(lambda: status()["cameras"][1]["used"], timeout=30)
        assert poll(lambda: status()["unknown_areas"] == [], timeout=10)


@pytest.mark.slow
def test_two_folders_of_the_same_table_give_each_base_once(tmp_path: Path) -> None:
    # two "cameras" filming the whole table (no camera.json: located by homography from the four
    # anchors): every base is read by both and fused into one
    from campo.server.app import build_services, create_app
    from campo.server.rig import ServerSettings

    render_frames(tmp_path / "a", [LAYOUT] * 2, noisy=True)
    render_frames(tmp_path / "b", [LAYOUT] * 2, noisy=True)
    settings = ServerSettings(source=str(tmp_path / "a"), sources=(str(tmp_path / "a"), str(tmp_path / "b")),
                              table=TABLE, roster=ROSTER, setup_file=tmp_path / "terrain.json", fps=4.0,
                              status_interval_s=0.2)
    services = build_services(settings)
    assert [s.name for s in services.rig.cameras] == ["#1 folder a", "#2 folder b"]
    with TestClient(create_app(settings, services=services), base_url=BASE) as client:
        assert wait_for(lambda: len(state_bases(client.get("/api/state"))) == len(LAYOUT), timeout=30,
                        interval=0.2)
        assert wait_for(lambda: all(c["used"] for c in client.get("/api/status").json()["cameras"]),
                        timeout=10, interval=0.2)
        state = client.get("/api/state").json()
        assert sorted(b["id"] for b in state["bases"]) == sorted(b for b, *_ in LAYOUT)
        assert [c["bases_seen"] for c in client.get("/api/status").json()["cameras"]] == [4, 4]  # each read all
        truth = {b: (x, y) for b, x, y, _ in LAYOUT}
        for b in state["bases"]:
            assert abs(b["x_mm"] - truth[b["id"]][0]) < 3 and abs(b["y_mm"] - truth[b["id"]][1]) < 3
