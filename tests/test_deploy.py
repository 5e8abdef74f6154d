"""deploy/: the images, the Kubernetes manifests, the Helm chart and the compose file.

Every manifest, and the chart rendered with several sets of values, validates against the
JSON schemas of pinned Kubernetes releases (kubernetes-validate bundles them: offline),
and agrees with the server it deploys: the DECIDER_* settings exist and validate, the
probes and Services point at the ports the server opens, the pod outlives the drain,
the autoscaler's metric is one the server exports. The chart is rendered by
tests/helm_render.py; with helm, kubectl or kustomize on PATH the real renderings are
compared as well. No docker daemon is needed.
"""

from __future__ import annotations

import copy
import fnmatch
import importlib.metadata
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import warnings
from concurrent import futures
from pathlib import Path

import grpc
import kubernetes_validate
import pytest
import yaml
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from setuptools.config.pyprojecttoml import apply_configuration
from setuptools.dist import Distribution

import decider
from decider.metrics import Metrics
from decider.settings import ServerSettings
from helm_render import TemplateError, manifests, render_chart
from server_util import free_port, make_certs

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
CHART = DEPLOY / "helm" / "decider"
DOCKERFILES = {"cpu": DEPLOY / "docker" / "Dockerfile", "cuda": DEPLOY / "docker" / "Dockerfile.cuda"}
COMPOSE = DEPLOY / "compose.yaml"

# The oldest Kubernetes the manifests support (preStop `sleep` is on by default from 1.30;
# the chart's kubeVersion says the same) and the newest kubernetes-validate 1.37.0 bundles.
KUBERNETES = ("1.30.0", "1.37.0")
NAMESPACE = "decider"

# Settings that name files: in a pod they must come from a mounted Secret.
SECRET_FILES = ("tls_cert", "tls_key", "tls_client_ca", "tokens_file")
# The server's last step after the drain: server.stop(grace=1.0) in decider/server.py.
FINAL_STOP_S = 1.0

CHART_VALUES = {
    "defaults": {},
    "tls-gpu-model": {
        "tls": {"enabled": True, "mutual": True},
        "tokens": {"existingSecret": "decider-tokens"},
        "gpu": {"count": 1},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        "model": {"checkpoint": "/models/decider-large", "volume": {"persistentVolumeClaim": {"claimName": "models"}}},
        "server": {"port": 7000, "metricsPort": 7001, "drainGraceSeconds": 20},
        "terminationGracePeriodSeconds": 45,
    },
    "minimal": {
        "autoscaling": {"enabled": False},
        "podDisruptionBudget": {"enabled": False},
        "networkPolicy": {"enabled": False},
        "serviceMonitor": {"enabled": False},
        "fullnameOverride": "dec",
    },
}


# ---- loading what is deployed ----

def load_yaml(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def kind_and_name(doc: dict) -> tuple[str, str]:
    return doc["kind"], doc["metadata"]["name"]


def kustomization(folder: Path) -> dict:
    return yaml.safe_load((folder / "kustomization.yaml").read_text())


def json_patch(doc: dict, operations: list[dict]) -> dict:
    """RFC 6902 (the add, remove, replace and test operations), as kustomize applies it."""
    doc = copy.deepcopy(doc)
    for op in operations:
        *parents, last = [p.replace("~1", "/").replace("~0", "~") for p in op["path"].split("/")[1:]]
        target = doc
        for p in parents:
            target = target[int(p)] if isinstance(target, list) else target[p]
        if isinstance(target, list):
            key = len(target) if last == "-" else int(last)
            exists = key < len(target)
        else:
            key, exists = last, last in target
        if op["op"] == "add" and isinstance(target, list):
            target.insert(key, copy.deepcopy(op["value"]))
        elif op["op"] == "add" or (op["op"] == "replace" and exists):
            target[key] = copy.deepcopy(op["value"])
        elif op["op"] == "remove" and exists:
            del target[key]
        elif op["op"] == "test" and exists:
            if target[key] != op["value"]:
                raise ValueError(f"test failed at {op['path']}: {target[key]!r} != {op['value']!r}")
        else:
            raise ValueError(f"cannot {op['op']} {op['path']}")
    return doc


def kustomize_offline(folder: Path) -> list[dict]:
    """What `kustomize build folder` gives for the kustomizations in deploy/k8s: resources,
    nested kustomizations, the namespace, and JSON patches aimed at one object."""
    k = kustomization(folder)
    docs = []
    for resource in k.get("resources", []):
        path = folder / resource
        docs += kustomize_offline(path) if path.is_dir() else load_yaml(path)
    if "namespace" in k:
        for d in docs:
            if d["kind"] != "Namespace":
                d["metadata"]["namespace"] = k["namespace"]
    for patch in k.get("patches", []):
        target = patch["target"]
        operations = yaml.safe_load((folder / patch["path"]).read_text())
        docs = [json_patch(d, operations) if kind_and_name(d) == (target["kind"], target["name"]) else d
                for d in docs]
    return docs


def chart_docs(name: str) -> list[dict]:
    return manifests(render_chart(CHART, CHART_VALUES[name], namespace=NAMESPACE))


SETS = {"k8s": lambda: kustomize_offline(K8S), "k8s-tls": lambda: kustomize_offline(K8S / "tls"),
        **{f"chart-{name}": (lambda name=name: chart_docs(name)) for name in CHART_VALUES}}


@pytest.fixture(params=sorted(SETS))
def docs(request) -> list[dict]:
    return SETS[request.param]()


def only(docs: list[dict], kind: str) -> dict:
    found = [d for d in docs if d["kind"] == kind]
    assert len(found) == 1, f"expected one {kind}, found {len(found)}"
    return found[0]


def of_kind(docs: list[dict], kind: str) -> list[dict]:
    return [d for d in docs if d["kind"] == kind]


def pod_spec(docs) -> dict:
    return only(docs, "Deployment")["spec"]["template"]["spec"]


def container(docs) -> dict:
    (c,) = pod_spec(docs)["containers"]
    return c


def decider_env(env: list[dict] | dict) -> dict[str, str]:
    """The DECIDER_* variables of a container's env list, or of a name -> value mapping."""
    if isinstance(env, list):
        assert all("value" in e for e in env if e["name"].startswith("DECIDER_")), "DECIDER_* from valueFrom"
        env = {e["name"]: e["value"] for e in env if "value" in e}
    return {k: str(v) for k, v in env.items() if k.startswith("DECIDER_")}


def set_decider_env(monkeypatch, env: dict) -> None:
    """Exactly these DECIDER_* variables in the environment."""
    for name in [n for n in os.environ if n.startswith("DECIDER_")]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, str(value))


