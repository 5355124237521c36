"""Reading untrusted JSON (and checking any decoded tree) in bounded time and memory.

Every file and message Campo reads comes from a user or a browser: a scenario, camera.json,
terrain.json, a WebSocket message, a recording's entry. `parse_json` refuses, with one line
naming the file, the line or the key:

- text that is not UTF-8 (a latin-1 or binary file);
- nesting deeper than `MAX_DEPTH` (100,000 brackets would otherwise blow Python's stack);
- a number that is not finite (`NaN`, `Infinity`, `1e400`) or an integer beyond `MAX_INT`
  (nothing Campo reads is that large; such a value would poison every later computation);
- a key given twice in one object (the second `"ruleset"` would silently win).

`unsound_value` is the same depth and number check for a tree decoded some other way (TOML),
iterative so the check itself cannot overflow the stack.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from campo.errors import CampoInputError, FileFormatError

Loc = tuple[str | int, ...]

MAX_DEPTH = 32
"""Deepest nesting of lists and objects accepted; Campo's deepest file (a terrain polygon inside
a scenario) is 5 levels."""

MAX_INT = 2**63
"""Largest integer magnitude accepted (seeds, counts and sequence numbers are far below)."""


def format_loc(loc: Loc) -> str:
    """``("bases", 2, "marker")`` -> ``"bases[2].marker"``.

    >>> format_loc(("terrain", 0, "line_mm", 1, 0))
    'terrain[0].line_mm[1][0]'
    """
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + str(part)
    return text


def unsound_value(data: Any, max_depth: int = MAX_DEPTH) -> tuple[Loc, str] | None:
    """Where ``data`` nests too deeply or holds a non-finite or absurd number, and why; None when
    it is sound.

    >>> unsound_value({"road": [[0, 0], [float("inf"), 10]]})
    (('road', 1, 0), 'must be a finite number (got inf)')
    >>> unsound_value([[[1]]], max_depth=2)
    ((0, 0), 'nested more than 2 levels deep')
    >>> unsound_value({"ok": [1, 2.5, "x", None, True]}) is None
    True
    """
    stack: list[tuple[Any, Loc, int]] = [(data, (), 0)]
    while stack:
        value, loc, depth = stack.pop()
        if isinstance(value, float):
            if not math.isfinite(value):
                return loc, f"must be a finite number (got {value})"
        elif isinstance(value, int) and not isinstance(value, bool):
            if abs(value) > MAX_INT:
                return loc, f"number too large (more than {len(str(MAX_INT))} digits)"
        elif isinstance(value, (dict, list, tuple)):
            if depth >= max_depth:
                return loc, f"nested more than {max_depth} levels deep"
            items = value.items() if isinstance(value, dict) else enumerate(value)
            stack.extend((v, (*loc, k), depth + 1) for k, v in reversed(list(items)))
    return None


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


def _line_of_second(text: str, key: str) -> int | None:
    """The line of the second occurrence of ``"key"`` in ``text`` (where a duplicate key is)."""
    quoted = json.dumps(key)
    first = text.find(quoted)
    second = text.find(quoted, first + 1) if first >= 0 else -1
    return text.count("\n", 0, second) + 1 if second >= 0 else None


def read_bounded(path: Path, max_bytes: int, *, what: str,
                 error: type[CampoInputError] = FileFormatError) -> bytes:
    """The bytes of ``path``, refusing (naming it) a missing or unreadable file and one larger
    than ``max_bytes``, which is never read beyond that ("larger than 4 MB: not a camera.json")."""
    try:
        with path.open("rb") as fh:
            raw = fh.read(max_bytes + 1)
    except FileNotFoundError:
        raise error("file not found", path=path) from None
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror or exc}", path=path) from None
    if len(raw) > max_bytes:
        size = f"{max_bytes // 2**20} MB" if max_bytes >= 2**20 else f"{max_bytes} bytes"
        raise error(f"larger than {size}: not {what}", path=path)
    return raw


def decode_utf8(raw: bytes, *, path: Any = None, error: type[CampoInputError] = FileFormatError) -> str:
    """``raw`` as UTF-8 text (a leading byte-order mark is dropped); the error names the line."""
    try:
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise error(f"not UTF-8 text (byte {raw[exc.start]:#04x} at offset {exc.start}; save the file "
                    f"as UTF-8)", path=path, line=line) from None


def parse_json(raw: str | bytes, *, path: Any = None, max_depth: int = MAX_DEPTH,
               error: type[CampoInputError] = FileFormatError, check_values: bool = True,
               invalid: str = "invalid JSON") -> Any:
    """Decode JSON text refusing what `unsound_value` refuses, duplicate keys and bad UTF-8.

    ``check_values=False`` leaves the `unsound_value` check to the caller (who can name the
    place better, e.g. a base by its id); the nesting is bounded either way. ``invalid`` begins
    the message for text that is not JSON at all.

    >>> parse_json('{"a": [1, 2]}')
    {'a': [1, 2]}
    >>> parse_json('{"ruleset": "a", "ruleset": "b"}')
    Traceback (most recent call last):
    ...
    campo.errors.FileFormatError: line 1: ruleset: duplicate key (given twice in one object)
    >>> parse_json('{"road": [[0, 0], [Infinity, 10]]}')
    Traceback (most recent call last):
    ...
    campo.errors.FileFormatError: road[1][0]: must be a finite number (got inf)
    """
    text = decode_utf8(raw, path=path, error=error) if isinstance(raw, bytes) else raw
    try:
        data = json.loads(text, object_pairs_hook=_unique_pairs)
    except json.JSONDecodeError as exc:
        raise error(f"{invalid}: {exc.msg} (column {exc.colno})", path=path, line=exc.lineno) from None
    except _DuplicateKey as exc:
        raise error("duplicate key (given twice in one object)", path=path, key=exc.key,
                    line=_line_of_second(text, exc.key)) from None
    except RecursionError:
        raise error(f"nested more than {max_depth} levels deep", path=path) from None
    except ValueError as exc:   # e.g. an integer of more than 4300 digits
        raise error(f"{invalid}: {exc}", path=path) from None
    problem = unsound_value(data, max_depth) if check_values else None
    if problem is not None:
        loc, message = problem
        raise error(message, path=path, key=format_loc(loc) or None)
    return data


def object_with_keys(data: Any, path: Any, known: set[str] | frozenset[str],
                     required: tuple[str, ...] = (), *, not_object: str = "must be a JSON object"
                     ) -> dict[str, Any]:
    """A decoded file's top-level object, checked: an object (else ``not_object``), no key
    outside ``known`` (a misspelt key would silently be ignored), every ``required`` key there;
    `FileFormatError` naming the file and the key."""
    if not isinstance(data, dict):
        raise FileFormatError(not_object, path=path)
    unknown = sorted(set(data) - known)
    if unknown:
        raise FileFormatError("unknown key (check the spelling)", path=path, key=unknown[0])
    for key in required:
        if key not in data:
            raise FileFormatError("required key is missing", path=path, key=key)
    return data
