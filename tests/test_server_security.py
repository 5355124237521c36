"""Loopback is open, a network address needs the token, other web sites are refused."""

from __future__ import annotations

import pytest

from campo.server.security import AccessPolicy, access_urls, is_loopback, same_origin


@pytest.mark.parametrize("host, loop", [("127.0.0.1", True), ("127.8.0.2", True), ("::1", True),
                                        ("localhost", True), ("0.0.0.0", False), ("192.168.1.10", False),
                                        ("::", False), ("example.org", False)])
def test_is_loopback(host: str, loop: bool) -> None:
    assert is_loopback(host) is loop


def test_loopback_policy_allows_writes_without_token() -> None:
    policy = AccessPolicy.for_host("127.0.0.1")
    assert policy.token is None and policy.allows_write(None)


def test_network_policy_needs_the_token() -> None:
    policy = AccessPolicy.for_host("0.0.0.0")
    assert policy.token and len(policy.token) >= 20
    assert not policy.allows_write(None)
    assert not policy.allows_write("")
    assert not policy.allows_write(policy.token[:-1])
    assert policy.allows_write(policy.token)
    assert AccessPolicy.for_host("0.0.0.0").token != policy.token  # fresh each start


def test_given_token_is_used() -> None:
    assert AccessPolicy.for_host("0.0.0.0", "sesame").allows_write("sesame")


@pytest.mark.parametrize("origin, host, ok", [
    (None, "127.0.0.1:8000", True),
    ("http://127.0.0.1:8000", "127.0.0.1:8000", True),
    ("http://192.168.1.5:8000", "192.168.1.5:8000", True),
    ("http://evil.example", "127.0.0.1:8000", False),
    ("http://127.0.0.1:9000", "127.0.0.1:8000", False),
    ("null", "127.0.0.1:8000", False),
])
def test_same_origin(origin: str | None, host: str, ok: bool) -> None:
    assert same_origin(origin, host) is ok


def test_access_urls_carry_the_token_only_when_needed() -> None:
    assert access_urls("127.0.0.1", 8000, AccessPolicy(None)) == ["http://127.0.0.1:8000/"]
    urls = access_urls("192.168.1.5", 8080, AccessPolicy("abc"))
    assert urls == ["http://192.168.1.5:8080/?token=abc"]
    assert all(u.endswith("/?token=abc") for u in access_urls("0.0.0.0", 8000, AccessPolicy("abc")))


@pytest.mark.parametrize("host_header, bind, ok", [
    ("127.0.0.1:8000", "127.0.0.1", True),
    ("localhost:8000", "127.0.0.1", True),
    ("[::1]:8000", "::1", True),
    ("evil.example:8000", "127.0.0.1", False),  # DNS rebinding
    (None, "127.0.0.1", False),
    ("192.168.1.5:8000", "0.0.0.0", True),  # the token guards network binds
])
def test_host_header_on_loopback(host_header: str | None, bind: str, ok: bool) -> None:
    from campo.server.security import host_header_allowed

    assert host_header_allowed(host_header, bind) is ok


def test_rate_limit_doctest() -> None:
    import doctest

    import campo.server.security as security

    assert doctest.testmod(security).failed == 0


def test_rate_limit_memory_is_bounded_however_many_clients() -> None:
    """Rotating addresses (an IPv6 block) or tokens cannot grow the buckets without bound, and
    each request stays cheap."""
    import time

    from campo.server.security import RateLimit

    limit = RateLimit(rate=10, burst=20)
    started = time.process_time()
    for i in range(100_000):
        limit.allow(("address", f"2001:db8::{i:x}"))
    assert len(limit) <= RateLimit.MAX_KEYS
    assert time.process_time() - started < 5.0


@pytest.mark.parametrize("host, allow, ok", [
    ("campo.club.lan:8000", ["campo.club.lan"], True),
    ("CAMPO.club.lan.:8000", ["campo.club.lan"], True),
    ("other.lan:8000", ["campo.club.lan"], False),
    ("anything.example", ["*"], True),
    ("app.localhost:8000", [], True),
    ("192.168.1.5:8000", [], False),           # bound to loopback: a LAN address is not us
    ("10.1.2.3:8000", [], False),
])
def test_host_policy_names(host: str, allow: list[str], ok: bool) -> None:
    from campo.server.security import HostPolicy

    assert HostPolicy.for_bind("127.0.0.1", allow).allows(host) is ok
