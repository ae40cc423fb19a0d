"""discover.python_function: llm-functions' `def run(...)` tools, read with `ast`, never imported."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import MakeTool
from toolkiln.conventions.base import Candidate, NotATool, Probe
from toolkiln.conventions.python import run_function as python_function
from toolkiln.discover import discover_tools


def discovered(tools_dir: Path, config_dir: Path, name: str) -> dict[str, Any]:
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, [str(error) for error in report.errors]
    script: dict[str, Any] = json.loads((config_dir / "tools" / f"{name}.json").read_text())["script_config"]
    return script


def by_name(script: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {param["name"]: param for param in script["parameters"]}


def test_hints_defaults_optional_literal_and_google_args(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool(
        "forecast.py",
        '''
        from typing import List, Literal, Optional
        raise SystemExit("discovery must never import me")

        def run(
            city: str,
            units: Literal["metric", "imperial"],
            days: int = 3,
            hourly: bool = False,
            tags: List[str] = [],
            ratio: Optional[float] = None,
            note: Optional[str] = None,
            limit: int = DEFAULT_LIMIT,
        ):
            """Fetch the weather forecast for a city.
            Args:
                city: The city's name, such as
                    "Lisbon" or "Osaka"
                units: Units of measure
                days: Days ahead
                hourly: One entry per hour
                tags: Labels to attach
                ratio: A scaling factor
            """
        ''',
        executable=False,
    )
    script = discovered(tools_dir, config_dir, "forecast")
    assert (script["dialect"], script["python_entry"]) == ("python", "run(**)")
    assert script["description"] == "Fetch the weather forecast for a city."
    params = by_name(script)
    assert params["city"] == {
        "name": "city",
        "type": "string",
        "required": True,
        "description": 'The city\'s name, such as "Lisbon" or "Osaka"',
    }
    assert params["units"]["enum"] == ["metric", "imperial"] and params["units"]["required"]
    assert (params["days"]["type"], params["days"]["default"], params["days"]["required"]) == (
        "integer",
        3,
        False,
    )
    assert params["hourly"]["type"] == "boolean" and params["hourly"]["default"] is False
    assert (params["tags"]["type"], params["tags"]["items"]) == ("array", "string")
    assert params["ratio"]["type"] == "number" and not params["ratio"]["required"]
    assert "default" not in params["ratio"]
    assert params["note"] == {"name": "note", "type": "string", "required": False, "description": ""}
    # A default that is not a literal: optional, and Python applies it.
    assert params["limit"] == {"name": "limit", "type": "integer", "required": False, "description": ""}


def test_types_from_the_docstring_when_unannotated_and_async_run(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool(
        "mail.py",
        '''
        async def run(to, subject, cc=None, *, priority="normal", retries=2):
            """Send an e-mail.

            More about it that is still the description.

            Args:
                to (list[str]): Recipients
                subject (str): The subject line
                cc (str, optional): A copy to
                priority ('low'|'normal'|'high'): How urgent
                retries (int): Attempts

            Returns:
                The message id.
            """
        ''',
        executable=False,
    )
    script = discovered(tools_dir, config_dir, "mail")
    assert script["description"] == "Send an e-mail.\n\nMore about it that is still the description."
    params = by_name(script)
    assert (params["to"]["type"], params["to"]["items"], params["to"]["required"]) == (
        "array",
        "string",
        True,
    )
    assert params["subject"]["type"] == "string" and params["subject"]["required"]
    assert params["cc"] == {"name": "cc", "type": "string", "required": False, "description": "A copy to"}
    assert params["priority"]["enum"] == ["low", "normal", "high"]
    assert params["priority"]["default"] == "normal"
    assert params["retries"]["type"] == "integer" and params["retries"]["default"] == 2


def test_rest_and_numpy_docstrings(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool(
        "rest.py",
        '''
        def run(path: str, depth: int = 1):
            """List a folder.

            :param path: The folder to list
            :param depth: How deep to go
                (1 is the folder itself)
            """
        ''',
        executable=False,
    )
    make_tool(
        "numpy.py",
        '''
        def run(query: str, top: int = 5):
            """Search notes.

            Parameters
            ----------
            query : str
                What to search for
            top : int, optional
                How many to show
            """
        ''',
        executable=False,
    )
    rest = by_name(discovered(tools_dir, config_dir, "rest"))
    assert rest["path"]["description"] == "The folder to list"
    assert rest["depth"]["description"] == "How deep to go (1 is the folder itself)"
    numpy = discovered(tools_dir, config_dir, "numpy")
    assert numpy["description"] == "Search notes."
    assert by_name(numpy)["query"]["description"] == "What to search for"
    assert by_name(numpy)["top"]["description"] == "How many to show"


def test_a_required_parameter_of_an_unreadable_type_is_an_error_never_dropped(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool(
        "when.py",
        '''
        import datetime

        def run(day: datetime.date, label: str = "x", extra: set[int] | None = None):
            """Plan a day."""
        ''',
        executable=False,
    )
    report = discover_tools(tools_dir, config_dir)
    assert [str(error) for error in report.errors] == [
        "when.py:3: cannot read the type of 'day' (datetime.date): use str, int, float, bool, list, dict, "
        "Literal[...], or declare it with an `@param` line"
    ]
    assert not (config_dir / "tools" / "when.json").exists()


def test_an_optional_parameter_of_an_unreadable_type_is_left_out_with_a_warning(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool(
        "when.py",
        '''
        import datetime

        def run(label: str, day: datetime.date | None = None):
            """Plan a day."""
        ''',
        executable=False,
    )
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors
    assert [param["name"] for param in discovered(tools_dir, config_dir, "when")["parameters"]] == ["label"]
    assert any("'day'" in str(warning) and "left out" in str(warning) for warning in report.warnings)


def _declare(path: Path, relative: str) -> object:
    candidate = Candidate(path=path, relative_path=relative, stat=os.stat(path))
    assert python_function.claims(candidate)

    async def declare() -> object:
        return await python_function.declare(candidate, Probe(1.0, "none"))

    return anyio.run(declare)


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ("def run(cmd):\n    return cmd\n\nrun('ls')\n", "python-script"),
        ("import subprocess\n\ndef run(cmd):\n    return subprocess.run(cmd)\n", "python-helper"),
    ],
)
def test_a_run_that_is_not_a_tool_says_why(make_tool: MakeTool, body: str, kind: str) -> None:
    path = make_tool("helper.py", body, executable=False)
    with pytest.raises(NotATool) as raised:
        _declare(path, "helper.py")
    assert raised.value.kind == kind


def test_a_main_guard_and_other_functions_do_not_matter(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool(
        "echo.py",
        '''
        def _helper(text):
            return text.upper()

        def run(text: str) -> str:
            """Shout the text back."""
            return _helper(text)

        if __name__ == "__main__":
            print(run("hi"))
        ''',
        executable=False,
    )
    script = discovered(tools_dir, config_dir, "echo")
    assert script["description"] == "Shout the text back."
    assert script["parameters"] == [{"name": "text", "type": "string", "required": True, "description": ""}]


def test_execute_modules_stay_with_the_python_module_dialect(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool(
        "both.py",
        '''
        """Both."""
        def run(x: str):
            """A helper."""

        def execute(params):
            return run(params["x"])
        INPUTS = {"x": "string"}
        ''',
        executable=False,
    )
    assert discovered(tools_dir, config_dir, "both")["python_entry"] == "execute"


def test_an_executable_that_answers_help_itself_is_left_to_help_json(make_tool: MakeTool) -> None:
    path = make_tool(
        "calc.py",
        """
        #!/usr/bin/env python3
        import sys

        def run(a: int, b: int) -> int:
            \"\"\"Add.\"\"\"
            return a + b

        if __name__ == "__main__" and sys.argv[1:] == ["--help"]:
            print("{}")
        """,
    )
    candidate = Candidate(path=path, relative_path="calc.py", stat=os.stat(path))
    assert not python_function.claims(candidate)
    path.chmod(0o644)
    assert python_function.claims(Candidate(path=path, relative_path="calc.py", stat=os.stat(path)))