@pytest.fixture()
def settings_from(monkeypatch, tmp_path):
    """ServerSettings as the server builds them from an environment: the real validation
    (plaintext refusal, TLS pairs that match, a token file that holds a token), with the files
    that settings name stood in for by real ones made here (whether a pod mounts them is
    checked on its own)."""
    certs = make_certs(tmp_path)
    stand_ins = {"tls_cert": certs["server_cert"], "tls_key": certs["server_key"], "tls_client_ca": certs["ca_cert"],
                 "tokens_file": tmp_path / "tokens_file"}
    stand_ins["tokens_file"].write_text("token-1\n")

    def build(env: dict[str, str]) -> ServerSettings:
        env = dict(env)
        for field in SECRET_FILES:
            if f"DECIDER_{field.upper()}" in env:
                env[f"DECIDER_{field.upper()}"] = stand_ins[field]
        set_decider_env(monkeypatch, env)
        return ServerSettings()
    return build


def pod_settings(docs, settings_from) -> ServerSettings:
    return settings_from(decider_env(container(docs)["env"]))


# ---- schemas ----

def check_service_monitor(doc: dict) -> None:
    """monitoring.coreos.com/v1 ServiceMonitor is a CRD, outside the Kubernetes schemas:
    the fields Prometheus Operator requires, and the shape of the ones used here."""
    assert doc["apiVersion"] == "monitoring.coreos.com/v1"
    assert re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", doc["metadata"]["name"])
    spec = doc["spec"]
    assert "selector" in spec, "spec.selector is required"
    assert set(spec) <= {"selector", "endpoints", "namespaceSelector", "jobLabel"}, spec
    assert isinstance(spec["selector"].get("matchLabels"), dict) and spec["selector"]["matchLabels"]
    assert spec["endpoints"], "no endpoints to scrape"
    for endpoint in spec["endpoints"]:
        assert set(endpoint) <= {"port", "path", "interval", "scrapeTimeout", "scheme"}, endpoint
        assert isinstance(endpoint["port"], str), "endpoints[].port names a Service port"
        assert endpoint.get("path", "/metrics").startswith("/")
        if "interval" in endpoint:
            assert re.fullmatch(r"(\d+(ms|s|m|h))+", endpoint["interval"]), endpoint["interval"]


@pytest.mark.parametrize("version", KUBERNETES)
def test_manifests_validate_against_kubernetes_schemas(docs, version):
    assert docs
    for doc in docs:
        if doc["kind"] == "ServiceMonitor":
            check_service_monitor(doc)
            continue
        try:
            kubernetes_validate.validate(doc, version, strict=True)
        except kubernetes_validate.ValidationError as e:
            where = ".".join(str(p) for p in e.path)
            pytest.fail(f"{doc['kind']}/{doc['metadata']['name']} against Kubernetes {version}: {where}: {e.message}")


def test_schema_validation_catches_mistakes():
    deployment = only(kustomize_offline(K8S), "Deployment")
    container_ = deployment["spec"]["template"]["spec"]["containers"][0]
    container_["readinessProbe"]["grpc"]["port"] = "grpc"  # the kubelet's gRPC probe takes a number only
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES[0], strict=True)
    monitor = only(kustomize_offline(K8S), "ServiceMonitor")
    for spec in ({"endpoints": monitor["spec"]["endpoints"]}, {**monitor["spec"], "endpoints": []},
                 {**monitor["spec"], "endpoints": [{"port": 9090}]}):
        with pytest.raises(AssertionError):
            check_service_monitor({**monitor, "spec": spec})


