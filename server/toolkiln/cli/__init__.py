"""The `toolkiln` command line: the only home of click."""

from toolkiln.cli import (  # noqa: F401  (each module registers its commands)
    auditing,
    checking,
    connecting,
    initializing,
    locating,
    pipeline,
    running,
    scaffolding,
    serving,
    switching,
    tasking,
)
from toolkiln.cli.app import cli

main = cli

__all__ = ["cli", "main"]
