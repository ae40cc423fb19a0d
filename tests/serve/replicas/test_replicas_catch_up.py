"""Catch-up after a Redis outage (serve/replicas/catalog_sync.py, replicas/announce.py `UntoldNews`):
a dashboard switch, or a `serve --watch` rebuild, made on one replica while Redis is
down applies there at once, and reaches the other replica once Redis is back, with no
later change and no restart;
news made on another replica after the outage, and newer, wins over it.

Two `serve --http --stateless` replicas and one real redis-server, stopped and started;
the replicas share the config folder, or each has its own copy (the switch is then
written into the other's copy).
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.serve.redis_server import needs_redis
from tests.serve.replicas.test_replicas_rebuilds import THIRD, replicas
from tests.serve.replicas.test_replicas_switches import _seen, _switch, _tools, two_replicas, two_tools

pytestmark = needs_redis
__all__ = ["two_tools"]  # the fixture, used by name


@pytest.mark.parametrize("copy", [False, True], ids=["shared-folder", "own-copy"])
def test_a_switch_made_while_redis_was_down_reaches_the_other_replica(
    two_tools: Path, tools_dir: Path, tmp_path: Path, copy: bool
) -> None:
    second_config = two_tools
    if copy:
        second_config = tmp_path / "copy" / "config"
        shutil.copytree(two_tools, second_config)
        shutil.copytree(tools_dir, second_config.parent / tools_dir.name)
    with two_replicas(two_tools, second_config, tmp_path / "run") as (store, first, second, token):
        assert _tools(second, token) == {"echo", "other"}
        store.stop()
        lagging = _switch(first, token, "other", False)
        assert lagging.status_code == 200
        assert "this replica tells them when Redis is back" in lagging.json()["warning"]
        assert _tools(first, token) == {"echo"} and _tools(second, token) == {"echo", "other"}
        store.start()
        back = time.monotonic()
        # No later switch, no restart: the first replica tells it once it reaches Redis.
        assert _seen(second, token, {"echo"}) == {"echo"}
        where = "own copy" if copy else "shared folder"
        print(f"\ncatch-up ({where}): {time.monotonic() - back:.1f} s after Redis returned")
        assert _tools(first, token) == {"echo"}
        # And news after the outage goes on as before, both ways.
        assert _switch(second, token, "echo", False).status_code == 200
        assert _seen(first, token, set()) == set()
    if copy:
        assert json.loads((second_config / "tools" / "other.json").read_text())["enabled"] is False
    log = (tmp_path / "run" / "a" / "stderr").read_text()
    assert "told the other replicas of the change made here while Redis was away" in log


def test_newer_news_from_another_replica_wins_over_a_switch_made_while_redis_was_down(
    two_tools: Path, tmp_path: Path
) -> None:
    with two_replicas(two_tools, two_tools, tmp_path / "run") as (store, first, second, token):
        store.stop()
        assert "warning" in _switch(first, token, "other", False).json()  # the older change
        assert "warning" in _switch(second, token, "other", True).json()  # the newer, elsewhere
        store.start()
        # Both replicas tell theirs when back; each applies only news newer than its own:
        # they converge on the last change made (`other` enabled), whoever reconnects first.
        assert _seen(first, token, {"echo", "other"}) == {"echo", "other"}
        assert _seen(second, token, {"echo", "other"}) == {"echo", "other"}


def test_a_watch_rebuild_made_while_redis_was_down_reaches_the_other_replica(
    two_tools: Path, tools_dir: Path, make_tool: MakeTool, tmp_path: Path
) -> None:
    watch = ("--watch", "--tools-dir", str(tools_dir))
    every = {"echo", "other", "third"}
    with replicas((two_tools, watch), two_tools, tmp_path) as (store, first, second, token):
        store.stop()
        make_tool("third.sh", THIRD)  # the watch replica discovers it and builds; Redis is away
        assert _seen(first, token, every) == every
        assert _tools(second, token) == {"echo", "other"}
        store.start()
        assert _seen(second, token, every) == every
    assert "they are told when it is back" in (tmp_path / "a" / "stderr").read_text()
