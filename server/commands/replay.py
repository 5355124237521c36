"""Review a recorded game in the overlay: timeline scrubber, play/pause, jumps to events and turns.

`campo replay GAME.db` serves the live overlay page in review mode at http://127.0.0.1:8000/;
each moment is analysed again by the current rules engine, and each move's path is drawn with
its measured length. Read-only: nothing in the recording changes. See docs/recording.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from campo.errors import CampoInputError


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("recording", type=Path, metavar="GAME.db", help="a campo recording")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from campo.server.recording.replay_app import create_replay_app
    from campo.server.runner import uvicorn_config

    if not 0 < args.port < 65536:
        raise CampoInputError(f"port {args.port} is not in 1..65535", key="--port")
    app = create_replay_app(args.recording)  # a bad file fails here, before binding
    print(f"campo replay: open http://{args.host}:{args.port}/ ({args.recording}); "
          "Ctrl-C to stop", flush=True)
    try:
        uvicorn.Server(uvicorn_config(app, args.host, args.port)).run()
    except OSError as exc:  # e.g. the port is taken
        raise CampoInputError(f"cannot listen on {args.host}:{args.port}: "
                              f"{exc.strerror or exc}") from None
    return 0
