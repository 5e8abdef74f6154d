#!/usr/bin/env python3
"""gRPC health check (grpc.health.v1) of the decider server in this container.

Installed in the images as `decider-healthcheck`; Docker's HEALTHCHECK runs it, and so do
the Kubernetes probes when the server has TLS on (the kubelet's own gRPC probe speaks
plaintext only). Exit 0 when the server reports SERVING, 1 otherwise: NOT_SERVING while
the model loads and warms and while it drains, or no answer at all.

The port and the TLS files come from the server's own settings (DECIDER_* variables and
DECIDER_CONFIG), so the check always asks what the server really opened. Over TLS it
trusts exactly the certificate the server presents (pinned, from DECIDER_TLS_CERT), and
with mutual TLS it presents that certificate as its client certificate, which must then be
valid for client authentication and issued by DECIDER_TLS_CLIENT_CA.
"""

from __future__ import annotations

import argparse
import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from decider.settings import ServerSettings

# a server listening on every interface is asked over loopback
WILDCARDS = {"0.0.0.0": "127.0.0.1", "::": "[::1]", "[::]": "[::1]"}


def target(settings: ServerSettings) -> str:
    host = WILDCARDS.get(settings.host, settings.host)
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{host}:{settings.port}"


def channel(settings: ServerSettings, server_name: str) -> grpc.Channel:
    if not settings.tls_cert:
        return grpc.insecure_channel(target(settings))
    chain = settings.tls_cert.read_bytes()
    key, cert = (settings.tls_key.read_bytes(), chain) if settings.tls_client_ca else (None, None)
    credentials = grpc.ssl_channel_credentials(root_certificates=chain, private_key=key, certificate_chain=cert)
    return grpc.secure_channel(target(settings), credentials, [("grpc.ssl_target_name_override", server_name)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="decider-healthcheck", description=__doc__.split("\n\n")[0])
    parser.add_argument("--server-name", default="localhost",
                        help="with TLS: a DNS name in the server certificate (default: localhost)")
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds to wait for the answer")
    args = parser.parse_args(argv)

    settings = ServerSettings()
    with channel(settings, args.server_name) as ch:
        try:
            reply = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=args.timeout)
        except grpc.RpcError as e:
            print(f"unhealthy: {e.code().name}: {e.details()}", file=sys.stderr)
            return 1
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    print(status)
    return 0 if reply.status == health_pb2.HealthCheckResponse.SERVING else 1


if __name__ == "__main__":
    sys.exit(main())
