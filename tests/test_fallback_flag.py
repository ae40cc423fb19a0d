"""`--fallback` of `discover` and `serve`: a script whose arguments cannot be read is served
as it is, one flag away; the not-served hints name the flag; scripts a reader declares stay
with their reader; the opt-in is kept in config/server.json, beside its other keys."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result
from mcp import Client, StdioServerParameters

from tests.conftest import MakeTool, child_env
from tests.serve.stdio_server import text_of

pytestmark = pytest.mark.anyio

# Reads its options with getopt: toolkiln cannot name them, so it is not served by default.
GETOPT = """\
    #!/usr/bin/env python3
    \"\"\"Echo its options.\"\"\"
    import getopt, json, sys
    opts, rest = getopt.getopt(sys.argv[1:], "ab:")
    print(json.dumps({"opts": opts, "rest": rest}))
"""
READABLE = """\
    #!/usr/bin/env python3
    \"\"\"Greet someone.\"\"\"
    import sys
    if __name__ == "__main__":
        name = sys.argv[1]
        print("hello", name)
"""


@pytest.fixture
def scripts(make_tool: MakeTool, tools_dir: Path) -> Path:
    make_tool("opts.py", GETOPT)
    make_tool("greet.py", READABLE)
    return tools_dir


def test_discover_names_the_flag_and_the_flag_serves_the_unread_script(
    scripts: Path, config_dir: Path, run_cli: Callable[..., Result]
) -> None:
    config_dir.mkdir()
    (config_dir / "server.json").write_text('{"tasks": {"max_tasks": 7}}\n')
    plain = run_cli("discover")
    assert "--fallback" in plain.output and "discovery.fallback" not in plain.output
    assert sorted(p.name for p in (config_dir / "tools").iterdir()) == ["greet.json"]
    flagged = run_cli("discover", "--fallback")
    assert flagged.exit_code == 0, flagged.output
    assert "opts.py served as they are" in flagged.output
    server = json.loads((config_dir / "server.json").read_text())
    assert server == {"tasks": {"max_tasks": 7}, "discovery": {"fallback": ["opts.py"]}}
    greet = json.loads((config_dir / "tools" / "greet.json").read_text())["script_config"]
    opts = json.loads((config_dir / "tools" / "opts.json").read_text())["script_config"]
    assert greet["dialect"] == "python" and opts["dialect"] == "fallback"  # the readable one keeps its reader
    again = run_cli("discover", "--fallback")  # nothing new to opt in: the file is unchanged
    assert "served as they are" not in again.output
    assert json.loads((config_dir / "server.json").read_text()) == server
    listed = run_cli("discover", "--fallback", "--list")
    assert listed.exit_code == 2 and "--list writes nothing" in listed.output


async def test_serve_dir_with_the_flag_serves_it_through_the_real_client(
    scripts: Path, tmp_path: Path
) -> None:
    config = tmp_path / "owned-config"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolkiln", "serve", str(scripts), "--config-dir", str(config), "--fallback"],
        env=child_env(),
    )
    async with Client(params, mode="auto") as client:
        names = sorted(tool.name for tool in (await client.list_tools()).tools)
        result = await client.call_tool("opts", {"args": ["-a", "-b", "x y", "--", "-z"]})
        greet = await client.call_tool("greet", {"name": "-Ann"})
    assert names == ["greet", "opts"]
    assert json.loads(text_of(result)) == {"opts": [["-a", ""], ["-b", "x y"]], "rest": ["-z"]}
    assert text_of(greet).strip() == "hello -Ann"
    assert json.loads((config / "server.json").read_text()) == {"discovery": {"fallback": ["opts.py"]}}
    assert not (scripts / "server.json").exists()  # nothing written into the folder of scripts
