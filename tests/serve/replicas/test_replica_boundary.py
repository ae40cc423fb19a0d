"""The single server knows nothing of replicas: its parts are chosen once, as it is made
(serve/assemble.py), and replica code is imported only when a state URL is set.

Read from the code (which module imports which) and from the objects a server is
made of, in a fresh interpreter for the single server so nothing loaded before hides
what it imports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import MakeTool, child_env
from tests.import_graph import graph, inside
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.files import catalog_path
from toolkiln.model import StateSettings
from toolkiln.runner import Registry, RunSettings, ToolRunner
from toolkiln.serve.assemble import assemble
from toolkiln.serve.calls.parked import ParkedCalls
from toolkiln.serve.replicas.forwarding import ForwardingParkedCalls
from toolkiln.serve.replicas.shared_tasks import SharedTaskService

# What a replica adds: serve/replicas/ (the mailbox and forwarding, the shared tasks,
# streams and news), and the Redis task store.
REPLICA_SIDE = frozenset(
    name for name in graph() if inside(name, "toolkiln.serve.replicas", "toolkiln.serve.tasks.redis_store")
)
# The only ways in from elsewhere, each taken only when there is a state URL.
WAYS_IN = {
    ("toolkiln.serve.assemble", "toolkiln.serve.replicas.replication"),  # a server made with a state URL
    ("toolkiln.serve.tasks.stores", "toolkiln.serve.tasks.redis_store"),  # the store a URL names
    ("toolkiln.cli.announcing", "toolkiln.serve.replicas.announce"),  # `toolkiln build` tells replicas
    ("toolkiln.cli.announcing", "toolkiln.serve.replicas.news"),  # ... what a rebuild's news says
}
# What the single server's objects must not hold.
REPLICA_ATTRIBUTES = {
    "relay", "relayed", "relayer", "seals", "heartbeat", "state", "shared", "instance",
    "untold", "untold_news", "replication",
}  # fmt: skip

ECHO = """\
#!/bin/sh
if [ "$1" = "--help" ]; then
  echo '{"description": "Print a message back"}'
  echo '{"message": {"description": "What to print", "required": true, "value_type": "string"}}' >&2
  exit 0
fi
printf '%s\\n' "$message"
"""


def test_replica_code_is_reached_only_through_the_ways_in() -> None:
    edges = graph(typing_too=False)
    entries = {
        (name, imported)
        for name, imports in edges.items()
        if name not in REPLICA_SIDE
        for imported in imports & REPLICA_SIDE
    }
    assert entries == WAYS_IN


def _registry(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("echo.sh", ECHO)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return catalog_path(config_dir)


def test_a_single_server_is_made_without_replica_code_or_state(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    catalog = _registry(make_tool, tools_dir, config_dir)
    code = f"""
import json, sys
from pathlib import Path
from toolkiln.runner import Registry, RunSettings, ToolRunner
from toolkiln.serve.assemble import assemble
runner = ToolRunner(Registry.load(Path({str(catalog)!r})), RunSettings())
served = assemble(runner, state_dir=Path({str(tmp_path)!r}))
service = served.service
print(json.dumps({{
    "replication": served.replication is not None,
    "kinds": [type(service.parked).__name__, type(service.tasks).__name__],
    "held": {{"service": sorted(vars(service)), "tasks": sorted(vars(service.tasks)),
              "parked": sorted(vars(service.parked))}},
    "loaded": sorted(name for name in sys.modules if name.startswith("toolkiln.") or name == "redis"),
}}))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=child_env())
    assert done.returncode == 0, done.stderr
    made = json.loads(done.stdout)
    assert made["replication"] is False
    assert made["kinds"] == ["ParkedCalls", "TaskService"]
    assert set(made["loaded"]) & (REPLICA_SIDE | {"redis"}) == set()
    assert set(made["held"]["service"]) & REPLICA_ATTRIBUTES == set()
    assert set(made["held"]["tasks"]) & REPLICA_ATTRIBUTES == set()
    # The parked calls name their server in the states they make: its one instance name.
    assert set(made["held"]["parked"]) & REPLICA_ATTRIBUTES == {"instance"}


def test_a_replica_is_made_with_its_parts_once(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    runner = ToolRunner(Registry.load(_registry(make_tool, tools_dir, config_dir)), RunSettings())
    secret_file = tmp_path / "secret"
    secret_file.write_text("7" * 64 + "\n")
    secret_file.chmod(0o600)
    url = "redis://127.0.0.1:1/0"  # never reached: made, not run
    with_secret = assemble(
        runner, state_dir=tmp_path, state=StateSettings(url=url, secret_file=str(secret_file))
    )
    replication, service = with_secret.replication, with_secret.service
    assert replication is not None and replication.forwards
    assert isinstance(service.parked, ForwardingParkedCalls)
    assert isinstance(service.tasks, SharedTaskService)
    assert service.parked.instance == service.tasks.owner["instance"] == replication.instance
    assert set(vars(service)) & REPLICA_ATTRIBUTES == set()
    # Without a shared secret nothing can be relayed: the plain parked calls, tasks still shared.
    alone = assemble(runner, state_dir=tmp_path, state=StateSettings(url=url))
    assert alone.replication is not None and not alone.replication.forwards
    assert type(alone.service.parked) is ParkedCalls
    assert isinstance(alone.service.tasks, SharedTaskService)
