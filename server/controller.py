"""What the server does with a client message, shared by the WebSocket and the HTTP endpoints.

`handle_message` validates (server/messages.py), checks the client may write, applies the change
to the `GameSetup`, publishes the umpire event or turns the umpire's card deck, and returns the
reply sent back to that client. It never raises for bad input: a refused message is an
`{"ok": false, "error": ...}` reply.
"""

from __future__ import annotations

import secrets
import threading
import time
from typing import Any

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
DECK_TOPIC = "deck"


def refused(error: str) -> dict[str, Any]:
    return {"ok": False, "error": error}


class UmpireDeck:
    """ATTILA's card deck as the umpire's helper (engine `Deck`, ATT 3, 14): shuffle at the start of
    each turn, draw one card at a time. Seeded (the seed is shown), so a game's cards can be
    replayed; the deck's make-up follows the setting in force when it is shuffled (ATT AT28)."""

    def __init__(self, setup: GameSetup, seed: int | None = None) -> None:
        from campo.engine.rulesets.attila.deck import Deck

        self.setup = setup
        self.seed = secrets.randbelow(10**9) if seed is None else seed
        self._deck = Deck(seed=self.seed)
        self._lock = threading.Lock()

    def shuffle(self) -> dict[str, Any]:
        from campo.engine.rulesets.attila.settings import load_settings

        _, _, values = self.setup.snapshot()
        with self._lock:
            self._deck.settings = load_settings(values)
            self._deck.new_turn()
            return self._view()

    def draw(self) -> dict[str, Any]:
        with self._lock:
            if self._deck.draw() is None:
                raise CampoInputError("no card left in this turn: shuffle to start the next turn", key="deck")
            return self._view()

    def view(self) -> dict[str, Any]:
        """What every page shows: the turn, the card just drawn, those drawn and those left."""
        with self._lock:
            return self._view()

    def _view(self) -> dict[str, Any]:
        d = self._deck
        out = d.to_dict()
        out["seed"] = self.seed
        out["current"] = d.drawn[-1].to_dict() if d.drawn else None
        out["left"] = sorted(c.text for c in d.remaining)  # which cards are left, not their order
        out["size"] = len(d.cards)
        return out


def handle_message(raw: str | bytes | dict[str, Any], *, can_write: bool, setup: GameSetup, hub: StateHub,
                   deck: UmpireDeck | None = None) -> dict[str, Any]:
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
            if deck is None:
                return refused("this ruleset has no card deck") | {"type": "deck"}
            view = deck.shuffle() if message.action == "shuffle" else deck.draw()
            hub.publish(DECK_TOPIC, view)
            return {"ok": True, "type": "deck", "deck": view}
    except CampoInputError as exc:
        return refused(str(exc)) | {"type": message.type}
    return refused(f"unhandled message type {message.type!r}")  # pragma: no cover - every type is handled
