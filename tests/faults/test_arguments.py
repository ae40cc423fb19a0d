"""Bad arguments, over stdio and HTTP: every JSON type in every position, huge strings,
deep nesting, unknown keys and env-var names as keys, path traversal, and shell
metacharacters in every string. Each call is either refused with a clear tool error
that names the argument, or reaches the script exactly as sent (argv, env and stdin),
never interpreted by a shell."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.faults.helpers import Served, serve_http, serve_stdio, text_of
from tests.faults.scripts import ECHO, write_script
from tests.faults.tally import BAD_INPUTS, count
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

NAMES = ("s", "i", "n", "b", "a", "o", "x", "e", "p")
SHOW = f"""\
#!{sys.executable} -S
# Tool: show
# Description: Show exactly what arrived, on each channel
# @param s: A string (type: string)
# @param i: An integer (type: integer)
# @param n: A number (type: number)
# @param b: A flag (type: boolean)
# @param a: A list (type: array)
# @param o: An object (type: object)
# @param x: Anything (type: any)
# @param e: One of two (type: enum, enum: red|green)
# @param p: A file of the workspace (type: path)
import json, os, sys
names = "s i n b a o x e p".split()
print(json.dumps({{
    "argv": sys.argv[1:],
    "env": {{name: os.environ.get(name) for name in names}},
    "stdin": sys.stdin.read(),
    "cwd": os.getcwd(),
}}))
"""
MEASURE = '''"""Measure a string.

