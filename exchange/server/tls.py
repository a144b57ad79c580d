"""The stream port's TLS: the operator's certificate, or a self-signed one made at start-up.

Betfair's stream clients connect over TLS without checking the server's
certificate (betfairlightweight sets ``verify_mode = CERT_NONE``), so a server
started without ``--tls-cert/--tls-key`` makes a throwaway self-signed
certificate for its host: an elliptic-curve key (P-256, made in a millisecond)
valid for a year, kept in memory only (written to a private temporary
directory just long enough for :mod:`ssl` to load it).
"""

from __future__ import annotations

import datetime
import ipaddress
import ssl
import tempfile
from pathlib import Path

VALID_DAYS = 365


class TlsConfigError(ValueError):
    """The certificate or key given cannot be loaded; the message names the file and why."""


def server_context(cert_file: str | None = None, key_file: str | None = None, *, host: str = "127.0.0.1",
                   ) -> ssl.SSLContext:
    """A server-side TLS context from ``cert_file``/``key_file``, or self-signed for ``host`` when both are None.

    >>> server_context().protocol is ssl.PROTOCOL_TLS_SERVER
    True
    """
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    if (cert_file is None) != (key_file is None):
        raise TlsConfigError("give both a certificate and its key (--tls-cert and --tls-key), or neither")
    if cert_file is not None and key_file is not None:
        try:
            context.load_cert_chain(cert_file, key_file)
        except (OSError, ssl.SSLError) as exc:
            raise TlsConfigError(f"cannot load the certificate {cert_file} with the key {key_file}: {exc}") from None
        return context
    cert_pem, key_pem = self_signed(host)
    with tempfile.TemporaryDirectory(prefix="exchange-tls-") as folder:
        cert_path, key_path = Path(folder, "cert.pem"), Path(folder, "key.pem")
        cert_path.write_bytes(cert_pem)
        key_path.touch(mode=0o600)
        key_path.write_bytes(key_pem)
        context.load_cert_chain(cert_path, key_path)
    return context


def self_signed(host: str) -> tuple[bytes, bytes]:
    """A new self-signed certificate for ``host`` (a name or an address) and its private key, both PEM.

    ``cryptography`` is imported here, the one place that needs it: a server without a TLS stream port never
    loads it (about 40 ms of every start).
    """
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host or "localhost")])
    try:
        alt: x509.GeneralName = x509.IPAddress(ipaddress.ip_address(host))
    except ValueError:
        alt = x509.DNSName(host or "localhost")
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
            .add_extension(x509.SubjectAlternativeName([alt]), critical=False)
            .sign(key, hashes.SHA256()))
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    return cert.public_bytes(serialization.Encoding.PEM), key_pem
