"""The `campo` console script: finds the sub-commands and turns user errors into one clear line.

Only the command being run is imported: `campo --help` lists the commands from `COMMANDS`
without loading OpenCV, the engine or the web server, so it answers at once.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence
from types import ModuleType

from campo.errors import CampoInputError

EXIT_USER_ERROR = 2

COMMANDS: dict[str, str] = {
    "analyze": "What the rules engine concludes about one moment of a game (a scenario JSON file).",
    "board": "Write the ChArUco calibration board to print (PDF, optionally PNG), at exact scale.",
    "calibrate-camera": "Measure the camera's intrinsics from photos of the ChArUco board (see `campo board`).",
    "detect": "Base poses in the table frame from still images, one line (or JSON object) per image.",
    "export": "Export a recorded game: JSON lines (every state and event) or CSV (the events).",
    "markers": "Write the markers to print for a table and roster (PDF, optionally PNGs), at exact scale.",
    "replay": "Review a recorded game in the overlay: timeline scrubber, play/pause, jumps to events and turns.",
    "report": "Write a game report: one self-contained HTML page (deployment, tracks, losses, events).",
    "serve": "Run the live tracker and its web overlay (the umpire's page) on this machine.",
}
"""Each command and its one-line help: the module `campo.server.commands.<name with _>` does it
(tests/test_cli.py checks each line against the module's docstring)."""


def command_module(name: str) -> ModuleType:
    """The module that implements command ``name`` (imported on first use)."""
    return importlib.import_module(f"campo.server.commands.{name.replace('-', '_')}")


def build_parser(load: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser; the commands in ``load`` (all when None) get their full arguments,
    the others only their name and help line."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        campo_version = version("campo")
    except PackageNotFoundError:  # running from a source tree without installing
        campo_version = "unknown"
    parser = argparse.ArgumentParser(
        prog="campo",
        description="Camera-assisted tracker and rules engine for miniatures wargames.",
    )
    parser.add_argument("--version", action="version", version=f"campo {campo_version}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress and details")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, summary in COMMANDS.items():
        if load is not None and name not in load:
            sub.add_parser(name, help=summary)
            continue
        module = command_module(name)
        command = sub.add_parser(name, help=summary, description=(module.__doc__ or "").strip(),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
        module.register(command)
        command.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code (0 ok, 2 bad input, 130 interrupted)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    wanted = next((a for a in argv if not a.startswith("-")), None)
    args = build_parser([wanted] if wanted in COMMANDS else []).parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        return int(args._run(args) or 0)
    except CampoInputError as exc:
        print(f"campo {args.command}: {exc}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `campo detect ... | head`
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
