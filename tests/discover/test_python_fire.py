"""discover.python_fire: Python Fire scripts read with `ast` (never imported), in the
shapes of Fire's own guide: a function, `fire.Fire()`, a dict, a class."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.discover.test_python_cli import NEVER_RUN, by_command, declare, declare_all, shape
from toolkiln.conventions.base import Candidate, NotATool, Probe
from toolkiln.conventions.by_hand import python_argv
from toolkiln.conventions.python import execute as python_module

GREET = '''\
"""Greetings."""
import json
import fire


def greet(name: str, times: int = 1, loud: bool = False, tags: list[str] | None = None):
    """Say hello.

    Args:
        name: Who to greet.
        times: How often.
    """
    print(json.dumps({"name": name, "times": times, "loud": loud, "tags": tags}))


if __name__ == "__main__":
    fire.Fire(greet)
'''

MODULE = '''\
from fire import Fire


def add(x: int, y: int = 2):
    """Add two numbers."""
    print(repr(x + y))


def shout(text):
    print(repr(text).upper())


def _private():
    pass


if __name__ == "__main__":
    Fire()
'''

DICT = """\
import fire


def add(x: int, y: int):
    print(repr(x + y))


def echo(words: list):
    print(repr(words))


if __name__ == "__main__":
    fire.Fire({"plus": add, "echo": echo, "anon": lambda: 1})
"""

CALCULATOR = '''\
import fire


class Calculator:
    """A calculator with an offset."""

    def __init__(self, offset: int = 0):
        self.offset = offset

    def add(self, x: int, y: int):
        """Add two numbers."""
        print(repr(x + y + self.offset))

    def double(self, number: float):
        print(repr(2 * number + self.offset))

    def clash(self, offset: int):
        pass

    @staticmethod
    def echo(text: str):
        print(repr(text))

    def _hidden(self):
        pass


if __name__ == "__main__":
    fire.Fire(Calculator)
'''


def test_a_function_with_hints_defaults_and_args_descriptions(tmp_path: Path) -> None:
    declaration = declare(tmp_path, GREET.replace("import json", NEVER_RUN + "import json"))
    assert (declaration.python_entry, declaration.command, declaration.description) == (
        "fire",
        None,
        "Say hello.",
    )
    assert shape(declaration) == [
        ("name", "string", True, "--name", None),
        ("times", "integer", False, "--times", None),
        ("loud", "boolean", False, "--loud", None),
        ("tags", "array", False, "--tags", None),
    ]
    assert [p.description for p in declaration.parameters[:2]] == ["Who to greet.", "How often."]


def test_bare_fire_makes_a_tool_of_each_public_function(tmp_path: Path) -> None:
    tools = by_command(declare_all(tmp_path, NEVER_RUN + MODULE))
    assert list(tools) == ["add", "shout"]
    assert shape(tools["add"]) == [("x", "integer", True, "--x", None), ("y", "integer", False, "--y", None)]
    assert tools["add"].description == "Add two numbers."
    assert [p.option for p in tools["shout"].parameters] == ["--text"]


def test_a_dict_is_a_tool_per_key_and_what_is_not_a_function_is_left_out(tmp_path: Path) -> None:
    tools = declare_all(tmp_path, NEVER_RUN + DICT)
    assert [tool.command for tool in tools] == ["plus", "echo"]
    assert [str(w) for w in tools[0].warnings] == [
        "tool.py:14: Fire command 'anon' left out: not a function of this file"
    ]


def test_a_class_is_a_tool_per_public_method_with_init_parameters(tmp_path: Path) -> None:
    tools = by_command(declare_all(tmp_path, NEVER_RUN + CALCULATOR))
    assert list(tools) == ["add", "double", "echo"]
    assert shape(tools["add"]) == [
        ("offset", "integer", False, "--offset", None),
        ("x", "integer", True, "--x", None),
        ("y", "integer", True, "--y", None),
    ]
    assert tools["add"].description == "Add two numbers."
    assert tools["double"].description == "A calculator with an offset. (double)"
    assert [p.name for p in tools["echo"].parameters] == ["offset", "text"]  # a staticmethod keeps its first
    assert "Fire command 'clash' left out: its parameter 'offset'" in str(tools["add"].warnings[0])
    instance = by_command(
        declare_all(tmp_path, NEVER_RUN + CALCULATOR.replace("Fire(Calculator)", "Fire(Calculator())"))
    )
    assert [p.name for p in instance["add"].parameters] == ["x", "y"]  # made without arguments
    assert "clash" in instance


@pytest.mark.parametrize(
    "call",
    ["fire.Fire(COMMANDS)", "fire.Fire(make())", "fire.Fire(json.dumps)", "fire.Fire(a)\nfire.Fire(a)"],
)
def test_a_component_made_at_run_time_is_not_claimed_and_says_why(tmp_path: Path, call: str) -> None:
    path = tmp_path / "dyn.py"
    path.write_text(f"import fire, json\ndef a(x):\n    pass\nCOMMANDS = {{'a': a}}\n{call}\n")
    candidate = Candidate(path, "dyn.py", path.stat())
    assert not python_module.claims(candidate)
    with pytest.raises(NotATool, match="Python Fire, handed something toolkiln cannot read"):
        asyncio.run(python_argv.declare(candidate, Probe(timeout=1)))
