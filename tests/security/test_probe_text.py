"""What a `--help` probe prints is text, not truth: a client listing the tools of an
opted-in `bin/` folder through the real SDK client never gets the machine's data (its
disks, its root folder, its environment) nor an error as a description, only help the
script's author wrote."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.serve.stdio_server import connect
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = pytest.mark.anyio

SCRIPTS = {
    "bin/disks": "#!/bin/sh\ndf -h\n",  # mentions `-h`; prints the disk table
    "bin/roots": '#!/bin/sh\nls -la / "$@"\n',
    "bin/envdump": "#!/bin/sh\nenv\n",
    "bin/rot": '#!/bin/bash\nwhile getopts "ab" o; do case $o in *) exit 1;; esac; done\n',
    "bin/greet": (
        '#!/bin/sh\ncase "$1" in --help) echo "usage: greet [-l] NAME"; echo "  -l, --loud  shout"; '
        "exit 0;; esac\necho hi\n"
    ),
}


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LANG", "C.UTF-8")  # passed to the probe: `env` would print it
    for path, body in SCRIPTS.items():
        make_tool(path, body)
    config_dir.mkdir()
    (config_dir / "server.json").write_text(json.dumps({"discovery": {"fallback": ["bin/"]}}))
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


async def test_descriptions_sent_to_clients_hold_no_data_of_the_machine(served: Path) -> None:
    async with connect(served, "auto") as client:
        tools = {tool.name: tool.description or "" for tool in (await client.list_tools()).tools}
    assert tools["bin__greet"].startswith("usage: greet [-l] NAME")
    leaks = ["Filesystem", "Mounted on", "illegal option", "LANG=", "PATH=", "drwx", os.sep + "proc"]
    for name, description in tools.items():
        for leak in leaks:
            assert leak not in description, (name, description)
