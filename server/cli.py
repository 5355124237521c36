"""The `campo` console script: finds the sub-commands and turns user errors into one clear line."""

from __future__ import annotations

import argparse
import importlib
import logging
import pkgutil
import sys
from collections.abc import Sequence
from types import ModuleType

import server.commands
from vision.errors import CampoInputError

EXIT_USER_ERROR = 2


def _command_modules() -> dict[str, ModuleType]:
    modules = {}
    for info in sorted(pkgutil.iter_modules(server.commands.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"server.commands.{info.name}")
        modules[info.name.replace("_", "-")] = module
    return modules


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, one sub-parser per module in `server/commands/`."""
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
    for name, module in _command_modules().items():
        doc = (module.__doc__ or "").strip()
        summary = doc.splitlines()[0] if doc else ""
        command = sub.add_parser(name, help=summary, description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
        module.register(command)
        command.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code (0 ok, 2 bad input, 130 interrupted)."""
    args = build_parser().parse_args(argv)
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
