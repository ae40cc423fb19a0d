"""Sidecar tools through `toolkiln serve` and the SDK's real client: unmodified
mcp-bash-framework tools on toolkiln's runtime of its SDK, and programs of any kind
(a compiled binary, a Python file without a shebang) declared by a JSON beside them."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from mcp import types

from tests.conftest import MakeTool
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = pytest.mark.anyio

# Written as mcp-bash's docs and examples write tools: the SDK sourced from MCP_SDK,
# arguments read with jq filters, defaults in the filter or with --default.
SEARCH_SH = r"""
#!/usr/bin/env bash
set -euo pipefail
source "${MCP_SDK:?MCP_SDK environment variable not set}/tool-sdk.sh"

query="$(mcp_args_require '.query')"
limit="$(mcp_args_int '.limit' --default 10 --min 1 --max 100)"
exact="$(mcp_args_bool '.exact' --default false)"
folder="$(mcp_args_get '.filters.folder // "all"')"
tags="$(mcp_args_get '.tags | join(",")')"
count="$(mcp_args_get '.tags | length')"

mcp_progress 50 "searching ${folder}"
mcp_log_info "search" "query has ${#query} characters"
if mcp_is_cancelled; then
	mcp_fail -32001 "cancelled"
fi
mcp_result_success "$(mcp_json_obj query "${query}" limit "${limit}" exact "${exact}" folder "${folder}" \
	tags "${tags}" count "${count}" raw "$(mcp_args_raw)")"
