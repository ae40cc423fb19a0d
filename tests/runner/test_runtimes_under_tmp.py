"""toolkiln's own runtimes reach confined tools wherever toolkiln is installed (issue 31).

A confined call gets a private /tmp, so when toolkiln itself lived there (a CI clone, a
throwaway venv) its argc shim, its mcp-bash SDK and the Python running its workers were
gone inside the sandbox: an argc tool ran `eval ''` and ended well with no output, the
others failed. Here the wheel is installed into a venv under /tmp and each kind of tool
is called confined with `toolkiln call` from it; then, with the shim removed from that
install, an argc call is an error that says what is missing, not an empty success.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.package.test_wheel import REPO, Install, uv
from toolkiln.interpreters import node_command
from toolkiln.process import confinement_problem

# The Script Kit runtime needs node 20.6 or later (module hooks).
NEEDS_NODE = pytest.mark.skipif(
    node_command(typescript=False) is None, reason="node 20.6 or later is not installed"
)
pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.skipif(confinement_problem() is not None, reason=f"{confinement_problem()}"),
]

ARGC = """\
#!/usr/bin/env bash
set -e
# @describe Say hello
# @option --name! <NAME>  Who
main() {
    echo "hello [$argc_name]" >> "$LLM_OUTPUT"
}
eval "$(argc --argc-eval "$0" "$@")"
"""
SIDECAR = """\
#!/usr/bin/env bash
set -euo pipefail
source "${MCP_SDK:?MCP_SDK environment variable not set}/tool-sdk.sh"
mcp_emit_text "bash hello [$(mcp_args_get '.name')]"
"""
SIDECAR_META = {
    "name": "bashhello",
    "description": "Say hello in mcp-bash",
    "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
}
KIT = """\
// Name: Weather
// Description: Say the weather
// mcp: kithello
import "@johnlindquist/kit"

const { name } = await params({ name: "Who" })
await sendResult({ type: "text", text: `kit hello [${name}]` })
"""
PYTHON = '''\
"""Say hello from Python.

@param name: Who (type: string, required: true)
"""


def execute(params):
    return {"status": "success", "data": {"greeting": f"py hello [{params['name']}]"}}
'''


@pytest.fixture(scope="module")
def install(tmp_path_factory: pytest.TempPathFactory) -> Install:
    root = tmp_path_factory.mktemp("tmp-install")
    assert str(root).startswith("/tmp/"), root  # the point: an install that /tmp's privacy would hide
    uv("build", "--wheel", "--out-dir", str(root / "dist"), str(REPO))
    (wheel,) = (root / "dist").glob("toolkiln-*.whl")
    uv("venv", "--quiet", "--python", sys.executable, str(root / "venv"), cwd=root)
    uv("pip", "install", "--quiet", "--python", str(root / "venv" / "bin" / "python"), str(wheel), cwd=root)
    work = root / "work"
    tools = work / "tools"
    (tools / "greet").mkdir(parents=True)
    (tools / "bashhello").mkdir()
    for path, text in (
        (tools / "greet" / "greet.sh", ARGC),
        (tools / "bashhello" / "tool.sh", SIDECAR),
        (tools / "pyhello.py", PYTHON),
        (tools / "kithello.js", KIT),
    ):
        path.write_text(text)
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    (tools / "bashhello" / "tool.meta.json").write_text(json.dumps(SIDECAR_META))
    (work / "config").mkdir()
    (work / "config" / "server.json").write_text(json.dumps({"confinement": {"mode": "required"}}))
    installed = Install(wheel, root / "venv" / "bin", root / "home", work)
    for command in ("discover", "build"):
        result = installed.run(command, "--tools-dir", "tools", "--config-dir", "config")
        assert result.returncode == 0, result.stdout + result.stderr
    return installed


def call(install: Install, name: str) -> subprocess.CompletedProcess[str]:
    arguments = json.dumps({"name": "Ada"})
    return install.run("call", "--tools-dir", "tools", "--config-dir", "config", name, "--args", arguments)


@pytest.mark.parametrize(
    ("tool", "expected"),
    [
        ("greet__greet", "hello [Ada]"),
        ("bashhello", "bash hello [Ada]"),
        ("pyhello", "py hello [Ada]"),
        pytest.param("kithello", "kit hello [Ada]", marks=NEEDS_NODE),
    ],
)
def test_a_confined_tool_reaches_toolkilns_runtimes_installed_under_tmp(
    install: Install, tool: str, expected: str
) -> None:
    result = call(install, tool)
    assert result.returncode == 0, result.stdout + result.stderr
    assert expected in result.stdout, result.stdout + result.stderr


def site_packages(install: Install) -> Path:
    (package,) = install.bin.parent.glob("lib/python*/site-packages/toolkiln")
    return package


@pytest.mark.parametrize("removed", ["runtimes/argc/bin/argc", "runtimes/argc/shim.py"])
def test_an_argc_runtime_that_cannot_answer_is_an_error_not_an_empty_success(
    install: Install, removed: str
) -> None:
    target = site_packages(install) / removed
    kept = target.read_bytes()
    mode = target.stat().st_mode
    target.unlink()
    try:
        result = call(install, "greet__greet")
    finally:
        target.write_bytes(kept)
        os.chmod(target, mode)
    assert result.returncode != 0, result.stdout + result.stderr
    assert "argc" in result.stdout + result.stderr and "hello" not in result.stdout
    if removed.endswith("bin/argc"):
        assert "could not run toolkiln's argc runtime" in result.stdout + result.stderr
    else:
        assert "could not answer" in result.stdout + result.stderr
