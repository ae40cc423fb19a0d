"""`discover --help` (and every other command's) reads as paragraphs: none indented, so
none wrapped mid-line ("is not read     again") by click."""

from __future__ import annotations

import inspect

import click
from click.testing import CliRunner

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
