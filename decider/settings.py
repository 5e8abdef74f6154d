"""Server settings: one pydantic model, from flags, DECIDER_* env vars and an optional YAML file.

Precedence: flags > environment > YAML file (`--config` or DECIDER_CONFIG) > defaults.
Every field documents itself; `decider serve --help` prints them all.
"""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict, YamlConfigSettingsSource


class StartupError(RuntimeError):
    """The server cannot start (a listener cannot be opened, the model fails its self-test);
    `decider serve` prints this message and exits 2."""


class ServerSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="DECIDER_", extra="forbid")

    host: str = Field("127.0.0.1", description="address to listen on (0.0.0.0 for all interfaces)")
    port: int = Field(50051, ge=0, le=65535, description="gRPC port (0 = any free port)")
    metrics_port: int = Field(9090, ge=0, le=65535, description="Prometheus /metrics HTTP port (0 = off)")
    metrics_host: str | None = Field(None, description="address the metrics endpoint listens on; default the "
                                                      "gRPC host")
    checkpoint: Path | None = Field(None, description="model folder; default the shipped decider-small")
    device: str = Field("auto", description="'auto' (CUDA when present), 'cpu' or 'cuda'")
    precision: Literal["auto", "fp32", "bf16"] = Field(
        "auto", description="'auto': bf16 on CUDA and on CPUs whose bf16 is fast and batch-invariant, else "
                            "fp32; 'fp32' or 'bf16' to force one")
    runtime: Literal["auto", "torch", "onnxruntime"] = Field(
        "auto", description="what runs the model's passes: 'auto' = ONNX Runtime where the engine runs fp32 on a "
                            "CPU and the model exports (exported at start-up, cached in DECIDER_CACHE_DIR), else "
                            "torch; 'torch' or 'onnxruntime' to force one")
    max_queue: int = Field(256, ge=1, description="requests admitted at once (waiting + running); more get "
                                                  "RESOURCE_EXHAUSTED so that callers back off")
    max_queue_wait_s: float = Field(0.25, ge=0, description="a request that would wait longer than this for the "
                                    "work queued ahead of it (or past its deadline) gets RESOURCE_EXHAUSTED at "
                                    "once, so that overload cannot build a long queue (0 = bound by deadlines only)")
    max_running: int = Field(64, ge=1, description="requests decoded together per engine step")
    option_reader: bool = Field(True, description="score categorical options with the checkpoint's option reader "
                                "where it has one with a fitted weight (engine/reader.py; decider-small has none)")
    parallel_rest: Literal["one", "all"] = Field(
        "one", description="the parallel policy, a pass where no open answer reaches the request's threshold: 'one' "
                           "commits the most confident and predicts the rest again, 'all' commits them all "
                           "(EngineConfig.parallel_rest: fewer passes, less consistent answers)")
    prefix_cache_mb: int = Field(256, ge=0, description="prefix K/V cache for repeated requests, MiB")
    drain_grace_s: float = Field(10.0, ge=0, description="on SIGTERM, time in-flight requests get to finish")
    tls_cert: Path | None = Field(None, description="server certificate chain (PEM); with tls_key turns TLS on")
    tls_key: Path | None = Field(None, description="server private key (PEM)")
    tls_client_ca: Path | None = Field(None, description="CA bundle (PEM) that client certificates must chain "
                                                         "to: mutual TLS")
    insecure: bool = Field(False, description="allow plaintext on a non-loopback address (behind a mesh "
                                              "that terminates TLS, say)")
    tokens: str | None = Field(None, description="comma-separated bearer tokens; set to require "
                                                 "'authorization: Bearer <token>'")
    tokens_file: Path | None = Field(None, description="file with one bearer token per line (# comments)")
    max_message_mb: int = Field(4, ge=1, description="largest request or response message, MiB")
    keepalive_s: float = Field(30.0, gt=0, description="server keepalive ping interval")
    max_connection_age_s: float = Field(300.0, gt=0, description="connections are closed (gracefully) after "
                                        "this long, so clients re-resolve DNS and spread over new replicas")
    log_level: str = Field("info", description="debug, info, warning or error")
    warmup: bool = Field(True, description="before reporting SERVING, decide requests of every shape the engine's "
                                           "passes meet (bf16 on a CPU: each padded prompt length and question "
                                           "count), so that no request waits while a kernel is built")
    self_test: bool = Field(True, description="before SERVING, check that the model answers a request about "
                                              "stated facts right; refuse to start if not")

    @classmethod
    def settings_customise_sources(cls, settings_cls, init_settings, env_settings, dotenv_settings,
                                   file_secret_settings) -> tuple[PydanticBaseSettingsSource, ...]:
        sources = [init_settings, env_settings]
        config = os.environ.get("DECIDER_CONFIG")
        if config:
            sources.append(YamlConfigSettingsSource(settings_cls, yaml_file=config))
        return tuple(sources)

    @model_validator(mode="after")
    def _check(self):
        if bool(self.tls_cert) != bool(self.tls_key):
            raise ValueError("tls_cert and tls_key go together: give both for TLS, or neither")
        if self.tls_client_ca and not self.tls_cert:
            raise ValueError("tls_client_ca (mutual TLS) needs tls_cert and tls_key as well")
        if not self.tls_cert and not self.insecure and not _loopback(self.host):
            raise ValueError(f"refusing plaintext on {self.host}: give tls_cert and tls_key, or set insecure "
                             "(DECIDER_INSECURE=1) if something in front of decider terminates TLS")
        for path in (self.tls_cert, self.tls_key, self.tls_client_ca, self.tokens_file):
            if path and not Path(path).is_file():
                raise ValueError(f"{path}: no such file")
        if (self.tokens is not None or self.tokens_file) and not self.token_set():
            where = f"tokens_file {self.tokens_file}" if self.tokens_file and self.tokens is None else "tokens"
            raise ValueError(f"{where} holds no token, which would leave the server open to anyone: give at "
                             "least one non-blank token, or unset tokens and tokens_file to run without auth")
        if self.tls_cert:
            _check_key_pair(self.tls_cert, self.tls_key)
        return self

    def token_set(self) -> set[str]:
        tokens = {t.strip() for t in (self.tokens or "").split(",") if t.strip()}
        if self.tokens_file:
            for line in Path(self.tokens_file).read_text().splitlines():
                line = line.split("#", 1)[0].strip()
                if line:
                    tokens.add(line)
        return tokens


def _check_key_pair(cert: Path, key: Path) -> None:
    import ssl

    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(cert, key)
    except ssl.SSLError as e:
        if "KEY_VALUES_MISMATCH" in str(e) or "key values mismatch" in str(e):
            raise ValueError(f"tls_key {key} does not match the certificate in tls_cert {cert}: give the key "
                             "the certificate was issued for") from None
        raise ValueError(f"tls_cert {cert} / tls_key {key}: not a PEM certificate chain and its private key "
                         f"({e.reason or e})") from None


def _loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return host == "localhost"
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
