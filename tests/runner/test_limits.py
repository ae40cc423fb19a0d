"""Resource limits on real tool calls: set from config/server.json and per-tool configs by a
real build, hit by real scripts, and reported as a tool error that names the limit."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import Result

from tests.conftest import MakeTool
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.files import catalog_path
from toolkiln.model import Limits
from toolkiln.runner import Registry, RunSettings, ToolRunner
from toolkiln.runner.limits import limit_hit

BURN = """\
#!/bin/bash
# Tool: burn
# Description: Spins forever
while :; do :; done
"""

HOG = """\
#!/bin/bash
# Tool: hog
# Description: Allocates 500 MB
exec python3 -c 'block = bytearray(500 * 1024 * 1024); print(len(block))'
"""

FILES = """\
#!/bin/bash
# Tool: files
# Description: Opens 100 files at once
exec python3 -c 'files = [open("/dev/null") for _ in range(100)]; print(len(files))'
"""

# Prints `size` bytes; two copies: `loud` with its own max_output_bytes, `chatter` without.
LOUD = """\
#!/bin/bash
# Tool: {name}
# Description: Prints size bytes
# @param size: How many bytes (type: integer, default: 5000)
head -c "$size" /dev/zero | tr '\\0' x
"""

SHOW = """\
#!/bin/bash
# Tool: show
# Description: Reports its own rlimits
exec python3 -c '
import json, resource
names = {"cpu": "RLIMIT_CPU", "memory": "RLIMIT_AS", "files": "RLIMIT_NOFILE"}
print(json.dumps({key: resource.getrlimit(getattr(resource, name))[0] for key, name in names.items()}))
'
"""

STATEFUL = """\
#!/bin/bash
if [ "$1" = "--help" ]; then echo '{"description": "Keeps state", "state": true}'; echo '{}' >&2; exit 0; fi
if [ "$1" = "--state" ]; then echo "{\\"open_files\\": $(ulimit -n)}"; exit 0; fi
echo ok
"""

SERVER_DEFAULTS = {"cpu_seconds": 30, "open_files": 64}
PER_TOOL = {
    "burn": {"cpu_seconds": 1},
    "hog": {"memory_mb": 200},
    "files": {"open_files": 16},
    "loud": {"max_output_bytes": 1000},
    "show": {"memory_mb": 300, "open_files": 48},
}


@pytest.fixture
def registry(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Registry:
    """The tools above, discovered, given their limits in their configs and built."""
    make_tool("burn.sh", BURN)
    make_tool("hog.sh", HOG)
    make_tool("files.sh", FILES)
    make_tool("loud.sh", LOUD.format(name="loud"))
    make_tool("chatter.sh", LOUD.format(name="chatter"))
    make_tool("show.sh", SHOW)
    make_tool("stateful.sh", STATEFUL)
    assert not discover_tools(tools_dir, config_dir).errors
    for name, limits in PER_TOOL.items():
        path = config_dir / "tools" / f"{name}.json"
        config = json.loads(path.read_text())
        config["script_config"]["limits"] = limits
        path.write_text(json.dumps(config))
    (config_dir / "server.json").write_text(json.dumps({"format_version": 1, "limits": SERVER_DEFAULTS}))
    build_catalog(config_dir, tools_dir)
    return Registry.load(catalog_path(config_dir))


def call(registry: Registry, name: str, arguments: dict[str, Any] | None = None, **settings: Any) -> Any:
    return anyio.run(ToolRunner(registry, RunSettings(**settings)).call, name, arguments)


@pytest.mark.parametrize(
    ("tool", "limit"),
    [
        ("burn", "CPU limit (cpu_seconds: 1); raise limits.cpu_seconds"),
        ("hog", "memory limit (memory_mb: 200); raise limits.memory_mb"),
        ("files", "open files limit (open_files: 16); raise limits.open_files"),
    ],
)
def test_hitting_a_limit_is_a_tool_error_that_names_it(registry: Registry, tool: str, limit: str) -> None:
    result = call(registry, tool)
    assert result.is_error
    assert result.text.splitlines()[0] == f"Tool {tool!r} hit its {limit} in its config if it needs more."


def test_the_cpu_limit_stops_the_tool_long_before_its_timeout(registry: Registry) -> None:
    result = call(registry, "burn", default_timeout=30)
    assert result.is_error
    assert "killed by SIGXCPU" in result.text
    assert result.duration_ms < 20_000


def test_server_defaults_apply_under_each_tools_own_limits(registry: Registry) -> None:
    shown = call(registry, "show").structured
    assert shown == {"cpu": 30, "memory": 300 * 1024 * 1024, "files": 48}
    # A tool with no limits of its own gets the defaults of config/server.json.
    assert registry.get("chatter").limits == Limits(**SERVER_DEFAULTS)
    assert anyio.run(ToolRunner(registry, RunSettings()).read_state, "stateful").structured == {
        "open_files": 64
    }


def test_a_tools_own_output_limit_wins_over_the_servers_and_hitting_it_is_an_error(
    registry: Registry,
) -> None:
    # The tool's 1000 bytes win over the server's 100, both ways.
    within = call(registry, "loud", {"size": 500}, max_output_bytes=100)
    assert not within.is_error
    assert within.text == "x" * 500
    over = call(registry, "loud", {"size": 5000}, max_output_bytes=100_000)
    assert over.is_error
    assert over.truncated
    headline, kept = over.text.split("\n")
    assert headline == (
        "Tool 'loud' hit its output limit (max_output_bytes: 1000); raise limits.max_output_bytes "
        "in its config if it needs more. It printed 5000 bytes; the first 1000 follow."
    )
    assert kept == "x" * 1000


def test_the_servers_default_output_cap_only_cuts_with_a_note(registry: Registry) -> None:
    result = call(registry, "chatter", {"size": 5000}, max_output_bytes=1000)
    assert not result.is_error
    assert result.truncated
    assert result.text == "x" * 1000 + "\n[output truncated: showing the first 1000 of 5000 bytes]"


def test_toolkiln_call_reports_the_limit_and_exits_non_zero(
    registry: Registry, run_cli: Callable[..., Result]
) -> None:
    result = run_cli("call", "hog")
    assert result.exit_code == 1
    assert "Tool 'hog' hit its memory limit (memory_mb: 200)" in result.output
    assert "MemoryError" in result.output


@pytest.mark.anyio
async def test_the_limit_error_reaches_an_mcp_client_as_is_error(
    registry: Registry, config_dir: Path
) -> None:
    async with connect(config_dir, "auto") as client:
        result = await client.call_tool("files", {})
    assert result.is_error
    assert "Tool 'files' hit its open files limit (open_files: 16)" in text_of(result)
    assert "Too many open files" in text_of(result)


@pytest.mark.parametrize(
    ("limits", "returncode", "stderr", "named"),
    [
        (Limits(cpu_seconds=2), -24, "", "CPU limit (cpu_seconds: 2)"),
        (Limits(cpu_seconds=2), 137, "", "CPU limit (cpu_seconds: 2)"),
        (Limits(cpu_seconds=2), 1, "line 3: 99 CPU time limit exceeded  python3 x.py\n", "CPU limit"),
        (Limits(memory_mb=64), -6, "terminate called after throwing 'std::bad_alloc'\n", "memory limit"),
        (Limits(memory_mb=64), 1, "FATAL ERROR: JavaScript heap out of memory\n", "memory limit"),
        (Limits(open_files=8), 1, "Error: EMFILE: too many open files, open 'x'\n", "open files limit"),
        (Limits(processes=4), 254, "bash: fork: retry: Resource temporarily unavailable\n", "processes"),
        (
            Limits(processes=4),
            None,
            "BlockingIOError: [Errno 11] Resource temporarily unavailable",
            "processes",
        ),
    ],
)
def test_limit_hit_recognises_how_each_limit_ends_a_process(
    limits: Limits, returncode: int | None, stderr: str, named: str
) -> None:
    sentence = limit_hit(limits, returncode, stderr, tool="t")
    assert sentence is not None and sentence.startswith("Tool 't' hit its ") and named in sentence


@pytest.mark.parametrize(
    ("limits", "returncode", "stderr"),
    [
        (Limits(), -24, "CPU time limit exceeded"),  # no limit set, none named
        (Limits(memory_mb=64), -9, ""),  # SIGKILL is the CPU limit's, and that is not set
        (Limits(open_files=8), 1, "MemoryError"),  # only the limits that are set are named
        (Limits(memory_mb=64, cpu_seconds=1), 0, "MemoryError"),  # a success is never a hit
        (Limits(cpu_seconds=1, memory_mb=64), 2, "usage: x [-h]"),
    ],
)
def test_limit_hit_names_no_limit_that_does_not_explain_the_failure(
    limits: Limits, returncode: int | None, stderr: str
) -> None:
    assert limit_hit(limits, returncode, stderr, tool="t") is None