def test_chart_supports_the_oldest_pinned_kubernetes():
    assert yaml.safe_load((CHART / "Chart.yaml").read_text())["kubeVersion"] == f">={KUBERNETES[0]}-0"


def test_kustomization_lists_every_manifest():
    base = K8S / "base"
    assert sorted(kustomization(base)["resources"]) == sorted(
        p.name for p in base.glob("*.yaml") if p.name != "kustomization.yaml")
    assert kustomization(K8S)["resources"] == ["base"]
    assert kustomization(K8S / "tls")["resources"] == ["../base"]


def test_names_are_unique(docs):
    keys = [kind_and_name(d) for d in docs]
    assert len(keys) == len(set(keys)), keys


# ---- agreement with the server ----

def test_every_decider_variable_is_a_server_setting():
    allowed = {"DECIDER_" + name.upper() for name in ServerSettings.model_fields} | {"DECIDER_CONFIG"}
    files = [p for p in DEPLOY.rglob("*")
             if p.is_file() and p.suffix in ("", ".cuda", ".md", ".py", ".tpl", ".txt", ".yaml", ".yml")]
    files += [ROOT / "docs" / "deploy.md"]
    assert {p.name for p in files} >= {"Dockerfile", "Dockerfile.cuda", "compose.yaml", "deployment.yaml"}
    used = {}
    for path in files:
        for name in re.findall(r"\bDECIDER_[A-Z0-9_]+", path.read_text()):
            used.setdefault(name, path.relative_to(ROOT))
    unknown = {name: str(where) for name, where in used.items() if name not in allowed}
    assert not unknown, f"not fields of decider.settings.ServerSettings: {unknown}"
    assert "DECIDER_INSECURE" in used and "DECIDER_TOKENS_FILE" in used


def test_pod_settings_are_valid_and_open_the_ports_the_manifests_use(docs, settings_from):
    s = pod_settings(docs, settings_from)
    c = container(docs)
    ports = {p["name"]: p["containerPort"] for p in c["ports"]}
    assert ports == {"grpc": s.port, "metrics": s.metrics_port}
    assert s.host == "0.0.0.0"
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        handler = c[probe]
        if "grpc" in handler:
            # the kubelet's gRPC probe: plaintext, the default (overall) health service
            assert handler["grpc"] == {"port": s.port}, probe
            assert s.tls_cert is None, f"{probe}: the kubelet's gRPC probe cannot speak TLS"
        else:
            command = handler["exec"]["command"]
            assert command[0] == "decider-healthcheck", probe
            assert s.tls_cert is not None, f"{probe}: an exec probe where the kubelet's gRPC probe would do"


def test_tls_probes_name_the_host_clients_dial(docs, settings_from):
    if pod_settings(docs, settings_from).tls_cert is None:
        pytest.skip("plaintext: the kubelet's gRPC probe")
    headless = next(s for s in of_kind(docs, "Service") if s["spec"].get("clusterIP") == "None")
    namespace = headless["metadata"].get("namespace", NAMESPACE)
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        command = container(docs)[probe]["exec"]["command"]
        assert command[1:] == ["--server-name", f"{headless['metadata']['name']}.{namespace}.svc.cluster.local"]


def test_services_reach_the_server(docs, settings_from):
    s = pod_settings(docs, settings_from)
    c = container(docs)
    by_name = {p["name"]: p["containerPort"] for p in c["ports"]}
    services = of_kind(docs, "Service")
    for service in services:
        for port in service["spec"]["ports"]:
            target = port["targetPort"]
            assert by_name.get(target, target) in by_name.values(), f"{service['metadata']['name']}: {port}"
    headless = [sv for sv in services if sv["spec"].get("clusterIP") == "None"]
    assert len(headless) == 1, "one headless Service, for client-side round-robin"
    assert [by_name[p["targetPort"]] for p in headless[0]["spec"]["ports"]] == [s.port]
    cluster_ip = [sv for sv in services if sv["spec"].get("type") == "ClusterIP"]
    assert len(cluster_ip) == 1
    assert {by_name[p["targetPort"]] for p in cluster_ip[0]["spec"]["ports"]} == {s.port, s.metrics_port}


def test_selectors_pick_the_decider_pods(docs):
    deployment = only(docs, "Deployment")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    selector = deployment["spec"]["selector"]["matchLabels"]
    assert selector.items() <= pod_labels.items()
    selectors = [sv["spec"]["selector"] for sv in of_kind(docs, "Service")]
    selectors += [d["spec"]["selector"]["matchLabels"] for d in of_kind(docs, "PodDisruptionBudget")]
    selectors += [d["spec"]["podSelector"]["matchLabels"] for d in of_kind(docs, "NetworkPolicy")]
    selectors += [t["labelSelector"]["matchLabels"] for t in pod_spec(docs)["topologySpreadConstraints"]]
    for sel in selectors:
        assert sel == selector, sel
    for hpa in of_kind(docs, "HorizontalPodAutoscaler"):
        assert hpa["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment",
                                                 "name": deployment["metadata"]["name"]}


