"""Hole 10 of issue 16: a per-tool config (or a compiled tools.json edited by hand) that
names a file outside its folder. `build` refuses such an item (naming file and field)
and builds the others; the runner and the server refuse it again when it is called."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
from click.testing import Result
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.conftest import MakeTool
from tests.doctor.helpers import doctor, found
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.files import catalog_path
from toolkiln.runner import Registry, RunSettings, ToolRunner

TOOL = """\
#!/bin/bash
# Tool: {name}
# Description: Says who it is
echo "I am {name}"
"""


@pytest.fixture
def two_tools(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    """Two discovered tools, `good` and `bad`; returns bad's per-tool config."""
    for name in ("good", "bad"):
        make_tool(f"{name}.sh", TOOL.format(name=name))
    assert not discover_tools(tools_dir, config_dir).errors
    return config_dir / "tools" / "bad.json"


def set_script_key(config: Path, key: str, value: str) -> None:
    data = json.loads(config.read_text())
    data["script_config"][key] = value
    config.write_text(json.dumps(data))


@pytest.mark.parametrize("script_path", ["../outside.sh", "/usr/bin/id", "sub/../../outside.sh", "."])
def test_build_refuses_a_script_outside_the_tools_folder_and_builds_the_others(
    two_tools: Path, tools_dir: Path, config_dir: Path, run_cli: Callable[..., Result], script_path: str
) -> None:
    (tools_dir.parent / "outside.sh").write_text("#!/bin/sh\nid\n")
    set_script_key(two_tools, "script_path", script_path)
    result = run_cli("build")
    assert result.exit_code == 1
    assert f"{two_tools}: script_config.script_path: " in result.output
    assert "is left out" in result.output
    assert "1 refused" in result.output
    served = json.loads(catalog_path(config_dir).read_text())
    assert [tool["name"] for tool in served["tools"]] == ["good"]


def test_a_symlink_inside_the_tools_folder_that_leads_out_is_outside(
    two_tools: Path, tools_dir: Path, config_dir: Path
) -> None:
    (tools_dir / "id.sh").symlink_to("/usr/bin/id")
    set_script_key(two_tools, "script_path", "id.sh")
    report = build_catalog(config_dir, tools_dir)
    assert [tool.name for tool in report.tools] == ["good"]
    [error] = report.errors
    assert error.startswith(
        f"{two_tools}: script_config.script_path: 'id.sh' is a symlink that leads outside"
    )


def test_a_symlinked_folder_inside_the_tools_folder_that_leads_out_is_outside(
    two_tools: Path, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "bad.sh").write_text(TOOL.format(name="bad"))
    (tools_dir / "linked").symlink_to(elsewhere)
    set_script_key(two_tools, "script_path", "linked/bad.sh")
    assert [tool.name for tool in build_catalog(config_dir, tools_dir).tools] == ["good"]


def test_a_symlink_that_stays_inside_and_a_symlinked_tools_folder_are_fine(
    make_tool: MakeTool, tools_dir: Path, tmp_path: Path
) -> None:
    """The tools folder itself may be a link (`tools -> ~/src/my-tools`): its files are
    checked against where it really is."""
    make_tool("real.sh", TOOL.format(name="real"))
    (tools_dir / "alias.sh").symlink_to(tools_dir / "real.sh")
    linked = tmp_path / "linked-tools"
    linked.symlink_to(tools_dir)
    config_dir = tmp_path / "cfg"
    assert not discover_tools(linked, config_dir).errors
    report = build_catalog(config_dir, linked)
    assert report.errors == []
    assert sorted(tool.name for tool in report.tools) == ["alias", "real"]


def test_a_requirements_file_outside_is_refused(two_tools: Path, tools_dir: Path, config_dir: Path) -> None:
    set_script_key(two_tools, "requirements_file", "../../etc/passwd")
    report = build_catalog(config_dir, tools_dir)
    assert [tool.name for tool in report.tools] == ["good"]
    assert report.errors[0].startswith(f"{two_tools}: script_config.requirements_file: '../../etc/passwd'")


