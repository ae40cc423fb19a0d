"""Which task store `toolkiln tasks` reads: the options that name it (`--state-dir`,
`--state-url` or its variable, the folders whose config/server.json `state` may name
one), and the store opened from them, closed after use.

The store is the servers' own: a Redis server when a URL names one (the replicas of a
deployment share it), else the SQLite file in the state folder. It is read without the
mcp SDK, and `redis` and `sqlite3` are imported only for the store that is used.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from toolkiln.cli.app import Folders, folder_options
from toolkiln.cli.folder_argument import folder_argument
from toolkiln.cli.state_option import ENV_VAR, load_seals
from toolkiln.errors import ConfigError

if TYPE_CHECKING:
    from toolkiln.serve.tasks.overview import Running
    from toolkiln.serve.tasks.store import TaskStore


def store_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """--state-dir, --state-url, and the folders (DIR, or --config-dir: its server.json
    `state` names the store), given to the command as one `Where`. Put it last, below
    the command's own arguments, so that DIR is the last positional word."""

    @functools.wraps(function)
    def command(
        *args: Any, state_dir: Path | None, state_url: str | None, folders: Folders, **kwargs: Any
    ) -> Any:
        # `toolkiln tasks` alone invokes `list` with its defaults, which skip the variable.
        url = state_url or os.environ.get(ENV_VAR) or None
        return function(*args, where=Where(state_dir, url, folders.config), **kwargs)

    wrapped = folder_argument(command)
    wrapped = click.option(
        "--state-url",
        envvar=ENV_VAR,
        show_envvar=True,
        metavar="URL",
        help="Read the tasks from this Redis server, the one the replicas keep them in "
        "(as `serve --state-url`) [default: config/server.json `state.url`; none: the SQLite "
        "store of --state-dir]. A URL with a password: give it in the variable.",
    )(wrapped)
    wrapped = click.option(
        "--state-dir",
        type=click.Path(file_okay=False, path_type=Path),
        help="The servers' state folder, where their SQLite task store is "
        "[default: $XDG_CONFIG_HOME/toolkiln, or ~/.config/toolkiln; "
        "`serve --http --token-file F` keeps it beside F].",
    )(wrapped)
    return folder_options(wrapped)


@dataclasses.dataclass(frozen=True)
class Where:
    """Where the servers keep their tasks, as the options say."""

    state_dir: Path | None
    state_url: str | None
    config_dir: Path


@contextlib.contextmanager
def opened(where: Where) -> Iterator[tuple[TaskStore | None, str, Running]]:
    """The store `where` names (None: no SQLite store made yet), where it is, and whether
    a task's server runs (each asked once). A Redis server that cannot be reached is a
    `ConfigError` naming it (its password as ***)."""
    from toolkiln.serve.tasks.overview import store_liveness
    from toolkiln.serve.tasks.store import TaskStoreError

    store, place = _open_store(where)
    try:
        yield store, place, store_liveness(store) if store is not None else _gone
    except TaskStoreError as error:  # unreachable, or a record sealed with a secret not given
        raise ConfigError(f"{error}{_source(where)}") from None
    finally:
        if store is not None:
            store.close()


def _open_store(where: Where) -> tuple[TaskStore | None, str]:
    from toolkiln.files import load_server_config
    from toolkiln.model.state import check_state_url
    from toolkiln.serve.tasks.overview import open_task_store
    from toolkiln.serve.tasks.store import STORE_FILE
    from toolkiln.state_dir import default_state_dir

    state = load_server_config(where.config_dir).state
    if where.state_url:
        try:
            state = state.model_copy(update={"url": check_state_url(where.state_url)})
        except ValueError as error:
            raise ConfigError(f"--state-url ({ENV_VAR}): {error}") from None
    folder = where.state_dir or default_state_dir()
    if state.url is not None:
        from toolkiln.model.server import TaskSettings
        from toolkiln.serve.tasks import stores

        # Its bounds limit `create` only, which this side never does. With the replicas'
        # secret, what it reads is verified and what it writes (a cancel) sealed.
        store = stores.open_task_store(folder, TaskSettings(), state, load_seals(state))
        return store, stores.describe_store(folder, state)
    import sqlite3  # (and socket, below) when asked: every command starts without them

    try:
        return open_task_store(folder), str(folder / STORE_FILE)
    except (sqlite3.Error, OSError) as error:  # a file that is not a store, or unreadable
        raise ConfigError(f"{folder / STORE_FILE}: cannot read the task store: {error}") from None


def _source(where: Where) -> str:
    if where.state_url:
        return f"; its URL is from --state-url or {ENV_VAR}"
    return f"; its URL is from {where.config_dir / 'server.json'} `state.url`"


def _gone(owner: object) -> bool:
    return False  # no store: no task, no owner asked