def test_service_monitor_scrapes_the_metrics_port(docs, settings_from):
    monitors = of_kind(docs, "ServiceMonitor")
    if not monitors:
        pytest.skip("serviceMonitor.enabled=false")
    s = pod_settings(docs, settings_from)
    by_name = {p["name"]: p["containerPort"] for p in container(docs)["ports"]}
    (monitor,) = monitors
    selected = [sv for sv in of_kind(docs, "Service")
                if monitor["spec"]["selector"]["matchLabels"].items() <= sv["metadata"]["labels"].items()]
    scraped = [by_name[p["targetPort"]] for sv in selected for p in sv["spec"]["ports"]
               for e in monitor["spec"]["endpoints"] if p["name"] == e["port"]]
    assert scraped == [s.metrics_port], "each pod scraped once, on the metrics port"
    assert all(e.get("path", "/metrics") == "/metrics" for e in monitor["spec"]["endpoints"])


def test_network_policy_admits_clients_and_prometheus_only(docs, settings_from):
    policies = of_kind(docs, "NetworkPolicy")
    if not policies:
        pytest.skip("networkPolicy.enabled=false")
    s = pod_settings(docs, settings_from)
    (policy,) = policies
    assert policy["spec"]["policyTypes"] == ["Ingress"]
    rules = {}
    for rule in policy["spec"]["ingress"]:
        (peer,) = rule["from"]
        assert set(peer) == {"namespaceSelector"}, "whole namespaces, picked by label"
        (port,) = rule["ports"]
        assert port["protocol"] == "TCP"
        rules[port["port"]] = peer["namespaceSelector"]["matchLabels"]
    assert set(rules) == {s.port, s.metrics_port}
    assert rules[s.metrics_port] == {"kubernetes.io/metadata.name": "monitoring"}
    assert rules[s.port] and rules[s.port] != rules[s.metrics_port]


def test_pod_outlives_its_drain(docs, settings_from):
    s = pod_settings(docs, settings_from)
    spec, c = pod_spec(docs), container(docs)
    pre_stop = c["lifecycle"]["preStop"]["sleep"]["seconds"]
    assert spec["terminationGracePeriodSeconds"] > pre_stop + s.drain_grace_s + FINAL_STOP_S
    # a draining server answers NOT_SERVING; its liveness probe must not restart it meanwhile
    live = c["livenessProbe"]
    assert live["periodSeconds"] * live["failureThreshold"] > s.drain_grace_s
    # and the model gets minutes to load and warm before the liveness probe counts
    start = c["startupProbe"]
    assert start["periodSeconds"] * start["failureThreshold"] >= 120


def test_autoscaler_scales_on_queue_depth_with_cpu_fallback(docs, settings_from):
    hpas = of_kind(docs, "HorizontalPodAutoscaler")
    if not hpas:
        pytest.skip("autoscaling.enabled=false")
    (hpa,) = hpas
    s = pod_settings(docs, settings_from)
    exported = {m.name for m in Metrics().registry.collect()}
    pods = [m["pods"] for m in hpa["spec"]["metrics"] if m["type"] == "Pods"]
    resources = [m["resource"] for m in hpa["spec"]["metrics"] if m["type"] == "Resource"]
    assert [p["metric"]["name"] for p in pods] == ["decider_queue_depth"]
    assert "decider_queue_depth" in exported
    assert 0 < float(pods[0]["target"]["averageValue"]) < s.max_queue, "scale before callers are turned away"
    assert [r["name"] for r in resources] == ["cpu"]
    assert resources[0]["target"]["type"] == "Utilization"
    assert "cpu" in container(docs)["resources"]["requests"], "CPU utilization is relative to the request"
    for pdb in of_kind(docs, "PodDisruptionBudget"):
        assert hpa["spec"]["minReplicas"] > pdb["spec"]["maxUnavailable"], "a drain must leave a pod serving"


def test_secret_files_come_from_mounted_secrets(docs, settings_from):
    env = decider_env(container(docs)["env"])
    s = pod_settings(docs, settings_from)
    mounts = {m["mountPath"]: m for m in container(docs)["volumeMounts"]}
    volumes = {v["name"]: v for v in pod_spec(docs)["volumes"]}
    files = {f: env["DECIDER_" + f.upper()] for f in SECRET_FILES if "DECIDER_" + f.upper() in env}
    for field, path in files.items():
        folder, name = path.rsplit("/", 1)
        assert folder in mounts, f"{field}: {folder} is not mounted"
        assert mounts[folder]["readOnly"] is True
        secret = volumes[mounts[folder]["name"]]["secret"]
        items = [i["path"] for i in secret.get("items", [])]
        assert name in (items or ["tls.crt", "tls.key", "ca.crt"]), f"{field}: {name} is not in the Secret"
    if s.checkpoint:
        assert any(str(s.checkpoint).startswith(m + "/") for m in mounts), f"{s.checkpoint} is not mounted"


