"""Recording and review of games: SQLite recordings, derived events, export, report, replay.

`Recorder` writes, `open_recording` reads, `attach_recorder` connects a recorder to the live
server's `StateHub`. docs/recording.md describes the file and the events.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from campo.errors import RecordingError
from campo.server.recording.reader import Entry, Recording, open_recording
from campo.server.recording.recorder import Recorder

__all__ = ["Entry", "Recorder", "Recording", "RecordingError", "attach", "attach_recorder",
           "open_recording"]


def attach_recorder(hub: Any, path: Any) -> Recorder:
    """Record every `state` and umpire `event` the hub publishes into ``path``.

    Returns the `Recorder`; call its ``close()`` at shutdown (the hub subscription is dropped
    then too). The callback only queues, so the hub's loop never waits on the disk.
    """
    recorder = Recorder(path)

    def on_record(record: Any) -> None:
        payload = record.payload
        if record.topic == "state" and isinstance(payload, dict):
            recorder.record_state(payload)
        elif record.topic == "event" and isinstance(payload, dict) and payload.get("kind"):
            body = {k: v for k, v in payload.items()
                    if k not in ("type", "kind", "seq", "t", "state")}
            recorder.record_event(str(payload["kind"]), body)
        elif record.topic == "deck" and isinstance(payload, dict):
            recorder.record_event(*deck_event(payload))

    recorder.on_close(hub.subscribe(on_record))
    return recorder


def deck_event(view: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The event recorded for a change of ATTILA's umpire deck (`server.controller.UmpireDeck`):
    ``card`` for a draw, ``shuffle`` for a new turn; the seed lets a review deal the same cards."""
    if view.get("current"):
        return "card", {"turn": view.get("turn"), "card": view["current"],
                        "drawn": len(view.get("drawn") or []), "seed": view.get("seed")}
    return "shuffle", {"turn": view.get("turn"), "cards": view.get("size"), "seed": view.get("seed")}


def attach(app: Any, services: Any, path: Any) -> Recorder:
    """`campo serve --record`: record ``services.hub`` into ``path`` while ``app`` runs.

    The file is opened now (a foreign or newer file, one another server records, a read-only
    folder: each fails before the server starts) and closed when the app shuts down, after the
    last state and any move in progress are written. While it records, the status bar and
    `/api/status` carry its `Recorder.status()` as ``recording``.
    """
    recorder = attach_recorder(services.hub, path)
    services.tracker.status_parts.append(lambda: {"recording": recorder.status()})
    inner = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(a: Any) -> AsyncIterator[Any]:
        try:
            async with inner(a) as value:
                yield value
        finally:
            recorder.close()

    app.router.lifespan_context = lifespan
    app.state.recorder = recorder
    return recorder
