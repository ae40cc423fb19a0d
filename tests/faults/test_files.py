"""Broken files: per-tool configs and the compiled config corrupted, truncated, of a
wrong version, hand-edited wrong, or not files at all. Each gives an error that names
the file, and nothing already good is lost: a failed build leaves the previous
`tools.json` byte for byte, discovery keeps the other tools, serve refuses to start
with a message instead of a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import child_env
from tests.faults.scripts import ECHO, write_script
from tests.faults.tally import BAD_INPUTS, count
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.errors import BuildError

ADD = """\
#!/bin/bash
# Tool: add
# Description: Add two numbers
# @param a: First (type: integer, required: true)
# @param b: Second (type: integer, default: 1)
echo $((a + b))
"""

Edit = Callable[[Path], None]


def _json_edit(change: Callable[[dict[str, Any]], None]) -> Edit:
    def edit(path: Path) -> None:
        data = json.loads(path.read_text())
        change(data)
        path.write_text(json.dumps(data, indent=2))

    return edit


def _script(data: dict[str, Any]) -> dict[str, Any]:
    script: dict[str, Any] = data["script_config"]
    return script


def _replace(path: Path, make: Callable[[Path], None]) -> None:
    path.unlink()
    make(path)


# How a per-tool config gets broken, and a word the error must contain besides the file.
CONFIG_BREAKS: dict[str, tuple[Edit, str]] = {
    "random_bytes": (lambda path: path.write_bytes(os.urandom(512)), ""),
    "not_utf8": (lambda path: path.write_bytes(b'{"enabled": "\xff\xfe"}'), "UTF-8"),
    "truncated": (
        lambda path: path.write_text(path.read_text()[: len(path.read_text()) // 2]),
        "invalid JSON",
    ),
    "empty": (lambda path: path.write_text(""), "invalid JSON"),
    "a_list": (lambda path: path.write_text("[1, 2, 3]"), ""),
    "null": (lambda path: path.write_text("null"), ""),
    "wrong_version": (_json_edit(lambda data: data.update(format_version=99)), "format_version"),
    "unknown_key": (_json_edit(lambda data: data.update(enabeld=False)), "unknown key"),
    "enabled_not_boolean": (_json_edit(lambda data: data.update(enabled="yes")), "enabled"),
    "missing_script_config": (_json_edit(lambda data: data.pop("script_config")), "script_config"),
    "bad_parameter_type": (
        _json_edit(lambda data: _script(data)["parameters"][0].update(type="complex")),
        "parameters.0",
    ),
    "negative_timeout": (
        _json_edit(lambda data: _script(data).update(timeout_seconds=-5)),
        "timeout_seconds",
    ),
    "bad_name": (_json_edit(lambda data: _script(data).update(name="../../etc/passwd")), "name"),
    "deep_nesting": (lambda path: path.write_text("[" * 10_000 + "]" * 10_000), "nested too deeply"),
    "a_folder": (lambda path: _replace(path, lambda p: p.mkdir()), "not a regular file"),
    "a_fifo": (lambda path: _replace(path, lambda p: os.mkfifo(p)), "not a regular file"),
}


@pytest.fixture
def built(tools_dir: Path, config_dir: Path) -> Path:
    write_script(tools_dir / "echo.sh", ECHO)
    write_script(tools_dir / "add" / "run.sh", ADD)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return config_dir


@pytest.mark.parametrize("how", CONFIG_BREAKS)
def test_a_broken_tool_config_fails_the_build_and_keeps_the_last_catalog(
    built: Path, tools_dir: Path, how: str
) -> None:
    catalog = built / "tools.json"
    before = catalog.read_bytes()
    broken = built / "tools" / "add.json"
    edit, words = CONFIG_BREAKS[how]
    edit(broken)
    with pytest.raises(BuildError) as raised:
        build_catalog(built, tools_dir)
    message = str(raised.value)
    assert str(broken) in message
    assert words in message
    assert "was left as it was" in message
    assert catalog.read_bytes() == before
    # Discovery leaves it as it is, names it if it has to read it (a script that did not
    # change is not read again), and still finds the others.
    left = broken.read_bytes() if broken.is_file() else None
    report = discover_tools(tools_dir, built)
    assert all(str(broken) in str(error) for error in report.errors)
    assert "echo" in {tool.name for tool in report.tools}
    assert (broken.read_bytes() if broken.is_file() else None) == left
    forced = discover_tools(tools_dir, built, force=True)
    assert any(str(broken) in str(error) for error in forced.errors)
    assert (broken.read_bytes() if broken.is_file() else None) == left
    count(BAD_INPUTS)


CATALOG_BREAKS: dict[str, Edit] = {
    "random_bytes": lambda path: path.write_bytes(os.urandom(2048)),
    "truncated": lambda path: path.write_text(path.read_text()[:500]),
    "empty": lambda path: path.write_text(""),
    "wrong_version": _json_edit(lambda data: data.update(format_version=2)),
    "tools_not_a_list": _json_edit(lambda data: data.update(tools={"echo": {}})),
    "schema_not_an_object": _json_edit(lambda data: data["tools"][0].update(input_schema="anything")),
    "unknown_dialect": _json_edit(lambda data: data["tools"][0].update(dialect="cobol")),
    "a_folder": lambda path: _replace(path, lambda p: p.mkdir()),
    "a_fifo": lambda path: _replace(path, lambda p: os.mkfifo(p)),
    "missing": lambda path: path.unlink(),
}


@pytest.mark.parametrize("how", CATALOG_BREAKS)
def test_a_broken_catalog_stops_serve_and_list_with_its_name(built: Path, how: str) -> None:
    catalog = built / "tools.json"
    CATALOG_BREAKS[how](catalog)
    commands = (["serve", "--stdio"], ["serve", "--http", "--port", "0", "--no-auth"], ["list"])
    runs = [  # at once: each is mostly the start of an interpreter
        subprocess.Popen(
            [sys.executable, "-m", "toolkiln", *command, "--config-dir", str(built), "--tools-dir", "unused"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=child_env(),
        )
        for command in commands
    ]
    for command, run in zip(commands, runs, strict=True):
        _, stderr = run.communicate(timeout=60)
        assert run.returncode == 1, (command, stderr)
        assert str(catalog) in stderr, (command, stderr)
        assert "Traceback" not in stderr
        count(BAD_INPUTS)


def test_a_config_with_a_wrong_parameter_fails_the_build_until_fixed(built: Path, tools_dir: Path) -> None:
    """A parameter of an unknown type stops the build; fixed, the tool is built with its neighbour."""
    broken = built / "tools" / "add.json"
    good = broken.read_text()
    _json_edit(lambda data: _script(data)["parameters"][0].update(type="complex"))(broken)
    with pytest.raises(BuildError):
        build_catalog(built, tools_dir)
    broken.write_text(good)
    report = build_catalog(built, tools_dir)
    assert [tool.name for tool in report.tools] == ["add", "echo"]
    count(BAD_INPUTS)
