"""Run the live tracker and its web overlay (the umpire's page) on this machine.

Examples:
  campo serve                                    set up a game in this folder, in the page
  campo serve --host 0.0.0.0 --https             ... with a phone on the Wi-Fi as the camera
  campo serve --source demo                      the synthetic camera playing the demo game
  campo serve --source 0 --table table.toml --roster roster.toml --camera camera.json
  campo serve --source game.mp4 --table table.toml --roster roster.toml
  campo serve --source demo --host 0.0.0.0       tablets on the club's Wi-Fi (prints a token URL)
  campo serve --source demo --source demo        the demo on a 180x120 cm table seen by two cameras
  campo serve --source 0 --source 1 --camera left.json --camera right.json --table table.toml --roster roster.toml

Without --table and --roster (and without --source demo) the page opens the setup: the
rulebook, the table and its anchors, the roster, the markers to print, the camera calibrated
live, the table check, then play; the files are written to --folder (docs/setup.md). Terrain
and the ruleset's settings edited on the page are saved to terrain.json beside the table file
(see docs/server.md).
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path


def _recording_available() -> bool:
    return importlib.util.find_spec("campo.server.recording") is not None


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--source", metavar="demo|DEVICE|VIDEO|DIR|phone|rehearsal", action="append",
                        help="demo (synthetic camera), a camera number or /dev/video*, a video file, a folder "
                             "of images, phone (a browser's camera page streams the frames) or rehearsal (the "
                             "synthetic camera filming the setup); default: demo with no files given, else phone "
                             "(the setup page can switch). Repeat it for two or more cameras over one table "
                             "(--source demo --source demo: the demo's two-camera mode; docs/cameras.md)")
    parser.add_argument("--folder", type=Path, metavar="DIR",
                        help="the game folder the setup reads and writes (default: --table's folder, "
                             "else the current folder)")
    parser.add_argument("--https", action="store_true",
                        help="serve over HTTPS with a self-signed certificate (made once, reused): phones "
                             "open their camera only on secure pages")
    parser.add_argument("--table", type=Path, help="table.toml (default with --source demo: the demo's)")
    parser.add_argument("--roster", type=Path, help="roster.toml (default with --source demo: the demo's)")
    parser.add_argument("--camera", type=Path, action="append",
                        help="camera.json from `campo calibrate-camera`; with several --source, one per "
                             "source, in the same order")
    parser.add_argument("--terrain", type=Path,
                        help="terrain and settings file (default: terrain.json beside --table)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1; 0.0.0.0 for tablets, needs the token)")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="another name this server may be reached by (e.g. campo.club.lan); requests "
                             "addressed to any other name are refused (DNS rebinding). Repeatable; '*' "
                             "turns the check off (behind a proxy that does it)")
    parser.add_argument("--proxy", metavar="ADDRESS",
                        help="the address of a reverse proxy in front of this server: only its "
                             "X-Forwarded-For header is believed (default: none, the header is ignored)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--token", help="the write token to require (default: a random one when not on loopback)")
    parser.add_argument("--fps", type=float, help="frames per second for demo, video and folder sources")
    parser.add_argument("--deck-seed", type=int, metavar="N",
                        help="ATTILA: seed of the umpire's card deck (default: a random one, shown on the page)")
    parser.add_argument("--dice-seed", type=int, metavar="N",
                        help="seed of the dice Campo rolls for the umpire (default: a random one; each roll's seed is recorded)")
    parser.add_argument("--projector", action="store_true",
                        help="open the projector page (/projector) full screen in a browser once serving "
                             "(chromium --kiosk), or print its URL when no browser can be found (docs/projector.md)")
    parser.add_argument("--projector-file", type=Path, metavar="projector.json",
                        help="the projector's calibration, read if it exists and written by 'Calibrate projector' "
                             "(default: projector.json in the game folder; with --source demo: kept in memory)")
    if _recording_available():
        parser.add_argument("--record", type=Path, metavar="GAME.db",
                            help="save every change of state and every umpire event to this SQLite file")


def run(args: argparse.Namespace) -> int:
    from campo.server.runner import serve
    from campo.server.rig import ServerSettings
    from campo.errors import CampoInputError

    if not 0 < args.port < 65536:
        raise CampoInputError(f"port {args.port} is not in 1..65535", key="--port")
    if args.fps is not None and not 0 < args.fps <= 120:
        raise CampoInputError(f"--fps {args.fps} is not in (0, 120]", key="--fps")
    if args.deck_seed is not None and not 0 <= args.deck_seed < 10**9:
        raise CampoInputError(f"--deck-seed {args.deck_seed} is not in 0..999999999", key="--deck-seed")
    if args.dice_seed is not None and not 0 <= args.dice_seed < 10**9:
        raise CampoInputError(f"--dice-seed {args.dice_seed} is not in 0..999999999", key="--dice-seed")
    record = getattr(args, "record", None)
    if args.projector:
        import secrets

        from campo.server.projector_launch import launch_in_background, projector_url
        from campo.server.security import is_loopback

        if args.token is None and not is_loopback(args.host):   # the projector page must be able to answer
            args.token = secrets.token_urlsafe(18)

        launch_in_background(projector_url(args.host, args.port, args.token, args.https), args.host, args.port)
    sources, cameras = list(args.source or []), list(args.camera or [])
    if len(sources) > 1:
        return _serve_cameras(args, sources, cameras, record)
    if len(cameras) > 1:
        raise CampoInputError(f"{len(cameras)} --camera for one --source", key="--camera")
    args.source, args.camera = (sources or [None])[0], (cameras or [None])[0]
    no_files = args.table is None and args.roster is None
    if args.source == "demo" and no_files and args.folder is None and not args.https:
        settings = ServerSettings(source="demo", setup_file=args.terrain, host=args.host, port=args.port,
                                  token=args.token, fps=args.fps,
                                  deck_seed=args.deck_seed, dice_seed=args.dice_seed, allow_hosts=tuple(args.allow_host), proxy=args.proxy,
                                  projector_file=args.projector_file)
        return serve(settings, record=record)   # the demo game: its own files
    return _serve_folder(args, record)


def _serve_folder(args: argparse.Namespace, record: Path | None) -> int:
    """The setup and the live game of one folder (`campo.server.setup`)."""
    from campo.calibration.camera_file import load_camera
    from campo.errors import CampoInputError
    from campo.server.rig import ServerSettings
    from campo.server.roster import load_checked_roster
    from campo.server.setup.files import GameFiles
    from campo.server.setup.serve import serve_host
    from campo.vision.tabletop import load_table

    if (args.table is None) != (args.roster is None):
        missing = "--roster" if args.roster is None else "--table"
        raise CampoInputError(f"{missing} is required with {'--table' if missing == '--roster' else '--roster'} "
                              "(give both, or neither to set the game up in the page)", key=missing)
    if args.table is not None:   # named on the command line: wrong files stop us here, as always
        table = load_table(args.table)
        load_checked_roster(args.roster, table)
    if args.camera is not None:
        load_camera(args.camera)
    folder = args.folder or (args.table.parent if args.table is not None else Path.cwd())
    if folder.exists() and not folder.is_dir():
        raise CampoInputError("not a folder", path=folder)
    files = GameFiles.in_folder(folder, table=args.table, roster=args.roster, camera=args.camera,
                                terrain=args.terrain or (args.table.parent / "terrain.json" if args.table else None))
    settings = ServerSettings(source=args.source or "phone", table=args.table, roster=args.roster,
                              camera=args.camera, setup_file=files.terrain, host=args.host, port=args.port,
                              token=args.token, fps=args.fps, deck_seed=args.deck_seed,
                              dice_seed=args.dice_seed, allow_hosts=tuple(args.allow_host), proxy=args.proxy,
                              projector_file=args.projector_file or folder / "projector.json")
    return serve_host(settings, files, source=args.source, record=record, https=args.https)


def _serve_cameras(args: argparse.Namespace, sources: list[str], cameras: list[Path], record: Path | None) -> int:
    """Two or more cameras over one table (`campo.server.cameras`): no setup page, the files given
    (or, for `--source demo --source demo`, the demo's two-camera game)."""
    from campo.errors import CampoInputError
    from campo.server.cameras import check_camera_options
    from campo.server.rig import ServerSettings
    from campo.server.runner import serve

    check_camera_options(sources, cameras)
    if args.https:
        raise CampoInputError("--https is for a phone camera, which works alone", key="--https")
    demo = all(s.strip() == "demo" for s in sources)
    if not demo and (args.table is None or args.roster is None):
        raise CampoInputError("several cameras need --table and --roster", key="--table" if args.table is None else "--roster")
    folder = args.folder or (args.table.parent if args.table is not None else None)
    projector_file = args.projector_file or (folder / "projector.json" if folder is not None else None)
    settings = ServerSettings(source=sources[0], sources=tuple(sources), cameras=tuple(cameras),
                              table=args.table, roster=args.roster, setup_file=args.terrain, host=args.host,
                              port=args.port, token=args.token, fps=args.fps, deck_seed=args.deck_seed,
                              dice_seed=args.dice_seed, allow_hosts=tuple(args.allow_host), proxy=args.proxy,
                              projector_file=projector_file)
    return serve(settings, record=record)
