"""Errors about recordings: always name the file (the CLI prints them as one line)."""

from __future__ import annotations

from vision.errors import FileFormatError


class RecordingError(FileFormatError):
    """A file is not a Campo recording, is damaged, or was written by a newer Campo."""
