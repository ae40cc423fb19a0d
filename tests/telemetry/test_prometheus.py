"""docs/operations.md's scrape configuration, run by a real Prometheus (Debian's
`prometheus` package) against a real server: checked by promtool, then scraping
`/metrics` with the bearer token from the token file, as the docs say. And the Grafana
dashboard of docs/ asks only for metrics that a server has."""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
import time
from pathlib import Path

import httpx2
import pytest

from tests.telemetry.conftest import observed_server
from tests.telemetry.test_metrics import _free_port, _samples

DOCS = Path(__file__).resolve().parents[2] / "docs"
MARKER = "<!-- prometheus.yml: tests/telemetry/test_prometheus.py -->"


def _scrape_config() -> str:
    text = (DOCS / "operations.md").read_text()
    block = text.split(MARKER, 1)[1]
    found = re.search(r"```yaml\n(.*?)```", block, re.DOTALL)
    assert found is not None
    return found.group(1)


@pytest.mark.skipif(shutil.which("prometheus") is None, reason="needs Prometheus (Debian: prometheus)")
def test_prometheus_scrapes_the_server_with_the_documented_configuration(
    project: Path, tmp_path: Path
) -> None:
    with observed_server(project, tmp_path / "state", "--prometheus") as (server, _):
        assert server.rpc("tools/call", {"name": "echo", "arguments": {"word": "x"}}).status_code == 200
        from tests.serve.tasks_wire import http_request

        http_request(server.mcp_url, server.token, "tools/call", {"name": "echo", "arguments": {"word": "y"}})
        config = (
            _scrape_config()
            .replace("/home/me/.config/toolkiln/token", str(server.state_dir / "token"))
            .replace("127.0.0.1:8765", server.base_url.removeprefix("http://"))
            .replace("scrape_interval: 15s", "scrape_interval: 1s")
        )
        config_file = tmp_path / "prometheus.yml"
        config_file.write_text(config)
        subprocess.run(["promtool", "check", "config", str(config_file)], check=True, capture_output=True)
        port = _free_port()
        log = (tmp_path / "prometheus.log").open("w")
        prometheus = subprocess.Popen(
            [
                "prometheus",
                f"--config.file={config_file}",
                f"--storage.tsdb.path={tmp_path / 'tsdb'}",
                f"--web.listen-address=127.0.0.1:{port}",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            query = f"http://127.0.0.1:{port}/api/v1/query"
            deadline = time.monotonic() + 60
            while True:
                try:
                    answer = httpx2.get(query, params={"query": 'toolkiln_tool_calls_total{job="toolkiln"}'})
                    results = answer.json()["data"]["result"] if answer.status_code == 200 else []
                except httpx2.TransportError:
                    results = []
                if results:
                    break
                assert time.monotonic() < deadline, (tmp_path / "prometheus.log").read_text()[-3000:]
                time.sleep(0.25)
            up = httpx2.get(query, params={"query": 'up{job="toolkiln"}'}).json()["data"]["result"]
        finally:
            prometheus.terminate()
            prometheus.wait(timeout=30)
            log.close()
    assert results[0]["metric"]["gen_ai_tool_name"] == "echo"
    assert float(results[0]["value"][1]) == 2  # over /rpc and over /mcp
    assert up[0]["value"][1] == "1"


def test_the_grafana_dashboard_asks_for_metrics_the_server_has(project: Path, tmp_path: Path) -> None:
    dashboard = json.loads((DOCS / "grafana-dashboard.json").read_text())
    expressions = [target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", [])]
    assert expressions
    with observed_server(project, tmp_path / "state", "--prometheus") as (server, _):
        from tests.serve.tasks_wire import http_request, wait_for

        call = functools.partial(http_request, server.mcp_url, server.token)
        for name in ("echo", "fail", "slow"):  # a success, a tool error, a timeout
            call("tools/call", {"name": name, "arguments": {"word": "y"} if name == "echo" else {}})
        wait_for(call, call("tools/call", {"name": "only_task", "arguments": {}})["taskId"], "completed")
        scraped = httpx2.get(f"{server.base_url}/metrics", headers=server.auth()).text
    samples = _samples(scraped)
    names = {name for name, _ in samples}
    labels = {label for _, pairs in samples for label, _ in pairs}
    for expr in expressions:
        for metric in set(re.findall(r"\b(?:toolkiln|mcp)_[a-z_]+", expr)) - labels:
            assert metric in names, (metric, expr)