def test_prompt_and_resource_files_outside_their_folders_are_refused(
    tmp_path: Path, make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    prompts, resources = tmp_path / "prompts", tmp_path / "resources"
    prompts.mkdir()
    resources.mkdir()
    (prompts / "hi.md").write_text("Say hi\n")
    (prompts / "ok.md").write_text("Say ok\n")
    (resources / "notes.txt").write_text("notes\n")
    make_tool("good.sh", TOOL.format(name="good"))
    assert not discover_tools(tools_dir, config_dir, prompts_dir=prompts, resources_dir=resources).errors
    prompt_config = config_dir / "prompts" / "hi.json"
    data = json.loads(prompt_config.read_text())
    data["prompt_config"]["template_path"] = "../secret.txt"
    prompt_config.write_text(json.dumps(data))
    [resource_config] = (config_dir / "resources").glob("*.json")
    data = json.loads(resource_config.read_text())
    data["resource_config"]["file_path"] = "/etc/passwd"
    resource_config.write_text(json.dumps(data))
    report = build_catalog(config_dir, tools_dir, prompts, resources)
    assert [prompt.name for prompt in report.prompts] == ["ok"]
    assert report.resources == []
    assert sorted(error.split(": ")[1] for error in report.errors) == [
        "prompt_config.template_path",
        "resource_config.file_path",
    ]


def test_doctor_reports_a_script_outside_the_tools_folder(
    two_tools: Path, tools_dir: Path, config_dir: Path
) -> None:
    set_script_key(two_tools, "script_path", "/usr/bin/id")
    [finding] = found(doctor(tools_dir, config_dir), "outside-folder")
    assert (finding.severity, finding.path) == ("error", str(two_tools))
    assert "script_config.script_path: '/usr/bin/id' is not a path relative to" in finding.message


# --- at call time: tools.json edited by hand, or a symlink planted after the build ---------


def edit_catalog(config_dir: Path, **paths: str) -> None:
    catalog = catalog_path(config_dir)
    data = json.loads(catalog.read_text())
    for tool in data["tools"]:
        if tool["name"] in paths:
            tool["script_path"] = paths[tool["name"]]
    catalog.write_text(json.dumps(data))


@pytest.mark.anyio
async def test_the_server_refuses_a_hand_edited_script_path_outside_the_tools_folder(
    two_tools: Path, tools_dir: Path, config_dir: Path
) -> None:
    build_catalog(config_dir, tools_dir)
    edit_catalog(config_dir, bad="/usr/bin/id")
    async with connect(config_dir, "legacy") as client:
        bad = await client.call_tool("bad", {})
        good = await client.call_tool("good", {})
    assert bad.is_error
    assert "Tool 'bad' cannot run: the script of tool 'bad' is refused: '/usr/bin/id'" in text_of(bad)
    assert "uid=" not in text_of(bad)
    assert text_of(good) == "I am good"


@pytest.mark.anyio
async def test_the_server_refuses_a_script_replaced_by_a_symlink_out_after_the_build(
    two_tools: Path, tools_dir: Path, config_dir: Path
) -> None:
    build_catalog(config_dir, tools_dir)
    (tools_dir / "bad.sh").unlink()
    (tools_dir / "bad.sh").symlink_to("/usr/bin/id")
    async with connect(config_dir, "auto") as client:
        bad = await client.call_tool("bad", {})
    assert bad.is_error
    assert "'bad.sh' is a symlink that leads outside" in text_of(bad)
    assert "uid=" not in text_of(bad)


@pytest.fixture
def nested_tool(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool("sub/bad.sh", TOOL.format(name="bad"))
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)


@pytest.mark.anyio
@pytest.mark.parametrize("swapped", ["script", "folder"])
async def test_a_script_that_ran_and_is_then_replaced_by_a_symlink_out_is_refused(
    nested_tool: None, tools_dir: Path, config_dir: Path, swapped: str
) -> None:
    """The runner remembers a plain script's place between calls: a symlink put on its way
    afterwards (the script itself, or a folder above it) is still seen at the next call."""
    runner = ToolRunner(Registry.load(catalog_path(config_dir)), RunSettings())
    [name] = runner.registry.tools
    first = await runner.call(name, {})
    assert first.text == "I am bad" and not first.is_error
    elsewhere = tools_dir.parent / "elsewhere"
    (elsewhere / "sub").mkdir(parents=True)
    (elsewhere / "sub" / "bad.sh").write_text("#!/bin/sh\necho ran outside\n")
    (elsewhere / "sub" / "bad.sh").chmod(0o755)
    if swapped == "script":
        (tools_dir / "sub" / "bad.sh").unlink()
        (tools_dir / "sub" / "bad.sh").symlink_to(elsewhere / "sub" / "bad.sh")
    else:
        (tools_dir / "sub").rename(tools_dir.parent / "old-sub")
        (tools_dir / "sub").symlink_to(elsewhere / "sub")
    second = await runner.call(name, {})
    assert second.is_error and "ran outside" not in second.text
    assert "leads outside" in second.text, second.text


def test_toolkiln_call_refuses_it_too(
    two_tools: Path, tools_dir: Path, config_dir: Path, run_cli: Callable[..., Result]
) -> None:
    build_catalog(config_dir, tools_dir)
    edit_catalog(config_dir, bad="../outside.sh")
    (tools_dir.parent / "outside.sh").write_text("#!/bin/sh\necho ran outside\n")
    (tools_dir.parent / "outside.sh").chmod(0o755)
    result = run_cli("call", "bad")
    assert result.exit_code == 1
    assert "cannot run" in result.output and "ran outside" not in result.output


# --- serve --watch follows config/server.json (issue 16, hole 16) -------------------------


@pytest.mark.anyio
async def test_watch_applies_run_command_turned_off_in_server_json(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("good.sh", TOOL.format(name="good"))
    config_dir.mkdir()
    server_json = config_dir / "server.json"
    server_json.write_text(json.dumps({"run_command": {"enabled": True, "allow": ["echo"]}}))
    watch = ["--watch", "--tools-dir", str(tools_dir)]
    async with connect(config_dir, "legacy", *watch) as client:
        assert await tool_names(client) == ["good", "run_command"]
        server_json.write_text(json.dumps({"run_command": {"enabled": False}}))
        with anyio.fail_after(20):
            while await tool_names(client) != ["good"]:
                await anyio.sleep(0.05)
        with pytest.raises(MCPError, match="Unknown tool: 'run_command'"):
            await client.call_tool("run_command", {"command": "echo hi"})
        # And back on, through an editor's atomic replace.
        (config_dir / "server.json.new").write_text(json.dumps({"run_command": {"enabled": True}}))
        (config_dir / "server.json.new").replace(server_json)
        with anyio.fail_after(20):
            while await tool_names(client) != ["good", "run_command"]:
                await anyio.sleep(0.05)


async def tool_names(client: Client) -> list[str]:
    return sorted(tool.name for tool in (await client.list_tools(cache_mode="bypass")).tools)
