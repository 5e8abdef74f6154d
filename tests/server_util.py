"""Run a real decider server on 127.0.0.1 in a background thread (its own event loop)."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import socket
import threading
from pathlib import Path

from decider.server import DeciderServer
from decider.settings import ServerSettings


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerThread:
    def __init__(self, **settings):
        settings = {"port": 0, "metrics_port": 0, "warmup": False, "drain_grace_s": 5.0, **settings}
        self.server = DeciderServer(ServerSettings(**settings))
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.bound = threading.Event()

    def start(self, wait_ready: bool = True) -> "ServerThread":
        self.future = asyncio.run_coroutine_threadsafe(self.server.start(), self.loop)
        if wait_ready:
            self.future.result(timeout=120)
        return self

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    def drain(self) -> bool:
        return asyncio.run_coroutine_threadsafe(self.server.drain(), self.loop).result(timeout=60)

    def stop(self) -> None:
        try:
            self.drain()
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=10)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def make_certs(folder: Path) -> dict[str, Path]:
    """A throwaway CA, a server certificate for 127.0.0.1/localhost and a client certificate."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.timezone.utc)

    def key():
        return ec.generate_private_key(ec.SECP256R1())

    def name(cn):
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])

    def cert(subject_key, cn, issuer_key, issuer_name, ca=False, san=None):
        b = (x509.CertificateBuilder().subject_name(name(cn)).issuer_name(issuer_name)
             .public_key(subject_key.public_key()).serial_number(x509.random_serial_number())
             .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
             .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
        if san:
            b = b.add_extension(x509.SubjectAlternativeName(san), critical=False)
        return b.sign(issuer_key, hashes.SHA256())

    ca_key = key()
    ca = cert(ca_key, "decider test CA", ca_key, name("decider test CA"), ca=True)
    server_key, client_key = key(), key()
    server = cert(server_key, "localhost", ca_key, ca.subject,
                  san=[x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])
    client = cert(client_key, "decider test client", ca_key, ca.subject)
    out = {}
    for label, obj in (("ca", ca), ("server", server), ("client", client)):
        out[f"{label}_cert"] = folder / f"{label}.crt"
        out[f"{label}_cert"].write_bytes(obj.public_bytes(serialization.Encoding.PEM))
    for label, k in (("server", server_key), ("client", client_key)):
        out[f"{label}_key"] = folder / f"{label}.key"
        out[f"{label}_key"].write_bytes(k.private_bytes(serialization.Encoding.PEM,
                                                        serialization.PrivateFormat.PKCS8,
                                                        serialization.NoEncryption()))
    return out
