"""`campo serve --https`: the certificate is made once, reused, and made again when it no longer fits."""

from __future__ import annotations

import ssl
from pathlib import Path

from campo.server.setup.https import ensure_certificate


def test_certificate_is_made_once_and_reused(tmp_path: Path) -> None:
    first = ensure_certificate(["192.168.1.23"], tmp_path)
    assert first.created and "192.168.1.23" in first.names and "localhost" in first.names
    assert (first.key.stat().st_mode & 0o777) == 0o600
    again = ensure_certificate(["192.168.1.23"], tmp_path)
    assert not again.created and again.fingerprint == first.fingerprint
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(str(again.cert), str(again.key))   # a pair TLS accepts


def test_a_new_address_makes_a_new_certificate(tmp_path: Path) -> None:
    first = ensure_certificate(["192.168.1.23"], tmp_path)
    moved = ensure_certificate(["10.0.0.7"], tmp_path)
    assert moved.created and moved.fingerprint != first.fingerprint and "10.0.0.7" in moved.names