@param s: The string (type: string, required: true)
"""


def execute(params):
    text = params["s"]
    return {"length": len(text), "sha256": hashlib.sha256(text.encode()).hexdigest()}


import hashlib
'''
VALUES: list[Any] = [
    None, True, False, 0, -1, 2**70, -(2**63), 2.0, 1.5, -0.0, 1e308, 5e-324,
    "", "text", "0", "true", "null", [], [1, "a", None, {"k": []}], {}, {"k": {"n": [1]}, "": 0},
]  # fmt: skip
METACHARACTERS = [
    "$(touch CANARY)", "`touch CANARY`", "; touch CANARY", "| touch CANARY", "&& touch CANARY",
    "> CANARY", "< /etc/passwd", "*", "?", "[a-z]", "~", "~root", "$HOME", "${PATH}", "$((1+1))",
    "'single'", '"double"', "\\back\\slash", "a\nb", "a\rb", "\t", " leading and trailing ",
    "-flag", "--s=other", "--", "=", "a=b", "!!", "#comment", "%s%n", "\x1b[31mred", "é ü 中文 🎉",
    "IFS=; x", "() { :; }; touch CANARY",
]  # fmt: skip


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("arguments")
    tools, config_dir = root / "tools", root / "config"
    write_script(tools / "echo.sh", ECHO)
    write_script(tools / "show" / "run.sh", SHOW)
    write_script(tools / "measure.py", MEASURE, executable=False)
    workspace = tools / "show" / "workspace"
    (workspace / "sub").mkdir(parents=True)
    (workspace / "inside.txt").write_text("inside\n")
    (workspace / "out").symlink_to("/etc")
    (workspace / "loop").symlink_to("loop")
    assert not discover_tools(tools, config_dir).errors
    build_catalog(config_dir, tools)
    return config_dir, workspace


@pytest.fixture(scope="module", params=["stdio", "http"])
def server(
    request: pytest.FixtureRequest, config: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    if request.param == "stdio":
        with serve_stdio(config[0]) as served:
            yield served
    else:  # room for the 10 MB strings
        with serve_http(
            config[0], tmp_path_factory.mktemp("state"), "auto", "--max-body", "67108864"
        ) as served:
            yield served


@pytest.fixture(scope="module")
def schema(server: Served) -> dict[str, Any]:
    tools = server.portal.call(server.client.list_tools).tools
    found: dict[str, Any] = next(tool.input_schema for tool in tools if tool.name == "show")
    return found


def _shown(result: Any) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    shown: dict[str, Any] = json.loads(text_of(result))
    shown["stdin"] = json.loads(shown["stdin"])
    return shown


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON: True is not 1, 2.0 is not 2."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@pytest.mark.parametrize("name", [name for name in NAMES if name != "p"])
def test_every_json_type_in_every_position(server: Served, schema: dict[str, Any], name: str) -> None:
    validator = jsonschema.Draft202012Validator(schema)
    for value in VALUES:
        result = server.call("show", {name: value})
        if validator.is_valid({name: value}):
            shown = _shown(result)
            # An integer parameter gets 2 for 2.0, as the schema counts them equal.
            expected = int(value) if name == "i" and isinstance(value, float) else value
            assert _same(shown["stdin"][name], expected), (name, value, shown)
        else:
            assert result.is_error, (name, value, text_of(result))
            assert text_of(result).startswith("Invalid arguments for tool 'show':")
            assert f"{name}:" in text_of(result), (name, value, text_of(result))
        count(BAD_INPUTS)
    server.still_answers()


def test_huge_strings(server: Served) -> None:
    huge = "x" * 10_000_000
    # A script gets each value in its argv and env, where the OS allows 128 KiB a value.
    for size in (10_000_000, 200_000):
        result = server.call("show", {"s": huge[:size]})
        assert result.is_error
        assert "too big for a command line and environment" in text_of(result)
        assert "shebang" not in text_of(result)
    fits = "y" * 60_000  # shown three times, within the 256 KiB of output kept
    shown = _shown(server.call("show", {"s": fits}))
    assert shown["env"]["s"] == fits and shown["stdin"]["s"] == fits
    # A Python tool gets it as JSON on a pipe: 10 MB arrive whole.
    measured = server.call("measure", {"s": huge})
    assert not measured.is_error, text_of(measured)
    assert measured.structured_content == {
        "length": len(huge),
        "sha256": hashlib.sha256(huge.encode()).hexdigest(),
    }
    count(BAD_INPUTS, 4)
    server.still_answers()


def test_deep_nesting_reaches_the_script_whole(server: Served) -> None:
    deep: Any = "bottom"
    for level in range(150):
        deep = {"level": level, "next": deep} if level % 2 else [deep]
    shown = _shown(server.call("show", {"x": deep, "a": [deep], "o": {"deep": deep}}))
    assert _same(shown["stdin"]["x"], deep)
    assert _same(json.loads(shown["env"]["o"]), {"deep": deep})
    count(BAD_INPUTS)


def test_unknown_keys_and_env_var_names_are_refused(server: Served) -> None:
    for keys in (
        {"nope": 1},
        {"s": "fine", "PATH": "/evil"},
        {"LD_PRELOAD": "/tmp/evil.so", "PYTHONPATH": "/tmp", "BASH_ENV": "/tmp/x", "IFS": "/"},
        {"HOME": "/", "TOOLKILN_RUN_ID": "forged", "MCPD_CONFIG_SERVER_API_TOKEN": "x"},
        {"S": "case matters", "s ": "spaces too"},
        {"": "empty", "a b": 1, "$(id)": 2, "../x": 3},
    ):
        result = server.call("show", keys)
        assert result.is_error, keys
        text = text_of(result)
        assert "unknown argument" in text
        for key in keys.keys() - set(NAMES):
            assert repr(key) in text, (key, text)
        count(BAD_INPUTS)
    server.still_answers()


def test_path_traversal_is_refused_and_inside_paths_resolved(
    server: Served, config: tuple[Path, Path]
) -> None:
    workspace = config[1].resolve()
    refused = [
        "..", "../run.sh", "../../../../etc/passwd", "/etc/passwd", "sub/../../run.sh", "out/passwd",
        "out", "./../run.sh", "sub/./../../run.sh", "//etc/passwd", "sub/" + "../" * 50 + "etc",
    ]  # fmt: skip
    for value in refused:
        result = server.call("show", {"p": value})
        assert result.is_error, value
        assert "Refused by the workspace of tool 'show'" in text_of(result), (value, text_of(result))
        count(BAD_INPUTS)
    inside = [
        "inside.txt",
        "./inside.txt",
        "sub/../inside.txt",
        "sub",
        "new-file",
        "~",
        "$HOME",
        "...",
        "%2e%2e",
    ]
    for value in inside:
        shown = _shown(server.call("show", {"p": value}))
        resolved = Path(shown["env"]["p"])
        assert resolved.is_relative_to(workspace), (value, resolved)
        assert shown["stdin"]["p"] == str(resolved)
        count(BAD_INPUTS)
    # A symlink loop inside the workspace is refused or stays inside; never a crash.
    loop = server.call("show", {"p": "loop/x"})
    assert loop.is_error or Path(_shown(loop)["env"]["p"]).is_relative_to(workspace)
    count(BAD_INPUTS)


_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40)


@settings(max_examples=60, deadline=None)
@given(
    value=st.one_of(
        st.sampled_from(METACHARACTERS), _TEXT, st.lists(st.sampled_from(METACHARACTERS)).map("".join)
    )
)
def test_shell_metacharacters_reach_the_script_verbatim(
    server: Served, config: tuple[Path, Path], value: str
) -> None:
    shown = _shown(server.call("show", {"s": value, "a": [value], "o": {value: value}}))
    assert f"--s={value}" in shown["argv"]
    assert shown["env"]["s"] == value
    assert (shown["stdin"]["s"], shown["stdin"]["a"], shown["stdin"]["o"]) == (value, [value], {value: value})
    tool_dir = config[1].parent
    assert not (tool_dir / "CANARY").exists() and not Path(shown["cwd"], "CANARY").exists()
    assert not os.path.exists("CANARY")
    count(BAD_INPUTS)
