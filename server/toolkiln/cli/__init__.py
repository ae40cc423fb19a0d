"""The `toolkiln` command line: the only home of click.

Each command's module is imported when that command runs (`app.COMMAND_MODULES`).
"""

from toolkiln.cli.app import cli

main = cli

__all__ = ["cli", "main"]
