"""Fan-out of the live state to browsers and to in-process subscribers (the recorder).

Every message on the WebSocket is one envelope, `{"topic", "seq", "payload"}`, built by the pure
functions `envelope` and `encode`. Each connected client has a latest-message slot per
"coalescing" topic (`state`, `status`): a slow tablet skips intermediate states instead of
queueing them, so memory stays bounded however slow it is. Other topics (umpire events, replies)
go to a short bounded queue per client. A client that disconnects is dropped alone.

The hub lives on the asyncio event loop; threads (the per-frame loop) publish through
`publish_threadsafe`. Subscribers are called on the loop thread with a `HubRecord` for every
`state` and `event` message and must return quickly (hand work to your own thread).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

COALESCING_TOPICS = frozenset({"state", "status"})
"""Topics where only the newest message matters; a slow client gets the latest, not the backlog."""

SUBSCRIBED_TOPICS = frozenset({"state", "event", "deck"})
"""Topics handed to subscribers (the recorder): every real change of state, every umpire event
and every change of ATTILA's card deck."""

QUEUE_LIMIT = 64
"""Non-coalescing messages kept per client; beyond this the oldest are dropped."""


def envelope(topic: str, seq: int, payload: Any) -> dict[str, Any]:
    """The one message shape of the WebSocket.

    >>> envelope("state", 3, {"bases": []})
    {'topic': 'state', 'seq': 3, 'payload': {'bases': []}}
    """
    if not topic or not isinstance(topic, str):
        raise ValueError("topic must be a non-empty string")
    if seq < 0:
        raise ValueError("seq must be >= 0")
    return {"topic": topic, "seq": int(seq), "payload": payload}


def encode(message: dict[str, Any]) -> str:
    """Compact JSON text of an envelope (NaN is refused: browsers cannot parse it).

    >>> encode(envelope("status", 1, {"fps": 14.5}))
    '{"topic":"status","seq":1,"payload":{"fps":14.5}}'
    """
    return json.dumps(message, separators=(",", ":"), allow_nan=False)


@dataclass(frozen=True)
class HubRecord:
    """What a subscriber receives: one published `state` or `event`.

    `t` is `time.monotonic()` and `wall` is `time.time()` at publication.
    """

    seq: int
    t: float
    wall: float
    topic: str
    payload: Any


Subscriber = Callable[[HubRecord], None]


class Client:
    """One connected browser: latest-message slots plus a short queue, and a wake-up event."""

    def __init__(self, client_id: int, *, can_write: bool) -> None:
        self.id = client_id
        self.can_write = can_write
        self._latest: dict[str, tuple[int, str]] = {}
        self._queue: deque[tuple[int, str]] = deque(maxlen=QUEUE_LIMIT)
        self._wake = asyncio.Event()
        self.skipped = 0  # messages replaced before this client took them

    def offer(self, topic: str, seq: int, text: str) -> None:
        if topic in COALESCING_TOPICS:
            if topic in self._latest:
                self.skipped += 1
            self._latest[topic] = (seq, text)
        else:
            if len(self._queue) == self._queue.maxlen:
                self.skipped += 1
            self._queue.append((seq, text))
        self._wake.set()

    def pending(self) -> int:
        return len(self._latest) + len(self._queue)

    def take(self) -> list[str]:
        """Everything waiting, oldest first, and empty the slots."""
        items = sorted([*self._latest.values(), *self._queue])
        self._latest.clear()
        self._queue.clear()
        self._wake.clear()
        return [text for _, text in items]

    async def next_batch(self) -> list[str]:
        """Wait until something is waiting, then take it all."""
        await self._wake.wait()
        return self.take()


class StateHub:
    """The live stream: publishes envelopes to clients and records to subscribers."""

    def __init__(self) -> None:
        self._seq = itertools.count(1)
        self._ids = itertools.count(1)
        self._clients: dict[int, Client] = {}
        self._subscribers: list[Subscriber] = []
        self._latest: dict[str, dict[str, Any]] = {}
        self._latest_text: dict[str, str] = {}
        self.loop: asyncio.AbstractEventLoop | None = None

    # -- publishing ---------------------------------------------------------------------------

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """Remember the event loop that owns the hub (for `publish_threadsafe`)."""
        self.loop = loop

    def publish(self, topic: str, payload: Any) -> int:
        """Send `payload` on `topic` to every client and subscriber; returns its seq (loop thread only)."""
        seq = next(self._seq)
        message = envelope(topic, seq, payload)
        text = encode(message)
        if topic in COALESCING_TOPICS:
            self._latest[topic] = message
            self._latest_text[topic] = text
        for client in list(self._clients.values()):
            client.offer(topic, seq, text)
        if topic in SUBSCRIBED_TOPICS and self._subscribers:
            record = HubRecord(seq, time.monotonic(), time.time(), topic, payload)
            for callback in list(self._subscribers):
                try:
                    callback(record)
                except Exception as exc:  # noqa: BLE001 - a broken subscriber must not stop the stream
                    log.warning("subscriber %r failed on seq %d: %s", callback, seq, exc)
        return seq

    def publish_threadsafe(self, topic: str, payload: Any) -> None:
        """`publish` from any thread: at once on the loop's own thread, else handed to the loop
        (dropped when the loop is gone, at shutdown)."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        try:
            on_loop = asyncio.get_running_loop() is loop
        except RuntimeError:                  # no loop runs on this thread
            on_loop = False
        if on_loop:
            self.publish(topic, payload)
            return
        try:
            loop.call_soon_threadsafe(self.publish, topic, payload)
        except RuntimeError:  # loop closed between the check and the call
            pass

    def latest(self, topic: str) -> dict[str, Any] | None:
        """The last envelope published on a coalescing topic."""
        return self._latest.get(topic)

    # -- clients ------------------------------------------------------------------------------

    def connect(self, *, can_write: bool) -> Client:
        """A new client, primed with the latest state and status."""
        client = Client(next(self._ids), can_write=can_write)
        for topic, text in self._latest_text.items():
            client.offer(topic, self._latest[topic]["seq"], text)
        self._clients[client.id] = client
        return client

    def send_to(self, client: Client, topic: str, payload: Any) -> None:
        """A message for one client only (a reply, a greeting)."""
        seq = next(self._seq)
        client.offer(topic, seq, encode(envelope(topic, seq, payload)))

    def disconnect(self, client: Client) -> None:
        self._clients.pop(client.id, None)

    @property
    def client_count(self) -> int:
        return len(self._clients)

    def clients(self) -> list[Client]:
        return list(self._clients.values())

    # -- subscribers --------------------------------------------------------------------------

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback(record)` for every `state`, `event` and `deck` message (`SUBSCRIBED_TOPICS`);
        returns the unsubscribe function."""
        self._subscribers.append(callback)

        def unsubscribe() -> None:
            if callback in self._subscribers:
                self._subscribers.remove(callback)

        return unsubscribe
