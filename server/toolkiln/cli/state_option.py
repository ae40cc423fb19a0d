"""`serve --state-url` (or TOOLKILN_STATE_URL): the Redis server replicas share.

It wins over config/server.json `state.url`, and unlike that file it may carry a
password (`redis://:PASSWORD@host:6379/0`), which is never printed: logs and errors
show the URL with `***` in its place.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from toolkiln.errors import ConfigError

if TYPE_CHECKING:
    from pathlib import Path

    from toolkiln.model import StateSettings

logger = logging.getLogger("toolkiln")
ENV_VAR = "TOOLKILN_STATE_URL"


state_option: Callable[[Callable[..., Any]], Callable[..., Any]] = click.option(
    "--state-url",
    envvar=ENV_VAR,
    show_envvar=True,
    metavar="URL",
    help="Keep tasks in this Redis server, shared by replicas: redis://HOST:PORT/DB, "
    "rediss://... (TLS) or unix:///path.sock [default: config/server.json `state.url`; "
    "none: a SQLite file in the state folder]. A URL with a password: give it in the variable.",
)


def chosen_state(configured: StateSettings, url: str | None, state_dir: Path) -> StateSettings:
    """The catalog's `state`, with `url` (from the option or variable) in its place."""
    from toolkiln.model.state import check_state_url
    from toolkiln.serve.tasks.stores import describe_store

    state = configured
    if url:
        try:
            check_state_url(url)
        except ValueError as error:
            raise ConfigError(f"--state-url ({ENV_VAR}): {error}") from None
        state = configured.model_copy(update={"url": url})
    if state.url is not None:
        logger.info("tasks are kept in %s", describe_store(state_dir, state))
    return state
