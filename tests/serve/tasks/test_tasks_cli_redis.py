"""`toolkiln tasks` reads the store the servers use: with config/server.json `state.url`
(or TOOLKILN_STATE_URL), the tasks a `serve --http` keeps in a real redis-server are
listed, shown and cancelled from a separate process, the script stopped by the server
running it; a Redis that cannot be reached is one line naming it, password hidden."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import child_env
from tests.serve.http_server import http_server
from tests.serve.redis_server import free_port, needs_redis, redis_server
from tests.serve.tasks.test_tasks import project  # noqa: F401  (the fixture)
from tests.serve.tasks_wire import http_request, read_pids, wait_for, wait_gone
from toolkiln.build.merge import build_catalog

pytestmark = needs_redis
PASSWORD = "correct-horse-battery"


def toolkiln_tasks(
    home: Path, *arguments: str, cwd: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    environment = {**child_env(), "XDG_CONFIG_HOME": str(home), "NO_COLOR": "1", **env}
    command = [sys.executable, "-m", "toolkiln", "tasks", *arguments]
    return subprocess.run(command, capture_output=True, text=True, env=environment, timeout=60, cwd=cwd)


def test_tasks_lists_shows_and_cancels_the_tasks_a_server_keeps_in_redis(
    project: Path,  # noqa: F811
    tools_dir: Path,
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"  # an empty state folder: whatever is listed comes from Redis
    with redis_server(tmp_path / "redis") as store:
        state = {"url": store.url, "key_prefix": "deploy-a:"}
        (project / "server.json").write_text(json.dumps({"state": state}))
        build_catalog(project, tools_dir)
        with http_server(project, tmp_path / "state") as server:
            call = functools.partial(http_request, server.mcp_url, server.token)
            done_id = call("tools/call", {"name": "slow", "arguments": {"seconds": 0.2}})["taskId"]
            wait_for(call, done_id, "completed")
            running_id = call("tools/call", {"name": "linger", "arguments": {}})["taskId"]
            script, child = read_pids(tools_dir)

            listing = toolkiln_tasks(home, "--config-dir", str(project))  # `tasks` is `tasks list`
            assert listing.returncode == 0, listing.stderr
            lines = listing.stdout.splitlines()
            assert lines[0].split() == ["ID", "TOOL", "STATUS", "AGE", "CLIENT", "SERVER", "PROGRESS"]
            assert lines[1].split()[:3] == [done_id[:8], "slow", "completed"]
            assert lines[2].split()[:3] == [running_id[:8], "linger", "working"]  # its server beats
            assert "http" in lines[2]

            # Without the config folder, and no URL: the (empty) SQLite store, named.
            elsewhere = toolkiln_tasks(home, "list", "--config-dir", str(tmp_path / "none"))
            assert elsewhere.stdout == f"No tasks in {home / 'toolkiln' / 'tasks.sqlite3'}.\n"

            shown = toolkiln_tasks(home, "show", done_id[:10], "--config-dir", str(project))
            assert shown.returncode == 0, shown.stderr
            assert shown.stdout == "worked 0.2 s\n"
            assert "status  completed" in shown.stderr

            # The cancel goes through Redis: the server running it stops the script.
            cancelled = toolkiln_tasks(home, "cancel", running_id[:8], "--config-dir", str(project))
            assert cancelled.returncode == 0, cancelled.stderr
            assert cancelled.stdout.startswith(f"Cancelled task {running_id[:8]} (linger)")
            wait_gone(script, child)
            task = call("tasks/get", {"taskId": running_id})
            assert task["status"] == "cancelled"
            assert task["statusMessage"] == "Cancelled from the command line (toolkiln tasks cancel)."
            # The URL from the variable, the key prefix from the config.
            listed = json.loads(
                toolkiln_tasks(
                    home, "list", "--json", "--config-dir", str(project), TOOLKILN_STATE_URL=store.url
                ).stdout
            )
            assert [(task["taskId"], task["status"]) for task in listed] == [
                (done_id, "completed"),
                (running_id, "cancelled"),
            ]
            # `toolkiln tasks` alone (a listing) reads the variable too: another prefix, no tasks.
            (tmp_path / "elsewhere").mkdir()  # no config/ there
            bare = toolkiln_tasks(home, TOOLKILN_STATE_URL=store.url, cwd=str(tmp_path / "elsewhere"))
            assert bare.stdout == f"No tasks in Redis at {store.url} (keys toolkiln:*).\n"


def test_tasks_names_a_redis_it_cannot_reach_and_hides_its_password(tmp_path: Path) -> None:
    port = free_port()  # nothing listens there
    url = f"redis://:{PASSWORD}@127.0.0.1:{port}/0"
    for arguments in (("list",), ("show", "abc"), ("cancel", "abc")):
        answer = toolkiln_tasks(tmp_path / "home", *arguments, TOOLKILN_STATE_URL=url)
        assert answer.returncode == 1
        assert answer.stderr.splitlines() == [
            f"toolkiln: error: the task store redis://:***@127.0.0.1:{port}/0 cannot be reached "
            "(ConnectionError); its URL is from --state-url or TOOLKILN_STATE_URL"
        ]
        assert PASSWORD not in answer.stdout + answer.stderr
    refused = toolkiln_tasks(tmp_path / "home", "list", "--state-url", "http://example.com")
    assert refused.returncode == 1 and "is not a Redis URL" in refused.stderr
