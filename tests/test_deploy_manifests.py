"""The deployment manifests cannot drift from the server they deploy.

deploy/kubernetes/ (Deployment, Service, PodDisruptionBudget, the Secret's example, the
kustomization) and docker/compose.cluster.yaml (three nodes, PostgreSQL, nginx-rtmp) are read and
checked against the binary under test ($TESSERA_BIN):

- every `--flag` their command lines give `tessera serve` is one that `tessera serve --help`
  lists, and every `TESSERA_*` variable they name is one it lists; the compose health checks'
  flags are ones `tessera healthcheck --help` lists;
- the probe paths (/healthz, /readyz) are routes of a running server's OpenAPI document that need
  no token, and answer 200 without one — from a server started with the Deployment's own
  arguments and environment (the store left out: no PostgreSQL here);
- ports agree: container port, probes, Service, advertise URL, `--port`; per compose node its
  port, advertise URL and health check; the store URL names the PostgreSQL service's port;
- the grace periods are longer than a drain (`--shutdown-seconds` plus the handover), and the CPU
  request covers the tasks (`--max-tasks` × 2 cores).

The manifests are read with PyYAML (`yaml.safe_load_all`). Kubernetes and docker compose read
them with other parsers, of two YAML versions, so an unquoted value that YAML 1.1 and YAML 1.2
read differently (`on`, `0755`, `10:30`) is refused: quote it.
"""
from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from helpers import REPO, TESSERA_BIN

sys.path.insert(0, str(Path(__file__).resolve().parent / "live"))
from livetools import TesseraServer, log_tail  # noqa: E402  (tests/live is not on the path here)

KUBE_DIR = REPO / "deploy" / "kubernetes"
COMPOSE_CLUSTER = REPO / "docker" / "compose.cluster.yaml"
DOCKERFILE = REPO / "docker" / "Dockerfile"

# Seconds a drain needs beyond --shutdown-seconds: handing the tasks over (stopped here, started
# there; the RTMP outputs are back within 5 s) and the process exit.
HANDOVER_SECONDS = 10
# CPU cores to request per task (--max-tasks): one 2x2 720p30 task takes about 1.3 cores and
# holds real time with 2.
CORES_PER_TASK = 2
LIVENESS_PATH = "/healthz"
READINESS_PATH = "/readyz"


