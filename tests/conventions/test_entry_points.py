"""Declared entry points (conventions/entry_points): what discovery makes of a project's
`[project.scripts]`, `[tool.poetry.scripts]` and `bin`, read statically, never run."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import MakeTool
from tests.conventions.entry_point_projects import make_click_examples, make_node_package
from toolkiln.discover import discover_tools
from toolkiln.files import load_tool_config, tool_config_path

NEVER_IMPORT = 'raise SystemExit("discovery must never import me")\n'


def test_click_examples_without_a_main_block_are_served_under_their_command_names(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_click_examples(make_tool)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors
    assert sorted(status.name for status in report.tools) == ["repo_clone", "repo_commit", "validation"]
    validation = load_tool_config(tool_config_path(config_dir, "validation")).script_config
    assert validation.dialect == "entry-point" and validation.entry_point == "validation:cli"
    assert validation.script_path == "validation/pyproject.toml"
    assert validation.description == "Validation."
    assert [(p.name, p.type, p.option, p.default) for p in validation.parameters] == [
        ("count", "integer", "--count", 2),
        ("foo", "string", "--foo", None),
    ]
    clone = load_tool_config(tool_config_path(config_dir, "repo_clone")).script_config
    assert clone.command == "clone"
    assert [(p.name, p.required, p.before_command) for p in clone.parameters] == [
        ("repo_home", False, True),
        ("src", True, False),
        ("dest", False, False),
        ("shallow", False, False),
    ]
    # the module is no tool of its own: the project folder is its commands
    assert not [v for v in report.not_tools if v.path.endswith(".py")]


def test_a_module_with_its_own_main_block_is_served_once_as_the_entry_point(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("proj/pyproject.toml", '[project]\nname = "x"\n[project.scripts]\nhello = "hello:main"\n')
    make_tool(
        "proj/hello.py",
        """\
        import argparse


        def main():
            \"\"\"Say hello.\"\"\"
            parser = argparse.ArgumentParser()
            parser.add_argument("name")
            print("hello", parser.parse_args().name)


        if __name__ == "__main__":
            main()
        """,
    )
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors
    assert [status.name for status in report.tools] == ["hello"]  # not also proj__hello


def test_src_layout_poetry_scripts_and_a_package_module(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool(
        "proj/pyproject.toml",
        '[tool.poetry]\nname = "x"\ndescription = "Does x"\n[tool.poetry.scripts]\nx-cli = "xpkg.cli:run"\n',
    )
    make_tool("proj/src/xpkg/__init__.py", "")
    make_tool(
        "proj/src/xpkg/cli.py",
        """\
        from . import helpers
        import typer

        app = typer.Typer()


        def run():
            typer.run(greet)


        def greet(name: str, times: int = 1):
            print(helpers.greeting(name) * times)
        """,
    )
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, report.errors
    [status] = report.tools
    assert status.name == "x-cli"
    config = load_tool_config(tool_config_path(config_dir, "x-cli")).script_config
    assert config.entry_point == "xpkg.cli:run"
    assert [(p.name, p.type, p.required) for p in config.parameters] == [
        ("name", "string", True),
        ("times", "integer", False),
    ]


def test_package_json_bin_is_read_by_the_node_readers_and_named_after_the_package(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_node_package(make_tool)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors
    [status] = report.tools
    assert status.name == "greet"  # `@me/greet`: npm names the command without the scope
    config = load_tool_config(tool_config_path(config_dir, "greet")).script_config
    assert config.entry_point == "bin/greet.js" and config.description == "Greets people"
    assert [p.name for p in config.parameters] == ["shout", "greeting", "positionals"]


def test_targets_outside_the_project_or_not_a_function_are_refused_with_why(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    (tmp_path / "outside.js").write_text("require('node:util').parseArgs({})\n")
    make_tool(
        "pkg/package.json",
        '{"name": "p", "bin": {"up": "../../outside.js", "abs": "/etc/passwd", "gone": "bin/none.js"}}',
    )
    make_tool("py/pyproject.toml", '[project.scripts]\nbad = "not a target"\nmissing = "nowhere:main"\n')
    report = discover_tools(tools_dir, config_dir)
    assert report.tools == []
    reasons = {verdict.path: verdict.reason for verdict in report.not_tools}
    assert "nowhere" in reasons["py/pyproject.toml"]
    assert "not a file" in reasons["pkg/package.json"]
    assert "'../../outside.js' is not a file inside the project" in reasons["pkg/package.json"]
    assert "'/etc/passwd' is not a file inside the project" in reasons["pkg/package.json"]
    assert "names no `module:function`" in reasons["py/pyproject.toml"]


def test_the_module_is_never_imported_and_a_change_to_it_is_a_change_to_the_tool(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("proj/pyproject.toml", '[project.scripts]\ngo = "go:cli"\n')
    module = make_tool(
        "proj/go.py",
        NEVER_IMPORT
        + 'import click\n\n@click.command()\n@click.option("--n", type=int)\ndef cli(n):\n    pass\n',
    )
    assert [s.change for s in discover_tools(tools_dir, config_dir).tools] == ["created"]
    module.write_text(module.read_text().replace('"--n", type=int', '"--m", type=float'))
    report = discover_tools(tools_dir, config_dir)
    assert [s.change for s in report.tools] == ["updated"]
    config = load_tool_config(tool_config_path(config_dir, "go")).script_config
    assert [(p.name, p.type) for p in config.parameters] == [("m", "number")]


def test_imports_the_python_cannot_satisfy_are_said_with_the_remedy(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("proj/pyproject.toml", '[project.scripts]\ngo = "go:main"\n')
    make_tool("proj/go.py", "import surely_not_installed_pkg\n\ndef main():\n    pass\n")
    report = discover_tools(tools_dir, config_dir)
    [warning] = [w for w in report.warnings if "surely_not_installed_pkg" in str(w)]
    assert "ModuleNotFoundError" in str(warning)
    assert "python3 -m venv" in str(warning) and "pip install -e" in str(warning)


def test_a_project_venv_without_a_working_python_is_reported_with_the_remedy(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("proj/pyproject.toml", '[project.scripts]\ngo = "go:main"\n')
    make_tool("proj/go.py", "def main():\n    pass\n")
    make_tool("proj/.venv/pyvenv.cfg", "home = /nowhere/bin\n")
    (tools_dir / "proj/.venv/bin").mkdir()
    (tools_dir / "proj/.venv/bin/python").symlink_to("/nowhere/bin/python3")
    report = discover_tools(tools_dir, config_dir)
    assert report.tools == []
    [error] = report.errors
    assert "python3 -m venv --clear" in str(error) and error.path == "proj/pyproject.toml"
