"""`Recorder`: appends states and events to a recording from any thread, durable within a second.

Callers (the live server's state stream) never wait on the disk: `record_state` and
`record_event` only put the item on a queue. One writer thread owns the SQLite connection: it
stores states compactly (see `codec`), derives events from consecutive states (see `events`),
and commits at least every `commit_interval` seconds. The file is in WAL mode with
``synchronous=NORMAL``: a committed transaction survives the process being killed (``kill -9``),
so a crash loses at most the last ``commit_interval`` seconds, and the file always opens.
"""

from __future__ import annotations

import logging
import math
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from campo.server.recording import codec, schema
from campo.errors import RecordingError

log = logging.getLogger(__name__)

LIVE_ONLY_KEYS = frozenset({"analysis", "summary", "live"})
"""Members of the live state that are not stored: the engine's verdicts are recomputed on replay
(so a rules fix applies to old games) and `live` is per-frame bookkeeping."""

RESERVED_EVENT_KEYS = frozenset({"seq", "t", "kind", "state"})


def storable_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """The scenario part of a live state (drops `LIVE_ONLY_KEYS`)."""
    return {k: v for k, v in state.items() if k not in LIVE_ONLY_KEYS}


def _campo_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("campo")
    except PackageNotFoundError:
        return "unknown"