"""
SEARCH_META = {
    "name": "notes.search",
    "description": "Search the notes",
    "inputSchema": {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100},
            "exact": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "filters": {"type": "object", "properties": {"folder": {"type": "string"}}},
        },
        "required": ["query", "tags"],
    },
    "timeoutSecs": 10,
}
FAILING_SH = r"""
#!/usr/bin/env bash
set -euo pipefail
source "${MCP_SDK}/tool-sdk.sh"
mode="$(mcp_args_get '.mode')"
case "${mode}" in
invalid) mcp_fail_invalid_args "mode 'invalid' asked for a bad request" ;;
typed) mcp_error "not_found" "no note named x" --hint "list the notes first"; exit 0 ;;
text) mcp_emit_text "plain text, $(mcp_args_get '.mode')" ;;
json) mcp_emit_json "$(mcp_json_obj mode "${mode}")" ;;
esac
"""
FAILING_META = {
    "description": "Fails on request",
    "inputSchema": {"properties": {"mode": {"type": "string", "enum": ["invalid", "typed", "text", "json"]}}},
}
HOSTILE = [
    'Zoë\'s "quoted" $(touch /tmp/pwned) `id` ; rm -rf /',
    "--output=/etc/passwd",
    "-n",
    "line one\nline two\ttab",
    "日本語 🎉",
]


class Progress:
    def __init__(self) -> None:
        self.updates: list[tuple[float, float | None, str | None]] = []

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.updates.append((progress, total, message))


class Logs:
    def __init__(self) -> None:
        self.lines: list[tuple[str, Any]] = []

    async def __call__(self, params: types.LoggingMessageNotificationParams) -> None:
        self.lines.append((params.level, params.data))


def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2) + "\n")


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("search/tool.sh", SEARCH_SH)
    write_json(tools_dir / "search/tool.meta.json", SEARCH_META)
    make_tool("failing/tool.sh", FAILING_SH)
    write_json(tools_dir / "failing/tool.meta.json", FAILING_META)
    say = tools_dir / "say"  # a compiled program, known only by its sidecar
    shutil.copy(shutil.which("echo") or "/bin/echo", say)
    say.chmod(0o755)
    say_meta = {
        "description": "Print the words",
        "inputSchema": {
            "type": "object",
            "properties": {
                "no_newline": {"type": "boolean", "default": False},
                "words": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            },
            "required": ["words"],
        },
        "argv": {"no_newline": "-n", "words": ""},
    }
    write_json(tools_dir / "say.tool.json", say_meta)
    # No shebang, not executable: run with Python by its extension, arguments on stdin.
    make_tool(
        "count.py",
        "import json, sys\nargs = json.load(sys.stdin)\nprint(len(args['text']))\n",
        executable=False,
    )
    write_json(
        tools_dir / "count.tool.json",
        {"description": "Count", "inputSchema": {"properties": {"text": {"type": "string"}}}},
    )
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, report.errors
    build_catalog(config_dir, tools_dir)
    return config_dir


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_unmodified_mcp_bash_tool_gets_its_arguments_and_returns_a_result(
    served: Path, mode: str
) -> None:
    progress, logs = Progress(), Logs()
    arguments = {"query": HOSTILE[0], "tags": ["a b", "-c", "ü"], "filters": {"folder": "inbox"}}
    async with connect(served, mode, client={"logging_callback": logs, "log_level": "debug"}) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        result = await client.call_tool("notes_search", arguments, progress_callback=progress)
    assert tools["notes_search"].input_schema["required"] == ["query", "tags"]
    assert not result.is_error
    assert result.structured_content is not None
    found = result.structured_content["result"]
    assert result.structured_content["success"] is True
    assert found == {
        "query": HOSTILE[0],
        "limit": "10",
        "exact": "false",
        "folder": "inbox",
        "tags": "a b,-c,ü",
        "count": "3",
        "raw": found["raw"],
    }
    assert json.loads(found["raw"]) == arguments
    assert json.loads(text_of(result)) == result.structured_content
    assert progress.updates == [(50, 100, "searching inbox")]
    assert ("info", f"search: query has {len(HOSTILE[0])} characters") in logs.lines
    assert not Path("/tmp/pwned").exists()


@pytest.mark.parametrize("value", HOSTILE)
async def test_hostile_values_arrive_unchanged(served: Path, value: str) -> None:
    async with connect(served, "legacy") as client:
        result = await client.call_tool("notes_search", {"query": value, "tags": [value], "limit": 3})
    assert result.structured_content is not None
    found = result.structured_content["result"]
    assert (found["query"], found["tags"], found["limit"]) == (value, value, "3")


async def test_sdk_errors_and_plain_outputs(served: Path) -> None:
    async with connect(served, "legacy") as client:
        invalid = await client.call_tool("failing", {"mode": "invalid"})
        typed = await client.call_tool("failing", {"mode": "typed"})
        text = await client.call_tool("failing", {"mode": "text"})
        as_json = await client.call_tool("failing", {"mode": "json"})
        out_of_range = await client.call_tool("notes_search", {"query": "q", "tags": [], "limit": 500})
    assert invalid.is_error and "bad request" in text_of(invalid)
    assert "mode 'invalid' asked for a bad request" in text_of(invalid)
    assert typed.is_error and text_of(typed) == "no note named x"
    assert typed.structured_content == {
        "success": False,
        "error": {"type": "not_found", "message": "no note named x", "hint": "list the notes first"},
    }
    assert not text.is_error and text_of(text) == "plain text, text"
    assert as_json.structured_content == {"mode": "json"}
    assert out_of_range.is_error  # the schema's maximum, before the script runs


async def test_a_binary_gets_its_arguments_on_the_command_line(served: Path) -> None:
    async with connect(served, "legacy") as client:
        plain = await client.call_tool("say", {"words": ["hello", "wörld  two", "$HOME"]})
        joined = await client.call_tool("say", {"words": ["a"], "no_newline": True})
        dashed = await client.call_tool("say", {"words": ["--output=/etc/passwd"]})
        counted = await client.call_tool("count", {"text": "héllo"})
    assert text_of(plain) == "hello wörld  two $HOME"
    assert text_of(joined) == "a"
    assert dashed.is_error and "starts with '-'" in text_of(dashed)
    assert text_of(counted) == "5"


def test_the_runtime_reads_filters_without_jq(
    make_tool: MakeTool,
    tools_dir: Path,
    config_dir: Path,
    run_cli: Callable[..., Result],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without jq (as on a fresh machine), the SDK reads the usual filters with python3."""
    from toolkiln.conventions.sidecar import argv as sidecar_run

    monkeypatch.setattr(sidecar_run, "_json_tool", lambda: ("", ""))
    make_tool("search/tool.sh", SEARCH_SH)
    write_json(tools_dir / "search/tool.meta.json", SEARCH_META)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    result = run_cli("call", "notes_search", "query=it's", 'tags=["x", "y"]', 'filters={"folder": "f"}')
    assert result.exit_code == 0, result.output
    found = json.loads(result.stdout)["result"]
    assert (found["query"], found["tags"], found["count"], found["folder"]) == ("it's", "x,y", "2", "f")


