"""A rebuild reaches every replica (cli/announcing.py, serve/replicas/announce.py,
serve/replicas/catalog_sync.py): two `serve --http --stateless` replicas and a real redis-server.

`toolkiln build`, or a `serve --watch` replica rebuilding, announces the new tools.json
on Redis; a replica that shares the config folder loads it (its clients see the new
list), one with its own copy warns that it serves another catalog. A message that is
not news, exactly, is ignored, and the replica goes on listening. Redis down: the build
stands, and says the replicas were not told.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import redis

from tests.conftest import MakeTool, child_env
from tests.serve.redis_server import RedisServer, free_port, needs_redis, redis_server
from tests.serve.replicas.test_replicas import Replica, replica
from tests.serve.replicas.test_replicas_switches import OTHER, _seen, _tools, two_tools  # noqa: F401
from toolkiln.files import catalog_path

pytestmark = needs_redis
REACH_SECONDS = 30
THIRD = """#!/bin/bash
# Tool: third
# Description: A tool added while the replicas run
echo third
"""


@contextlib.contextmanager
def replicas(
    first: tuple[Path, tuple[str, ...]], second: Path, folder: Path
) -> Iterator[tuple[RedisServer, Replica, Replica, str]]:
    token_file = folder / "state" / "token"
    with (
        redis_server(folder / "redis") as store,
        replica(first[0], token_file, folder / "a", *first[1], TOOLKILN_STATE_URL=store.url) as one,
        replica(second, token_file, folder / "b", TOOLKILN_STATE_URL=store.url) as two,
    ):
        yield store, one, two, token_file.read_text().strip()


def toolkiln_build(config_dir: Path, tools_dir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "toolkiln", "build", "--config-dir", str(config_dir)]
    command += ["--tools-dir", str(tools_dir)]
    environment = {**child_env(), "NO_COLOR": "1", **env}
    return subprocess.run(command, capture_output=True, text=True, env=environment, timeout=60)


def disable(config_dir: Path, name: str) -> None:
    path = config_dir / "tools" / f"{name}.json"
    config = json.loads(path.read_text())
    config["enabled"] = False
    path.write_text(json.dumps(config))


def logged(folder: Path, words: str, times: int = 1) -> str:
    """The replica's stderr once it holds `words` `times` (or as it is at the deadline)."""
    deadline = time.monotonic() + REACH_SECONDS
    while (text := (folder / "stderr").read_text()).count(words) < times and time.monotonic() < deadline:
        time.sleep(0.1)
    return text


def test_toolkiln_build_reaches_the_replicas_sharing_the_folder(
    two_tools: Path,  # noqa: F811
    tools_dir: Path,
    tmp_path: Path,
) -> None:
    with replicas((two_tools, ()), two_tools, tmp_path) as (store, first, second, token):
        assert _tools(second, token) == {"echo", "other"}
        disable(two_tools, "other")
        built = toolkiln_build(two_tools, tools_dir, TOOLKILN_STATE_URL=store.url)
        assert built.returncode == 0, built.stderr
        assert f"told the replicas through Redis at {store.url} (TOOLKILN_STATE_URL)" in built.stdout
        assert _seen(second, token, {"echo"}) == {"echo"}
        assert _seen(first, token, {"echo"}) == {"echo"}
        # Redis down: the build stands, one line says the replicas were not told.
        store.stop()
        (two_tools / "tools" / "other.json").write_text(
            (two_tools / "tools" / "other.json").read_text().replace('"enabled": false', '"enabled": true')
        )
        alone = toolkiln_build(two_tools, tools_dir, TOOLKILN_STATE_URL=store.url)
        assert alone.returncode == 0, alone.stderr
        assert alone.stderr.splitlines() == [
            f"warning: the replicas were not told: Redis at {store.url} cannot be reached "
            "(ConnectionError); they serve the previous tools until a later rebuild reaches them or "
            "they restart"
        ]
        assert alone.stdout.startswith(f"built {catalog_path(two_tools)} with 2 tools")
        assert _tools(second, token) == {"echo"}  # not told: the old list
        store.start()
        again = toolkiln_build(two_tools, tools_dir, TOOLKILN_STATE_URL=store.url)
        assert again.returncode == 0, again.stderr
        assert _seen(second, token, {"echo", "other"}) == {"echo", "other"}  # its listener reconnected


