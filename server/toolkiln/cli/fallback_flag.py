"""`--fallback` of `serve` and `discover`: the fallback one flag away (fallback_opt_in.py)."""

from __future__ import annotations

import click

from toolkiln.cli.app import Folders

FALLBACK_HELP = (
    "Also serve, as they are, the scripts whose arguments cannot be read: each takes the client's "
    "`args` as its command line (each file is kept in CONFIG_DIR/server.json for later runs)."
)


def opt_in_unread(folders: Folders) -> None:
    """Discover, opt in the files whose arguments could not be read, and say which and where."""
    from toolkiln.discover import discover_tools
    from toolkiln.fallback_opt_in import FALLBACK_KINDS, opt_in_files

    report = discover_tools(folders.tools, folders.config)
    added = opt_in_files(folders.config, (v.path for v in report.not_tools if v.kind in FALLBACK_KINDS))
    if added:
        click.echo(
            f"fallback: {', '.join(added)} served as they are (each takes `args`); kept in "
            f"{folders.config / 'server.json'} (discovery.fallback: remove a file there to stop)",
            err=True,
        )
