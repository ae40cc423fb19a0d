"""Issue 16, holes 1 and 2: a file named by what a tool prints is read only inside the
tool's workspace, only as a regular file, off the event loop and capped
(runner/named_files.py). Every attack goes through a real `toolkiln serve --http`, a
real echo tool (the attacker's words come back as its output) and `POST /rpc`."""

from __future__ import annotations

import base64
import json
import os
import shutil
import threading
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.conftest import MakeTool
from tests.serve.http_server import RunningServer, http_server
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.runner.named_files import MAX_FILE_BYTES

REPO = Path(__file__).resolve().parents[2]
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)
ECHO = """\
#!/bin/bash
# Tool: echo
# Description: Say the message back
# @param message: What to say (type: string, required: true)
printf '%s' "$message"
"""
PY_ECHO = '''"""Say the message back, as a Python tool returning the parsed value.

@param message: What to say (type: string, required: true)
"""
import json


def execute(params):
    return json.loads(params["message"])
'''
SECRET = "the-secret-outside-the-workspace"


def set_workspace(config_dir: Path, tool: str, folders: list[str]) -> Path:
    """Give `tool` these workspace folders (a key of the user's in its per-tool config)."""
    config = config_dir / "tools" / f"{tool}.json"
    settings = json.loads(config.read_text())
    settings["script_config"]["workspace_config"]["allowed_paths"] = folders
    config.write_text(json.dumps(settings))
    return config


