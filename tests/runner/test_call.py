"""runner.ToolRunner on real scripts: how arguments reach them, and how output maps to results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import MakeTool, tune_tool
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.errors import ConfigError
from toolkiln.files import catalog_path
from toolkiln.runner import (
    LogLine,
    ProgressLine,
    Registry,
    RunSettings,
    ToolRunner,
    UnknownToolError,
    server_env,
)

pytestmark = pytest.mark.anyio

SHOW_ENV = """\
#!/usr/bin/env python3
import json, os, sys
if sys.argv[1:] == ["--help"]:
    print(json.dumps({"description": "Show what arrived"}))
    print(json.dumps({
        "text": {"required": False, "value_type": "string", "default_value": "dflt"},
        "count": {"required": False, "value_type": "integer", "default_value": 2},
        "flag": {"required": False, "value_type": "boolean"},
        "data": {"required": False, "value_type": "any"},
    }), file=sys.stderr)
    sys.exit(0)
names = ["text", "count", "flag", "data", "MCPD_CONFIG_COMMANDS_ROOT_DIRECTORY", "TOOLKILN_TOOL_NAME",
         "TOOLKILN_TRANSPORT", "REGION"]
print(json.dumps({"stdin": json.load(sys.stdin), "argv": sys.argv[1:], "cwd": os.getcwd(),
                  "env": {name: os.environ.get(name) for name in names}}))
