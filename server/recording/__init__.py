"""Recording and review of games: SQLite recordings, derived events, export, report, replay.

`Recorder` writes, `open_recording` reads, `attach_recorder` connects a recorder to the live
server's `StateHub`. docs/recording.md describes the file and the events.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from campo.errors import RecordingError
from campo.server.recording.reader import Entry, Recording, open_recording
from campo.server.recording.recorder import Recorder

log = logging.getLogger(__name__)

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


def restore_unit_states(services: Any, path: Any) -> int:
    """A game resumed with its recording carries on with the bases' state as it was left: every
    `unit_state` change recorded, applied again in order (`server.unit_state.UnitStates`)."""
    units = getattr(services, "units", None)
    if units is None:
        return 0
    with open_recording(path) as rec:
        events = [e.data for e in rec.events({"unit_state"})
                  if isinstance(e.data.get("base"), str) and isinstance(e.data.get("traits"), dict)]
    applied = int(units.restore([(e["base"], e["traits"]) for e in events]))
    tokens = getattr(getattr(services, "tracker", None), "tokens", None)
    if tokens is not None:   # which token set what, so lifting it takes that back (server/tokens.py)
        tokens.restore([e for e in events if e.get("source") == "token"])
    return applied


def restore_turn_clock(services: Any, path: Any) -> bool:
    """A game resumed with its recording carries on at the turn and phase it was left: the last
    `turn`/`phase` events put the clock back (`server.turn_clock.restore_from_events`); for a
    card-driven rulebook (ATTILA) the last `shuffle`/`card` event deals the deck back to where it
    was (same seed, same turn, same cards drawn) and the clock follows it."""
    from campo.server.turn_clock import restore_from_events

    clock = getattr(services, "clock", None)
    if clock is None:
        return False
    with open_recording(path) as rec:
        if clock.tool is None:
            return restore_from_events(clock, [(e.kind, e.data) for e in rec.events({"turn", "phase"})])
        deck = [e.data for e in rec.events({"shuffle", "card"})]
    last = next((d for d in reversed(deck) if isinstance(d.get("seed"), int)
                 and isinstance(d.get("turn"), int)), None)
    if last is None:
        return False
    from campo.engine.registry import get_ruleset

    _, _, values = services.setup.snapshot()
    settings = get_ruleset(services.setup.ruleset).load_settings(values)   # the deck's make-up
    view = clock.tool.restore(last["seed"], last["turn"], int(last.get("drawn") or 0), settings)
    clock.follow_tool(view, source="restored")
    return True


def attach(app: Any, services: Any, path: Any) -> Recorder:
    """`campo serve --record`: record ``services.hub`` into ``path`` while ``app`` runs.

    The file is opened now (a foreign or newer file, one another server records, a read-only
    folder: each fails before the server starts) and closed when the app shuts down, after the
    last state and any move in progress are written. While it records, the status bar and
    `/api/status` carry its `Recorder.status()` as ``recording``.
    """
    # read before the recorder opens the file (then nothing in this process touches it but the writer)
    restored = restore_unit_states(services, path) if Path(path).exists() else 0
    clock_restored = restore_turn_clock(services, path) if Path(path).exists() else False
    recorder = attach_recorder(services.hub, path)
    if restored:
        log.info("%d changes of unit state restored from %s", restored, path)
    if clock_restored:
        log.info("turn clock restored from %s: %s", path, services.clock.position())
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
