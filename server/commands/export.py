"""Export a recorded game: JSON lines (every state and event) or CSV (the events).

`campo export GAME.db --json` prints one JSON object per line, oldest first, each with `seq`, `t`
(seconds since the recording began) and `kind` (`state` or an event name); a state line holds the
scenario JSON in `state`. `--csv` prints the events only. `-o FILE` writes to a file instead.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from campo.errors import CampoInputError
from campo.server.recording import open_recording
from campo.server.recording.export import json_lines, write_csv


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("recording", type=Path, metavar="GAME.db", help="a campo recording")
    fmt = parser.add_mutually_exclusive_group(required=True)
    fmt.add_argument("--json", action="store_true", help="JSON lines: every state and event")
    fmt.add_argument("--csv", action="store_true", help="CSV: the events only")
    parser.add_argument("-o", "--output", type=Path, help="write here instead of stdout")


def run(args: argparse.Namespace) -> int:
    with open_recording(args.recording) as rec:
        where = args.output or "standard output"
        try:
            with (args.output.open("w", encoding="utf-8", newline="") if args.output
                  else contextlib.nullcontext(sys.stdout)) as out:
                if args.json:
                    for line in json_lines(rec):
                        out.write(line + "\n")
                else:
                    write_csv(rec, out)
        except BrokenPipeError:   # `campo export ... | head`: the CLI's business
            raise
        except OSError as exc:    # a missing or read-only folder, a full disk
            raise CampoInputError(f"cannot write: {exc.strerror or exc}", path=where) from None
    return 0
