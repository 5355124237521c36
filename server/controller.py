"""What the server does with a client message, shared by the WebSocket and the HTTP endpoints.

`handle_message` validates (server/messages.py), checks the client may write, applies the change
to the `GameSetup`, publishes the umpire event or acts with the rulebook's umpire tool
(`Ruleset.umpire_tool`: ATTILA's card deck), and returns the reply sent back to that client. It
never raises for bad input: a refused message is an `{"ok": false, "error": ...}` reply.
"""

from __future__ import annotations

import time
from typing import Any

from campo.engine.registry import get_ruleset
from campo.engine.ruleset import UmpireTool
from campo.server.game_state import GameSetup
from campo.server.hub import StateHub
from campo.server.messages import (
    WRITE_TYPES,
    DeckAction,
    MessageError,
    Ping,
    SetSettings,
    SetTerrain,
    SetUnitState,
    TurnStep,
    UmpireEvent,
    UndoUnitState,
    parse_client_message,
)
from campo.server.turn_clock import ClockStep, TurnClock
from campo.server.unit_state import UnitStates
from campo.errors import CampoInputError

READ_ONLY = "read-only: open the page with the token URL printed by `campo serve` to change anything"


def refused(error: str) -> dict[str, Any]:
    return {"ok": False, "error": error}


def handle_message(raw: str | bytes | dict[str, Any], *, can_write: bool, setup: GameSetup, hub: StateHub,
                   tool: UmpireTool | None = None, units: UnitStates | None = None,
                   clock: TurnClock | None = None, source: str = "page") -> dict[str, Any]:
    """Apply one client message; the reply for that client (loop thread only)."""
    try:
        message = parse_client_message(raw)
    except MessageError as exc:
        return refused(str(exc))
    if message.type in WRITE_TYPES and not can_write:
        return refused(READ_ONLY) | {"type": message.type}
    try:
        if isinstance(message, Ping):
            return {"ok": True, "type": "pong", "time_unix": time.time()}
        if isinstance(message, UmpireEvent):
            payload = message.payload() | {"time_unix": round(time.time(), 3)}
            seq = hub.publish("event", payload)
            return {"ok": True, "type": "event", "seq": seq}
        if isinstance(message, SetTerrain):
            terrain = setup.set_terrain(message.terrain)
            return {"ok": True, "type": "terrain", "features": len(terrain), "saved": setup.path is not None}
        if isinstance(message, SetSettings):
            settings = setup.set_settings(message.values())
            return {"ok": True, "type": "settings", "settings": settings, "saved": setup.path is not None}
        if isinstance(message, DeckAction):
            if tool is None:
                return refused("this ruleset has no card deck") | {"type": "deck"}
            _, _, values = setup.snapshot()
            view = tool.act(message.action, get_ruleset(setup.ruleset).load_settings(values))
            hub.publish(tool.topic, view)
            if clock is not None:
                publish_step(hub, clock.follow_tool(view, source=source))
            return {"ok": True, "type": "deck", "deck": view}
        if isinstance(message, TurnStep):
            if clock is None:
                return refused("this game has no turn clock") | {"type": "turn"}
            _, _, values = setup.snapshot()
            step = clock.step(message.action, side=message.side, source=source,
                              settings=get_ruleset(setup.ruleset).load_settings(values))
            if clock.tool is not None:
                hub.publish(clock.tool.topic, clock.tool.view())
            publish_step(hub, step)
            return {"ok": True, "type": "turn", "turn": step.view}
        if isinstance(message, SetUnitState | UndoUnitState):
            if units is None:
                return refused("this game keeps no unit state") | {"type": message.type}
            change = (units.set(message.base, message.traits, source=source)
                      if isinstance(message, SetUnitState) else units.undo(source=source))
            if change is None:
                return refused("nothing to undo") | {"type": message.type}
            hub.publish("event", change.event())
            return {"ok": True, "type": message.type, "base": change.base, "traits": change.after,
                    "before": change.before}
    except CampoInputError as exc:
        return refused(str(exc)) | {"type": message.type}
    return refused(f"unhandled message type {message.type!r}")  # pragma: no cover - every type is handled


def publish_step(hub: StateHub, step: ClockStep | None) -> None:
    """A turn clock's step to every page and the recorder: its events, then its new view."""
    if step is None:
        return
    for event in step.events:
        hub.publish("event", event)
    hub.publish(TurnClock.topic, step.view)