# --------------------------------------------------------------------------------------------- #
# reading the manifests
# --------------------------------------------------------------------------------------------- #
# YAML 1.2's core schema for plain (unquoted) scalars: what docker compose's parser (go-yaml v3)
# applies. PyYAML, like Kubernetes' go-yaml v2, follows YAML 1.1, where `on` / `yes` / `no` are
# booleans, `0755` is octal, `10:30` is base 60, `1_000` is a number and `2024-01-02` a date.
_CORE_SCHEMA = (
    (type(None), r"~|null|Null|NULL|"),
    (bool, r"true|True|TRUE|false|False|FALSE"),
    (int, r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"),
    (float, r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)"),
)


def read_as_yaml_1_2(text: str):
    """A plain scalar as YAML 1.2's core schema reads it."""
    kind = next((k for k, pattern in _CORE_SCHEMA if re.fullmatch(pattern, text)), str)
    if kind is bool:
        return text.lower() == "true"
    if kind is int:
        return int(text[2:], 8) if text.startswith("0o") else int(text, 16 if text.startswith("0x") else 10)
    if kind is float:
        return float(text.lower().replace(".inf", "inf").replace(".nan", "nan"))
    return None if kind is type(None) else text


def yaml_version_pitfalls(text: str) -> list[str]:
    """The plain scalars of a YAML stream that PyYAML (YAML 1.1) reads as another type or value
    than YAML 1.2 does, as `line N: text`."""
    loader = yaml.SafeLoader(text)
    found = []

    def walk(node):
        if isinstance(node, yaml.ScalarNode):
            implicit = node.tag == loader.resolve(yaml.ScalarNode, node.value, (True, False))
            if node.style is None and implicit:
                v11, v12 = loader.construct_object(node), read_as_yaml_1_2(node.value)
                if type(v11) is not type(v12) or (v11 != v12 and v11 == v11):  # nan == nan here
                    found.append(f"line {node.start_mark.line + 1}: {node.value}")
        elif isinstance(node, yaml.SequenceNode):
            for child in node.value:
                walk(child)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                walk(key)
                walk(value)

    try:
        while loader.check_node():
            walk(loader.get_node())
    finally:
        loader.dispose()
    return found


def load_yaml_file(path: Path) -> list:
    """The documents of a manifest (empty ones left out), refusing values the YAML versions read
    differently."""
    text = path.read_text()
    pitfalls = yaml_version_pitfalls(text)
    assert not pitfalls, (f"{path.relative_to(REPO)}: {pitfalls} read differently in YAML 1.1 (Kubernetes) "
                          f"and YAML 1.2 (docker compose): quote them")
    return [d for d in yaml.safe_load_all(text) if d is not None]


# --------------------------------------------------------------------------------------------- #
# what the binary says
# --------------------------------------------------------------------------------------------- #
@dataclass
class Help:
    command: str
    text: str
    flags: dict[str, bool]  # --flag → takes a value
    variables: set[str]


def read_help(*subcommand: str) -> Help:
    if not TESSERA_BIN.exists():
        pytest.fail(f"tessera binary not found at {TESSERA_BIN}: build it (scripts/install.sh) or set TESSERA_BIN")
    r = subprocess.run([str(TESSERA_BIN), *subcommand, "--help"], capture_output=True, text=True, timeout=30)
    text = r.stdout + r.stderr
    assert r.returncode == 0, f"`tessera {' '.join(subcommand)} --help` exited {r.returncode}:\n{text}"
    flags = {m.group(1): m.group(2) is not None
             for m in re.finditer(r"(?m)^\s{2,}(?:-\w, )?(--[a-z][a-z0-9-]*)( <[^>]+>)?", text)}
    assert "--help" in flags, f"`tessera {' '.join(subcommand)} --help` lists no options:\n{text}"
    return Help(" ".join(subcommand), text, flags, set(re.findall(r"\bTESSERA_[A-Z0-9_]+\b", text)))


@pytest.fixture(scope="module")
def serve_help() -> Help:
    return read_help("serve")


@pytest.fixture(scope="module")
def healthcheck_help() -> Help:
    return read_help("healthcheck")


def parse_options(argv: list[str], help_: Help, where: str) -> dict[str, str]:
    """`--flag value` / `--flag=value` pairs of argv (the last of a repeated flag wins), checked
    against the help: an unknown flag, a missing value or a stray argument is an assertion."""
    options, unknown, k = {}, [], 0
    while k < len(argv):
        token = argv[k]
        assert token.startswith("--"), f"{where}: {token!r} is not an option (tessera serve takes no arguments)"
        name, eq, value = token.partition("=")
        if name not in help_.flags:
            unknown.append(name)
            k += 1 if eq or k + 1 >= len(argv) or argv[k + 1].startswith("--") else 2
            continue
        if help_.flags[name] and not eq:
            assert k + 1 < len(argv), f"{where}: {name} needs a value"
            value = argv[k + 1]
            k += 2
        else:
            k += 1
        options[name] = value
    assert not unknown, (f"{where}: {sorted(set(unknown))} not listed by `tessera {help_.command} --help`, "
                         f"which lists {sorted(help_.flags)}")
    return options


# --------------------------------------------------------------------------------------------- #
# the image (docker/Dockerfile): entry point and environment
# --------------------------------------------------------------------------------------------- #
def dockerfile_lines(path: Path) -> list[str]:
    lines, current = [], ""
    for raw in path.read_text().splitlines():
        if raw.lstrip().startswith("#"):
            continue
        if raw.endswith("\\"):
            current += raw[:-1].rstrip() + " "
        else:
            lines.append((current + raw).strip())
            current = ""
    return [line for line in lines if line]


def image_base(dockerfile: Path, target: str | None) -> tuple[str, list[list[str]]]:
    """The external image a target (default: the last stage) runs on, following `FROM <stage>`
    through the file's own stages with the ARG defaults filled in; and the lines of the stages
    on that chain."""
    args, stages, names = {}, [], {}
    for line in dockerfile_lines(dockerfile):
        if line.startswith("ARG ") and not stages and "=" in line:
            name, _, value = line[len("ARG "):].partition("=")
            args[name.strip()] = value.strip().strip('"')
        elif line.startswith("FROM "):
            words = line.split()
            base = re.sub(r"\$\{(\w+)\}", lambda m: args.get(m.group(1), m.group(0)), words[1])
            stages.append((base, []))
            if len(words) >= 4 and words[2].upper() == "AS":
                names[words[3]] = len(stages) - 1
        elif stages:
            stages[-1][1].append(line)
    assert stages, f"{dockerfile}: no FROM"
    index = names[target] if target else len(stages) - 1
    chain = []
    while True:
        base, lines = stages[index]
        chain.append(lines)
        if base not in names:
            return base, chain
        index = names[base]


def image_entrypoint() -> list[str]:
    entry = [line for line in dockerfile_lines(DOCKERFILE) if line.startswith("ENTRYPOINT ")]
    assert entry, "docker/Dockerfile has no ENTRYPOINT"
    return json.loads(entry[-1][len("ENTRYPOINT "):])


def image_environment() -> dict[str, str]:
    env = {}
    for line in dockerfile_lines(DOCKERFILE):
        if line.startswith("ENV "):
            for word in shlex.split(line[len("ENV "):]):
                name, _, value = word.partition("=")
                env[name] = value
    return env


def serve_options(argv: list[str], help_: Help, where: str) -> dict[str, str]:
    assert argv[:2] == ["tessera", "serve"], f"{where}: the command is {argv[:2]}, not `tessera serve`"
    return parse_options(argv[2:], help_, where)


def setting(options: dict, env: dict, name: str, default=None):
    """A setting as the server resolves it: flag, then variable, then default."""
    flag = "--" + name
    variable = "TESSERA_" + name.upper().replace("-", "_")
    if flag in options:
        return options[flag]
    return env.get(variable, default)


def help_default(help_: Help, flag: str) -> str | None:
    m = re.search(r"(?m)^\s{2,}" + re.escape(flag) + r"\b.*?\[default:\s*([^\]]+)\]", help_.text, re.S)
    return " ".join(m.group(1).split()) if m else None


def as_int(value, what: str) -> int:
    try:
        return int(str(value))
    except ValueError:
        raise AssertionError(f"{what}: {value!r} is not a whole number") from None


# --------------------------------------------------------------------------------------------- #
# the Kubernetes manifests
# --------------------------------------------------------------------------------------------- #
@dataclass
class Kube:
    deployment: dict
    service: dict
    pdb: dict
    secret: dict
    kustomization: dict
    texts: dict[str, str]

    @property
    def pod(self) -> dict:
        return self.deployment["spec"]["template"]["spec"]

    @property
    def container(self) -> dict:
        containers = self.pod["containers"]
        named = [c for c in containers if c.get("name") == "tessera"]
        assert len(named) == 1, f"deployment.yaml: expected one container named tessera, got {[c.get('name') for c in containers]}"
        return named[0]

    def argv(self) -> list[str]:
        c = self.container
        return [str(a) for a in (c.get("command") or image_entrypoint()) + (c.get("args") or [])]

    def env_entries(self) -> list[dict]:
        return self.container.get("env") or []

    def literal_env(self, substitutions: dict[str, str] | None = None) -> dict[str, str]:
        """The container's environment as the kubelet builds it: `value`s with `$(VAR)` expanded
        from earlier entries; fieldRef / secretKeyRef entries from `substitutions` when given."""
        env: dict[str, str] = {}
        for entry in self.env_entries():
            name = entry["name"]
            if "value" in entry:
                env[name] = re.sub(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)",
                                   lambda m: env.get(m.group(1), m.group(0)), str(entry["value"]))
            elif substitutions is not None and name in substitutions:
                env[name] = substitutions[name]
        return env


