"""`Recorder`: appends states and events to a recording from any thread, durable within a second.

Callers (the live server's state stream) never wait on the disk: `record_state` and
`record_event` only put the item on a queue. One writer thread owns the SQLite connection: it
stores states compactly (see `codec`), derives events from consecutive states (see `events`),
and commits at least every `commit_interval` seconds. The file is in WAL mode with
``synchronous=NORMAL``: a committed transaction survives the process being killed (``kill -9``),
so a crash loses at most the last ``commit_interval`` seconds, and the file always opens.

States recorded in real time are written as they arrive; the events derived from them (which
may ask the engine, and so take a while) follow: a slow analysis never holds a state back from
its commit. When the writer lags, a derived event's `t` is when it was written (never before
the states already written), its own times (`t_start`, `t_end` of a move) unchanged; an umpire's
event waits for the events of the states before it, and keeps its time. States given with their
times (`record_state(state, t=...)`: tests, simulations) are written strictly in order.

One file has one writer (`lock.WriterLock`): a second recorder is refused, naming the first.

A write that fails (a full disk, an I/O error, a folder turned read-only) never stops the
recording: the rows wait in memory, `status()` says why (the live page and `/api/status` show
it), and the writer tries again every `RETRY_S` seconds; when the disk has room again, the rows
are written in order and recording carries on. Should an outage outlast `MAX_PENDING_BYTES` of
waiting rows, the waiting states are dropped (events are kept), the next state is stored whole,
and a ``recording_gap`` event says when and how many were lost.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import queue
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from campo.errors import RecordingError
from campo.server.recording import codec, schema
from campo.server.recording.lock import WriterLock

log = logging.getLogger(__name__)

RETRY_S = 1.0
"""While writes fail, how often the writer tries again."""
MAX_PENDING_BYTES = 64 * 1024 * 1024
"""Rows kept in memory while the disk refuses them (hours of a busy game)."""

Row = tuple[float, str, str, bytes]   # (t, kind, encoding, body), as stored

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
    if not os.access(path.parent, os.W_OK):
        raise RecordingError(f"cannot create recording: the folder {path.parent} is read-only",
                             path=path)
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


def clock_left(events: list[Any]) -> tuple[Any, Any, Any] | None:
    """(turn, phase, first) where a recording's turn and phase events left the game, or None:
    moves after a resume carry on in that phase."""
    left: tuple[Any, Any, Any] | None = None
    for e in events:
        turn, first = e.data.get("turn"), (left or (None, None, None))[2]
        if e.kind == "turn" and (left is None or turn != left[0]):
            left = (turn, None, first)
        elif e.kind == "phase":
            left = (turn, e.data.get("phase"), e.data.get("first", first))
    return left


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
        self._lock = WriterLock(self.path).acquire()   # before touching the file
        try:
            self._conn, _ = open_for_writing(self.path)
        except BaseException:
            self._lock.release()
            raise
        schema.writing_here(self.path, True)
        self._last_state: dict[str, Any] | None = None
        self._states_since_snapshot = 0
        self._t0, self._last_t = self._clock(), 0.0
        self._last_commit = self._clock()
        # rows not yet committed, and why writing fails now ("" while it works)
        self._pending: list[Row] = []
        self._pending_bytes = 0
        self._problem = ""
        self._problem_since = 0.0
        self._lost_states = 0
        self._next_try = 0.0
        self._written = 0
        self._whole_next = False   # waiting states were dropped: store the next one whole
        # states written whose events are not derived yet: (t, state, summary)
        self._to_derive: deque[tuple[float, dict[str, Any], Any]] = deque()
        self._clock_left: tuple[Any, Any, Any] | None = None   # (turn, phase, first) on resume
        try:
            self._resume_existing()
        except BaseException:
            self._conn.close()
            schema.writing_here(self.path, False)
            self._lock.release()
            raise
        self._deriver = None
        if derive_events:
            from campo.server.recording.events import EventDeriver

            self._deriver = EventDeriver()
            if self._last_state is not None:
                self._deriver.prime(self._last_state)
            if self._clock_left is not None:
                self._deriver.prime_clock(*self._clock_left)
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
        """Wait until everything queued so far is written and committed (`RecordingError` when
        the disk refuses it: it stays queued and is retried)."""
        done = threading.Event()
        self._put("flush", None, done, None)
        if not done.wait(timeout):
            raise TimeoutError(f"recorder {self.path} did not flush within {timeout} s")
        self._raise_failure()
        problem = self._problem
        if problem:
            raise RecordingError(f"not written yet: {problem}", path=self.path)

    def status(self) -> dict[str, Any]:
        """What the page and `/api/status` say about the recording (member ``recording``):
        ``ok`` false with ``error`` while writes fail, the entries ``waiting`` in memory, the
        states ``lost`` in this outage, the entries ``written`` so far."""
        problem, failure = self._problem, self._failure
        error = f"recording stopped: {failure}" if failure is not None else problem
        out: dict[str, Any] = {"file": self.path.name, "ok": not error, "error": error,
                               "written": self._written, "waiting": len(self._pending)}
        if problem:
            out["failing_for_s"] = round(max(0.0, self.now() - self._problem_since), 1)
            out["lost"] = self._lost_states
        return out

    def on_close(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` first thing in `close` (e.g. to unsubscribe from the hub)."""
        self._close_hooks.append(callback)

    def close(self) -> None:
        """Finish pending moves, write everything, commit and close the file. Rows the disk
        still refuses are lost, and a warning says how many and why (no exception: this runs
        at shutdown)."""
        if self._closed:
            return
        for hook in self._close_hooks:
            hook()
        self._put("close", None, None, None)
        self._thread.join()
        self._closed = True
        if self._pending:
            log.warning("recording %s: %d entries could not be written (%s) and are lost",
                        self.path, len(self._pending), self._problem)
        self._conn.close()
        schema.writing_here(self.path, False)
        self._lock.release()
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
            self._clock_left = clock_left(rec.events({"turn", "phase"}))
            self._insert(self._last_t, "resumed", "json", codec.pack({}))
            self._commit()
            if self._problem:
                raise RecordingError(f"cannot write: {self._problem}", path=self.path)

    def _run(self) -> None:
        try:
            while True:
                try:   # with events still to derive, take what has arrived without waiting
                    what, t, a, b = (self._queue.get_nowait() if self._to_derive else
                                     self._queue.get(timeout=min(0.2, self.commit_interval)))
                except queue.Empty:
                    if self._to_derive:
                        self._derive_next()
                        if self._commit_due():
                            self._commit()
                        continue
                    what = "tick"
                    t, a, b = self.now(), None, None
                if what == "state":
                    self._write_state(t, a, b)
                elif what == "event":   # after the events of the states before it
                    while self._to_derive:
                        self._derive_next()
                    self._write_event(t, a, b)
                elif what == "tick" and not self._explicit_t:
                    self._derive(t, None, None)
                elif what in ("flush", "close"):
                    while self._to_derive:
                        self._derive_next()
                    if what == "close" and self._deriver is not None:
                        self._write_events(t, self._deriver.finish(max(t, self._last_t)))
                    self._commit()
                    if what == "flush":
                        a.set()
                    else:
                        return
                if self._commit_due():
                    self._commit()
        except BaseException as exc:  # a bug: keep the reason; callers see it on their next call
            self._failure = exc
            log.error("recording to %s stopped: %s", self.path, exc)
            with contextlib.suppress(sqlite3.Error):
                self._commit()
            while True:  # release anybody waiting on a flush
                try:
                    what, _, a, _ = self._queue.get_nowait()
                except queue.Empty:
                    break
                if what == "flush":
                    a.set()

    def _later(self, t: float, state: dict[str, Any], summary: Any) -> None:
        """Derive the events of a state just written: at once when nothing else waits (and always
        when the caller gives the times), else after the states queued behind it are written."""
        self._to_derive.append((t, state, summary))
        if self._explicit_t or (len(self._to_derive) == 1 and self._queue.empty()):
            self._derive_next()

    def _derive_next(self) -> None:
        self._derive(*self._to_derive.popleft())

    def _insert(self, t: float, kind: str, encoding: str, body: bytes) -> None:
        """Queue one row for the next commit (in order; ``t`` in ms, never going back)."""
        t = max(math.floor(t * 1000.0 + 1e-6) / 1000.0, self._last_t)  # ms, never rounded up
        self._last_t = t
        self._pending.append((t, kind, encoding, body))
        self._pending_bytes += len(body) + 64
        if self._pending_bytes > MAX_PENDING_BYTES:
            self._shed()

    def _commit_due(self) -> bool:
        """Rows wait, the commit interval has passed, and (while writes fail) it is time to retry."""
        now = self._clock()
        return bool(self._pending) and now - self._last_commit >= self.commit_interval \
            and (not self._problem or now >= self._next_try)

    def _commit(self) -> None:
        """Write the waiting rows in one transaction; on failure keep them and say why."""
        self._last_commit = self._clock()
        if not self._pending:
            return
        try:
            self._conn.execute("BEGIN")
            self._conn.executemany("INSERT INTO entries(t, kind, encoding, body) VALUES (?, ?, ?, ?)",
                                   self._pending)
            self._conn.execute("COMMIT")
        except sqlite3.Error as exc:   # a full disk, an I/O error, a folder turned read-only
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("ROLLBACK")
            self._failed(exc)
            return
        self._written += len(self._pending)
        self._pending.clear()
        self._pending_bytes = 0
        if self._problem:
            self._recovered()

    def _failed(self, exc: sqlite3.Error) -> None:
        problem = str(exc)
        if not self._problem:
            self._problem_since = self.now()
            log.warning("recording to %s paused: %s; trying again every %g s", self.path, problem, RETRY_S)
        self._problem = problem
        self._next_try = self._clock() + RETRY_S

    def _recovered(self) -> None:
        lost, since = self._lost_states, self._problem_since
        log.warning("recording to %s resumed after %.0f s%s", self.path, self.now() - since,
                    f" ({lost} states lost)" if lost else "")
        if lost:
            self._insert(self.now(), "recording_gap", "json", codec.pack(
                {"from": round(since, 3), "states_lost": lost, "error": self._problem}))
        self._problem, self._lost_states = "", 0

    def _shed(self) -> None:
        """Too many rows wait for a disk that refuses them: drop the waiting states (the events
        stay); the next state is stored whole, so the ones after it need nothing dropped."""
        kept = [row for row in self._pending if row[1] != "state"]
        self._lost_states += len(self._pending) - len(kept)
        self._pending = kept
        self._pending_bytes = sum(len(row[3]) + 64 for row in kept)
        self._whole_next = True

    def _write_state(self, t: float, state: dict[str, Any], summary: Any) -> None:
        prev = self._last_state
        if prev == state:
            return  # not a real change
        snapshot = prev is None or self._whole_next or self._states_since_snapshot + 1 >= self.snapshot_every
        self._whole_next = False
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
        # the state goes to disk before the engine is asked about it, and states that arrive
        # meanwhile are written before their events are derived: a slow analysis (the first one,
        # a large table, a loaded machine) never holds states back from the next commit
        if self._commit_due():
            self._commit()
        self._later(t, state, summary)

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