def create_empty(path: Path) -> None:
    """A new recording at the current schema, built aside and renamed into place, so that a
    reader (or a crash) never meets a half-made file."""
    if not path.parent.is_dir():
        raise RecordingError(f"cannot create recording: no folder {path.parent}", path=path)
    partial = path.with_name(f".{path.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        conn = sqlite3.connect(str(partial), isolation_level=None)
    except sqlite3.Error as exc:
        raise RecordingError(f"cannot create recording: {exc}", path=path) from None
    try:
        schema.migrate(conn, path, 0)
    finally:
        conn.close()
    try:
        os.replace(partial, path)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise RecordingError(f"cannot create recording: {exc.strerror or exc}", path=path) from None


def open_for_writing(path: Path) -> tuple[sqlite3.Connection, int]:
    """Open or create a recording in WAL mode at the current schema; returns (conn, version)."""
    if path.exists():
        schema.check_file(path)
    else:
        create_empty(path)
    conn = schema.connect(path)
    try:
        version = schema.check_ours(conn, path, allow_empty=True)
        mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise RecordingError(f"cannot switch the recording to WAL mode (got {mode})",
                                 path=path)
        conn.execute("PRAGMA synchronous=NORMAL")
        schema.migrate(conn, path, version)
    except BaseException:
        conn.close()
        raise
    return conn, version


class Recorder:
    """Record a game into ``path`` (created, or appended to when it is already a recording)."""

    def __init__(
        self,
        path: str | Path,
        *,
        commit_interval: float = 0.5,
        snapshot_every: int = codec.SNAPSHOT_EVERY,
        derive_events: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = Path(path)
        self.commit_interval = commit_interval
        self.snapshot_every = max(1, snapshot_every)
        self._clock = clock
        self._conn, _ = open_for_writing(self.path)
        self._last_state: dict[str, Any] | None = None
        self._states_since_snapshot = 0
        self._t0, self._last_t = self._clock(), 0.0
        self._in_tx = False
        self._last_commit = self._clock()
        self._resume_existing()
        self._deriver = None
        if derive_events:
            from campo.server.recording.events import EventDeriver

            self._deriver = EventDeriver()
            if self._last_state is not None:
                self._deriver.prime(self._last_state)
        self._queue: queue.Queue[tuple[str, float, Any, Any]] = queue.Queue()
        self._failure: BaseException | None = None
        self._closed = False
        self._close_hooks: list[Callable[[], None]] = []
        self._explicit_t = False
        self._thread = threading.Thread(target=self._run, name=f"recorder:{self.path.name}",
                                        daemon=True)
        self._thread.start()

    # --- public, any thread -----------------------------------------------------------------
    def now(self) -> float:
        """Seconds since the recording began (continues after earlier sessions on append)."""
        return self._t_offset + (self._clock() - self._t0)

    def record_state(self, state: Mapping[str, Any], t: float | None = None) -> None:
        """Queue one state (a scenario dict; the live ``summary`` feeds the events, then is
        dropped)."""
        self._put("state", t, storable_state(state), state.get("summary"))

    def record_event(self, kind: str, payload: Mapping[str, Any] | None = None,
                     t: float | None = None) -> None:
        """Queue one event, e.g. ``record_event("note", {"text": "Austrians retreat"})``."""
        body = dict(payload or {})
        clash = RESERVED_EVENT_KEYS & body.keys()
        if not kind or kind == "state":
            raise ValueError(f"bad event kind {kind!r}")
        if clash:
            raise ValueError(f"event payload may not use the keys {sorted(clash)}")
        self._put("event", t, kind, body)

    def flush(self, timeout: float = 10.0) -> None:
        """Wait until everything queued so far is written and committed."""
        done = threading.Event()
        self._put("flush", None, done, None)
        if not done.wait(timeout):
            raise TimeoutError(f"recorder {self.path} did not flush within {timeout} s")
        self._raise_failure()

    def on_close(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` first thing in `close` (e.g. to unsubscribe from the hub)."""
        self._close_hooks.append(callback)

    def close(self) -> None:
        """Finish pending moves, write everything, commit and close the file."""
        if self._closed:
            return
        for hook in self._close_hooks:
            hook()
        self._put("close", None, None, None)
        self._thread.join()
        self._closed = True
        self._conn.close()
        self._raise_failure()

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- internals --------------------------------------------------------------------------
    def _put(self, what: str, t: float | None, a: Any, b: Any) -> None:
        if self._closed:
            raise RecordingError("recorder is closed", path=self.path)
        self._raise_failure()
        if t is not None and what in ("state", "event"):
            self._explicit_t = True  # the caller's clock drives time; no wall-clock ticks
        self._queue.put((what, self.now() if t is None else float(t), a, b))

    def _raise_failure(self) -> None:
        if self._failure is not None:
            raise RecordingError(f"recording failed: {self._failure}", path=self.path)

    def _resume_existing(self) -> None:
        from campo.server.recording.reader import Recording

        conn = self._conn
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        if "created" not in meta:
            with_tx = [("created", datetime.now(timezone.utc).isoformat(timespec="seconds")),
                       ("campo_version", _campo_version()), ("format", "campo-recording")]
            conn.execute("BEGIN")
            conn.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", with_tx)
            conn.execute("COMMIT")
        self._t_offset = 0.0
        last = conn.execute("SELECT max(t) FROM entries").fetchone()[0]
        if last is not None:
            self._t_offset = float(last)
            self._last_t = float(last)
            rec = Recording(self.path, conn, schema.SCHEMA_VERSION)
            latest = rec.last_state()
            if latest is not None:
                self._last_state = latest
                self._states_since_snapshot = rec.states_since_snapshot()
            self._insert(self._last_t, "resumed", "json", codec.pack({}))
            self._commit()

    def _run(self) -> None:
        try:
            while True:
                try:
                    what, t, a, b = self._queue.get(timeout=min(0.2, self.commit_interval))
                except queue.Empty:
                    what = "tick"
                    t, a, b = self.now(), None, None
                if what == "state":
                    self._write_state(t, a, b)
                elif what == "event":
                    self._write_event(t, a, b)
                elif what == "tick" and not self._explicit_t:
                    self._derive(t, None, None)
                elif what in ("flush", "close"):
                    if what == "close" and self._deriver is not None:
                        self._write_events(t, self._deriver.finish(max(t, self._last_t)))
                    self._commit()
                    if what == "flush":
                        a.set()
                    else:
                        return
                if self._in_tx and self._clock() - self._last_commit >= self.commit_interval:
                    self._commit()
        except BaseException as exc:  # keep the reason; callers see it on their next call
            self._failure = exc
            log.error("recording to %s stopped: %s", self.path, exc)
            try:
                if self._in_tx:
                    self._conn.execute("COMMIT")
            except sqlite3.Error:
                pass
            while True:  # release anybody waiting on a flush
                try:
                    what, _, a, _ = self._queue.get_nowait()
                except queue.Empty:
                    break
                if what == "flush":
                    a.set()

    def _insert(self, t: float, kind: str, encoding: str, body: bytes) -> None:
        if not self._in_tx:
            self._conn.execute("BEGIN")
            self._in_tx = True
        t = max(math.floor(t * 1000.0 + 1e-6) / 1000.0, self._last_t)  # ms, never rounded up
        self._last_t = t
        self._conn.execute("INSERT INTO entries(t, kind, encoding, body) VALUES (?, ?, ?, ?)",
                           (t, kind, encoding, body))

    def _commit(self) -> None:
        if self._in_tx:
            self._conn.execute("COMMIT")
            self._in_tx = False
        self._last_commit = self._clock()

    def _write_state(self, t: float, state: dict[str, Any], summary: Any) -> None:
        prev = self._last_state
        if prev == state:
            return  # not a real change
        snapshot = prev is None or self._states_since_snapshot + 1 >= self.snapshot_every
        body = b""
        if not snapshot:
            body = codec.pack(codec.encode_delta(prev, state))
            full = codec.pack(state)
            if len(body) >= len(full):
                snapshot, body = True, full
        if snapshot:
            body = body or codec.pack(state)
            self._states_since_snapshot = 0
        else:
            self._states_since_snapshot += 1
        self._insert(t, "state", "snapshot" if snapshot else "delta", body)
        self._last_state = state
        # the state is on disk before the engine is asked about it: a slow first analysis (or a
        # large table) never holds a state back from the next commit
        if self._clock() - self._last_commit >= self.commit_interval:
            self._commit()
        self._derive(t, state, summary)

    def _derive(self, t: float, state: dict[str, Any] | None, summary: Any) -> None:
        if self._deriver is None:
            return
        try:
            events = (self._deriver.tick(t) if state is None
                      else self._deriver.update(t, state, summary))
        except Exception:  # noqa: BLE001 - a bug in event derivation must not stop the recording
            log.error("events not derived at t=%.3f (the states are still recorded)", t,
                      exc_info=True)
            return
        self._write_events(t, events)

    def _write_events(self, t: float, events: list[Any]) -> None:
        for event in events:
            self._insert(max(t, event.t), event.kind, "json", codec.pack(event.payload))

    def _write_event(self, t: float, kind: str, payload: dict[str, Any]) -> None:
        """An event from outside (the umpire's turn/phase/note); duplicates of a turn or phase
        already derived from the state are dropped."""
        if self._deriver is not None:
            admitted = self._deriver.admit_external(kind, payload)
            if admitted is None:
                return
            payload = admitted
        self._insert(t, kind, "json", codec.pack(payload))