def resource_of(docs_by_file: dict[str, list], kind: str) -> dict:
    found = [(f, d) for f, docs in docs_by_file.items() for d in docs if isinstance(d, dict) and d.get("kind") == kind]
    assert len(found) == 1, f"deploy/kubernetes: expected one {kind}, found {[f for f, _ in found]}"
    return found[0][1]


@pytest.fixture(scope="module")
def kube() -> Kube:
    assert KUBE_DIR.is_dir(), f"{KUBE_DIR} is missing"
    files = sorted(KUBE_DIR.glob("*.yaml"))
    docs = {f.name: load_yaml_file(f) for f in files}
    return Kube(deployment=resource_of(docs, "Deployment"), service=resource_of(docs, "Service"),
                pdb=resource_of(docs, "PodDisruptionBudget"), secret=resource_of(docs, "Secret"),
                kustomization=resource_of(docs, "Kustomization"),
                texts={f.name: f.read_text() for f in files})


def test_kustomization_lists_every_manifest_but_the_secret_example(kube):
    resources = kube.kustomization.get("resources") or []
    for r in resources:
        assert (KUBE_DIR / r).is_file(), f"kustomization.yaml lists {r}, which does not exist"
    manifests = {f.name for f in KUBE_DIR.glob("*.yaml")} - {"kustomization.yaml", "secret.example.yaml"}
    assert set(resources) == manifests, (f"kustomization.yaml resources {sorted(resources)} != the manifests "
                                         f"{sorted(manifests)} (secret.example.yaml stays out: placeholders)")
    assert (KUBE_DIR / "secret.example.yaml").is_file()
    assert (KUBE_DIR / "README.md").is_file()


