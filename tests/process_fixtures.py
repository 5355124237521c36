"""Running a `campo` command as its own process and measuring it: exit code, output, and its
own peak memory.

`ru_maxrss` of a child forked straight from pytest counts the pages it shared with pytest before
`exec` (hundreds of MB late in a full run), so the command is started from a tiny Python process
that forks and execs it and reports the child's own peak.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CAMPO = [sys.executable, "-m", "campo.server.cli"]

_MEASURE = r"""
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as fh:
    fh.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


@dataclass(frozen=True)
class Finished:
    returncode: int
    stdout: str
    stderr: str
    peak_mb: float


def run_measured(args: list[str], tmp: Path, timeout: float = 120) -> Finished:
    """``campo ARGS`` as a process: its exit code, output and own peak resident memory."""
    peak = tmp / ".peak-kb"
    done = subprocess.run([sys.executable, "-c", _MEASURE, str(peak), *CAMPO, *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)
    return Finished(done.returncode, done.stdout, done.stderr, int(peak.read_text()) / 1024)


def one_line(err: str) -> str:
    """The command's whole stderr, which must be one line (no traceback)."""
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err[-2000:]
    return lines[0]
