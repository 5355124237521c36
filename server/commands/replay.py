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
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="another name this server may be reached by; requests addressed to any "
                             "other name are refused (DNS rebinding). Repeatable")
    parser.add_argument("--proxy", metavar="ADDRESS",
                        help="a reverse proxy whose X-Forwarded-For header is believed (default: none)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from campo.server.recording.replay_app import create_replay_app
    from campo.server.runner import listening_socket, uvicorn_config

    if not 0 < args.port < 65536:
        raise CampoInputError(f"port {args.port} is not in 1..65535", key="--port")
    # a bad file fails here, before binding
    app = create_replay_app(args.recording, host=args.host, allow_hosts=tuple(args.allow_host))
    sock = listening_socket(args.host, args.port)
    print(f"campo replay: open http://{args.host}:{args.port}/ ({args.recording}); "
          "Ctrl-C to stop", flush=True)
    uvicorn.Server(uvicorn_config(app, args.host, args.port, args.proxy)).run(sockets=[sock])
    return 0
