"""Client messages are validated strictly; anything else is refused with a reason."""

from __future__ import annotations

import json

import pytest

from campo.server.messages import MAX_MESSAGE_BYTES, MessageError, SetSettings, SetTerrain, UmpireEvent, parse_client_message


def test_valid_messages_parse_to_their_models() -> None:
    assert parse_client_message('{"type": "ping"}').type == "ping"
    ev = parse_client_message({"type": "event", "kind": "turn", "turn": 3})
    assert isinstance(ev, UmpireEvent) and ev.payload() == {"kind": "turn", "text": "", "turn": 3}
    t = parse_client_message({"type": "terrain", "terrain": [{"id": "w", "kind": "wood"}]})
    assert isinstance(t, SetTerrain)
    s = parse_client_message(b'{"type": "settings", "settings": {"a1_zones": "corner_diagonals"}}')
    assert isinstance(s, SetSettings) and s.settings == {"a1_zones": "corner_diagonals"}


@pytest.mark.parametrize("raw, why", [
    ("not json", "not JSON"),
    ("[1, 2]", "JSON object"),
    ('{"kind": "note"}', "type"),
    ('{"type": "launch_missiles"}', "type"),
    ('{"type": "ping", "extra": 1}', "extra"),
    ('{"type": "event", "kind": "dance"}', "kind"),
    ('{"type": "event", "kind": "turn", "turn": -1}', "turn"),
    ('{"type": "terrain", "terrain": "wood"}', "terrain"),
    ('{"type": "settings", "settings": {"x": [1, 2]}}', "settings"),
    (b"\xff\xfe", "not JSON"),
])
def test_malformed_messages_are_refused_with_a_reason(raw: str | bytes, why: str) -> None:
    with pytest.raises(MessageError, match=why):
        parse_client_message(raw)


def test_oversized_message_is_refused_before_decoding() -> None:
    big = json.dumps({"type": "event", "kind": "note", "text": "x" * MAX_MESSAGE_BYTES})
    with pytest.raises(MessageError, match="too large"):
        parse_client_message(big)


def test_too_many_terrain_features_are_refused() -> None:
    with pytest.raises(MessageError, match="terrain"):
        parse_client_message({"type": "terrain", "terrain": [{"id": str(i)} for i in range(201)]})
