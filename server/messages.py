"""Every message a browser (or script) may send, as strict pydantic models, with a size limit.

The WebSocket and the HTTP write endpoints accept exactly these shapes. Anything else, oversized,
not JSON, of an unknown `type` or with an unknown key, is refused with a `MessageError` that
says why; the connection and the server are unharmed.

Client -> server, on `/ws` (JSON text):

- `{"type": "ping"}` -> a `pong` reply.
- `{"type": "event", "kind": "turn" | "phase" | "note", "text"?, "turn"?, "phase"?, "side"?}`
  an umpire event, forwarded to every client and to subscribers (the recorder).
- `{"type": "terrain", "terrain": [feature, ...]}` replace the terrain (scenario feature shape).
- `{"type": "settings", "settings": {name: value, ...}, "structured"?: {name: [..] | {..}}}` replace the
  ruleset setting overrides (scalars in `settings`, list and map values in `structured`).
- `{"type": "deck", "action": "shuffle" | "draw"}` the umpire's card deck (ATTILA only).
- `{"type": "unit_state", "base": id, "traits": {name: value, ...}}` change a base's state
  traits; `{"type": "undo_unit_state"}` takes the last change back.
- `{"type": "turn", "action": "next" | "back" | "first", "side"?: "A" | "B"}` step the turn clock
  through the rulebook's sequence of play (server/turn_clock.py); "back" is undo, "first" sets
  the side that plays first this turn.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from campo.errors import CampoInputError
from campo.safe_input import format_loc, parse_json, unsound_value
from campo.server.request_body import first_problem

MAX_MESSAGE_BYTES = 256 * 1024
"""Largest message accepted (a detailed terrain of 200 features fits comfortably)."""

MAX_TERRAIN_FEATURES = 200
MAX_SETTINGS = 200


class MessageError(ValueError):
    """A client message that was refused; `str()` says why, for the reply."""


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Ping(_Message):
    type: Literal["ping"]


class UmpireEvent(_Message):
    """A turn or phase marker, or a free note, from the umpire."""

    type: Literal["event"]
    kind: Literal["turn", "phase", "note"]
    text: str = Field("", max_length=2000)
    turn: int | None = Field(None, ge=0, le=10_000)
    phase: str | None = Field(None, max_length=60)
    side: Literal["A", "B"] | None = None

    def payload(self) -> dict[str, Any]:
        """The event as published (without `type`, without empty members)."""
        return self.model_dump(exclude={"type"}, exclude_none=True)


class SetTerrain(_Message):
    type: Literal["terrain"]
    terrain: list[dict[str, Any]] = Field(max_length=MAX_TERRAIN_FEATURES)


SettingValue = bool | int | float | Annotated[str, Field(max_length=200)] | None
SettingName = Annotated[str, Field(max_length=80)]
StructuredValue = (Annotated[list[SettingValue], Field(max_length=50)]
                   | Annotated[dict[SettingName, SettingValue], Field(max_length=50)])
"""A list of scalars (terrain kinds, a base size [frontage, depth]) or a small map (type -> weapon)."""


class SetSettings(_Message):
    """Replace the setting overrides: scalars in `settings`; list and map values (Federico's and
    ATTILA's terrain kinds, base sizes, ...) in `structured`, kept apart so a list never slips into
    a scalar setting by mistake."""

    type: Literal["settings"]
    settings: dict[SettingName, SettingValue] = Field(max_length=MAX_SETTINGS)
    structured: dict[SettingName, StructuredValue] = Field(default_factory=dict, max_length=MAX_SETTINGS)

    @model_validator(mode="after")
    def _names_once(self) -> SetSettings:
        both = sorted(set(self.settings) & set(self.structured))
        if both:
            raise ValueError(f"setting {both[0]!r} given both in settings and in structured")
        return self

    def values(self) -> dict[str, Any]:
        """Every override, scalars and structured together."""
        return {**self.settings, **self.structured}


class DeckAction(_Message):
    """An action of the rulebook's umpire tool (ATTILA's card deck, ATT 14: "shuffle" starts the
    next turn, "draw" turns a card); the tool checks the action is one of its own."""

    type: Literal["deck"]
    action: str = Field(min_length=1, max_length=40)


StateValue = bool | Annotated[int, Field(ge=0, le=10_000)] | Annotated[str, Field(max_length=60)]


class SetUnitState(_Message):
    """Change some of one base's state traits (losses, disorder, formation ...): the rulebook
    judges the names and values (`Ruleset.unit_state`), all or nothing."""

    type: Literal["unit_state"]
    base: str = Field(min_length=1, max_length=64)
    traits: dict[Annotated[str, Field(max_length=60)], StateValue] = Field(min_length=1, max_length=20)


class UndoUnitState(_Message):
    """Take back the last change of a base's state still standing."""

    type: Literal["undo_unit_state"]


class TurnStep(_Message):
    """Step the turn clock: the next phase, back one (undo), or who plays first this turn."""

    type: Literal["turn"]
    action: Literal["next", "back", "first"]
    side: Literal["A", "B"] | None = None


ClientMessage = Annotated[Ping | UmpireEvent | SetTerrain | SetSettings | DeckAction | SetUnitState
                          | UndoUnitState | TurnStep, Field(discriminator="type")]
_ADAPTER: TypeAdapter[Any] = TypeAdapter(ClientMessage)

WRITE_TYPES = frozenset({"event", "terrain", "settings", "deck", "unit_state", "undo_unit_state",
                         "turn"})
"""Message types that change state: refused from a read-only client."""


def parse_client_message(raw: str | bytes | dict[str, Any]) -> Any:
    """Decode and validate one client message; `MessageError` when it is not acceptable."""
    if isinstance(raw, (str, bytes)):
        size = len(raw.encode("utf-8") if isinstance(raw, str) else raw)
        if size > MAX_MESSAGE_BYTES:
            raise MessageError(f"message too large ({size} bytes; limit {MAX_MESSAGE_BYTES})")
        try:
            data = parse_json(raw)   # depth, finite numbers, duplicate keys, UTF-8: one line
        except CampoInputError as exc:
            raise MessageError(f"not JSON: {exc}") from None
    else:
        data = raw
        problem = unsound_value(data)
        if problem is not None:
            raise MessageError(f"{format_loc(problem[0])}: {problem[1]}")
    if not isinstance(data, dict):
        raise MessageError("a message must be a JSON object with a 'type'")
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        where, what = first_problem(exc)
        raise MessageError(f"{where}: {what}" if where else what) from None
