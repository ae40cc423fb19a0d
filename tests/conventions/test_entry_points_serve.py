"""Declared entry points through `toolkiln serve` and the SDK's real client: the
arguments reach the command as its own parser expects them, run as its entry point
(`sys.argv[0]` the command's name, the project's `.venv` Python where it has one)."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.conventions.entry_point_projects import make_click_examples, make_node_package
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = pytest.mark.anyio


def served(tools_dir: Path, config_dir: Path) -> Path:
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, report.errors
    build_catalog(config_dir, tools_dir)
    return config_dir


@pytest.fixture
def click_examples(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_click_examples(make_tool)
    return served(tools_dir, config_dir)


async def test_click_examples_get_their_arguments_as_click_parses_them(click_examples: Path) -> None:
    async with connect(click_examples, "auto") as client:
        names = sorted(tool.name for tool in (await client.list_tools()).tools)
        count = await client.call_tool("validation", {"count": 4, "foo": "--wat"})
        odd = await client.call_tool("validation", {"count": 3})
        clone = await client.call_tool(
            "repo_clone", {"repo_home": "/srv/r", "src": "-weird", "dest": "out", "shallow": True}
        )
        deep = await client.call_tool("repo_clone", {"src": "a"})
        commit = await client.call_tool("repo_commit", {"message": ["first", "-m second"]})
    assert names == ["repo_clone", "repo_commit", "validation"]
    assert json.loads(text_of(count)) == {"prog": "validation", "count": 4, "foo": "--wat"}
    assert odd.is_error and "positive, even integer" in text_of(odd)
    assert json.loads(text_of(clone)) == {"home": "/srv/r", "src": "-weird", "dest": "out", "shallow": True}
    assert json.loads(text_of(deep)) == {"home": ".repo", "src": "a", "dest": None, "shallow": False}
    assert json.loads(text_of(commit)) == {"home": ".repo", "message": ["first", "-m second"]}


@pytest.fixture
def node_package(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_node_package(make_tool)
    return served(tools_dir, config_dir)


async def test_a_package_json_bin_runs_with_node(node_package: Path) -> None:
    async with connect(node_package, "auto") as client:
        result = await client.call_tool("greet", {"shout": True, "positionals": ["--World", "x y"]})
    assert json.loads(text_of(result)) == {
        "greeting": "Hello",
        "shout": True,
        "positionals": ["--World", "x y"],
    }


@pytest.fixture
def venv_project(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    project = tools_dir / "proj"
    make_tool("proj/pyproject.toml", '[project.scripts]\nwhere = "where:main"\n', executable=False)
    make_tool(
        "proj/where.py",
        """\
        import argparse
        import json
        import sys

        import only_in_the_venv


        def main():
            \"\"\"Say which Python runs it.\"\"\"
            parser = argparse.ArgumentParser()
            parser.add_argument("--label", default="x")
            args = parser.parse_args()
            print(json.dumps({"prefix": sys.prefix, "label": args.label, "lib": only_in_the_venv.NAME}))
        """,
        executable=False,
    )
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(project / ".venv")], check=True)
    purelib = sysconfig.get_path("purelib", vars={"base": str(project / ".venv")})
    (Path(purelib) / "only_in_the_venv.py").write_text('NAME = "venv"\n')
    served(tools_dir, config_dir)
    return project


async def test_a_project_with_a_venv_runs_with_its_python_and_its_packages(
    venv_project: Path, config_dir: Path
) -> None:
    project = venv_project
    async with connect(config_dir, "auto") as client:
        result = await client.call_tool("where", {"label": "-a b"})
    assert json.loads(text_of(result)) == {"prefix": str(project / ".venv"), "label": "-a b", "lib": "venv"}


def test_a_bin_file_made_a_link_out_of_the_project_after_discovery_is_refused(
    node_package: Path, tools_dir: Path, tmp_path: Path
) -> None:
    from tests.terminal import run_piped

    outside = tmp_path / "elsewhere.js"
    outside.write_text("console.log('ran outside the project')\n")
    bin_file = tools_dir / "greet" / "bin" / "greet.js"
    bin_file.unlink()
    bin_file.symlink_to(outside)
    result = run_piped(["call", "greet", "shout=true"], cwd=tools_dir.parent)
    assert result.returncode != 0
    assert "ran outside" not in result.stdout
    assert "bin/greet.js" in result.stderr + result.stdout


def test_a_module_made_a_link_out_of_the_project_after_discovery_is_refused(
    click_examples: Path, tools_dir: Path, tmp_path: Path
) -> None:
    from tests.terminal import run_piped

    outside = tmp_path / "validation.py"
    outside.write_text("def cli():\n    print('ran outside the project')\n")
    module = tools_dir / "validation" / "validation.py"
    module.unlink()
    module.symlink_to(outside)
    result = run_piped(["call", "validation", "count=4"], cwd=tools_dir.parent)
    assert result.returncode != 0
    assert "ran outside" not in result.stdout
    assert "the module validation of validation:cli is not a file inside" in result.stderr + result.stdout
