"""A dashboard switch on one replica reaches the others (serve/replicas/catalog_sync.py): two
`serve --http --stateless` replicas and one Redis, addressed directly, sharing a
secret (config/server.json `state.secret_file`) that news is sealed with.

Replicas that share the config folder load what the first one built; replicas that each
have their own copy write the switch into it and rebuild. With Redis down the switch
applies where it was made, and its answer says the others may lag.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tests.conftest import MakeTool
from tests.serve.redis_server import RedisServer, needs_redis, redis_server
from tests.serve.replicas.test_replicas import Replica, replica, write_secret
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = needs_redis
REACH_SECONDS = 30  # a switch not seen by the other replica by then has not reached it

ECHO = """#!/bin/bash
# Tool: echo
# Description: Print a message back
# @param message: What to print (type: string, required: true)
echo "$message"
"""
OTHER = """#!/bin/bash
# Tool: other
# Description: Another tool
echo other
"""


@pytest.fixture
def two_tools(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("echo.sh", ECHO)
    make_tool("other.sh", OTHER)
    assert not discover_tools(tools_dir, config_dir).errors
    secret = write_secret(config_dir.parent / "replicas-secret")
    (config_dir / "server.json").write_text(json.dumps({"state": {"secret_file": str(secret)}}))
    build_catalog(config_dir, tools_dir)
    return config_dir


@contextlib.contextmanager
def two_replicas(
    first_config: Path, second_config: Path, folder: Path
) -> Iterator[tuple[RedisServer, Replica, Replica, str]]:
    token_file = folder / "state" / "token"
    with (
        redis_server(folder / "redis") as store,
        replica(first_config, token_file, folder / "a", TOOLKILN_STATE_URL=store.url) as first,
        replica(second_config, token_file, folder / "b", TOOLKILN_STATE_URL=store.url) as second,
    ):
        yield store, first, second, token_file.read_text().strip()


def _tools(server: Replica, token: str) -> set[str]:
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    answer = httpx2.post(
        f"http://127.0.0.1:{server.port}/rpc", json=request, headers={"Authorization": f"Bearer {token}"}
    )
    return {tool["name"] for tool in answer.json()["result"]["tools"]}


def _switch(server: Replica, token: str, key: str, enabled: bool) -> httpx2.Response:
    return httpx2.post(
        f"http://127.0.0.1:{server.port}/dashboard/tools/{key}/enabled",
        json={"enabled": enabled},
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )


def _seen(server: Replica, token: str, wanted: set[str]) -> set[str]:
    """The other replica's tools once they are `wanted`, or as they are at the deadline."""
    deadline = time.monotonic() + REACH_SECONDS
    while (tools := _tools(server, token)) != wanted and time.monotonic() < deadline:
        time.sleep(0.1)
    return tools


def test_a_switch_on_one_replica_is_seen_by_another_sharing_the_folder(
    two_tools: Path, tmp_path: Path
) -> None:
    with two_replicas(two_tools, two_tools, tmp_path) as (store, first, second, token):
        assert _tools(second, token) == {"echo", "other"}
        switched = _switch(first, token, "echo", False)
        assert switched.status_code == 200 and "warning" not in switched.json()
        assert _seen(second, token, {"other"}) == {"other"}
        assert _switch(first, token, "echo", True).status_code == 200
        assert _seen(second, token, {"echo", "other"}) == {"echo", "other"}
        # Redis down: the switch applies here, says the others may lag, and they do.
        store.stop()
        lagging = _switch(first, token, "other", False)
        assert lagging.status_code == 200
        assert "applied on this replica only" in lagging.json()["warning"]
        assert _tools(first, token) == {"echo"}
        assert _tools(second, token) == {"echo", "other"}
        # Back up: the next switch reaches it again (its listener reconnected).
        store.start()
        assert _switch(first, token, "echo", False).status_code == 200
        assert _seen(second, token, set()) == set()


def test_a_switch_reaches_a_replica_with_its_own_copy_of_the_folder(
    two_tools: Path, tools_dir: Path, tmp_path: Path
) -> None:
    own_copy = tmp_path / "copy" / "config"  # the whole project, copied to another machine
    shutil.copytree(two_tools, own_copy)
    shutil.copytree(tools_dir, own_copy.parent / tools_dir.name)
    with two_replicas(two_tools, own_copy, tmp_path / "run") as (_, first, second, token):
        assert _switch(first, token, "other", False).status_code == 200
        assert _seen(second, token, {"echo"}) == {"echo"}
    assert json.loads((own_copy / "tools" / "other.json").read_text())["enabled"] is False
