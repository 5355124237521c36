"""The recording's SQLite schema: numbered migrations, `PRAGMA user_version`, `application_id`.

A recording is ONE table of entries sharing a single ``seq`` (states and events interleaved in
the order they happened), plus a small ``meta`` key/value table. Migration *n* brings a file from
version *n-1* to *n*; each runs in its own transaction, so an interrupted upgrade leaves a file at
a consistent version. A file with a newer version than `SCHEMA_VERSION` is refused, never guessed.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import struct
from pathlib import Path
from urllib.parse import quote

from campo.errors import RecordingError

APPLICATION_ID = 0x43414D50  # "CAMP": `PRAGMA application_id` marks the file as ours.
SQLITE_MAGIC = b"SQLite format 3\x00"

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: the entries log and the meta table.
    (
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        """CREATE TABLE entries (
            seq INTEGER PRIMARY KEY,      -- shared by states and events, strictly increasing
            t REAL NOT NULL,              -- seconds since the recording began, non-decreasing
            kind TEXT NOT NULL,           -- 'state' or an event name ('move', 'contact', ...)
            encoding TEXT NOT NULL,       -- 'snapshot' | 'delta' (states), 'json' (events)
            body BLOB NOT NULL            -- zlib-compressed JSON
        )""",
    ),
    # 2: fast "state at t" (last snapshot before a seq) and "jump to the next event of a kind".
    (
        "CREATE INDEX entries_kind_seq ON entries(kind, seq)",
        "CREATE INDEX entries_t ON entries(t)",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


def _is_sqlite_file(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            head = fh.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise RecordingError(f"cannot read recording: {exc.strerror or exc}", path=path) from None
    return head == SQLITE_MAGIC


def check_file(path: Path) -> None:
    """Refuse, naming the file, anything that is not a SQLite database (before sqlite opens it),
    and a database cut short (a copy interrupted, a truncated download): its header says how
    many pages it has, so a missing tail is seen at once instead of as missing moves."""
    if not path.exists():
        raise RecordingError("no such recording", path=path)
    if path.is_dir():
        raise RecordingError("is a directory, not a Campo recording", path=path)
    size = path.stat().st_size
    if size and not _is_sqlite_file(path):
        raise RecordingError("not a Campo recording (not an SQLite database)", path=path)
    wal = path.with_name(path.name + "-wal")
    live = wal.exists() and wal.stat().st_size > 0   # a writer may be checkpointing right now
    expected = None if live else _declared_size(path)
    if expected is not None and size < expected:
        raise RecordingError(f"damaged: the file is cut short ({size} of {expected} bytes)", path=path)


def _declared_size(path: Path) -> int | None:
    """Page size x page count from the database header, when the header vouches for it."""
    try:
        with path.open("rb") as fh:
            head = fh.read(100)
    except OSError:
        return None
    if len(head) < 100:
        return None
    (page,) = struct.unpack(">H", head[16:18])
    counter, pages = struct.unpack(">II", head[24:32])
    (valid_for,) = struct.unpack(">I", head[92:96])
    if pages == 0 or counter != valid_for:
        return None
    return (65536 if page == 1 else page) * pages


def writable(path: Path) -> bool:
    """Whether this process may write the recording and make its WAL files beside it."""
    return os.access(path.parent, os.W_OK) and (not path.exists() or os.access(path, os.W_OK))


def versions(conn: sqlite3.Connection, path: Path) -> tuple[int, int]:
    """(application_id, user_version) of an open database; a damaged file is a RecordingError."""
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise RecordingError(f"not a Campo recording or damaged: {exc}", path=path) from None
    return int(app_id), int(version)


def check_ours(conn: sqlite3.Connection, path: Path, *, allow_empty: bool) -> int:
    """The file's schema version after checking it is ours and not newer than this Campo."""
    app_id, version = versions(conn, path)
    if app_id == 0 and version == 0:
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if tables == 0 and allow_empty:
            return 0
        raise RecordingError("not a Campo recording (an SQLite database of another program)"
                             if tables else "empty file, not a Campo recording", path=path)
    if app_id != APPLICATION_ID:
        raise RecordingError(f"not a Campo recording (SQLite application_id {app_id:#x})",
                             path=path)
    if version > SCHEMA_VERSION:
        raise RecordingError(
            f"recording schema version {version} is newer than this Campo understands "
            f"({SCHEMA_VERSION}); upgrade Campo to read it", path=path)
    if version < 1:
        raise RecordingError(f"recording has an invalid schema version {version}", path=path)
    return version


def migrate(conn: sqlite3.Connection, path: Path, current: int) -> int:
    """Apply migrations ``current+1 .. SCHEMA_VERSION``, one transaction each; returns the version."""
    for number in range(current + 1, SCHEMA_VERSION + 1):
        try:
            conn.execute("BEGIN IMMEDIATE")
            if number == 1:
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            for statement in MIGRATIONS[number - 1]:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {number}")
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):   # e.g. the file could not be opened at all
                conn.execute("ROLLBACK")
            raise RecordingError(f"cannot upgrade recording to schema {number}: {exc}",
                                 path=path) from None
    return SCHEMA_VERSION


def connect(path: Path) -> sqlite3.Connection:
    """A connection in autocommit mode (we manage transactions) that any thread may use."""
    try:
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False,
                               timeout=5.0)
    except sqlite3.Error as exc:
        raise RecordingError(f"cannot open recording: {exc}", path=path) from None
    return conn


def connect_read_only(path: Path) -> sqlite3.Connection:
    """A reading connection to a recording in a folder we may not write (a CD, a read-only
    share, another user's folder), where SQLite cannot make the WAL's index file.

    Nobody can be writing such a file, so it is opened as immutable; unless a WAL file with the
    last changes lies beside it, which only a writable copy can fold in: refused, saying so."""
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise RecordingError(f"its last changes are in {wal.name} and the folder is read-only: copy "
                             f"both files to a folder you can write and read the copy", path=path)
    uri = f"file:{quote(str(path.resolve()))}?mode=ro&immutable=1"
    try:
        return sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise RecordingError(f"cannot open recording: {exc}", path=path) from None
