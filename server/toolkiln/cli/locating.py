"""`toolkiln where [DIR]`: where the files of a project, or of a folder of scripts, are."""

from __future__ import annotations

import json
from pathlib import Path

import click

from toolkiln.cli.app import Folders, cli, folder_options
from toolkiln.cli.folder_argument import folder_argument, served_folder
from toolkiln.cli.rendering import render_table


@cli.command()
@folder_options
@folder_argument
@click.option("--json", "as_json", is_flag=True, help="Print the places as one JSON object.")
def where(folders: Folders, as_json: bool) -> None:
    """Print where the scripts, the per-tool configs, the build, the audit log, the
    task store and the secrets (.env) of DIR are, so that a folder of scripts, whose
    configs toolkiln keeps in a private folder, has no hidden place.
    """
    from toolkiln.cli.auditing import AUDIT_FILE
    from toolkiln.dotenv_file import env_file_for
    from toolkiln.files import catalog_path, tool_configs_dir
    from toolkiln.state_dir import default_state_dir

    served = served_folder()
    folders = Folders(
        *(folder.absolute() for folder in (folders.tools, folders.config, folders.prompts, folders.resources))
    )
    places = {
        "folder": str(served.root if served is not None else Path.cwd()),
        "mode": "folder of scripts" if served is not None and served.owned else "project",
        "scripts": str(folders.tools),
        "configs": str(tool_configs_dir(folders.config)),
        "server_config": str(folders.config / "server.json"),
        "build": str(catalog_path(folders.config)),
        "audit_log": str(folders.config / AUDIT_FILE),
        "task_store": _task_store(folders.config, default_state_dir()),
        "env_file": str(env_file_for(folders.tools, served.root if served is not None else None)),
    }
    if as_json:
        click.echo(json.dumps(places, indent=2))
        return
    click.echo(render_table([(key.replace("_", " "), value) for key, value in places.items()]))


def _task_store(config_dir: Path, state_dir: Path) -> str:
    from toolkiln.errors import ConfigError
    from toolkiln.files import load_server_config
    from toolkiln.model.state import redact_url

    try:
        url = load_server_config(config_dir).state.url
    except ConfigError:
        url = None
    return redact_url(url) if url else str(state_dir / "tasks.sqlite3")