def test_deployment_flags_are_serve_flags(kube, serve_help):
    serve_options(kube.argv(), serve_help, "deployment.yaml (image ENTRYPOINT + args)")


def test_manifest_variables_are_serve_settings(kube, serve_help):
    texts = dict(kube.texts)
    texts[COMPOSE_CLUSTER.name] = COMPOSE_CLUSTER.read_text()
    for name, text in texts.items():
        named = set(re.findall(r"\bTESSERA_[A-Z0-9_]+\b", text))
        unknown = named - serve_help.variables
        assert not unknown, (f"{name} names {sorted(unknown)}, which `tessera serve --help` does not list "
                             f"(it lists {sorted(serve_help.variables)})")
    env_names = {e["name"] for e in kube.env_entries()}
    for required in ("TESSERA_API_TOKEN", "TESSERA_STORE", "TESSERA_NODE_ID", "TESSERA_ADVERTISE_URL"):
        assert required in env_names, f"deployment.yaml: the container's env has no {required}"


def test_deployment_identity_secret_and_advertise_url(kube):
    entries = {e["name"]: e for e in kube.env_entries()}
    order = [e["name"] for e in kube.env_entries()]
    assert entries["TESSERA_NODE_ID"].get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "metadata.name", \
        "deployment.yaml: TESSERA_NODE_ID must come from the pod name (fieldRef metadata.name)"
    pod_ip = entries.get("POD_IP", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
    assert pod_ip == "status.podIP", "deployment.yaml: POD_IP must come from fieldRef status.podIP"
    assert order.index("POD_IP") < order.index("TESSERA_ADVERTISE_URL"), \
        "deployment.yaml: POD_IP must come before TESSERA_ADVERTISE_URL, which refers to it as $(POD_IP)"
    advertise = str(entries["TESSERA_ADVERTISE_URL"].get("value", ""))
    assert re.fullmatch(r"http://\$\(POD_IP\):\d+", advertise), \
        f"deployment.yaml: TESSERA_ADVERTISE_URL should be http://$(POD_IP):PORT, got {advertise!r}"

    secret_name = kube.secret["metadata"]["name"]
    secret_keys = set((kube.secret.get("stringData") or {})) | set((kube.secret.get("data") or {}))
    for variable in ("TESSERA_API_TOKEN", "TESSERA_STORE"):
        ref = entries[variable].get("valueFrom", {}).get("secretKeyRef")
        assert ref, f"deployment.yaml: {variable} must come from a Secret (secretKeyRef)"
        assert ref.get("name") == secret_name, \
            f"deployment.yaml: {variable} reads Secret {ref.get('name')!r}; secret.example.yaml is {secret_name!r}"
        assert ref.get("key") in secret_keys, \
            f"deployment.yaml: {variable} reads key {ref.get('key')!r}; secret.example.yaml has {sorted(secret_keys)}"
    store_key = entries["TESSERA_STORE"]["valueFrom"]["secretKeyRef"]["key"]
    store = (kube.secret.get("stringData") or {}).get(store_key, "")
    assert str(store).startswith("postgres://"), f"secret.example.yaml: {store_key} should be a postgres:// URL, got {store!r}"


def resolve_port(ports: list[dict], ref, where: str) -> int:
    if isinstance(ref, int):
        return ref
    named = [p["containerPort"] for p in ports if p.get("name") == ref]
    assert named, f"{where}: port {ref!r} is not a named port of the container ({ports})"
    return named[0]


def test_deployment_ports_probes_and_grace(kube, serve_help):
    options = serve_options(kube.argv(), serve_help, "deployment.yaml")
    env = {**image_environment(), **kube.literal_env()}
    port = as_int(setting(options, env, "port", help_default(serve_help, "--port") or "8080"), "the serve port")
    ports = kube.container.get("ports") or []
    tcp = [p for p in ports if p.get("protocol", "TCP") == "TCP"]
    assert [p["containerPort"] for p in tcp] == [port], \
        f"deployment.yaml: the container's TCP ports {[p['containerPort'] for p in tcp]} != the serve port {port}"

    advertise = urlsplit(kube.literal_env()["TESSERA_ADVERTISE_URL"].replace("$(POD_IP)", "10.0.0.1"))
    assert advertise.port == port, f"deployment.yaml: TESSERA_ADVERTISE_URL's port {advertise.port} != the serve port {port}"

    for probe, path in (("livenessProbe", LIVENESS_PATH), ("readinessProbe", READINESS_PATH)):
        get = (kube.container.get(probe) or {}).get("httpGet")
        assert get, f"deployment.yaml: no {probe}.httpGet"
        assert get.get("path") == path, f"deployment.yaml: {probe} asks {get.get('path')!r}, expected {path}"
        assert resolve_port(ports, get.get("port"), f"deployment.yaml {probe}") == port, \
            f"deployment.yaml: {probe} asks port {get.get('port')!r}, not the serve port {port}"

    service_ports = kube.service["spec"]["ports"]
    assert len(service_ports) == 1
    assert resolve_port(ports, service_ports[0].get("targetPort", service_ports[0]["port"]), "service.yaml") == port
    assert service_ports[0]["port"] == 8080, "service.yaml: the Service port should be 8080"

    shutdown = as_int(setting(options, env, "shutdown-seconds", help_default(serve_help, "--shutdown-seconds") or "10"),
                      "--shutdown-seconds")
    grace = kube.pod.get("terminationGracePeriodSeconds", 30)
    assert grace > shutdown + HANDOVER_SECONDS, (
        f"deployment.yaml: terminationGracePeriodSeconds {grace} must be longer than a drain: "
        f"--shutdown-seconds {shutdown} + {HANDOVER_SECONDS} s handover")


def cpu_cores(quantity) -> float:
    text = str(quantity)
    return float(text[:-1]) / 1000 if text.endswith("m") else float(text)


def test_deployment_resources_replicas_and_selectors(kube, serve_help):
    options = serve_options(kube.argv(), serve_help, "deployment.yaml")
    env = {**image_environment(), **kube.literal_env()}
    max_tasks = as_int(setting(options, env, "max-tasks", help_default(serve_help, "--max-tasks")), "--max-tasks")
    cpu = (kube.container.get("resources", {}).get("requests") or {}).get("cpu")
    assert cpu is not None, "deployment.yaml: no CPU request"
    assert cpu_cores(cpu) >= CORES_PER_TASK * max_tasks, (
        f"deployment.yaml: requests {cpu} CPU for --max-tasks {max_tasks}; a task needs about "
        f"{CORES_PER_TASK} cores, so request at least {CORES_PER_TASK * max_tasks}")
    assert (kube.container.get("resources", {}).get("requests") or {}).get("memory"), "deployment.yaml: no memory request"

    assert kube.deployment["spec"]["replicas"] == 3
    labels = kube.deployment["spec"]["template"]["metadata"]["labels"]
    for where, selector in (("deployment.yaml", kube.deployment["spec"]["selector"]["matchLabels"]),
                            ("service.yaml", kube.service["spec"]["selector"]),
                            ("poddisruptionbudget.yaml", kube.pdb["spec"]["selector"]["matchLabels"])):
        assert selector and all(labels.get(k) == v for k, v in selector.items()), \
            f"{where}: selector {selector} does not select the pods (labels {labels})"
    assert kube.pdb["spec"].get("maxUnavailable") == 1, "poddisruptionbudget.yaml: maxUnavailable should be 1"

    mounts = [m["mountPath"].rstrip("/") for m in kube.container.get("volumeMounts") or []]
    for flag in ("--media-root", "--output-dir", "--state-dir"):
        value = setting(options, env, flag[2:])
        if value:
            assert any(value == m or value.startswith(m + "/") for m in mounts), \
                f"deployment.yaml: {flag} {value} is not on a mounted volume ({mounts})"


def test_probe_paths_are_open_routes_of_the_server(kube, serve_help, tmp_path, monkeypatch):
    """A server started with the Deployment's arguments and environment (the listening address,
    directories and advertise URL moved to this machine, the store left out) serves both probe
    paths: they are in its OpenAPI document without security, and answer 200 with no token."""
    options = serve_options(kube.argv(), serve_help, "deployment.yaml")
    local = {"--host", "--port", "--media-root", "--output-dir", "--state-dir", "--advertise-url", "--store"}
    args = [part for flag, value in options.items() if flag not in local for part in (flag, value)]
    srv = TesseraServer(tmp_path / "serve", tmp_path, extra_args=args)

    secret = kube.secret.get("stringData") or {}
    substitutions = {"POD_IP": "127.0.0.1", "TESSERA_NODE_ID": "tessera-test-0"}
    for entry in kube.env_entries():
        ref = entry.get("valueFrom", {}).get("secretKeyRef")
        if ref:
            substitutions[entry["name"]] = str(secret.get(ref["key"], ""))
    env = kube.literal_env(substitutions)
    env.pop("TESSERA_STORE", None)  # no PostgreSQL here: the embedded store
    env.pop("TESSERA_PORT", None)
    env["TESSERA_ADVERTISE_URL"] = f"http://127.0.0.1:{srv.port}"
    for variable in serve_help.variables:
        monkeypatch.delenv(variable, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    token = env.get("TESSERA_API_TOKEN")
    assert token, "deployment.yaml + secret.example.yaml give no API token"

    srv.start()
    try:
        r = srv.client.get("/openapi.yaml", headers={"Authorization": f"Bearer {token}"})
        assert r.status == 200, f"GET /openapi.yaml: {r.status} {r.body[:300]!r}"
        paths = openapi_paths(r.body.decode())
        for path in (LIVENESS_PATH, READINESS_PATH):
            assert path in paths, f"{path} is not a route of the server's OpenAPI document (it has {sorted(paths)})"
            assert paths[path].get("get") is not None, f"the OpenAPI document has no GET {path}"
            assert paths[path]["get"], f"GET {path} asks a token in the OpenAPI document (no `security: []`)"
            probe = srv.client.get(path)
            assert probe.status == 200, f"GET {path} without a token: {probe.status} {probe.body[:300]!r}"
        assert srv.client.get("/v1/tasks").status == 401, "the Secret's token did not reach the server"
    finally:
        rc = srv.terminate(20)
        if rc != 0:
            print(log_tail(srv.log))
    assert rc == 0, f"tessera serve exited {rc} after SIGTERM:\n{log_tail(srv.log)}"


def openapi_paths(document: str) -> dict[str, dict[str, bool]]:
    """path → {method: open (has `security: []`)}, read from the document's text (two-space
    indentation: paths at 2, methods at 4, their fields at 6)."""
    paths: dict[str, dict[str, bool]] = {}
    in_paths, path, method = False, None, None
    for line in document.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent == 0:
            in_paths = line.rstrip() == "paths:"
            path = method = None
            continue
        if not in_paths:
            continue
        if indent == 2:
            m = re.fullmatch(r"\s*['\"]?(/[^'\":]*)['\"]?:\s*", line)
            path = m.group(1) if m else None
            if path:
                paths[path] = {}
            method = None
        elif indent == 4 and path:
            m = re.fullmatch(r"\s*(get|put|post|patch|delete|head|options):\s*", line)
            method = m.group(1) if m else None
            if method:
                paths[path][method] = False
        elif indent == 6 and path and method and re.fullmatch(r"\s*security:\s*\[\s*\]\s*", line):
            paths[path][method] = True
    return paths


# --------------------------------------------------------------------------------------------- #
# docker/compose.cluster.yaml
# --------------------------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def cluster() -> dict:
    assert COMPOSE_CLUSTER.is_file(), f"{COMPOSE_CLUSTER} is missing"
    docs = load_yaml_file(COMPOSE_CLUSTER)
    assert len(docs) == 1
    return docs[0]


def compose_argv(service: dict) -> list[str]:
    def words(v):
        return v.split() if isinstance(v, str) else [str(x) for x in v or []]
    entry = words(service.get("entrypoint")) if "entrypoint" in service else image_entrypoint()
    return entry + words(service.get("command"))


def duration_seconds(text) -> float:
    if isinstance(text, (int, float)):
        return float(text)
    parts = re.findall(r"(\d+(?:\.\d+)?)(h|ms|us|m|s)", str(text))
    assert parts and "".join(a + b for a, b in parts) == str(text), f"not a compose duration: {text!r}"
    scale = {"h": 3600, "m": 60, "s": 1, "ms": 0.001, "us": 0.000001}
    return sum(float(a) * scale[b] for a, b in parts)


def tessera_nodes(cluster: dict) -> dict[str, dict]:
    return {name: s for name, s in cluster["services"].items()
            if s.get("image", "").startswith("tessera:")
            or (s.get("build") or {}).get("dockerfile") == "docker/Dockerfile"}


def rtp_range(text: str) -> range:
    first, last = (int(x) for x in str(text).split("-"))
    return range(first, last + 1)


def test_compose_cluster_nodes_match_the_server(cluster, serve_help, healthcheck_help):
    services = cluster["services"]
    nodes = tessera_nodes(cluster)
    assert sorted(nodes) == ["tessera-1", "tessera-2", "tessera-3"], f"compose.cluster.yaml: nodes {sorted(nodes)}"
    postgres = services.get("postgres")
    assert postgres, "compose.cluster.yaml: no postgres service"
    pg_port = 5432
    for word in compose_argv(postgres):
        if word.startswith("port="):
            pg_port = int(word.split("=", 1)[1])

    seen_ports, seen_ids, rtp_ranges = set(), set(), []
    image_env = image_environment()
    for name, node in nodes.items():
        where = f"compose.cluster.yaml {name}"
        options = serve_options(compose_argv(node), serve_help, where)
        env = {**image_env, **{k: str(v) for k, v in (node.get("environment") or {}).items()}}
        assert node.get("network_mode") == "host", f"{where}: expected network_mode: host"
        port = as_int(setting(options, env, "port", "8080"), f"{where} --port")
        assert port not in seen_ports, f"{where}: port {port} used by another node"
        seen_ports.add(port)
        node_id = setting(options, env, "node-id")
        assert node_id == name, f"{where}: --node-id {node_id!r}, expected {name!r}"
        seen_ids.add(node_id)
        assert setting(options, env, "advertise-url") == f"http://127.0.0.1:{port}", \
            f"{where}: --advertise-url {setting(options, env, 'advertise-url')!r} is not http://127.0.0.1:{port}"
        store = urlsplit(setting(options, env, "store") or "")
        assert store.scheme == "postgres" and store.hostname == "127.0.0.1" and store.port == pg_port, \
            f"{where}: --store {setting(options, env, 'store')!r} does not name the postgres service on 127.0.0.1:{pg_port}"
        rtp_ranges.append((name, rtp_range(setting(options, env, "rtp-ports", "20000-20999"))))

        test = (node.get("healthcheck") or {}).get("test") or []
        assert test[:3] == ["CMD", "tessera", "healthcheck"], f"{where}: healthcheck {test}"
        hc = parse_options(test[3:], healthcheck_help, f"{where} healthcheck")
        assert as_int(hc.get("--port", env.get("TESSERA_PORT", "8080")), "healthcheck --port") == port, \
            f"{where}: the healthcheck asks port {hc.get('--port')}, the node listens on {port}"

        deps = node.get("depends_on") or {}
        for dep in ("postgres", "nginx"):
            assert (deps.get(dep) or {}).get("condition") == "service_healthy", \
                f"{where}: depends_on {dep} should have condition: service_healthy"

        shutdown = as_int(setting(options, env, "shutdown-seconds", "10"), "--shutdown-seconds")
        grace = duration_seconds(node.get("stop_grace_period", "10s"))
        assert grace > shutdown + HANDOVER_SECONDS, (
            f"{where}: stop_grace_period {grace:g} s must be longer than a drain: --shutdown-seconds "
            f"{shutdown} + {HANDOVER_SECONDS} s handover")
    assert len(seen_ids) == 3

    # On the host's network every node binds the host's UDP ports: the ranges must not meet.
    for k, (a, ra) in enumerate(rtp_ranges):
        for b, rb in rtp_ranges[k + 1:]:
            assert not set(ra) & set(rb), f"compose.cluster.yaml: {a} and {b} share RTP ports"


def test_compose_cluster_services_are_healthchecked_and_built_locally(cluster):
    services = cluster["services"]
    assert {"postgres", "nginx"} <= set(services), f"compose.cluster.yaml: services {sorted(services)}"
    for name, service in services.items():
        assert (service.get("healthcheck") or {}).get("test"), f"compose.cluster.yaml {name}: no healthcheck"
        build = service.get("build")
        assert build, f"compose.cluster.yaml {name}: not built here (no registry needed but the base image)"
        context = (COMPOSE_CLUSTER.parent / build.get("context", ".")).resolve()
        dockerfile = context / build.get("dockerfile", "Dockerfile")  # relative to the context
        assert dockerfile.is_file(), f"compose.cluster.yaml {name}: {dockerfile} does not exist"
        base, chain = image_base(dockerfile, build.get("target"))
        assert base == "debian:bookworm-slim", \
            f"{dockerfile.name}: the image runs on {base}, expected debian:bookworm-slim"
        for stage in chain:
            for line in stage:
                if line.startswith("COPY ") and "--from=" not in line:
                    for source in line.split()[1:-1]:
                        if "*" not in source:
                            assert (context / source).exists(), \
                                f"{dockerfile.name}: COPY {source}: not in the build context {context}"
    pg_port = next(int(w.split("=", 1)[1]) for w in compose_argv(services["postgres"]) if w.startswith("port="))
    assert any(f"--port={pg_port}" == w or w == str(pg_port) for w in services["postgres"]["healthcheck"]["test"]), \
        f"compose.cluster.yaml postgres: the healthcheck does not ask port {pg_port}"


@pytest.mark.parametrize("value, differs", [
    ("on", True), ("yes", True), ("No", True), ("0755", True), ("10:30", True), ("0o17", True), ("1_000", True),
    ("1e3", True), ("2024-01-02", True),
    ("'on'", False), ('"0755"', False), ("8080", False), ("-1", False), ("0x1F", False), ("1.5", False),
    ("true", False), ("~", False), ("", False), (".inf", False), (".nan", False), ("20000-20099", False),
    ("http://$(POD_IP):8080", False), ("!!str 0755", False),
])
def test_yaml_version_pitfalls(value, differs):
    """The check refuses what YAML 1.1 and 1.2 read differently, and nothing else."""
    found = yaml_version_pitfalls(f"a:\n  - {value}\n")
    assert found == ([f"line 2: {value}"] if differs else []), found