@pytest.fixture
def project(make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path) -> Path:
    make_tool("echo.sh", ECHO)
    make_tool("py_echo.py", PY_ECHO, executable=False)
    make_tool("notes/run.sh", (REPO / "tools" / "notes" / "run.sh").read_text())
    assert not discover_tools(tools_dir, config_dir).errors
    # The echo tools' workspace is a folder of files outside the tools folder (a workspace
    # that holds scripts is refused: a folder a tool may write is never a source of tools).
    files = tmp_path / "echo-files"
    files.mkdir()
    for tool in ("echo", "py_echo"):
        set_workspace(config_dir, tool, [str(files)])
    build_catalog(config_dir, tools_dir)
    (tmp_path / "outside.txt").write_text(SECRET)
    (files / "pictures").mkdir()
    (files / "pictures" / "pixel.png").write_bytes(PNG)
    (files / "passwd-link").symlink_to("/etc/passwd")
    (files / "outside-link").symlink_to(tmp_path / "outside.txt")
    (files / "etc-link").symlink_to("/etc")
    (files / "zero").symlink_to("/dev/zero")
    os.link(tmp_path / "outside.txt", files / "hard-link")
    os.mkfifo(files / "fifo")
    (files / "big.bin").write_bytes(b"x" * (MAX_FILE_BYTES + 1))
    (files / "just-fits.bin").write_bytes(b"y" * MAX_FILE_BYTES)
    (files / "half.bin").write_bytes(b"z" * (MAX_FILE_BYTES // 2 + 1))
    return config_dir


@pytest.fixture
def server(project: Path, tmp_path: Path) -> Any:
    state = tmp_path / "state"
    state.mkdir()
    with http_server(project, state) as running:
        yield running


def call(server: RunningServer, tool: str, arguments: dict[str, Any], timeout: float = 60) -> dict[str, Any]:
    response = server.rpc("tools/call", {"name": tool, "arguments": arguments}, timeout=timeout)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()["result"]
    return result


def resource_item(path: str) -> str:
    """The attacker's payload: a rich result whose embedded resource names `path`."""
    return json.dumps({"content": [{"type": "resource", "resource": {"uri": "file:///x", "path": path}}]})


def image_item(path: str) -> str:
    return json.dumps({"content": [{"type": "image", "path": path}]})


def text_of(result: dict[str, Any]) -> str:
    return "\n".join(json.dumps(item) for item in result["content"])


def assert_refused(result: dict[str, Any], *, because: str) -> None:
    assert result["isError"] is True, result
    assert because in text_of(result), text_of(result)
    assert all(item["type"] == "text" for item in result["content"]), "a file was sent"


@pytest.mark.parametrize("tool", ["echo", "py_echo"])
def test_files_outside_the_workspace_are_never_read(server: RunningServer, tool: str) -> None:
    token = server.token
    secrets = {
        "/etc/passwd": "is absolute",
        str(server.state_dir / "token"): "is absolute",
        "/proc/self/environ": "is absolute",
        "../outside.txt": "holds `..`",
        "pictures/../../outside.txt": "holds `..`",
        "../state/token": "holds `..`",
    }
    for path, because in secrets.items():
        for payload in (resource_item(path), image_item(path)):
            result = call(server, tool, {"message": payload})
            assert_refused(result, because=because)
            assert token not in text_of(result) and "root:" not in text_of(result)


def test_a_symlink_in_the_workspace_is_never_followed(server: RunningServer) -> None:
    for path in ("passwd-link", "outside-link", "etc-link/passwd", "./etc-link/hostname"):
        result = call(server, "echo", {"message": resource_item(path)})
        assert_refused(result, because="is a symlink")
        assert "root:" not in text_of(result) and SECRET not in text_of(result)


def test_a_hard_link_to_a_file_elsewhere_is_refused(server: RunningServer) -> None:
    result = call(server, "echo", {"message": resource_item("hard-link")})
    assert_refused(result, because="hard links")
    assert SECRET not in text_of(result)


def test_a_device_behind_a_symlink_is_refused(server: RunningServer) -> None:
    result = call(server, "echo", {"message": image_item("zero")})
    assert_refused(result, because="is a symlink")


def test_a_fifo_is_refused_and_the_server_keeps_answering(server: RunningServer) -> None:
    results: list[dict[str, Any]] = []

    def call_with_fifo() -> None:
        results.append(call(server, "echo", {"message": image_item("fifo")}, timeout=30))

    caller = threading.Thread(target=call_with_fifo, daemon=True)
    caller.start()
    # Asked while the call may still be reading: a blocked event loop would not answer.
    health = httpx2.get(f"{server.base_url}/health", timeout=20)
    caller.join(timeout=30)
    assert health.status_code == 200
    [result] = results
    assert_refused(result, because="is a FIFO")
    assert call(server, "echo", {"message": "still here"})["content"] == [
        {"type": "text", "text": "still here"}
    ]


def test_at_most_the_cap_is_read(server: RunningServer) -> None:
    big = call(server, "echo", {"message": resource_item("big.bin")})
    assert_refused(big, because=f"is over {MAX_FILE_BYTES} bytes")
    fits = call(server, "echo", {"message": resource_item("just-fits.bin")})
    assert not fits.get("isError"), text_of(fits)
    assert base64.b64decode(fits["content"][0]["resource"]["blob"]) == b"y" * MAX_FILE_BYTES


def test_the_cap_is_for_all_the_files_of_a_result_together(server: RunningServer) -> None:
    """One file named many times must not make the server read it many times over the cap."""
    items = [{"type": "image", "path": "half.bin", "mimeType": "image/png"}] * 10
    result = call(server, "echo", {"message": json.dumps({"content": items})})
    assert_refused(result, because="content item 2: 'half.bin' is over the")
    assert f"left of {MAX_FILE_BYTES} bytes" in text_of(result)


def test_a_payload_stored_in_notes_reads_nothing_outside(server: RunningServer) -> None:
    payload = resource_item("/etc/passwd")
    saved = call(server, "notes", {"function": "write", "file": "evil.json", "text": payload})
    assert saved["content"] == [{"type": "text", "text": "saved"}], saved
    for path in ("/etc/passwd", "../../outside.txt", "../passwd-link"):
        call(server, "notes", {"function": "write", "file": "evil.json", "text": resource_item(path)})
        result = call(server, "notes", {"function": "read", "file": "evil.json"})
        assert result["isError"] is True and "root:" not in text_of(result) and SECRET not in text_of(result)


def test_a_tool_returns_an_image_from_its_workspace(server: RunningServer) -> None:
    for tool in ("echo", "py_echo"):
        result = call(server, tool, {"message": image_item("pictures/pixel.png")})
        assert not result.get("isError"), text_of(result)
        [image] = result["content"]
        assert image["mimeType"] == "image/png" and base64.b64decode(image["data"]) == PNG


def test_a_workspace_without_folders_names_no_files(project: Path, tmp_path: Path) -> None:
    config = set_workspace(project, "echo", [])
    build_catalog(project, tmp_path / "tools")
    state = tmp_path / "state"
    state.mkdir()
    with http_server(project, state) as running:
        result = call(running, "echo", {"message": image_item("pictures/pixel.png")})
    assert_refused(result, because="no folder may hold files here")
    assert f"workspace_config.allowed_paths in {config}" in text_of(result)


def test_a_folder_the_user_adds_to_the_workspace_is_readable(project: Path, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "logo.png").write_bytes(PNG)
    shutil.copy(shared / "logo.png", shared / "copy.png")
    set_workspace(project, "echo", ["{TOOL_DIR}/workspace", str(shared)])
    build_catalog(project, tmp_path / "tools")
    state = tmp_path / "state"
    state.mkdir()
    with http_server(project, state) as running:
        found = call(running, "echo", {"message": image_item("copy.png")})
        escaped = call(running, "echo", {"message": image_item("../outside.txt")})
    assert base64.b64decode(found["content"][0]["data"]) == PNG
    assert_refused(escaped, because="holds `..`")
