"""The templates toolkiln ships (server/toolkiln/templates/): valid scripts whose only
jinja2 markup is the tool's name, that work copied by hand as well as rendered by `toolkiln new`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from toolkiln.render import render_text
from toolkiln.scaffold import PACKAGED_TEMPLATE_DIR, TEMPLATES

TEMPLATE_DIR = PACKAGED_TEMPLATE_DIR
ANNOTATIONS = TEMPLATE_DIR / "annotations" / "run.sh"
RunCli = Callable[..., Result]
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")

SYNTAX_CHECKS = {
    ".sh": ["bash", "-n"],
    ".py": [sys.executable, "-m", "py_compile"],
    ".js": ["node", "--check"],
}
COMMENT = {".sh": "#", ".js": "//"}


@pytest.mark.parametrize("dialect", list(TEMPLATES))
def test_each_template_is_a_valid_executable_script(dialect: str, tmp_path: Path) -> None:
    template = TEMPLATE_DIR / TEMPLATES[dialect].source
    assert os.access(template, os.X_OK)
    if template.suffix == ".js" and shutil.which("node") is None:
        pytest.skip("node is not installed")
    copy = tmp_path / f"copy{template.suffix}"  # py_compile writes next to the file
    shutil.copy(template, copy)
    subprocess.run([*SYNTAX_CHECKS[template.suffix], str(copy)], check=True, capture_output=True)


@pytest.mark.parametrize("dialect", list(TEMPLATES))
def test_the_only_markup_is_the_name_in_comments(dialect: str) -> None:
    template = TEMPLATE_DIR / TEMPLATES[dialect].source
    text = template.read_text()
    rendered = render_text(text, {"name": "word-count", "title": "Word count"})
    assert rendered == text.replace("{{ name }}", "word-count").replace("{{ title }}", "Word count")
    assert "{{ name }}" in text
    assert not re.search(r"\{%|\{#", text), "no jinja2 blocks or comments: the file must read as it is"
    marked = [line.strip() for line in text.splitlines() if "{{" in line]
    if template.suffix == ".py":  # in the module's docstring
        docstring_end = text.index('"""', text.index('"""') + 3)
        assert all(text.index(line) < docstring_end for line in marked)
    else:
        assert all(line.startswith(COMMENT[template.suffix]) for line in marked), marked


def test_annotations_template_copied_by_hand_is_discovered_and_runs(tools_dir: Path, run_cli: RunCli) -> None:
    shutil.copytree(ANNOTATIONS.parent, tools_dir / "my-tool")
    discovered = run_cli("discover", "--strict")
    assert discovered.exit_code == 0, discovered.output
    assert "1 created" in discovered.output
    assert run_cli("build").exit_code == 0
    listed = json.loads(run_cli("list", "--json").output)
    assert [(tool["name"], tool["dialect"]) for tool in listed] == [("my-tool", "annotations")]
    assert [param["name"] for param in listed[0]["parameters"]] == [
        "function",
        "name",
        "times",
        "shout",
        "word",
        "tags",
    ]

    hello = run_cli("call", "my-tool", "function=hello")
    assert (hello.exit_code, hello.stdout) == (0, "Hello, world!\n")
    shout = run_cli("call", "my-tool", "function=hello", "name=Ada", "times=2", "shout=true", 'tags=["x"]')
    assert (shout.exit_code, shout.stdout) == (0, 'HELLO, ADA!\nHELLO, ADA!\ntags: ["x"]\n')
    lookup = run_cli("call", "my-tool", "function=lookup", "word=kiln")
    assert (lookup.exit_code, lookup.stdout) == (0, "kiln: an oven for firing clay\n")


@pytest.mark.parametrize(
    ("arguments", "code", "message"),
    [
        (["function=lookup"], 2, "my-tool: error: lookup needs a word: --word=WORD"),
        (["function=lookup", "word=_draft"], 3, "my-tool: error: '_draft' is a private entry"),
        (["function=lookup", "word=clay"], 4, "my-tool: error: no glossary entry for 'clay'"),
    ],
)
def test_annotations_template_exit_codes(
    tools_dir: Path, run_cli: RunCli, arguments: list[str], code: int, message: str
) -> None:
    shutil.copytree(ANNOTATIONS.parent, tools_dir / "my-tool")
    run_cli("discover")
    run_cli("build")
    result = run_cli("call", "my-tool", *arguments)
    assert result.exit_code == 1
    assert f"failed with exit code {code}" in result.output
    assert message in result.output


def test_annotations_template_reads_env_vars_when_run_by_hand(tmp_path: Path) -> None:
    script = shutil.copytree(ANNOTATIONS.parent, tmp_path / "my-tool") / "run.sh"
    env = {**os.environ, "word": "glaze", "name": "Ada"}
    by_env = subprocess.run([script, "lookup"], env=env, capture_output=True, text=True, check=False)
    assert (by_env.returncode, by_env.stdout) == (0, "glaze: a glassy coat fused to clay in the kiln\n")
    # argv wins over the environment
    by_argv = subprocess.run(
        [script, "hello", "--name=Grace"], env=env, capture_output=True, text=True, check=False
    )
    assert (by_argv.returncode, by_argv.stdout) == (0, "Hello, Grace!\n")
    assert "INFO hello done" in by_argv.stderr
    unknown = subprocess.run(
        [script, "hello", "--colour=red"], env=env, capture_output=True, text=True, check=False
    )
    assert unknown.returncode == 2 and "ERROR unknown option --colour" in unknown.stderr


@pytest.mark.parametrize(
    ("source", "target", "expected"),
    [
        ("help-json/tool.sh", "my-tool.sh", "Hello, Ada!\nHello, Ada!\n"),
        pytest.param(
            "python/tool.py",
            "my_tool.py",
            '{\n  "greeting": "Hello, Ada!",\n  "lines": [\n    "Hello, Ada!",\n    "Hello, Ada!"\n  ]\n}\n',
        ),
        pytest.param(
            "kit/tool.js",
            "my-tool.js",
            '{"greeting":"Hello, Ada!","lines":["Hello, Ada!","Hello, Ada!"]}\n',
            marks=needs_node,
        ),
    ],
)
def test_single_file_templates_copied_by_hand_are_discovered_and_run(
    tools_dir: Path, run_cli: RunCli, source: str, target: str, expected: str
) -> None:
    copy = tools_dir / target
    shutil.copy(TEMPLATE_DIR / source, copy)  # keeps the run bit, as `cp` does
    if source.startswith("kit/"):  # a kit tool is named by its Name: write one in
        copy.write_text(copy.read_text().replace("{{ title }}", "My tool"))
    discovered = run_cli("discover", "--strict")
    assert discovered.exit_code == 0, discovered.output
    assert run_cli("build").exit_code == 0
    name = Path(target).stem
    called = run_cli("call", name, "name=Ada", "times=2")
    assert (called.exit_code, called.stdout) == (0, expected)


def test_help_json_template_checks_its_arguments_when_run_by_hand(tmp_path: Path) -> None:
    script = shutil.copy(TEMPLATE_DIR / "help-json" / "tool.sh", tmp_path / "greet.sh")
    env = {key: value for key, value in os.environ.items() if key not in ("name", "times", "shout")}
    ok = subprocess.run([script], env={**env, "name": "Ada", "shout": "true"}, capture_output=True, text=True)
    assert (ok.returncode, ok.stdout) == (0, "HELLO, ADA!\n")
    missing = subprocess.run([script], env=env, capture_output=True, text=True)
    assert missing.returncode == 2 and "ERROR name is required" in missing.stderr
    too_many = subprocess.run(
        [script], env={**env, "name": "Ada", "times": "9"}, capture_output=True, text=True
    )
    assert too_many.returncode == 2 and "times must be a whole number from 1 to 5" in too_many.stderr


def test_python_template_runs_by_hand(tmp_path: Path) -> None:
    script = shutil.copy(TEMPLATE_DIR / "python" / "tool.py", tmp_path / "greet.py")
    result = subprocess.run([script, '{"name": "Ada", "shout": true}'], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["data"] == {"greeting": "HELLO, ADA!", "lines": ["HELLO, ADA!"]}
    assert "INFO greeted Ada 1 times" in result.stderr
