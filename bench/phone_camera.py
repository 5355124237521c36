"""A phone as the camera: frame rate and latency of the camera page streaming to `campo serve`.

Headless Chromium plays the phone: `--use-fake-device-for-media-stream` (Chromium's moving test
pattern) or, with `--video`, a Y4M rendered from the synthetic camera's table
(`--use-file-for-fake-video-capture`). The camera page (getUserMedia -> canvas -> JPEG ->
WebSocket, two frames in flight) streams to a real `CampoHost` on loopback, over HTTP or `--https`.
Printed per resolution: frames a second received by the server, capture -> decoded on the server
(both clocks are this machine's), the page's round trip (send -> acknowledgement), JPEG size and
the server's decode time. Loopback has no Wi-Fi: on a real phone add the network's time.

    .venv/bin/python bench/phone_camera.py [--seconds 10] [--https] [--video]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser_fixtures import CHROMIUM_ARGS, launched_chromium  # noqa: E402
from tests.setup_fixtures import HostThread  # noqa: E402


def write_y4m(path: Path, width: int, height: int, frames: int = 20) -> Path:
    """The rehearsal camera's table (the demo table and roster), as a Y4M Chromium can play."""
    import cv2

    from campo.server.setup.rehearsal import RehearsalSource, TableScene
    from campo.vision.synthetic import DemoGame

    game = DemoGame.load()
    source = RehearsalSource(lambda: TableScene(game.table, game.roster, "demo"), fps=1000, size=(width, height))
    source.open()
    image = source.read().image   # type: ignore[union-attr]
    with path.open("wb") as f:
        f.write(f"YUV4MPEG2 W{width} H{height} F15:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(frames):
            yuv = cv2.cvtColor(image, cv2.COLOR_BGR2YUV_I420)
            f.write(b"FRAME\n" + yuv.tobytes())
    return path


def pct(values: list[float], q: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")


def run(resolution: str, seconds: float, https: bool, video: Path | None) -> dict[str, float]:
    args = [*CHROMIUM_ARGS, "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
            "--ignore-certificate-errors"]
    if video is not None:
        args.append(f"--use-file-for-fake-video-capture={video}")
    certificate = None
    with tempfile.TemporaryDirectory() as tmp:
        if https:
            from campo.server.setup.https import ensure_certificate

            certificate = ensure_certificate([], Path(tmp) / "https")
        with HostThread(Path(tmp) / "game", "phone", certificate=certificate) as host, \
                launched_chromium(args) as browser:
            context = browser.new_context(ignore_https_errors=True)
            page = context.new_page()
            page.goto(f"{host.url}/camera")
            page.select_option('[data-testid="camera-resolution"]', resolution)
            page.click('[data-testid="camera-start"]')
            page.wait_for_function("window.campoCamera.acked >= 5", timeout=60000)
            source = host.host.browser_camera
            assert source is not None
            source.latencies_ms.clear()
            acked0, t0 = page.evaluate("window.campoCamera.acked"), time.monotonic()
            page.evaluate("window.campoCamera.rttMs = []")
            time.sleep(seconds)
            acked1, t1 = page.evaluate("window.campoCamera.acked"), time.monotonic()
            rtt = page.evaluate("window.campoCamera.rttMs")
            size = page.evaluate("[window.campoCamera.width, window.campoCamera.height]")
            last = source.last
            latencies = list(source.latencies_ms)
            context.close()
    return {"resolution": f"{size[0]}x{size[1]}", "fps": (acked1 - acked0) / (t1 - t0),
            "lat_p50": statistics.median(latencies), "lat_p95": pct(latencies, 0.95),
            "rtt_p50": statistics.median(rtt), "rtt_p95": pct(rtt, 0.95),
            "decode_ms": last.decode_ms if last else float("nan")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--https", action="store_true")
    parser.add_argument("--video", action="store_true", help="stream a Y4M of the synthetic table")
    parser.add_argument("--resolutions", default="640x480,1280x720,1920x1080")
    a = parser.parse_args()
    print(f"{'asked':>10} {'got':>10} {'fps':>6} {'capture->server ms p50/p95':>27} {'round trip ms p50/p95':>22} {'decode ms':>9}")
    for res in a.resolutions.split(","):
        video = None
        with tempfile.TemporaryDirectory() as tmp:
            if a.video:
                w, h = (int(v) for v in res.split("x"))
                video = write_y4m(Path(tmp) / "table.y4m", w, h)
            r = run(res, a.seconds, a.https, video)
        print(f"{res:>10} {r['resolution']:>10} {r['fps']:6.1f} {r['lat_p50']:13.0f} / {r['lat_p95']:<11.0f} "
              f"{r['rtt_p50']:9.0f} / {r['rtt_p95']:<10.0f} {r['decode_ms']:9.1f}", flush=True)


if __name__ == "__main__":
    main()
