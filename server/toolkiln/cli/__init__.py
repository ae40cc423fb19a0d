"""The `toolkiln` command line: the only home of click."""

from toolkiln.cli import auditing, pipeline, running, serving  # noqa: F401  (each module registers its commands)
from toolkiln.cli.app import cli

main = cli

__all__ = ["cli", "main"]