"""

ANNOTATED = """\
#!/bin/bash
# Tool: annotated
# Description: Echo the command line
# @param function: What to do (type: string, required: true)
# @param items: Some items (type: array)
# @param verbose: Chatty (type: boolean, default: false)
printf '%s\\n' "$@"
"""

CHATTY = """\
#!/bin/bash
if [ "$1" = "--help" ]; then echo '{"description": "Logs and progress"}'; echo '{}' >&2; exit 0; fi
echo "INFO starting" >&2
echo "PROGRESS 1/2 half way" >&2
echo "WARN careful" >&2
echo "plain text" >&2
echo "PROGRESS 2/2" >&2
echo "DEBUG done" >&2
echo ok
"""

KILLED = """\
#!/bin/bash
if [ "$1" = "--help" ]; then echo '{"description": "Dies by a signal"}'; echo '{}' >&2; exit 0; fi
kill -9 $$
"""

SLOW = """\
#!/bin/bash
if [ "$1" = "--help" ]; then echo '{"description": "Sleeps"}'; echo '{}' >&2; exit 0; fi
sleep 30
"""


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def on_log(self, tool: str, line: LogLine) -> None:
        self.events.append(("log", (line.level, line.message)))

    def on_progress(self, tool: str, line: ProgressLine) -> None:
        self.events.append(("progress", (line.progress, line.total, line.message)))


@pytest.fixture
def registry(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Registry:
    make_tool("show-env.py", SHOW_ENV)
    make_tool("annotated/run.sh", ANNOTATED)
    make_tool("chatty.sh", CHATTY)
    make_tool("killed.sh", KILLED)
    make_tool("slow.sh", SLOW)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return Registry.load(catalog_path(config_dir))


async def call(
    registry: Registry, name: str, arguments: dict[str, Any], settings: RunSettings, observer: Any = None
) -> Any:
    return await ToolRunner(registry, settings).call(name, arguments, observer)


def settings_for(registry: Registry, **script_config: str) -> RunSettings:
    env = server_env(
        tools_dir=registry.tools_dir,
        catalog_file=registry.catalog_file,
        transport="test",
        log_level="info",
        script_config=script_config,
    )
    return RunSettings(env=env)


async def test_arguments_arrive_as_stdin_json_and_env_with_defaults(
    registry: Registry, tools_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A value in the server's own environment must never pose as an omitted argument.
    monkeypatch.setenv("data", "from the server environment")
    result = await call(registry, "show-env", {"flag": True}, settings_for(registry, REGION="eu"))
    assert not result.is_error
    shown = json.loads(result.text)
    assert shown["stdin"] == {"text": "dflt", "count": 2, "flag": True}
    assert shown["argv"] == []
    assert shown["cwd"] == str(tools_dir.resolve())
    assert shown["env"] == {
        "text": "dflt",
        "count": "2",
        "flag": "true",
        "data": None,
        "MCPD_CONFIG_COMMANDS_ROOT_DIRECTORY": str(tools_dir.resolve()),
        "TOOLKILN_TOOL_NAME": "show-env",
        "TOOLKILN_TRANSPORT": "test",
        "REGION": "eu",
    }
    assert result.structured == shown


async def test_any_values_reach_env_as_json(registry: Registry) -> None:
    result = await call(registry, "show-env", {"data": {"k": [1, 2]}}, settings_for(registry))
    assert json.loads(result.text)["env"]["data"] == '{"k": [1, 2]}'


async def test_annotated_scripts_get_function_first_then_name_value_pairs(registry: Registry) -> None:
    result = await call(
        registry, "annotated", {"function": "run", "items": ["a", "b"]}, settings_for(registry)
    )
    assert result.text.splitlines() == ["run", '--items=["a", "b"]', "--verbose=false"]


async def test_structured_lines_go_to_the_observer_and_plain_ones_are_kept(registry: Registry) -> None:
    recorder = Recorder()
    result = await call(registry, "chatty", {}, settings_for(registry), recorder)
    assert result.text == "ok"
    assert recorder.events == [
        ("log", ("info", "starting")),
        ("progress", (1.0, 2.0, "half way")),
        ("log", ("warning", "careful")),
        ("progress", (2.0, 2.0, None)),
        ("log", ("debug", "done")),
    ]


async def test_a_script_killed_by_a_signal_says_so(registry: Registry) -> None:
    result = await call(registry, "killed", {}, settings_for(registry))
    assert result.is_error
    assert "killed by SIGKILL" in result.text


async def test_unknown_tool_raises(registry: Registry) -> None:
    with pytest.raises(UnknownToolError):
        await call(registry, "nope", {}, settings_for(registry))


async def test_default_timeout_applies_when_the_tool_sets_none(registry: Registry) -> None:
    result = await call(registry, "slow", {}, RunSettings(default_timeout=0.3))
    assert result.is_error
    assert "timed out after 0.3 s" in result.text


def test_script_config_may_not_replace_sensitive_variables(registry: Registry) -> None:
    for key in ("PATH", "LD_PRELOAD", "PYTHONPATH", "TOOLKILN_TOOL_NAME", "not a name"):
        with pytest.raises(ConfigError, match="cannot be a script variable"):
            settings_for(registry, **{key: "x"})


COUNTING = """\
#!/bin/bash
if [ "$1" = "--help" ]; then echo '{"description": "Counts company"}'; echo '{}' >&2; exit 0; fi
mkdir -p "$RUNNING"
touch "$RUNNING/$$"
ls "$RUNNING" | wc -l >> "$SEEN"
sleep 0.3
rm "$RUNNING/$$"
echo done
"""


def _counting_registry(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, per_tool: int | None
) -> Registry:
    make_tool("counting.sh", COUNTING)
    discover_tools(tools_dir, config_dir)
    if per_tool is not None:
        tune_tool(config_dir, "counting", max_concurrency=per_tool)
    build_catalog(config_dir, tools_dir)
    return Registry.load(catalog_path(config_dir))


@pytest.mark.parametrize(("global_cap", "per_tool", "expected_max"), [(2, None, 2), (8, 1, 1)])
def test_concurrent_calls_respect_the_global_and_per_tool_caps(
    make_tool: MakeTool,
    tools_dir: Path,
    config_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    global_cap: int,
    per_tool: int | None,
    expected_max: int,
) -> None:
    registry = _counting_registry(make_tool, tools_dir, config_dir, per_tool)
    seen = tmp_path / "seen"
    monkeypatch.setenv("RUNNING", str(tmp_path / "running"))
    monkeypatch.setenv("SEEN", str(seen))
    runner = ToolRunner(registry, RunSettings(max_concurrency=global_cap))
    results = anyio.run(_call_at_once, runner, 5)
    assert [result.text for result in results] == ["done"] * 5
    assert max(int(line) for line in seen.read_text().split()) == expected_max


async def _call_at_once(runner: ToolRunner, count: int) -> list[Any]:
    """`count` calls of the counting tool, all started together; their results."""
    results: list[Any] = []

    async def call() -> None:
        results.append(await runner.call("counting", {}))

    async with anyio.create_task_group() as group:
        for _ in range(count):
            group.start_soon(call)
    return results


def test_a_call_that_waits_past_its_timeout_for_a_slot_is_an_error(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = _counting_registry(make_tool, tools_dir, config_dir, None)
    monkeypatch.setenv("RUNNING", str(tmp_path / "running"))
    monkeypatch.setenv("SEEN", str(tmp_path / "seen"))
    runner = ToolRunner(registry, RunSettings(max_concurrency=1, default_timeout=0.5))
    results = anyio.run(_call_at_once, runner, 3)
    texts = [result.text for result in results]
    assert texts.count("done") == 1
    assert any("timed out after 0.5 s waiting for a free slot" in text for text in texts)


MEETING = """\
#!/bin/bash
if [ "$1" = "--help" ]; then echo '{"description": "Waits for company"}'; echo '{}' >&2; exit 0; fi
mkdir -p "$RUNNING"
touch "$RUNNING/$$"
for _ in $(seq 100); do
  if [ "$(ls "$RUNNING" | wc -l)" -ge 3 ]; then echo met; exit 0; fi
  sleep 0.02
done
rm "$RUNNING/$$"
echo alone
"""


def test_a_rebuilt_catalog_changes_a_tools_own_cap_for_the_running_server(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`serve --watch` hands the runner the new registry (ToolService.swap): a tool's
    `max_concurrency` raised from 1 to 3 lets three calls run together from then on."""
    make_tool("meeting.sh", MEETING)
    discover_tools(tools_dir, config_dir)
    tune_tool(config_dir, "meeting", max_concurrency=1)
    build_catalog(config_dir, tools_dir)
    monkeypatch.setenv("RUNNING", str(tmp_path / "first"))
    runner = ToolRunner(Registry.load(catalog_path(config_dir)), RunSettings(max_concurrency=8))
    assert anyio.run(runner.call, "meeting", {}).text == "alone"  # its one slot is made
    tune_tool(config_dir, "meeting", max_concurrency=3)
    build_catalog(config_dir, tools_dir)
    runner.registry = Registry.load(catalog_path(config_dir))
    monkeypatch.setenv("RUNNING", str(tmp_path / "second"))

    async def three_at_once() -> list[str]:
        texts: list[str] = []

        async def call() -> None:
            texts.append((await runner.call("meeting", {})).text)

        async with anyio.create_task_group() as group:
            for _ in range(3):
                group.start_soon(call)
        return texts

    assert anyio.run(three_at_once) == ["met"] * 3
