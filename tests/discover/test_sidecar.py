"""The sidecar dialect: a JSON file beside a program declares it (mcp-bash-framework's
`tool.meta.json`, or toolkiln's `X.tool.json`); the sidecar is read, the program never run.

Fixtures written from mcp-bash-framework's documented layouts: `tools/<name>/tool.sh` with
`tool.meta.json` (name, description, inputSchema, outputSchema, timeoutSecs, annotations),
`tools/<name>.sh` with `<name>.meta.json` or `<name>.sh.meta.json`, and the legacy
`arguments` key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import MakeTool
from toolkiln.discover import DiscoveryReport, discover_tools
from toolkiln.files import load_tool_config, tool_config_path
from toolkiln.model import ScriptConfig

SDK_TOOL = """\
#!/usr/bin/env bash
set -euo pipefail
source "${MCP_SDK:?MCP_SDK environment variable not set}/tool-sdk.sh"
mcp_emit_text "ran"
"""

SEARCH_META = {
    "name": "notes.search",
    "title": "Search notes",
    "description": "Search the vault's notes",
    "inputSchema": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
            "sort": {"type": "string", "enum": ["relevance", "date"], "default": "relevance"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "filters": {
                "type": "object",
                "properties": {"folder": {"type": "string"}, "since": {"type": "string", "format": "date"}},
            },
            "verbose": {"type": ["boolean", "null"]},
        },
        "required": ["query", "tags"],
    },
    "outputSchema": {"type": "object", "properties": {"success": {"type": "boolean"}}},
    "timeoutSecs": 20,
    "annotations": {"readOnlyHint": True},
}


def write_json(path: Path, data: Any, indent: int = 2) -> None:
    path.write_text(json.dumps(data, indent=indent) + "\n")


def discover(tools_dir: Path, config_dir: Path) -> DiscoveryReport:
    return discover_tools(tools_dir, config_dir, probes="none")


def script_config(config_dir: Path, name: str) -> ScriptConfig:
    return load_tool_config(tool_config_path(config_dir, name)).script_config


def test_mcp_bash_tool_folder_is_named_from_its_meta_and_serves_its_schema_whole(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("search/tool.sh", SDK_TOOL)
    write_json(tools_dir / "search/tool.meta.json", SEARCH_META)
    report = discover(tools_dir, config_dir)
    assert not report.errors and [tool.name for tool in report.tools] == ["notes_search"]
    script = script_config(config_dir, "notes_search")
    assert script.dialect == "sidecar" and script.script_path == "search/tool.sh"
    assert script.description == "Search the vault's notes" and script.declared_title == "Search notes"
    assert script.input_schema == SEARCH_META["inputSchema"]  # enums, defaults, nesting: as written
    by_name = {param.name: param for param in script.parameters}
    assert {name: (p.type, p.required) for name, p in by_name.items()} == {
        "query": ("string", True),
        "limit": ("integer", False),
        "sort": ("string", False),
        "tags": ("array", True),
        "filters": ("object", False),
        "verbose": ("boolean", False),
    }
    assert by_name["query"].description == "What to look for"


def test_the_sidecar_is_never_a_tool_itself_nor_is_the_program_probed(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    marker = tools_dir.parent / "ran"
    make_tool("echo-arg.sh", f"#!/bin/sh\ntouch {marker}\n")
    make_tool("echo-arg.meta.json", json.dumps({"description": "Echo", "inputSchema": {}}))
    report = discover_tools(tools_dir, config_dir)  # probes allowed: the sidecar wins all the same
    assert not report.errors and [tool.name for tool in report.tools] == ["echo-arg"]
    assert not marker.exists()


def test_without_a_name_a_tool_sh_is_named_after_its_folder_and_a_file_after_its_path(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("ops/disk-usage/tool.sh", SDK_TOOL)
    write_json(tools_dir / "ops/disk-usage/tool.meta.json", {"description": "Disk usage"})
    make_tool("extract.sh", SDK_TOOL)
    write_json(tools_dir / "extract.sh.meta.json", {"description": "Extract a frame"})
    report = discover(tools_dir, config_dir)
    assert not report.errors
    assert sorted(tool.name for tool in report.tools) == ["extract", "ops__disk-usage"]
    assert script_config(config_dir, "ops__disk-usage").input_schema == {"type": "object", "properties": {}}


def test_legacy_arguments_key_and_a_schema_without_type(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("extract.sh", SDK_TOOL)
    meta = {
        "name": "extract_frame",
        "description": "Extracts a frame",
        "arguments": {"properties": {"input": {"type": "string"}, "time": {}}, "required": ["input"]},
    }
    write_json(tools_dir / "extract.meta.json", meta)
    assert not discover(tools_dir, config_dir).errors
    script = script_config(config_dir, "extract_frame")
    assert script.input_schema == {"type": "object", **meta["arguments"]}
    assert [(p.name, p.type, p.required) for p in script.parameters] == [
        ("input", "string", True),
        ("time", "any", False),
    ]


def test_general_sidecar_for_a_binary_with_a_parameter_list_and_argv(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    binary = make_tool("resize", "")
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(64))
    binary.chmod(0o755)
    sidecar = {
        "description": "Resize an image",
        "parameters": [
            {"name": "input", "type": "string", "required": True, "description": "The image"},
            {"name": "width", "type": "integer", "default": 640, "min": 1, "max": 8000},
            {"name": "format", "type": "string", "enum": ["png", "jpeg"], "default": "png"},
            {"name": "strip", "type": "boolean", "default": False},
        ],
        "argv": {"width": "--width", "strip": "--strip", "input": ""},
    }
    write_json(tools_dir / "resize.tool.json", sidecar)
    assert not discover(tools_dir, config_dir).errors
    script = script_config(config_dir, "resize")
    assert script.input_schema is None  # made from the parameters by build
    assert [(p.name, p.option, p.required, p.default) for p in script.parameters] == [
        ("width", "--width", False, 640),
        ("strip", "--strip", False, False),
        ("input", "", True, None),
        ("format", None, False, "png"),
    ]
    assert script.parameters[3].enum == ["png", "jpeg"]


def test_a_plain_json_beside_a_script_is_a_sidecar_only_when_it_declares(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("fetch.py", "#!/usr/bin/env python3\nprint('{}')\n", executable=False)
    write_json(tools_dir / "fetch.json", {"urls": ["https://example.org"]})  # its data
    make_tool("greet.py", "import json, sys\nprint(json.load(sys.stdin)['who'])\n", executable=False)
    write_json(tools_dir / "greet.json", {"description": "Greet", "input_schema": {"properties": {}}})
    report = discover(tools_dir, config_dir)
    assert not report.errors and [tool.name for tool in report.tools] == ["greet"]


def test_malformed_sidecar_names_the_file_and_line(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("broken/tool.sh", SDK_TOOL)
    (tools_dir / "broken/tool.meta.json").write_text(
        '{\n  "name": "broken",\n  "description": "x",\n  "inputSchema": {\n    "type": "object",\n'
        '    "properties": {"a": {"type": "string"},}\n  }\n}\n'
    )
    [error] = discover(tools_dir, config_dir).errors
    assert (error.path, error.line) == ("broken/tool.meta.json", 6)
    assert "not valid JSON" in error.reason
    assert not tool_config_path(config_dir, "broken").exists()


def test_a_schema_that_is_not_json_schema_is_an_error_at_its_line(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("bad.sh", SDK_TOOL)
    meta = {"description": "x", "inputSchema": {"type": "object", "properties": {"n": {"type": "integr"}}}}
    write_json(tools_dir / "bad.meta.json", meta)
    [error] = discover(tools_dir, config_dir).errors
    assert error.path == "bad.meta.json" and error.line == 7  # "type": "integr"
    assert "not a valid JSON Schema at properties/n/type" in error.reason


def test_bad_argv_and_a_non_object_schema_are_errors(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("a.sh", SDK_TOOL)
    write_json(tools_dir / "a.tool.json", {"inputSchema": {"properties": {"x": {}}}, "argv": {"y": "--y"}})
    make_tool("b.sh", SDK_TOOL)
    write_json(tools_dir / "b.tool.json", {"inputSchema": {"type": "array"}})
    make_tool("c.sh", SDK_TOOL)
    write_json(tools_dir / "c.tool.json", {"inputSchema": {"properties": {"x": {}}}, "argv": {"x": "-x; rm"}})
    errors = {error.path: error for error in discover(tools_dir, config_dir).errors}
    assert "argv names 'y', which is not a parameter" in errors["a.tool.json"].reason
    assert errors["a.tool.json"].line == 8
    assert "must be a schema of type object" in errors["b.tool.json"].reason
    assert "must be an option such as" in errors["c.tool.json"].reason


def test_a_sidecar_without_its_program_says_so(tools_dir: Path, config_dir: Path) -> None:
    (tools_dir / "gone").mkdir()
    write_json(tools_dir / "gone/tool.meta.json", {"name": "gone", "inputSchema": {}})
    write_json(tools_dir / "gone/ui.meta.json", {"title": "a UI resource, not a tool"})
    [error] = discover(tools_dir, config_dir).errors
    assert error.path == "gone/tool.meta.json" and "no program beside it" in error.reason


def test_a_sidecar_that_leads_outside_the_tools_folder_is_refused(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    outside = tools_dir.parent / "elsewhere.json"
    write_json(outside, {"description": "not ours", "inputSchema": {}})
    make_tool("sneaky.sh", SDK_TOOL)
    (tools_dir / "sneaky.meta.json").symlink_to(outside)
    [error] = discover(tools_dir, config_dir).errors
    assert error.path == "sneaky.meta.json" and "outside" in error.reason


def test_unrunnable_program_and_runtime_named_parameters(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("data.bin", "plain", executable=False)
    write_json(tools_dir / "data.bin.tool.json", {"description": "x"})
    make_tool("env.sh", SDK_TOOL)
    meta = {"inputSchema": {"properties": {"MCP_SDK": {"type": "string"}, "PATH": {}, "ok": {}}}}
    write_json(tools_dir / "env.meta.json", meta)
    report = discover(tools_dir, config_dir)
    [error] = report.errors
    assert error.path == "data.bin" and "chmod +x data.bin" in error.reason
    assert [p.name for p in script_config(config_dir, "env").parameters] == ["ok"]
    assert sorted(warning.line or 0 for warning in report.warnings) == [4, 7]  # "MCP_SDK" and "PATH"


def test_editing_only_the_sidecar_rediscovers_the_tool_with_or_without_the_index(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("search/tool.sh", SDK_TOOL)
    meta = tools_dir / "search" / "tool.meta.json"
    write_json(meta, SEARCH_META)
    assert [t.change for t in discover(tools_dir, config_dir).tools] == ["created"]
    assert [t.change for t in discover(tools_dir, config_dir).tools] == ["unchanged"]
    for run in range(2):
        if run:  # the long way: the config's own record of the sidecar
            (config_dir / ".discovery.json").unlink()
        write_json(meta, {**SEARCH_META, "description": f"Search, take {run}"})
        [tool] = discover(tools_dir, config_dir).tools
        assert (tool.change, tool.description) == ("updated", f"Search, take {run}")


def test_timeout_and_annotations_start_the_config_and_are_the_users_after(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("search/tool.sh", SDK_TOOL)
    meta = tools_dir / "search" / "tool.meta.json"
    write_json(meta, SEARCH_META)
    discover(tools_dir, config_dir)
    config = script_config(config_dir, "notes_search")
    assert (config.timeout_seconds, config.read_only, config.destructive) == (20.0, True, None)
    path = tool_config_path(config_dir, "notes_search")
    data = json.loads(path.read_text())
    data["script_config"]["timeout_seconds"] = 5.0
    path.write_text(json.dumps(data))
    write_json(meta, {**SEARCH_META, "timeoutSecs": 99, "description": "changed"})
    discover(tools_dir, config_dir)
    assert script_config(config_dir, "notes_search").timeout_seconds == 5.0


def test_an_mcp_bash_tool_folder_is_one_tool_and_its_sidecar_says_what_it_is(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("search/tool.sh", SDK_TOOL)
    write_json(tools_dir / "search" / "tool.meta.json", SEARCH_META)
    make_tool("search/smoke.sh", "#!/bin/sh\ntouch ran-the-smoke-test\n")  # the tool's own: never probed
    make_tool("search/lib/helpers.sh", "#!/bin/sh\necho helper\n")
    make_tool("other/tool.sh", "#!/bin/sh\n# Tool: other\n# Description: Other\necho hi\n")
    make_tool("other/more.sh", "#!/bin/sh\n# Tool: more\n# Description: More\necho hi\n")
    make_tool("hello.sh", SDK_TOOL)
    write_json(tools_dir / "hello.meta.json", {**SEARCH_META, "name": "hello"})
    report = discover_tools(tools_dir, config_dir, probes="unconfined")
    assert sorted(t.name for t in report.tools) == ["hello", "notes_search", "other__more", "other__tool"]
    assert {v.path: v.kind for v in report.not_tools} == {"hello.meta.json": "sidecar"}
    assert not (tools_dir / "search" / "ran-the-smoke-test").exists()
