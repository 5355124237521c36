"""`campo serve --https`: a self-signed certificate, made once and reused.

Browsers open a camera only on a secure page, so a phone streaming its camera to `campo serve`
needs HTTPS. The certificate (an EC P-256 key, made with the `cryptography` package) names
`localhost`, 127.0.0.1 and this machine's LAN addresses; it is kept in
`$XDG_CONFIG_HOME/campo/https/` (default `~/.config/campo/https/`) and made again only when it
expires within a month or an address it does not name appears (a new Wi-Fi), so a phone that
accepted it once is not asked again. Its SHA-256 fingerprint is printed: that is what the user
compares with the browser's certificate details before accepting it.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

from campo.atomic_file import write_atomic

RENEW_BEFORE = dt.timedelta(days=30)
VALID_FOR = dt.timedelta(days=825)   # the longest validity Apple's devices accept


@dataclass(frozen=True)
class Certificate:
    cert: Path
    key: Path
    fingerprint: str       # SHA-256, colon-separated hex
    names: tuple[str, ...]
    created: bool          # made now (False: reused)


def default_directory() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "campo" / "https"


def _names(addresses: list[str]) -> list[str]:
    return sorted({"localhost", "127.0.0.1", *addresses})


def _load(cert_path: Path) -> object | None:
    from cryptography import x509

    try:
        return x509.load_pem_x509_certificate(cert_path.read_bytes())
    except (OSError, ValueError):
        return None


def _covers(cert: object, names: list[str]) -> bool:
    from cryptography import x509

    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value  # type: ignore[attr-defined]
    except x509.ExtensionNotFound:
        return False
    have = {str(v) for v in san.get_values_for_type(x509.IPAddress)} | set(san.get_values_for_type(x509.DNSName))
    not_after = cert.not_valid_after_utc  # type: ignore[attr-defined]
    return set(names) <= have and not_after - dt.datetime.now(dt.timezone.utc) > RENEW_BEFORE


def fingerprint(cert: object) -> str:
    from cryptography.hazmat.primitives import hashes

    raw = cert.fingerprint(hashes.SHA256())  # type: ignore[attr-defined]
    return ":".join(f"{b:02X}" for b in raw)


def ensure_certificate(addresses: list[str], directory: Path | None = None) -> Certificate:
    """The certificate for these addresses: the kept one when it still fits, else a new one."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    directory = directory or default_directory()
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    names = _names(addresses)
    existing = _load(cert_path) if key_path.exists() else None
    if existing is not None and _covers(existing, names):
        return Certificate(cert_path, key_path, fingerprint(existing), tuple(names), False)
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Campo (self-signed, this computer)"),
                         x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Campo")])
    alt: list[x509.GeneralName] = []
    for n in names:
        try:
            alt.append(x509.IPAddress(ipaddress.ip_address(n)))
        except ValueError:
            alt.append(x509.DNSName(n))
    now = dt.datetime.now(dt.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + VALID_FOR)
            .add_extension(x509.SubjectAlternativeName(alt), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(key, hashes.SHA256()))
    directory.mkdir(parents=True, exist_ok=True)
    key_bytes = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption())
    write_atomic(key_path, key_bytes)
    os.chmod(key_path, 0o600)
    write_atomic(cert_path, cert.public_bytes(serialization.Encoding.PEM))
    return Certificate(cert_path, key_path, fingerprint(cert), tuple(names), True)
