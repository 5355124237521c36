"""The WebSocket envelope and the hub's per-client latest-state slots, without a server."""

from __future__ import annotations

import json
import logging

import pytest

from campo.server.hub import QUEUE_LIMIT, HubRecord, StateHub, encode, envelope


def test_envelope_has_exactly_topic_seq_payload() -> None:
    msg = envelope("state", 7, {"bases": []})
    assert msg == {"topic": "state", "seq": 7, "payload": {"bases": []}}
    assert json.loads(encode(msg)) == msg


@pytest.mark.parametrize("topic, seq", [("", 1), ("state", -1)])
def test_envelope_refuses_bad_topic_or_seq(topic: str, seq: int) -> None:
    with pytest.raises(ValueError):
        envelope(topic, seq, None)


def test_encode_refuses_nan() -> None:
    with pytest.raises(ValueError):
        encode(envelope("state", 1, {"x": float("nan")}))


def test_seq_increases_across_topics() -> None:
    hub = StateHub()
    seqs = [hub.publish("state", {"n": 1}), hub.publish("status", {}), hub.publish("event", {"kind": "note"})]
    assert seqs == sorted(seqs) and len(set(seqs)) == 3


def test_slow_client_gets_only_the_latest_state() -> None:
    hub = StateHub()
    client = hub.connect(can_write=False)
    for n in range(1000):
        hub.publish("state", {"n": n})
        hub.publish("status", {"n": n})
    batch = [json.loads(t) for t in client.take()]
    assert [m["topic"] for m in batch] == ["state", "status"]
    assert batch[0]["payload"] == {"n": 999} and batch[1]["payload"] == {"n": 999}
    assert client.skipped == 2 * 999
    assert client.take() == []


def test_events_queue_per_client_is_bounded_and_ordered() -> None:
    hub = StateHub()
    client = hub.connect(can_write=False)
    for n in range(QUEUE_LIMIT + 10):
        hub.publish("event", {"n": n})
    batch = [json.loads(t) for t in client.take()]
    assert len(batch) == QUEUE_LIMIT
    assert [m["payload"]["n"] for m in batch] == list(range(10, QUEUE_LIMIT + 10))


def test_new_client_is_primed_with_latest_state_and_status() -> None:
    hub = StateHub()
    hub.publish("state", {"n": 1})
    hub.publish("state", {"n": 2})
    hub.publish("status", {"fps": 3})
    client = hub.connect(can_write=True)
    topics = {m["topic"]: m["payload"] for m in map(json.loads, client.take())}
    assert topics == {"state": {"n": 2}, "status": {"fps": 3}}
    assert hub.latest("state")["payload"] == {"n": 2}


def test_disconnected_client_is_dropped_alone() -> None:
    hub = StateHub()
    gone, stays = hub.connect(can_write=False), hub.connect(can_write=False)
    hub.disconnect(gone)
    hub.disconnect(gone)  # twice is harmless
    hub.publish("state", {"n": 1})
    assert hub.client_count == 1
    assert gone.take() == []
    assert json.loads(stays.take()[0])["payload"] == {"n": 1}


def test_send_to_reaches_one_client() -> None:
    hub = StateHub()
    a, b = hub.connect(can_write=False), hub.connect(can_write=False)
    hub.send_to(a, "reply", {"ok": True})
    assert [json.loads(t)["topic"] for t in a.take()] == ["reply"]
    assert b.take() == []


def test_subscribers_get_states_and_events_not_status() -> None:
    hub = StateHub()
    got: list[HubRecord] = []
    unsubscribe = hub.subscribe(got.append)
    s1 = hub.publish("state", {"n": 1})
    hub.publish("status", {"fps": 1})
    s2 = hub.publish("event", {"kind": "turn", "turn": 2})
    assert [(r.seq, r.topic) for r in got] == [(s1, "state"), (s2, "event")]
    assert got[1].payload == {"kind": "turn", "turn": 2} and got[0].t <= got[1].t
    unsubscribe()
    hub.publish("state", {"n": 2})
    assert len(got) == 2


def test_a_failing_subscriber_does_not_stop_the_others(caplog: pytest.LogCaptureFixture) -> None:
    hub = StateHub()
    got: list[int] = []

    def broken(record: HubRecord) -> None:
        raise RuntimeError("disk full")

    hub.subscribe(broken)
    hub.subscribe(lambda r: got.append(r.seq))
    with caplog.at_level(logging.WARNING):
        seq = hub.publish("state", {})
    assert got == [seq]
    assert "disk full" in caplog.text
