"""The monitoring kit in deploy/monitoring cannot drift from the server it watches.

- The alert rules (tessera-alerts.yml: a stream dark, an output down, worker restarts, the store
  unreachable, the output disk low) pass `promtool check rules` and their unit tests
  (`promtool test rules tessera-alerts.test.yml`). promtool comes from Debian's `prometheus`
  package (scripts/install.sh).
- Every PromQL query of the Grafana dashboard (tessera-dashboard.json: panels and the task
  variable) is valid PromQL (checked by promtool as recording rules) and names only metrics that a
  running `tessera serve` exports: its /metrics is scraped and parsed with prometheus_client.
  The alert rules' metric names are held to the same.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
import yaml
from prometheus_client.parser import text_string_to_metric_families

from helpers import TESSERA_BIN
from ports import free_port

MONITORING = Path(__file__).resolve().parent.parent / "deploy" / "monitoring"
RULES = MONITORING / "tessera-alerts.yml"
RULE_TESTS = MONITORING / "tessera-alerts.test.yml"
DASHBOARD = MONITORING / "tessera-dashboard.json"
METRIC = re.compile(r"\btessera_[a-z0-9_]+\b")


def promtool() -> str:
    path = shutil.which("promtool")
    if path is None:
        pytest.fail("promtool is not on PATH: run scripts/install.sh (Debian's prometheus package)")
    return path


def dashboard_queries() -> list[str]:
    doc = json.loads(DASHBOARD.read_text())
    queries = [t["expr"] for panel in doc["panels"] for t in panel.get("targets", [])]
    for variable in doc.get("templating", {}).get("list", []):
        if variable.get("type") == "query":
            query = variable["query"]
            queries.append(query["query"] if isinstance(query, dict) else query)
    assert queries, "the dashboard has no query"
    return queries


def alert_exprs() -> list[str]:
    doc = yaml.safe_load(RULES.read_text())
    return [rule["expr"] for group in doc["groups"] for rule in group["rules"]]


def test_alert_rules_pass_promtool_check_and_their_unit_tests():
    check = subprocess.run([promtool(), "check", "rules", str(RULES)], capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stdout + check.stderr
    alerts = {rule["alert"] for group in yaml.safe_load(RULES.read_text())["groups"] for rule in group["rules"]}
    for needed in ("TesseraStreamDark", "TesseraOutputDown", "TesseraWorkerRestarts", "TesseraStoreUnreachable",
                   "TesseraOutputDiskLow", "TesseraRecordingFailed"):
        assert needed in alerts, f"{needed} missing from {RULES.name}: {sorted(alerts)}"
    unit = subprocess.run([promtool(), "test", "rules", RULE_TESTS.name], cwd=MONITORING, capture_output=True,
                          text=True, timeout=60)
    assert unit.returncode == 0, unit.stdout + unit.stderr


def test_dashboard_queries_are_valid_promql(tmp_path):
    # Grafana's variables replaced by what they stand for, each query made a recording rule.
    rules = []
    for index, query in enumerate(dashboard_queries()):
        if query.startswith("label_values("):
            query = re.match(r"label_values\((.*),\s*[a-z_]+\)$", query).group(1)
        expr = query.replace("$__rate_interval", "5m").replace('"$task_id"', '".*"')
        assert "$" not in expr, f"an unknown variable in {query!r}"
        rules.append({"record": f"tessera:dashboard_query_{index}", "expr": expr})
    path = tmp_path / "dashboard-rules.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    check = subprocess.run([promtool(), "check", "rules", str(path)], capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stdout + check.stderr


def get(port: int, path: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def exported_names(port: int) -> set[str]:
    """Every metric name /metrics has: sample names (`_total`, `_bucket`…) and family names,
    families with no sample yet included (their HELP and TYPE lines are there)."""
    status, body = get(port, "/metrics")
    assert status == 200, status
    names = set()
    for family in text_string_to_metric_families(body.decode()):
        names.add(family.name)
        if family.type == "counter":
            names.add(family.name + "_total")
        names.update(sample.name for sample in family.samples)
    return names


def test_dashboard_and_alerts_name_only_metrics_the_server_exports(tmp_path):
    if not TESSERA_BIN.exists():
        pytest.fail(f"tessera binary not found at {TESSERA_BIN}: build it (scripts/install.sh) or set TESSERA_BIN")
    (tmp_path / "media").mkdir()
    port = free_port()
    log = open(tmp_path / "serve.log", "wb")
    server = subprocess.Popen([str(TESSERA_BIN), "serve", "--host", "127.0.0.1", "--port", str(port),
                               "--media-root", str(tmp_path / "media"), "--output-dir", str(tmp_path / "out")],
                              cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if get(port, "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            assert server.poll() is None, (tmp_path / "serve.log").read_text()[-2000:]
            assert time.monotonic() < deadline, "tessera serve did not answer /healthz"
            time.sleep(0.1)
        get(port, "/v1/tasks")  # a request, so the HTTP series exist
        exported = exported_names(port) | exported_names(port)
    finally:
        server.terminate()
        server.wait(20)
    missing = {}
    for source, queries in (("dashboard", dashboard_queries()), ("alert rules", alert_exprs())):
        for query in queries:
            names = set(METRIC.findall(query))
            assert names or source == "dashboard", f"{source}: {query!r} names no Tessera metric"
            for name in names - exported:
                missing.setdefault(name, []).append(f"{source}: {query.strip()[:120]}")
    assert not missing, f"metrics the server does not export: {json.dumps(missing, indent=1)}"
    # The names the issue asks for are among them.
    for name in ("tessera_task_cpu_seconds_total", "tessera_task_late_frames_total", "tessera_worker_restarts_total",
                 "tessera_output_up", "tessera_output_bytes_total", "tessera_input_packets_lost_total",
                 "tessera_upload_backlog_bytes", "tessera_output_dir_free_bytes", "tessera_recording_failed"):
        assert name in exported, f"{name} is not exported"