def test_a_watch_replica_rebuilding_reaches_the_other(
    two_tools: Path,  # noqa: F811
    tools_dir: Path,
    make_tool: MakeTool,
    tmp_path: Path,
) -> None:
    watch = ("--watch", "--tools-dir", str(tools_dir))
    with replicas((two_tools, watch), two_tools, tmp_path) as (_, first, second, token):
        make_tool("third.sh", THIRD)  # the watch replica discovers it, builds, and tells
        assert _seen(first, token, {"echo", "other", "third"}) == {"echo", "other", "third"}
        assert _seen(second, token, {"echo", "other", "third"}) == {"echo", "other", "third"}
        assert "tools.json was rebuilt by serve --watch elsewhere; loading it" in logged(
            tmp_path / "b", "rebuilt by serve --watch"
        )


def test_a_replica_with_its_own_copy_warns_and_builds_nothing(
    two_tools: Path,  # noqa: F811
    tools_dir: Path,
    tmp_path: Path,
) -> None:
    own_copy = tmp_path / "copy" / "config"
    shutil.copytree(two_tools, own_copy)
    shutil.copytree(tools_dir, own_copy.parent / tools_dir.name)
    with replicas((two_tools, ()), own_copy, tmp_path / "run") as (store, first, second, token):
        disable(two_tools, "other")
        assert toolkiln_build(two_tools, tools_dir, TOOLKILN_STATE_URL=store.url).returncode == 0
        assert _seen(first, token, {"echo"}) == {"echo"}
        log = logged(tmp_path / "run" / "b", "serves a different catalog")
        assert "`toolkiln build` elsewhere built a tools.json" in log
        assert f"that is not this replica's {catalog_path(own_copy)}" in log
        assert _tools(second, token) == {"echo", "other"}
    assert json.loads((own_copy / "tools" / "other.json").read_text())["enabled"] is True


def test_forged_or_malformed_news_is_ignored(
    two_tools: Path,  # noqa: F811
    tools_dir: Path,
    tmp_path: Path,
) -> None:
    with replicas((two_tools, ()), two_tools, tmp_path) as (store, first, second, token):
        client = redis.Redis.from_url(store.url)
        rebuild = {"id": "ab", "from": "cd", "kind": "rebuild", "by": "build", "digest": "0" * 64}
        switch = {"id": "ab", "from": "cd", "key": "other", "enabled": False, "digest": "0" * 64}
        forged = [
            "not json {",
            "[]",
            json.dumps({**rebuild, "catalog": {"tools": []}}),  # news never carries a catalog
            json.dumps({**rebuild, "by": "sh -c id"}),
            json.dumps({**rebuild, "digest": "../config/tools.json"}),
            json.dumps({**switch, "key": "../server"}),
            json.dumps({**switch, "key": "other\n"}),
            json.dumps({**switch, "enabled": "no"}),
            json.dumps({**switch, "pad": "x" * 2000}),
        ]
        for message in forged:
            assert client.publish("toolkiln:catalog", message) == 2  # both replicas heard it
        client.set("toolkiln:catalog:last", "not json {")
        client.close()
        log = logged(tmp_path / "b", "ignored a message on toolkiln:catalog", len(forged))
        assert log.count("ignored a message on toolkiln:catalog") == len(forged)
        assert json.loads((two_tools / "tools" / "other.json").read_text())["enabled"] is True
        assert first.process.poll() is None and second.process.poll() is None
        # Still listening: real news after the forged ones is applied.
        disable(two_tools, "other")
        assert toolkiln_build(two_tools, tools_dir, TOOLKILN_STATE_URL=store.url).returncode == 0
        assert _seen(second, token, {"echo"}) == {"echo"}


def test_build_without_a_state_url_tells_no_one(two_tools: Path, tools_dir: Path) -> None:  # noqa: F811
    built = toolkiln_build(two_tools, tools_dir)
    assert built.returncode == 0 and "told" not in built.stdout + built.stderr
    url = f"redis://:secret-word@127.0.0.1:{free_port()}/0"  # unreachable, with a password
    unheard = toolkiln_build(two_tools, tools_dir, TOOLKILN_STATE_URL=url)
    assert unheard.returncode == 0
    assert "the replicas were not told: Redis at redis://:***@127.0.0.1:" in unheard.stderr
    assert "secret-word" not in unheard.stdout + unheard.stderr