def test_no_argument_nor_server_variable_can_point_the_sdk_elsewhere() -> None:
    from toolkiln.conventions.sidecar.argv import MCP_SDK, sidecar_env

    env = sidecar_env(
        {
            "MCPBASH_JSON_TOOL_BIN": "/evil",
            "MCP_SDK": "/evil",
            "MCP_TOOL_ARGS_FILE": "/x",
            "MCPBASH_PROJECT_ROOT": "/evil",
        },
        {},
        Path("/x/tools/t/tool.sh"),
    )
    assert env["MCP_SDK"] == str(MCP_SDK) and (MCP_SDK / "tool-sdk.sh").is_file()
    assert env["MCPBASH_JSON_TOOL_BIN"] in ("", shutil.which("gojq"), shutil.which("jq"))
    assert "MCP_TOOL_ARGS_FILE" not in env and env["MCP_TOOL_ARGS_JSON"] == "{}"
    assert "MCPBASH_PROJECT_ROOT" not in env  # set only from the tools folder the server knows


# mcp-bash's own convention for code shared between tools: `lib/` at the project's root,
# sourced through MCPBASH_PROJECT_ROOT, under `set -u` (an unset root is a crash).
SHARED_LIB_SH = r"""
#!/usr/bin/env bash
set -euo pipefail
source "${MCP_SDK:?}/tool-sdk.sh"
source "${MCPBASH_PROJECT_ROOT}/lib/shared.sh"
id="$(mcp_args_require '.ticketId')"
mcp_emit_json "$(mcp_json_obj ticket "$(shared_label "${id}")" tools "${MCPBASH_TOOLS_DIR}")"
"""
TICKET_META = {
    "name": "ticket-label",
    "description": "Label a ticket",
    "inputSchema": {"properties": {"ticketId": {"type": "integer"}}, "required": ["ticketId"]},
}


@pytest.fixture
def projects(make_tool: MakeTool, tools_dir: Path, config_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MCPBASH_PROJECT_ROOT", "/nowhere")  # the server's own value does not leak
    # The tools folder is the project's `tools/`, its `lib/` beside it ...
    (tools_dir.parent / "lib").mkdir()
    (tools_dir.parent / "lib/shared.sh").write_text('shared_label() { printf "T-%s (top)" "$1"; }\n')
    make_tool("label/tool.sh", SHARED_LIB_SH)
    write_json(tools_dir / "label/tool.meta.json", TICKET_META)
    # ... or it holds a whole project, whose root is the parent of its own `tools/`.
    (tools_dir / "crm/lib").mkdir(parents=True)
    (tools_dir / "crm/lib/shared.sh").write_text('shared_label() { printf "T-%s (crm)" "$1"; }\n')
    make_tool("crm/tools/label/tool.sh", SHARED_LIB_SH)
    write_json(tools_dir / "crm/tools/label/tool.meta.json", {**TICKET_META, "name": "crm-ticket-label"})
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, report.errors
    build_catalog(config_dir, tools_dir)
    return config_dir


async def test_tools_source_the_projects_lib_through_mcpbash_project_root(
    projects: Path, tools_dir: Path
) -> None:
    async with connect(projects, "auto") as client:
        top = await client.call_tool("ticket-label", {"ticketId": 7})
        crm = await client.call_tool("crm-ticket-label", {"ticketId": 8})
    assert not top.is_error and not crm.is_error, (text_of(top), text_of(crm))
    assert top.structured_content == {"ticket": "T-7 (top)", "tools": str(tools_dir.resolve())}
    assert crm.structured_content == {
        "ticket": "T-8 (crm)",
        "tools": str((tools_dir / "crm/tools").resolve()),
    }
