"""The built-in run_command tool over stdio, end to end: `toolkiln serve` as a real process,
driven by the SDK's real client in both protocol eras."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.serve.calls.test_live import Progress
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog

pytestmark = [pytest.mark.anyio, pytest.mark.parametrize("mode", ["legacy", "auto"])]


@pytest.fixture
def served(tmp_path: Path) -> Path:
    """A project with no scripts and run_command turned on; returns its config folder."""
    config_dir, tools_dir, work = tmp_path / "config", tmp_path / "tools", tmp_path / "work"
    for folder in (config_dir / "tools", tools_dir, work):
        folder.mkdir(parents=True)
    (work / "notes.txt").write_text("one\ntwo\n")
    settings = {"enabled": True, "allow": ["cat", "wc", "sh"], "roots": ["work"]}
    (config_dir / "server.json").write_text(json.dumps({"run_command": settings}))
    build_catalog(config_dir, tools_dir)
    return config_dir


async def test_run_command_is_listed_as_destructive(served: Path, mode: str) -> None:
    async with connect(served, mode) as client:
        tools = (await client.list_tools()).tools
    assert [tool.name for tool in tools] == ["run_command"]
    tool = tools[0]
    assert tool.input_schema["required"] == ["command"]
    assert sorted(tool.input_schema["properties"]) == ["command", "stdin", "workdir"]
    assert tool.annotations is not None
    assert (tool.annotations.destructive_hint, tool.annotations.open_world_hint) == (True, True)
    assert tool.meta == {"toolkiln/dialect": "command"}
    assert "Allowed programs: cat, wc, sh." in (tool.description or "")


async def test_commands_run_are_refused_and_audited(served: Path, mode: str) -> None:
    progress = Progress()
    async with connect(served, mode) as client:
        counted = await client.call_tool("run_command", {"command": "wc -l notes.txt"})
        piped = await client.call_tool("run_command", {"command": "cat", "stdin": "piped in"})
        refused = await client.call_tool("run_command", {"command": "rm notes.txt"})
        failed = await client.call_tool("run_command", {"command": "cat missing.txt"})
        steps = await client.call_tool(
            "run_command",
            {"command": 'sh -c \'echo "PROGRESS 1/2 first" >&2; sleep 0.3; echo "PROGRESS 2/2" >&2\''},
            progress_callback=progress,
        )
    assert not counted.is_error
    assert counted.structured_content == {
        "exit_code": 0,
        "stdout": "2 notes.txt\n",
        "stderr": "",
        "timed_out": False,
        "truncated": False,
    }
    assert text_of(counted).startswith("Command exited with code 0: wc -l notes.txt\nworkdir: ")
    assert piped.structured_content is not None and piped.structured_content["stdout"] == "piped in"
    assert refused.is_error
    assert text_of(refused).startswith("Refused: 'rm' is not in run_command.allow")
    assert (served.parent / "work" / "notes.txt").exists()
    assert failed.is_error
    assert "--- stderr ---" in text_of(failed) and "missing.txt" in text_of(failed)
    assert not steps.is_error
    assert progress.updates == [(1, 2, "first"), (2, 2, None)]
    records = [json.loads(line) for line in (served / "logs" / "audit.jsonl").read_text().splitlines()]
    assert [(r["tool"], r["arguments"]["command"], r["success"]) for r in records[:4]] == [
        ("run_command", "wc -l notes.txt", True),
        ("run_command", "cat", True),
        ("run_command", "rm notes.txt", False),
        ("run_command", "cat missing.txt", False),
    ]
    assert records[2]["error"].startswith("Refused: 'rm' is not in run_command.allow")
    assert records[3]["exit_code"] == 1
