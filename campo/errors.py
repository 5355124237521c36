"""User-facing errors, in one small module every layer imports.

A `CampoInputError` is a problem with what the user gave us (a file, an image, an argument, a
browser's message), never a bug. The CLI prints it as one line and exits with status 2 without
a traceback, so the message must say where the problem is: the file, the line and the key when
known.
"""

from __future__ import annotations

from pathlib import Path


class CampoInputError(ValueError):
    """Bad input from the user: rendered as ``path:line: key: message``."""

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        key: str | None = None,
    ) -> None:
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.key = key
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.path:
            where = self.path + (f":{self.line}" if self.line else "") + ": "
        elif self.line:
            where = f"line {self.line}: "
        key = f"{self.key}: " if self.key else ""
        return f"{where}{key}{self.message}"


class FileFormatError(CampoInputError):
    """A file exists but its content is wrong (syntax, unknown key, bad value, duplicate...)."""


class ScenarioError(FileFormatError):
    """A scenario is malformed or names things the ruleset does not know."""


class UnknownRulesetError(ScenarioError):
    """The scenario's `ruleset` is not one the engine has."""


class UnknownBaseError(CampoInputError, KeyError):
    """A base id that the game state does not hold."""

    def __str__(self) -> str:  # KeyError would quote the message
        return CampoInputError.__str__(self)


class RecordingError(FileFormatError):
    """A file is not a Campo recording, is damaged, or was written by a newer Campo."""
