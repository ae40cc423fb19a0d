"""Write docs/cli.md from the commands' own --help, so the reference never drifts.

.venv/bin/python docs/cli_reference.py          # rewrite docs/cli.md
.venv/bin/python docs/cli_reference.py --check  # exit 1 if docs/cli.md is stale (CI)
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from click.testing import CliRunner

from toolkiln.cli import cli

OUTPUT = Path(__file__).with_name("cli.md")


def render() -> str:
    runner = CliRunner()
    sections = [
        "# Command-line reference\n",
        "Generated from `--help` by `docs/cli_reference.py`; do not edit.\n",
    ]
    assert isinstance(cli, click.Group)
    for args in [[], *_command_paths(cli)]:
        result = runner.invoke(cli, [*args, "--help"], prog_name="toolkiln", terminal_width=100)
        title = " ".join(["toolkiln", *args])
        sections.append(f"## {title}\n\n```\n{result.output.rstrip()}\n```\n")
    return "\n".join(sections)


def _command_paths(group: click.Group) -> list[list[str]]:
    """Every command's words, a group's subcommands after it (`tasks`, `tasks cancel`)."""
    paths = []
    for name in group.list_commands(click.Context(group)):
        paths.append([name])
        command = group.get_command(click.Context(group), name)
        if isinstance(command, click.Group):
            paths += [[name, *path] for path in _command_paths(command)]
    return paths


def main() -> None:
    text = render()
    if "--check" in sys.argv:
        if OUTPUT.read_text() != text:
            sys.exit("docs/cli.md is out of date: run `make docs`")
        return
    OUTPUT.write_text(text)


if __name__ == "__main__":
    main()
