"""runner.python_fire_argv: Python Fire scripts discovered, built and called through
`toolkiln call` (a real process) with the real Fire (a dev dependency): each value
reaches the function with its own type, a string staying a string."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.discover.test_python_fire import CALCULATOR, DICT, GREET, MODULE
from tests.runner.test_python_docopt_argv import call
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools


@pytest.fixture
def folder(tools_dir: Path, config_dir: Path, make_tool: MakeTool) -> tuple[Path, Path]:
    for name, body in (("greet.py", GREET), ("mod.py", MODULE), ("pick.py", DICT), ("calc.py", CALCULATOR)):
        make_tool(name, body, executable=False)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, report.errors
    build_catalog(config_dir, tools_dir)
    return tools_dir, config_dir


def printed(folder: tuple[Path, Path], tool: str, /, **arguments: object) -> str:
    done = call(folder, tool, **arguments)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.strip()


def test_strings_stay_strings_and_other_values_keep_their_type(folder: tuple[Path, Path]) -> None:
    for text in ("1", "True", "[1, 2]", 'it\'s "quoted"', "--loud", "-", "a b\nc", "None", "{'a': 1}"):
        seen = json.loads(printed(folder, "greet", name=text))
        assert seen == {"name": text, "times": 1, "loud": False, "tags": None}
    seen = json.loads(printed(folder, "greet", name="Ada", times=3, loud=True, tags=["1", "x y", "true"]))
    assert seen == {"name": "Ada", "times": 3, "loud": True, "tags": ["1", "x y", "true"]}


def test_bare_fire_a_dict_and_a_class_run_the_chosen_command(folder: tuple[Path, Path]) -> None:
    assert printed(folder, "mod_add", x=40) == "42"
    assert printed(folder, "mod_shout", text="07") == "'07'"
    assert printed(folder, "pick_plus", x=1, y=-5) == "-4"
    assert printed(folder, "pick_echo", words=["a", 1, None, {"k": False}]) == "['a', 1, None, {'k': False}]"
    assert printed(folder, "calc_add", x=1, y=2, offset=10) == "13"
    assert printed(folder, "calc_double", number=1.5) == "3.0"
    assert printed(folder, "calc_echo", text="True") == "'True'"


def test_without_fire_the_script_fails_with_its_own_import_error(
    tools_dir: Path, config_dir: Path, make_tool: MakeTool
) -> None:
    make_tool("greet.py", GREET.replace("import fire", "import sys\nsys.modules['fire'] = None\nimport fire"),
              executable=False)  # fmt: skip
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    done = call((tools_dir, config_dir), "greet", name="x")
    assert done.returncode == 1
    assert "ModuleNotFoundError: import of fire halted" in done.stdout + done.stderr