def test_pods_run_locked_down(docs):
    spec, c = pod_spec(docs), container(docs)
    assert spec["securityContext"]["runAsNonRoot"] is True
    assert spec["securityContext"]["runAsUser"] == image_user(DOCKERFILES["cpu"])
    assert spec["automountServiceAccountToken"] is False
    assert c["securityContext"]["allowPrivilegeEscalation"] is False
    assert c["securityContext"]["capabilities"]["drop"] == ["ALL"]
    if c["securityContext"]["readOnlyRootFilesystem"]:
        tmp = next(m for m in c["volumeMounts"] if m["mountPath"] == "/tmp")
        assert "emptyDir" in next(v for v in spec["volumes"] if v["name"] == tmp["name"])
    assert {"cpu", "memory"} <= set(c["resources"]["requests"]) and "memory" in c["resources"]["limits"]


def test_plain_pods_have_no_replicas_fighting_the_autoscaler(docs):
    has_hpa = bool(of_kind(docs, "HorizontalPodAutoscaler"))
    assert ("replicas" in only(docs, "Deployment")["spec"]) != has_hpa


# ---- the chart ----

def test_chart_gpu_values_select_the_cuda_image_and_device(settings_from):
    docs = chart_docs("tls-gpu-model")
    c = container(docs)
    assert c["resources"]["limits"]["nvidia.com/gpu"] == CHART_VALUES["tls-gpu-model"]["gpu"]["count"]
    assert c["image"] == f"decider:{decider.__version__}-cuda"
    assert pod_settings(docs, settings_from).device == "cuda"
    plain = container(chart_docs("defaults"))
    assert "nvidia.com/gpu" not in plain["resources"]["limits"]
    assert plain["image"] == f"decider:{decider.__version__}"


def test_versions_agree():
    chart = yaml.safe_load((CHART / "Chart.yaml").read_text())
    assert chart["appVersion"] == decider.__version__
    assert container(kustomize_offline(K8S))["image"] == f"decider:{decider.__version__}"
    assert yaml.safe_load(COMPOSE.read_text())["services"]["decider"]["image"] == f"decider:{decider.__version__}"
    makefile_torch = re.search(r"torch==([\w.]+)", (ROOT / "Makefile").read_text()).group(1)
    for path in DOCKERFILES.values():
        assert f"ARG TORCH_VERSION={makefile_torch}" in path.read_text(), f"{path.name}: torch differs from make's"


def test_chart_notes_say_how_to_call_it():
    notes = render_chart(CHART, CHART_VALUES["tls-gpu-model"], release="prod", namespace="ml")["templates/NOTES.txt"]
    assert "dns:///prod-decider-headless.ml.svc.cluster.local:7000" in notes
    assert "grpcurl -cacert" in notes and "decider decide --server" in notes and "--token" in notes
    notes = render_chart(CHART, {}, release="decider", namespace="ml")["templates/NOTES.txt"]
    assert "dns:///decider-headless.ml.svc.cluster.local:50051" in notes
    assert "grpcurl -plaintext" in notes and "WARNING: no bearer tokens" in notes


@pytest.mark.parametrize("template, error", [
    ("{{ range .Values.x }}{{ end }}", "outside the subset"),
    ("{{ .Values.x | upper }}", "outside the subset"),
    ("{{ .Values.nosuch }}", "no value .Values.nosuch"),
    ("{{ .Values.tls }}", "cannot print"),
    ("{{ .Values.big }}", "exponent form"),
    ("{{ if .Values.x }}", "without {{ end }}"),
])
def test_renderer_refuses_what_it_does_not_implement(tmp_path, template, error):
    shutil.copytree(CHART, tmp_path / "chart")
    (tmp_path / "chart" / "templates" / "extra.yaml").write_text(template)
    with pytest.raises(TemplateError, match=re.escape(error)):
        render_chart(tmp_path / "chart", {"x": [1], "big": 2_000_000})


@pytest.mark.skipif(not shutil.which("helm"), reason="helm is not installed")
@pytest.mark.parametrize("name", sorted(CHART_VALUES))
def test_helm_renders_what_the_test_renderer_renders(tmp_path, name):
    values = tmp_path / "values.yaml"
    values.write_text(yaml.safe_dump(CHART_VALUES[name]))
    out = subprocess.run(["helm", "template", "decider", str(CHART), "--namespace", NAMESPACE, "-f", str(values),
                          "--kube-version", KUBERNETES[-1]], check=True, capture_output=True, text=True).stdout
    real = [d for d in yaml.safe_load_all(out) if d]
    assert sorted(real, key=kind_and_name) == sorted(chart_docs(name), key=kind_and_name)


# ---- kustomize ----

def test_tls_overlay_swaps_plaintext_for_tls(settings_from):
    plain = pod_settings(kustomize_offline(K8S), settings_from)
    tls = pod_settings(kustomize_offline(K8S / "tls"), settings_from)
    assert plain.insecure and not plain.tls_cert
    assert tls.tls_cert and tls.tls_key and not tls.insecure
    assert plain.tokens_file and tls.tokens_file, "bearer tokens in both"


def test_tls_overlay_fails_loudly_if_the_base_changes():
    base = only(kustomize_offline(K8S), "Deployment")
    base["spec"]["template"]["spec"]["containers"][0]["env"].reverse()
    with pytest.raises(ValueError, match="test failed"):
        json_patch(base, yaml.safe_load((K8S / "tls" / "deployment-tls.yaml").read_text()))


