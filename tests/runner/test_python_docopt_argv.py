"""runner.python_docopt_argv: docopt scripts discovered, built and called through
`toolkiln call` (a real process) with the real docopt (docopt-ng, a dev dependency):
what the script's docopt reads is exactly what was asked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeTool, child_env
from tests.discover.test_python_docopt import NAVAL_FATE
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

ECHO = 'import json, sys\nprint(json.dumps({"args": arguments, "argv": sys.argv[1:]}))\n'

FETCH = '''\
"""Fetch pages.

Usage:
  fetch.py [options] [-v...] [--header=<h>...] [--] OUT <url>...

Options:
  -o FILE, --output FILE  Where to write [default: -]
  -t SECONDS              Timeout.
  --header=<h>            Extra headers [default: X-A:1]
  --insecure              Skip TLS checks.
"""
from docopt import docopt

arguments = docopt(__doc__, options_first=True)
'''


@pytest.fixture
def folder(tools_dir: Path, config_dir: Path, make_tool: MakeTool) -> tuple[Path, Path]:
    make_tool("naval_fate.py", NAVAL_FATE.replace("    print(arguments)\n", "") + ECHO, executable=False)
    make_tool("fetch.py", FETCH + ECHO, executable=False)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, report.errors
    build_catalog(config_dir, tools_dir)
    return tools_dir, config_dir


def call(folder: tuple[Path, Path], tool: str, /, **arguments: Any) -> subprocess.CompletedProcess[str]:
    """`toolkiln call TOOL KEY=VALUE...` (strings as typed, the rest as JSON)."""
    tools_dir, config_dir = folder
    words = [
        f"{key}={value if isinstance(value, str) else json.dumps(value)}" for key, value in arguments.items()
    ]
    return subprocess.run(
        [sys.executable, "-m", "toolkiln", "call", "--tools-dir", str(tools_dir), "--config-dir",
         str(config_dir), tool, *words],
        env=child_env(), capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def received(folder: tuple[Path, Path], tool: str, /, **arguments: Any) -> dict[str, Any]:
    done = call(folder, tool, **arguments)
    assert done.returncode == 0, done.stdout + done.stderr
    seen: dict[str, Any] = json.loads(done.stdout)
    return seen


def test_naval_fate_words_arguments_and_options_in_their_places(folder: tuple[Path, Path]) -> None:
    seen = received(folder, "naval_fate_ship_move", name="Guardian", x="10", y="-20", speed="15")
    assert seen["argv"] == ["--speed=15", "ship", "Guardian", "move", "10", "-20"]
    assert {k: v for k, v in seen["args"].items() if v not in (False, None, [])} == {
        "ship": True, "move": True, "<name>": ["Guardian"], "<x>": "10", "<y>": "-20", "--speed": "15",
    }  # fmt: skip
    seen = received(folder, "naval_fate_ship_move", name="x y", x="1", y="2")
    assert seen["argv"] == ["ship", "x y", "move", "1", "2"]  # the default is docopt's own
    assert seen["args"]["--speed"] == "10"
    seen = received(folder, "naval_fate_ship_new", name=["Titanic", "--speed=1", "ship"][::2])
    assert seen["argv"] == ["ship", "new", "Titanic", "ship"]
    assert seen["args"]["<name>"] == ["Titanic", "ship"]
    seen = received(folder, "naval_fate_mine", set_or_remove="remove", x="1", y="2", drifting=True)
    assert seen["argv"] == ["--drifting", "mine", "remove", "1", "2"]
    assert (seen["args"]["remove"], seen["args"]["set"], seen["args"]["--drifting"]) == (True, False, True)


def test_naval_fate_refuses_what_docopt_would_misread(folder: tuple[Path, Path]) -> None:
    both = call(folder, "naval_fate_mine", set_or_remove="set", x="1", y="2", drifting=True, moored=True)
    assert both.returncode == 1 and "moored" in both.stdout + both.stderr
    option_like = call(folder, "naval_fate_ship_shoot", x="--help", y="2")
    assert option_like.returncode == 1
    assert "'--help' starts with '-'" in option_like.stdout + option_like.stderr
    wrong_word = call(folder, "naval_fate_mine", set_or_remove="detonate", x="1", y="2")
    assert wrong_word.returncode == 1 and "detonate" in wrong_word.stdout + wrong_word.stderr


def test_options_shortcut_counts_repeats_and_short_values(folder: tuple[Path, Path]) -> None:
    seen = received(
        folder, "fetch", url=["https://a", "https://b"], v=3, header=["X-B:2", "X-C:3"], t="",
        output="o.html", insecure=True, out="-",
    )  # fmt: skip
    assert seen["argv"] == [
        "--output=o.html", "-t", "", "--insecure", "-v", "-v", "-v", "--header=X-B:2", "--header=X-C:3",
        "-", "https://a", "https://b",
    ]  # fmt: skip
    args = seen["args"]
    assert (args["--output"], args["-t"], args["--insecure"], args["-v"]) == ("o.html", "", True, 3)
    assert (args["--header"], args["<url>"], args["OUT"]) == (
        ["X-B:2", "X-C:3"],
        ["https://a", "https://b"],
        "-",
    )
    seen = received(folder, "fetch", url=["u"], t="5", out="page")
    assert seen["argv"] == ["-t5", "page", "u"]
    assert (seen["args"]["--output"], seen["args"]["--header"], seen["args"]["OUT"]) == (
        "-",
        ["X-A:1"],
        "page",
    )


def test_without_docopt_the_script_fails_with_its_own_import_error(
    tools_dir: Path, config_dir: Path, make_tool: MakeTool
) -> None:
    hidden = "import sys\nsys.modules['docopt'] = None  # as if not installed\nfrom docopt import"
    make_tool("naval_fate.py", NAVAL_FATE.replace("from docopt import", hidden), executable=False)
    assert not discover_tools(tools_dir, config_dir).errors  # read, not imported
    build_catalog(config_dir, tools_dir)
    done = call((tools_dir, config_dir), "naval_fate_ship_shoot", x="1", y="2")
    assert done.returncode == 1
    assert "ModuleNotFoundError: import of docopt halted" in done.stdout + done.stderr
