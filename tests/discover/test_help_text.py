"""`discover --help` (and every other command's) reads as paragraphs: none indented, so
none wrapped mid-line ("is not read     again") by click."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import click
from click.testing import CliRunner

import toolkiln
from toolkiln.cli import cli


def all_commands(group: click.Group, prefix: str = "") -> list[tuple[str, click.Command]]:
    found = []
    for name, command in sorted(group.commands.items()):
        found.append((f"{prefix}{name}", command))
        if isinstance(command, click.Group):
            found += all_commands(command, f"{prefix}{name} ")
    return found


def test_every_commands_help_is_made_of_unindented_paragraphs() -> None:
    for name, command in all_commands(cli):
        for paragraph in inspect.cleandoc(command.help or "").split("\n\n"):
            if not paragraph.startswith("\b"):  # a block click keeps as it is
                assert not paragraph.startswith(" "), f"toolkiln {name} --help: {paragraph[:60]!r}"


def test_discover_help_wraps_its_paragraphs_as_paragraphs() -> None:
    result = CliRunner().invoke(cli, ["discover", "--help"], terminal_width=80)
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert "is not read again. Settings you edit" in text
    description = result.output.split("Options:")[0]
    assert all(not line.startswith("   ") for line in description.splitlines()), description


PACKAGE = Path(toolkiln.__file__).parent


def user_strings(source: str) -> list[str]:
    """The string literals of a module that are not docstrings: what it can print."""
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_no_message_or_template_cites_an_internal_document() -> None:
    """`(seeds/000)` means nothing to a user: messages cite docs/ pages they have."""
    cited = [
        f"{path.relative_to(PACKAGE)}: {text[:80]!r}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for text in user_strings(path.read_text())
        if "seeds/" in text
    ]
    cited += [
        str(path.relative_to(PACKAGE))
        for path in sorted((PACKAGE / "templates").rglob("*"))
        if path.is_file() and "seeds/" in path.read_text(errors="replace")
    ]
    assert cited == []
