"""Strict TOML loading that reports problems by file, line and key.

`tomllib` gives no positions for values, so a problem found by validation (an unknown key, a
wrong type, a duplicate) is located by scanning the text for the table header and the key.
That is enough for the hand-written files Campo reads (`table.toml`, `roster.toml`).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from campo.errors import FileFormatError

Loc = tuple[str | int, ...]
ModelT = TypeVar("ModelT", bound=BaseModel)

_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\"' -]+?)\s*\]\]?\s*(#.*)?$")
_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)")


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a file, at `loc` (keys and array indexes, as pydantic reports them)."""

    loc: Loc
    message: str


def format_loc(loc: Loc) -> str:
    """``("bases", 2, "marker")`` -> ``"bases[2].marker"``."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + str(part)
    return text


def find_line(text: str, loc: Loc) -> int | None:
    """The 1-based line where `loc` is written in TOML `text`, or the nearest enclosing header.

    >>> find_line('a = 1\\n[[bases]]\\nid = "x"\\n[[bases]]\\nid = "y"\\nmarker = 3\\n', ("bases", 1, "marker"))
    6
    >>> find_line('[table]\\nwidth_mm = 1\\n', ("table", "depth_mm"))
    1
    """
    lines = text.splitlines()
    keys = [p for p in loc if isinstance(p, str)]
    if not keys:
        return None
    # Find the header line of the table or array-of-tables entry that holds the key.
    start, end, key_index = 0, len(lines), 0
    first_header = next((i for i, l in enumerate(lines) if _HEADER.match(l)), len(lines))
    if len(loc) >= 1:
        head = loc[0]
        index = loc[1] if len(loc) > 1 and isinstance(loc[1], int) else None
        headers = [
            i for i, l in enumerate(lines)
            if (m := _HEADER.match(l)) and m.group(2).strip("\"' ") == head
        ]
        if headers:
            pick = headers[index] if index is not None and index < len(headers) else headers[0]
            start = pick
            end = next((i for i in range(pick + 1, len(lines)) if _HEADER.match(lines[i])), len(lines))
            key_index = 1
        else:
            end = first_header
    wanted = keys[key_index] if key_index < len(keys) else None
    if wanted is None:
        return start + 1
    pattern = re.compile(rf"^\s*[\"']?{re.escape(wanted)}[\"']?\s*[=.]")
    for i in range(start, end):
        if pattern.match(lines[i]):
            return i + 1
    return start + 1 if key_index else None


def parse_toml(path: Path) -> tuple[str, dict[str, Any]]:
    """Read and parse a TOML file, turning every failure into a `FileFormatError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileFormatError("file not found", path=path) from None
    except UnicodeDecodeError as exc:
        raise FileFormatError(f"not UTF-8 text ({exc.reason})", path=path) from None
    except OSError as exc:
        raise FileFormatError(f"cannot read: {exc.strerror}", path=path) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        line = None
        if m := _TOML_POSITION.search(message):
            line = int(m.group(1))
            message = _TOML_POSITION.sub("", message).strip()
        raise FileFormatError(f"invalid TOML: {message}", path=path, line=line) from None
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
    """Raise one `FileFormatError` listing every problem; the first is the headline."""
    if not problems:
        return
    errors = [
        FileFormatError(p.message, path=path, line=find_line(text, p.loc), key=format_loc(p.loc) or None)
        for p in problems
    ]
    first = errors[0]
    if len(errors) > 1:
        rest = "\n".join(f"  also {e}" for e in errors[1:])
        first = FileFormatError(f"{first.message}\n{rest}", path=first.path, line=first.line, key=first.key)
    first.problems = problems  # type: ignore[attr-defined]
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
