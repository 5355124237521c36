"""Who may change the game: everyone on the umpire's own machine, only token holders on a network.

`campo serve` binds 127.0.0.1 by default; then the page is fully usable and nothing is exposed.
With `--host 0.0.0.0` (a tablet on the club's Wi-Fi) every change of state (terrain, settings,
umpire events) needs the token the server prints at start as part of a URL; without it the page
is read-only. The token travels as `?token=` (page URL, WebSocket URL) or the `X-Campo-Token`
header (HTTP writes) and is compared in constant time.

Whatever the host, a write or a WebSocket coming from another web site (an `Origin` that is not
this server) is refused, so a page open in the umpire's browser cannot drive the server; and every
request, reads included, must be addressed to this server (`HostPolicy`, applied to every route
by server/guard.py), which defeats DNS rebinding.
"""

from __future__ import annotations

import ipaddress
import secrets
import socket
import threading
import time
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

TOKEN_HEADER = "X-Campo-Token"
TOKEN_QUERY = "token"


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and localhost.

    >>> is_loopback("127.0.0.1"), is_loopback("0.0.0.0"), is_loopback("localhost")
    (True, False, True)
    """
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class AccessPolicy:
    """`token=None` means writes are open (loopback only)."""

    token: str | None

    @classmethod
    def for_host(cls, host: str, token: str | None = None) -> AccessPolicy:
        """Open on loopback; otherwise a token (the given one, or a fresh random one)."""
        if is_loopback(host):
            return cls(token)
        return cls(token or secrets.token_urlsafe(18))

    def allows_write(self, presented: str | None) -> bool:
        if self.token is None:
            return True
        return presented is not None and secrets.compare_digest(presented.encode(), self.token.encode())


def same_origin(origin: str | None, host_header: str | None) -> bool:
    """A missing Origin (scripts, curl) or one naming this very host:port is ours.

    >>> same_origin("http://192.168.1.5:8000", "192.168.1.5:8000"), same_origin("https://evil.example", "127.0.0.1:8000")
    (True, False)
    """
    if not origin:
        return True
    if origin == "null" or not host_header:
        return False
    return urlsplit(origin).netloc.lower() == host_header.lower()


WILDCARD_BINDS = frozenset({"0.0.0.0", "::", ""})
"""Bind addresses that listen on every interface."""


def local_address(host: str) -> str:
    """The address at which this machine reaches a server bound to ``host``: the loopback of the
    bind's family for a wildcard bind ("::" may listen on IPv6 only), else ``host`` itself.

    >>> local_address("0.0.0.0"), local_address("::"), local_address("192.168.1.5")
    ('127.0.0.1', '::1', '192.168.1.5')
    """
    if host not in WILDCARD_BINDS:
        return host
    return "::1" if host == "::" else "127.0.0.1"


def host_name(host_header: str) -> str:
    """The name or address of a Host header, lower case, without port, brackets or final dot.

    >>> host_name("Evil.Example.:8123"), host_name("[::1]:8000"), host_name("127.0.0.1")
    ('evil.example', '::1', '127.0.0.1')
    """
    try:
        name = urlsplit(f"//{host_header.strip()}").hostname or ""
    except ValueError:   # e.g. an unclosed bracket or a port that is not a number
        return ""
    return name.lower().rstrip(".")


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class HostPolicy:
    """Which `Host` headers address this server.

    >>> p = HostPolicy.for_bind("127.0.0.1")
    >>> [p.allows(h) for h in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000", "evil.example:8000", None)]
    [True, True, True, False, False]
    >>> p = HostPolicy.for_bind("0.0.0.0", ["campo.club"])
    >>> [p.allows(h) for h in ("192.168.1.5:8000", "campo.club:8000", "evil.example:8000")]
    [True, True, False]
    """

    names: frozenset[str]
    any_ip: bool = False      # bound to every interface: any IP literal is this machine
    any_name: bool = False    # `--allow-host '*'`: no check (behind a proxy that checks)

    @classmethod
    def for_bind(cls, bind: str, allow: Iterable[str] = ()) -> HostPolicy:
        """The policy for a server bound to ``bind`` that also answers to the ``allow`` names."""
        extra = [host_name(a) or a.strip().lower() for a in allow]
        names = {"localhost", host_name(bind) or bind.strip().lower(), *extra}
        wildcard = bind.strip() in WILDCARD_BINDS
        if wildcard:   # this machine's own name, as tablets may use it (mDNS: NAME.local)
            me = socket.gethostname().lower()
            names |= {me, f"{me}.local"}
        return cls(frozenset(n for n in names if n), any_ip=wildcard, any_name="*" in extra)

    def allows(self, host_header: str | None) -> bool:
        if self.any_name:
            return True
        if not host_header:
            return False
        name = host_name(host_header)
        if not name:
            return False
        if name in self.names or name.endswith(".localhost") or is_loopback(name):
            return True
        return self.any_ip and _is_ip(name)


def host_header_allowed(host_header: str | None, bind_host: str) -> bool:
    """Whether a request with this Host addresses a server bound to ``bind_host`` (DNS rebinding
    defence; `HostPolicy` with no `--allow-host`).

    >>> host_header_allowed("127.0.0.1:8000", "127.0.0.1"), host_header_allowed("evil.example:8000", "127.0.0.1")
    (True, False)
    >>> host_header_allowed("192.168.1.5:8000", "0.0.0.0")
    True
    """
    return HostPolicy.for_bind(bind_host).allows(host_header)


def access_urls(host: str, port: int, policy: AccessPolicy) -> list[str]:
    """The URLs to print at start (with the token when one is needed)."""
    suffix = f"/?{TOKEN_QUERY}={policy.token}" if policy.token else "/"
    if is_loopback(host):
        return [f"http://{'127.0.0.1' if host == 'localhost' else host}:{port}{suffix}"]
    hosts = [host]
    if host in WILDCARD_BINDS:
        hosts = _local_addresses() or ["<this-machine's-address>"]
    return [f"http://{h}:{port}{suffix}" for h in hosts]


def _local_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback (best effort, no network traffic)."""
    found: set[str] = set()
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.add(str(info[4][0]))
    except OSError:
        pass
    try:  # the address of the default route, without sending anything
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))
            found.add(s.getsockname()[0])
    except OSError:
        pass
    return sorted(a for a in found if not a.startswith("127."))


