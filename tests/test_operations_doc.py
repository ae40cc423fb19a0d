"""Every shell block of docs/operations.md's "Replicas: restarts, rotations, deployment"
runs, in one bash session, against a real `serve --http`, and does what the page says:
the secret file is made in a folder that did not exist, /ready answers, a token
rotation and a secret rotation are read by the running server, and SIGTERM stops it
with exit 0."""

from __future__ import annotations

import re
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx2

from tests.serve.conftest import served  # noqa: F401 (the fixture)
from tests.serve.http_server import http_server

DOC = Path(__file__).resolve().parents[1] / "docs" / "operations.md"
SECTION = "## Replicas: restarts, rotations, deployment"
STEP = re.compile(r"<!-- step: ([a-z-]+) -->\n```sh\n(.*?)```", re.DOTALL)
WAIT_SECONDS = 30


def steps() -> dict[str, str]:
    text = DOC.read_text()
    section = text[text.index(SECTION) :]
    following = section.find("\n## ", len(SECTION))
    section = section if following < 0 else section[:following]
    found = dict(STEP.findall(section))
    shell_blocks = section.count("```sh")
    assert len(found) == shell_blocks, "every sh block of the section has a step name"
    return found


class Shell:
    """One bash session: variables set by one block are there for the next."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            ["bash", "--norc", "--noprofile"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )

    def run(self, block: str) -> str:
        assert self.process.stdin is not None and self.process.stdout is not None
        # The marker on a line of its own: a block's last output may not end with one.
        self.process.stdin.write(block + "\n__rc=$?; printf '\\n__step_done__ %s\\n' \"$__rc\"\n")
        self.process.stdin.flush()
        output = []
        for line in self.process.stdout:
            if line.startswith("__step_done__ "):
                assert line.split()[1] == "0", "".join(output)
                return "".join(output)[:-1]  # without the marker's own line break
            output.append(line)
        raise AssertionError(f"the shell ended: {''.join(output)}")

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=10)
        if self.process.stdout is not None:
            self.process.stdout.close()


def wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, f"waited {WAIT_SECONDS} s for {what}"
        time.sleep(0.05)


def test_the_replica_operations_run_as_written(served: Path, tmp_path: Path) -> None:  # noqa: F811
    blocks = steps()
    assert list(blocks) == [
        "probe", "stop", "reload", "token-add", "token-drop",
        "secret-make", "secret-add", "secret-swap", "secret-drop",
    ]  # fmt: skip
    state = tmp_path / "state"
    secret_file = tmp_path / "secrets" / "toolkiln" / "state-secret"  # its folder does not exist yet
    env = {"PATH": "/usr/bin:/bin", "TOKEN_FILE": str(state / "token"), "SECRET_FILE": str(secret_file)}
    shell = Shell(env)
    try:
        shell.run(blocks["secret-make"])
        assert secret_file.stat().st_mode & 0o777 == 0o600
        first_secret = secret_file.read_text()
        with http_server(served, state, TOOLKILN_STATE_SECRET_FILE=str(secret_file)) as running:
            shell.run(f"PORT={running.info['url'].rsplit(':', 1)[1].split('/')[0]} PID={running.process.pid}")
            shell.run("export PORT PID")
            assert '"status":"ready"' in shell.run(blocks["probe"])
            old = running.token

            def status(token: str) -> int:
                body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
                auth = {"Authorization": f"Bearer {token}"}
                return httpx2.post(f"{running.base_url}/rpc", json=body, headers=auth, timeout=30).status_code

            shell.run(blocks["token-add"])
            new = shell.run('printf "%s" "$new_token"')
            shell.run(blocks["reload"])
            wait_for(lambda: status(new) == 200, "the new token to be accepted")
            assert status(old) == 200
            shell.run(blocks["token-drop"])
            wait_for(lambda: status(old) == 401, "the old token to be refused")
            assert status(new) == 200
            for number, name in enumerate(("secret-add", "secret-swap", "secret-drop"), start=1):
                shell.run(blocks[name])
                wait_for(
                    lambda n=number: running.stderr().count("secret(s) from now on") >= n, f"{name} read"
                )
            lines = secret_file.read_text().splitlines()
            assert len(lines) == 1 and lines[0] != first_secret.strip()
            assert (state / "token").stat().st_mode & 0o777 == 0o600
            # The server's parent reaps it (as systemd would): `kill -0` sees a zombie as alive.
            reaper = threading.Thread(target=running.process.wait)
            reaper.start()
            shell.run(blocks["stop"])
            reaper.join(timeout=WAIT_SECONDS)
            assert running.process.returncode == 0
            stderr = running.stderr()
        assert "Traceback" not in stderr
        assert "2 token(s) accepted" in stderr and "1 token(s) accepted" in stderr
        assert new not in stderr and old not in stderr
    finally:
        shell.close()