def _kustomize() -> list[str] | None:
    if shutil.which("kustomize"):
        return ["kustomize", "build"]
    if shutil.which("kubectl"):
        return ["kubectl", "kustomize"]
    return None


@pytest.mark.skipif(_kustomize() is None, reason="neither kustomize nor kubectl is installed")
@pytest.mark.parametrize("folder", [K8S, K8S / "tls"], ids=["plain", "tls"])
def test_kustomize_builds_what_the_tests_check(folder):
    out = subprocess.run([*_kustomize(), str(folder)], check=True, capture_output=True, text=True, timeout=120).stdout
    real = [d for d in yaml.safe_load_all(out) if d]
    assert sorted(real, key=kind_and_name) == sorted(kustomize_offline(folder), key=kind_and_name)


# ---- images ----

def dockerfile_stages(path: Path) -> list[list[tuple[str, str]]]:
    """The stages of a Dockerfile, each a list of (INSTRUCTION, arguments), with line
    continuations joined and comments dropped."""
    lines, current = [], ""
    for line in path.read_text().splitlines():
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        current += line.rstrip().removesuffix("\\").strip() + " "
        if not line.rstrip().endswith("\\"):
            lines.append(current.strip())
            current = ""
    stages: list[list[tuple[str, str]]] = [[]]
    for line in lines:
        instruction, _, args = line.partition(" ")
        instruction = instruction.upper()
        if instruction == "FROM" and stages[-1] and any(i == "FROM" for i, _ in stages[-1]):
            stages.append([])
        stages[-1].append((instruction, args.strip()))
    return stages


def final_stage(path: Path) -> list[tuple[str, str]]:
    return dockerfile_stages(path)[-1]


def instructions(stage, name: str) -> list[str]:
    return [args for instruction, args in stage if instruction == name]


def image_env(path: Path) -> dict[str, str]:
    env = {}
    for args in instructions(final_stage(path), "ENV"):
        for item in shlex.split(args):
            name, _, value = item.partition("=")
            env[name] = value
    return env


def image_user(path: Path) -> int:
    (user,) = instructions(final_stage(path), "USER")
    return int(user.split(":")[0])


@pytest.mark.parametrize("flavour", sorted(DOCKERFILES))
def test_image_is_multi_stage_slim_and_non_root(flavour):
    path = DOCKERFILES[flavour]
    stages = dockerfile_stages(path)
    assert len(stages) >= 2
    assert re.search(r"\bAS builder$", instructions(stages[0], "FROM")[0])
    final = stages[-1]
    assert instructions(final, "FROM") == ["${PYTHON_IMAGE}"]
    assert "-slim" in re.search(r"^ARG PYTHON_IMAGE=(\S+)$", path.read_text(), re.M).group(1)
    assert any(args.startswith("--from=builder ") for args in instructions(final, "COPY"))
    assert image_user(path) > 0, "USER is root"
    assert not any("pip install" in args for args in instructions(final, "RUN")), "build in the builder stage"


@pytest.mark.parametrize("flavour", sorted(DOCKERFILES))
def test_image_runs_decider_serve_with_valid_settings(flavour, settings_from):
    path = DOCKERFILES[flavour]
    final = final_stage(path)
    (entrypoint,) = instructions(final, "ENTRYPOINT")
    command = json.loads(entrypoint) + sum((json.loads(c) for c in instructions(final, "CMD")), [])
    assert command[:2] == ["decider", "serve"]
    env = decider_env(image_env(path))
    # the documented choice: the image listens on all interfaces but does not opt in to
    # plaintext; the deployer sets DECIDER_INSECURE=1 or gives TLS files
    with pytest.raises(ValueError, match="refusing plaintext"):
        settings_from(env)
    s = settings_from({**env, "DECIDER_INSECURE": "1"})
    exposed = {int(p) for args in instructions(final, "EXPOSE") for p in args.split()}
    assert exposed == {s.port, s.metrics_port}
    assert s.port == ServerSettings.model_fields["port"].default


@pytest.mark.parametrize("flavour", sorted(DOCKERFILES))
def test_image_health_check_is_installed_on_path(flavour):
    final = final_stage(DOCKERFILES[flavour])
    (check,) = instructions(final, "HEALTHCHECK")
    command = json.loads(check.split(" CMD ", 1)[1])
    assert command[0] == "decider-healthcheck"
    installed = [args.split()[-1] for args in instructions(final, "COPY")]
    assert f"/usr/local/bin/{command[0]}" in installed
    # the script's `env python3` must find the virtual environment (grpc, decider) first;
    # /usr/local/bin is on the base image's PATH
    assert (DEPLOY / "docker" / "healthcheck.py").read_text().startswith("#!/usr/bin/env python3\n")
    assert image_env(DOCKERFILES[flavour])["PATH"] == "/opt/venv/bin:$PATH"


