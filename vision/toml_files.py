"""Strict TOML loading that reports problems by file, line and key.

`tomllib` gives no positions for values, so a problem found by validation (an unknown key, a
wrong type, a duplicate) is located by scanning the text for the table header and the key.
That is enough for the hand-written files Campo reads (`table.toml`, `roster.toml`).
"""

from __future__ import annotations

import bisect
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from campo.errors import FileFormatError
from campo.safe_input import Loc, format_loc, read_bounded, unsound_value

__all__ = ["LineFinder", "Loc", "Problem", "find_line", "format_loc", "load_toml_model", "parse_toml",
           "pydantic_problems", "raise_problems", "toml_value"]

MAX_TOML_BYTES = 4 * 1024 * 1024
"""Largest table or roster file read (a 1000-base roster is about 300 KB)."""
MAX_PROBLEMS_SHOWN = 20
"""Problems listed in one error; the rest are counted."""

ModelT = TypeVar("ModelT", bound=BaseModel)

_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\"' -]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*[\"']?([A-Za-z0-9_-]+)[\"']?\s*[=.]")
_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a file, at `loc` (keys and array indexes, as pydantic reports them)."""

    loc: Loc
    message: str


class LineFinder:
    """Where keys are written in one TOML text, indexed once, so locating N problems costs
    O(text + N) instead of N scans of the text.

    `tomllib` gives no positions for values: a key is found under its table header (or the
    nearest enclosing header when the key itself is not written there).
    """

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.headers: dict[str, list[int]] = {}
        starts = []
        for i, line in enumerate(self.lines):
            if m := _HEADER.match(line):
                self.headers.setdefault(m.group(2).strip("\"' "), []).append(i)
                starts.append(i)
        self._starts = starts
        self._keys: dict[int, dict[str, int]] = {}   # section start -> key -> first line

    def _section_end(self, start: int) -> int:
        i = bisect.bisect_right(self._starts, start)
        return self._starts[i] if i < len(self._starts) else len(self.lines)

    def _key_line(self, start: int, end: int, key: str) -> int | None:
        keys = self._keys.get(start)
        if keys is None:
            keys = {}
            for i in range(start, end):
                if m := _KEY.match(self.lines[i]):
                    keys.setdefault(m.group(1), i)
            self._keys[start] = keys
        return keys.get(key)

    def line(self, loc: Loc) -> int | None:
        """The 1-based line where `loc` is written, or the nearest enclosing header."""
        keys = [p for p in loc if isinstance(p, str)]
        if not keys:
            return None
        head = loc[0]
        index = loc[1] if len(loc) > 1 and isinstance(loc[1], int) else None
        headers = self.headers.get(str(head), [])
        if headers:
            start = headers[index] if index is not None and index < len(headers) else headers[0]
            end, key_index = self._section_end(start), 1
        else:
            start, end, key_index = 0, (self._starts[0] if self._starts else len(self.lines)), 0
        if key_index >= len(keys):
            return start + 1
        found = self._key_line(start, end, keys[key_index])
        if found is not None:
            return found + 1
        return start + 1 if key_index else None


def find_line(text: str, loc: Loc) -> int | None:
    """The 1-based line where `loc` is written in TOML `text`, or the nearest enclosing header.

    >>> find_line('a = 1\\n[[bases]]\\nid = "x"\\n[[bases]]\\nid = "y"\\nmarker = 3\\n', ("bases", 1, "marker"))
    6
    >>> find_line('[table]\\nwidth_mm = 1\\n', ("table", "depth_mm"))
    1
    """
    return LineFinder(text).line(loc)


def parse_toml(path: Path) -> tuple[str, dict[str, Any]]:
    """Read and parse a TOML file, turning every failure into a `FileFormatError`.

    Bounded: at most `MAX_TOML_BYTES`, nesting and numbers checked (TOML allows ``nan`` and
    ``inf``, which no length or angle of Campo's may be)."""
    raw = read_bounded(path, MAX_TOML_BYTES, what="a Campo file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileFormatError(f"not UTF-8 text ({exc.reason})", path=path,
                              line=raw.count(b"\n", 0, exc.start) + 1) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        line = None
        if m := _TOML_POSITION.search(message):
            line = int(m.group(1))
            message = _TOML_POSITION.sub("", message).strip()
        raise FileFormatError(f"invalid TOML: {message}", path=path, line=line) from None
    except RecursionError:
        raise FileFormatError("invalid TOML: arrays or tables nested too deeply", path=path) from None
    problem = unsound_value(data)
    if problem is not None:
        raise_problems(path, text, [Problem(*problem)])
    return text, data


def pydantic_problems(error: ValidationError) -> list[Problem]:
    """Translate pydantic's errors into `Problem`s with messages a user understands."""
    problems = []
    for item in error.errors():
        loc = tuple(item["loc"])
        kind = item["type"]
        if kind == "extra_forbidden":
            message = "unknown key (check the spelling)"
        elif kind == "missing":
            message = "required key is missing"
        else:
            message = item["msg"]
            if "input" in item and kind not in ("value_error", "assertion_error"):
                message += f" (got {item['input']!r})"
            message = message.removeprefix("Value error, ")
        problems.append(Problem(loc, message))
    return problems


def raise_problems(path: Path, text: str, problems: list[Problem]) -> None:
    """Raise one `FileFormatError` listing the problems (the first is the headline; beyond
    `MAX_PROBLEMS_SHOWN` they are counted, not listed)."""
    if not problems:
        return
    finder = LineFinder(text)
    shown = problems[:MAX_PROBLEMS_SHOWN]
    errors = [
        FileFormatError(p.message, path=path, line=finder.line(p.loc), key=format_loc(p.loc) or None)
        for p in shown
    ]
    first = errors[0]
    if len(errors) > 1:
        rest = "\n".join(f"  also {e}" for e in errors[1:])
        if len(problems) > len(shown):
            rest += f"\n  and {len(problems) - len(shown)} more problems"
        first = FileFormatError(f"{first.message}\n{rest}", path=first.path, line=first.line, key=first.key)
    raise first


def load_toml_model(path: str | Path, model: type[ModelT]) -> tuple[str, ModelT]:
    """Parse `path` and validate it as `model`; returns the text too, for locating later checks."""
    path = Path(path)
    text, data = parse_toml(path)
    try:
        return text, model.model_validate(data)
    except ValidationError as exc:
        raise_problems(path, text, pydantic_problems(exc))
        raise AssertionError("unreachable")  # pragma: no cover


def toml_value(value: Any) -> str:
    """A Python value as TOML source (the subset our files use)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(float(value)) if isinstance(value, float) else str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")
