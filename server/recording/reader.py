"""Reading a recording: check it is ours, then walk states and events in order or seek by time.

`open_recording(path)` refuses (naming the file) anything that is not a Campo recording or has a
newer schema, and upgrades an older one in place. States come back whole (snapshots with their
deltas applied), so callers never see the storage format.
"""

from __future__ import annotations

import copy
import math
import sqlite3
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from campo.errors import RecordingError
from campo.server.recording import codec, schema

ENCODINGS = frozenset({"snapshot", "delta", "json"})


@dataclass(frozen=True)
class Entry:
    """One line of a recording: a state (``data`` is the scenario dict) or an event (its payload)."""

    seq: int
    t: float
    kind: str
    data: dict[str, Any]

    @property
    def is_state(self) -> bool:
        return self.kind == "state"

    def to_json(self) -> dict[str, Any]:
        """The `campo export --json` line for this entry."""
        if self.is_state:
            return {"seq": self.seq, "t": self.t, "kind": "state", "state": self.data}
        return {"seq": self.seq, "t": self.t, "kind": self.kind, **self.data}


class Recording:
    """An open recording (use `open_recording`)."""

    def __init__(self, path: Path, conn: sqlite3.Connection, version: int) -> None:
        self.path, self._conn, self.version = path, conn, version

    # --- context ----------------------------------------------------------------------------
    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Recording:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- low level --------------------------------------------------------------------------
    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
        try:
            yield from self._conn.execute(sql, args)
        except sqlite3.DatabaseError as exc:
            raise RecordingError(f"recording is damaged: {exc}", path=self.path) from None

    def _damaged(self, seq: Any, why: str) -> RecordingError:
        return RecordingError(f"entry seq {seq} is damaged: {why}", path=self.path)

    def _entries(self, sql: str, args: tuple[Any, ...] = ()) -> Iterator[tuple[int, float, str, str, bytes]]:
        """Rows of (seq, t, kind, encoding, body), each checked for what the writer always
        stores: a damaged file is one clear error, never a TypeError halfway through."""
        for seq, t, kind, encoding, body in self._rows(sql, args):
            if not isinstance(t, (int, float)) or isinstance(t, bool) or not math.isfinite(t):
                raise self._damaged(seq, f"its time t is {t!r}, not a number of seconds")
            if not isinstance(kind, str) or encoding not in ENCODINGS or not isinstance(body, bytes):
                raise self._damaged(seq, "not an entry Campo writes (kind, encoding or body)")
            yield int(seq), float(t), kind, encoding, body

    def _unpack(self, seq: int, body: bytes) -> Any:
        try:
            return codec.unpack(body)
        except (zlib.error, ValueError, UnicodeDecodeError) as exc:
            raise self._damaged(seq, str(exc)) from None

    def _state(self, seq: int, encoding: str, body: bytes, prev: dict[str, Any] | None) -> dict[str, Any]:
        """The state an entry stores: its snapshot, or its delta applied to ``prev``."""
        data = self._unpack(seq, body)
        if not isinstance(data, dict):
            raise self._damaged(seq, "a state that is not a JSON object")
        if encoding == "snapshot":
            return data
        if prev is None:
            raise RecordingError(f"entry seq {seq} is a delta with no snapshot before it", path=self.path)
        try:
            return codec.apply_delta(prev, data)
        except (TypeError, KeyError, AttributeError, ValueError) as exc:   # not a delta we write
            raise self._damaged(seq, f"its delta does not apply ({type(exc).__name__}: {exc})") from None

    @property
    def meta(self) -> dict[str, str]:
        return {k: v for k, v in self._rows("SELECT key, value FROM meta")}

    # --- walking ----------------------------------------------------------------------------
    def entries(self, kinds: set[str] | None = None) -> Iterator[Entry]:
        """Every state and event, oldest first (``kinds`` filters, e.g. ``{"state"}``).

        Each state is a new top-level dict, but the bases that did not change share their
        dicts with the states before and after (that is what makes walking a long game fast):
        copy a base before changing it."""
        state: dict[str, Any] | None = None
        for seq, t, kind, encoding, body in self._entries(
                "SELECT seq, t, kind, encoding, body FROM entries ORDER BY seq"):
            if kind == "state":
                state = self._state(seq, encoding, body, state)
                if kinds is None or "state" in kinds:
                    yield Entry(seq, t, kind, dict(state))
            elif kinds is None or kind in kinds:
                yield Entry(seq, t, kind, self._event(seq, body))

    def states(self) -> Iterator[Entry]:
        return self.entries({"state"})

    def events(self, kinds: set[str] | None = None) -> list[Entry]:
        """Events only (not states), oldest first, without rebuilding any state."""
        out = []
        for seq, t, kind, _, body in self._entries(
                "SELECT seq, t, kind, encoding, body FROM entries WHERE kind != 'state' ORDER BY seq"):
            if kinds is None or kind in kinds:
                out.append(Entry(seq, t, kind, self._event(seq, body)))
        return out

    def _event(self, seq: int, body: bytes) -> dict[str, Any]:
        data = self._unpack(seq, body)
        if not isinstance(data, dict):
            raise self._damaged(seq, "an event that is not a JSON object")
        return data

    # --- seeking ----------------------------------------------------------------------------
    def _state_through(self, last_seq: int) -> Entry | None:
        snap = next(self._rows(
            "SELECT seq FROM entries WHERE kind = 'state' AND encoding = 'snapshot' AND seq <= ? "
            "ORDER BY seq DESC LIMIT 1", (last_seq,)), None)
        if snap is None:
            return None
        state: dict[str, Any] | None = None
        found: tuple[int, float] | None = None
        for seq, t, _, encoding, body in self._entries(
                "SELECT seq, t, kind, encoding, body FROM entries WHERE kind = 'state' "
                "AND seq >= ? AND seq <= ? ORDER BY seq", (snap[0], last_seq)):
            state = self._state(seq, encoding, body, state or {})
            found = (seq, t)
        assert found is not None and state is not None
        return Entry(found[0], found[1], "state", copy.deepcopy(state))

    def state_at(self, t: float) -> Entry | None:
        """The state shown at ``t`` seconds: the last one recorded at or before ``t``."""
        row = next(self._rows("SELECT max(seq) FROM entries WHERE kind = 'state' AND t <= ?",
                              (t,)), (None,))
        return None if row[0] is None else self._state_through(int(row[0]))

    def state_at_seq(self, seq: int) -> Entry | None:
        """The state in force when entry ``seq`` was written (at or before it)."""
        row = next(self._rows("SELECT max(seq) FROM entries WHERE kind = 'state' AND seq <= ?",
                              (seq,)), (None,))
        return None if row[0] is None else self._state_through(int(row[0]))

    def last_state(self) -> dict[str, Any] | None:
        entry = self.state_at_seq(2**62)
        return None if entry is None else entry.data

    def states_since_snapshot(self) -> int:
        """How many deltas follow the last snapshot (lets an appending recorder continue)."""
        row = next(self._rows(
            "SELECT count(*) FROM entries WHERE kind = 'state' AND seq > coalesce(("
            "SELECT max(seq) FROM entries WHERE kind = 'state' AND encoding = 'snapshot'), 0)"))
        return int(row[0])

    @property
    def duration(self) -> float:
        row = next(self._rows("SELECT max(t) FROM entries"))
        last = row[0] or 0.0
        if not isinstance(last, (int, float)) or not math.isfinite(last):
            raise RecordingError(f"damaged: an entry's time t is {last!r}, not a number of seconds",
                                 path=self.path)
        return float(last)

    def count(self, kind: str | None = None) -> int:
        if kind is None:
            return int(next(self._rows("SELECT count(*) FROM entries"))[0])
        return int(next(self._rows("SELECT count(*) FROM entries WHERE kind = ?", (kind,)))[0])


def open_recording(path: str | Path) -> Recording:
    """Open a recording for reading; a foreign, damaged or newer file is a `RecordingError`.

    An older schema is upgraded in place, except in a folder this process may not write: that
    file is read as it is (every schema reads the same; the upgrades only add indexes)."""
    p = Path(path)
    schema.check_file(p)
    if p.stat().st_size == 0:
        raise RecordingError("empty file, not a Campo recording", path=p)
    read_only = not schema.writable(p)
    conn = schema.connect_read_only(p) if read_only else schema.connect(p)
    try:
        version = schema.check_ours(conn, p, allow_empty=False)
        if version < schema.SCHEMA_VERSION and not read_only:
            version = schema.migrate(conn, p, version)
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not {"meta", "entries"} <= tables:
            raise RecordingError("recording is missing its tables (damaged)", path=p)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise RecordingError(f"not a Campo recording or damaged: {exc}", path=p) from None
    except BaseException:
        conn.close()
        raise
    return Recording(p, conn, version)