def test_image_install_ships_every_package():
    """The images install decider from a wheel, not editable as `make` does: a package
    folder that pyproject.toml leaves out is missing there, and the server fails at its
    first import from it (an editable install hides this)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # setuptools' notices about pyproject.toml, not ours to act on
        dist = apply_configuration(Distribution(), ROOT / "pyproject.toml")
    on_disk = {".".join((package, *init.parent.relative_to(ROOT / folder).parts))
               for package, folder in dist.package_dir.items() for init in (ROOT / folder).rglob("__init__.py")}
    missing = sorted(on_disk - set(dist.packages))
    assert not missing, f"pyproject.toml [tool.setuptools] packages lacks {missing}"
    model = [p.relative_to(ROOT / "engine").as_posix() for p in (ROOT / "engine" / "checkpoints").rglob("*")
             if p.is_file()]
    unshipped = [f for f in model if not any(fnmatch.fnmatch(f, g) for g in dist.package_data["decider.engine"])]
    assert model and not unshipped, f"not package data, so not in the image: {unshipped}"


def test_no_folder_at_the_root_hides_an_installed_package():
    """`python -m pytest`, `python -c` and a REPL started here put the checkout's root first on
    sys.path, so a package folder there named like another distribution's top-level package
    hides it (transformers 5 imports Hugging Face's `kernels`, which a `kernels/` folder here
    used to replace)."""
    installed = importlib.metadata.packages_distributions()
    ours = {"decider", "decider-client", "decider_client"}
    hidden = {path.name: installed[path.stem] for path in ROOT.iterdir()
              if ((path / "__init__.py").exists() or path.suffix == ".py") and path.stem in installed
              and not set(installed[path.stem]) <= ours}
    assert not hidden, f"these folders at the root hide installed packages of the same name: {hidden}"


def test_cpu_image_gets_the_cpu_torch():
    text = DOCKERFILES["cpu"].read_text()
    assert "--index-url https://download.pytorch.org/whl/cpu" in text
    assert image_env(DOCKERFILES["cuda"])["DECIDER_DEVICE"] == "cuda"


class DockerIgnore:
    """.dockerignore as Docker reads it: patterns in order, the last match wins, `!`
    re-includes, and a pattern that matches a folder matches everything in it."""

    def __init__(self, path: Path):
        self.rules = []
        for line in path.read_text().splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                negate = line.startswith("!")
                pattern = line.removeprefix("!").strip().strip("/")
                self.rules.append((re.compile(self._regex(pattern)), negate, pattern))

    @staticmethod
    def _regex(pattern: str) -> str:
        out, i = "", 0
        while i < len(pattern):
            if pattern.startswith("**/", i):
                out, i = out + "(?:.*/)?", i + 3
            elif pattern.startswith("**", i):
                out, i = out + ".*", i + 2
            elif pattern[i] == "*":
                out, i = out + "[^/]*", i + 1
            elif pattern[i] == "?":
                out, i = out + "[^/]", i + 1
            elif pattern[i] == "[":
                end = pattern.index("]", i)
                out, i = out + pattern[i:end + 1], end + 1
            else:
                out, i = out + re.escape(pattern[i]), i + 1
        return out

    def excluded(self, rel: str) -> bool:
        parts = rel.split("/")
        prefixes = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
        result = False
        for regex, negate, _ in self.rules:
            if any(regex.fullmatch(p) for p in prefixes):
                result = not negate
        return result

    def context(self, root: Path) -> list[Path]:
        """The files the build context holds (folders with nothing re-included are skipped)."""
        reincluded = [pattern for _, negate, pattern in self.rules if negate]
        files = []
        for folder, dirs, names in os.walk(root):
            rel = Path(folder).relative_to(root).as_posix()
            rel = "" if rel == "." else rel
            join = lambda n: f"{rel}/{n}" if rel else n  # noqa: E731
            dirs[:] = [d for d in dirs if not self.excluded(join(d)) or any(p.startswith(join(d) + "/")
                                                                            for p in reincluded)]
            files += [Path(folder) / n for n in names if not self.excluded(join(n))]
        return files


def test_dockerignore_keeps_the_build_inputs_and_drops_the_rest():
    ignore = DockerIgnore(ROOT / ".dockerignore")
    copies = [args.split() for path in DOCKERFILES.values() for stage in dockerfile_stages(path)
              for args in instructions(stage, "COPY") if not args.startswith("--from=")]
    sources = {source for args in copies for source in args[:-1] if not source.startswith("--")}
    assert sources >= {"decider", "engine", "clients/python", "pyproject.toml", "README.md"}
    for source in sources:
        assert (ROOT / source).exists(), f"COPY {source}: no such path"
        assert not ignore.excluded(source), f"COPY {source}: excluded by .dockerignore"
    for kept in ["engine/checkpoints/decider-small/model.safetensors", "engine/checkpoints/decider-small/tokenizer.json",
                 "engine/configs/decider-small.yaml", "clients/python/decider_client/v1/decider_pb2.py",
                 "proto/decider/v1/decider.proto"]:
        assert (ROOT / kept).exists() and not ignore.excluded(kept), kept
    for dropped in [".venv/bin/python", "runs/decider-small/model.safetensors", ".git/HEAD", "tests/test_server.py",
                    "docs/eval/test.json", "bench/serve_speed.py", ".whl/pydantic-2.14.4-py3-none-any.whl",
                    "decider/__pycache__/server.cpython-311.pyc", "decider.egg-info/PKG-INFO",
                    "clients/python/decider_client.egg-info/PKG-INFO", "deploy/helm/decider/values.yaml"]:
        assert ignore.excluded(dropped), dropped


def test_build_context_is_small():
    files = DockerIgnore(ROOT / ".dockerignore").context(ROOT)
    size = sum(f.stat().st_size for f in files)
    assert any(f.name == "model.safetensors" for f in files)
    assert size < 64 * 2**20, f"build context {size / 2**20:.0f} MiB: something large slipped past .dockerignore"


# ---- compose ----

def test_compose_builds_the_cpu_image_and_runs_it_valid(settings_from):
    compose = yaml.safe_load(COMPOSE.read_text())
    for name, service in compose["services"].items():
        if "build" in service:
            context = (COMPOSE.parent / service["build"]["context"]).resolve()
            assert (context / service["build"]["dockerfile"]).is_file(), f"{name}: no such Dockerfile"
    decider_service = compose["services"]["decider"]
    context = (COMPOSE.parent / decider_service["build"]["context"]).resolve()
    assert context == ROOT, "the Dockerfiles COPY from the repository root"
    assert context / decider_service["build"]["dockerfile"] == DOCKERFILES["cpu"]
    env = {**decider_env(image_env(DOCKERFILES["cpu"])), **decider_env(decider_service["environment"])}
    s = settings_from(env)
    published = {}
    for spec in decider_service["ports"]:
        host_ip, host_port, container_port = spec.split(":")
        published[int(container_port)] = host_ip
    assert set(published) == {s.port, s.metrics_port}
    if s.insecure:
        assert set(published.values()) == {"127.0.0.1"}, "plaintext is published on loopback only"
    assert int(decider_service["stop_grace_period"].removesuffix("s")) > s.drain_grace_s + FINAL_STOP_S


def test_compose_prometheus_scrapes_decider():
    compose = yaml.safe_load(COMPOSE.read_text())
    s_port = int(decider_env(image_env(DOCKERFILES["cpu"]))["DECIDER_METRICS_PORT"])
    (mount,) = compose["services"]["prometheus"]["volumes"]
    source, target, _ = mount.split(":")
    assert target == "/etc/prometheus/prometheus.yml"
    config = yaml.safe_load((COMPOSE.parent / source).read_text())
    targets = [t for job in config["scrape_configs"] for sc in job["static_configs"] for t in sc["targets"]]
    assert targets == [f"decider:{s_port}"]
    assert "decider" in compose["services"]


# ---- the health check in the images ----

def load_healthcheck():
    spec = importlib.util.spec_from_file_location("decider_healthcheck", DEPLOY / "docker" / "healthcheck.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture()
def health_server():
    """A grpc.health.v1 server on 127.0.0.1 (no model): start(credentials) -> (port, servicer)."""
    servers = []

    def start(credentials=None):
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        servicer = health.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
        port = (server.add_secure_port("127.0.0.1:0", credentials) if credentials
                else server.add_insecure_port("127.0.0.1:0"))
        server.start()
        servers.append(server)
        return port, servicer

    yield start
    for server in servers:
        server.stop(None)


def test_healthcheck_follows_the_serving_status(monkeypatch, health_server):
    check = load_healthcheck()
    port, servicer = health_server()
    # as in the image: all interfaces, plaintext opted in; the check asks over loopback
    set_decider_env(monkeypatch, {"DECIDER_HOST": "0.0.0.0", "DECIDER_INSECURE": "1", "DECIDER_PORT": port})
    servicer.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
    assert check.main(["--timeout", "2"]) == 1
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    assert check.main(["--timeout", "2"]) == 0
    set_decider_env(monkeypatch, {"DECIDER_PORT": free_port()})
    assert check.main(["--timeout", "1"]) == 1


def test_healthcheck_speaks_tls_and_mutual_tls(monkeypatch, health_server, tmp_path):
    check = load_healthcheck()
    certs = make_certs(tmp_path)  # the server certificate names localhost and 127.0.0.1
    pair = [(certs["server_key"].read_bytes(), certs["server_cert"].read_bytes())]
    tls_env = {"DECIDER_TLS_CERT": certs["server_cert"], "DECIDER_TLS_KEY": certs["server_key"]}

    port, servicer = health_server(grpc.ssl_server_credentials(pair))
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    set_decider_env(monkeypatch, {**tls_env, "DECIDER_PORT": port})
    assert check.main(["--timeout", "2"]) == 0
    assert check.main(["--timeout", "2", "--server-name", "not-in-the-certificate.example"]) == 1

    port, servicer = health_server(grpc.ssl_server_credentials(pair, root_certificates=certs["ca_cert"].read_bytes(),
                                                               require_client_auth=True))
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    set_decider_env(monkeypatch, {**tls_env, "DECIDER_PORT": port, "DECIDER_TLS_CLIENT_CA": certs["ca_cert"]})
    assert check.main(["--timeout", "2"]) == 0
    set_decider_env(monkeypatch, {**tls_env, "DECIDER_PORT": port})  # no client certificate presented
    assert check.main(["--timeout", "2"]) == 1