class RateLimit:
    """At most ``rate`` messages a second per client, in bursts of up to ``burst`` (a token
    bucket per key), so one page or script sending in a loop cannot keep the server busy
    saving terrain or re-judging the table for everyone else.

    >>> t = [0.0]
    >>> limit = RateLimit(rate=2, burst=3, clock=lambda: t[0])
    >>> [limit.allow("tablet") for _ in range(4)]
    [True, True, True, False]
    >>> t[0] = 0.5; limit.allow("tablet"), limit.allow("phone")
    (True, True)
    """

    MAX_KEYS = 1024   # beyond this many clients, idle buckets are forgotten (they would be full anyway)

    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate, self.burst, self._clock = rate, burst, clock
        self._buckets: dict[Hashable, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def allow(self, key: Hashable, cost: float = 1.0) -> bool:
        """Take ``cost`` messages from ``key``'s bucket; False when it holds fewer (refuse it)."""
        now = self._clock()
        with self._lock:
            tokens, then = self._buckets.get(key, (self.burst, now))
            tokens = min(self.burst, tokens + (now - then) * self.rate)
            allowed = tokens >= cost
            self._buckets[key] = (tokens - cost if allowed else tokens, now)
            if len(self._buckets) > self.MAX_KEYS:
                self._forget(now)
            return allowed

    def _forget(self, now: float) -> None:
        """Drop the buckets idle long enough to be full again; if that is not enough (many
        clients at once), keep only the most recently used half, so memory stays bounded and
        each request costs O(1) on average."""
        full_after = self.burst / self.rate
        self._buckets = {k: v for k, v in self._buckets.items() if now - v[1] <= full_after}
        if len(self._buckets) > self.MAX_KEYS // 2:
            recent = sorted(self._buckets.items(), key=lambda item: item[1][1])
            self._buckets = dict(recent[-(self.MAX_KEYS // 2):])

    def __len__(self) -> int:
        """How many clients' buckets are kept."""
        return len(self._buckets)

    def reset(self) -> None:
        """Forget every bucket (all full again)."""
        with self._lock:
            self._buckets.clear()

    def describe(self) -> str:
        return f"at most {self.rate:g} a second"
