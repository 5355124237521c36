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
    UmpireEvent,
    parse_client_message,
)
from campo.errors import CampoInputError

READ_ONLY = "read-only: open the page with the token URL printed by `campo serve` to change anything"


def refused(error: str) -> dict[str, Any]:
    return {"ok": False, "error": error}


def handle_message(raw: str | bytes | dict[str, Any], *, can_write: bool, setup: GameSetup, hub: StateHub,
                   tool: UmpireTool | None = None) -> dict[str, Any]:
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
            return {"ok": True, "type": "deck", "deck": view}
    except CampoInputError as exc:
        return refused(str(exc)) | {"type": message.type}
    return refused(f"unhandled message type {message.type!r}")  # pragma: no cover - every type is handled
