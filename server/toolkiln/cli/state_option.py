"""`serve --state-url` (or TOOLKILN_STATE_URL): the Redis server replicas share.

It wins over config/server.json `state.url`, and unlike that file it may carry a
password (`redis://:PASSWORD@host:6379/0`), which is never printed: logs and errors
show the URL with `***` in its place.

TOOLKILN_STATE_SECRET_FILE wins over `state.secret_file` in the same way: the file of the
secret replicas derive their keys from (toolkiln/state_secret.py). It is checked here,
before the server starts: private, long enough, and not the bearer token.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from toolkiln.errors import ConfigError
from toolkiln.state_secret import SECRET_ENV_VAR

if TYPE_CHECKING:
    from toolkiln.model import StateSettings
    from toolkiln.serve.sealed_messages import Seals

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


def load_seals(state: StateSettings) -> Seals | None:
    """What a command that writes to the replicas' Redis (`build`, `tasks cancel`) seals
    with: the secret of TOOLKILN_STATE_SECRET_FILE or `state.secret_file`, if one is
    given (the SDK is imported only then); a `ConfigError` when it cannot be read."""
    secret_file = os.environ.get(SECRET_ENV_VAR) or state.secret_file
    if not secret_file:
        return None
    from toolkiln.serve.sealed_messages import Seals
    from toolkiln.state_secret import load_state_secret

    return Seals(load_state_secret(Path(secret_file).expanduser().absolute()).secrets, state.key_prefix)


def chosen_state(
    configured: StateSettings, url: str | None, state_dir: Path, token: str | None = None
) -> StateSettings:
    """The catalog's `state`, with `url` (from the option or variable) in its place, and
    the secret file of TOOLKILN_STATE_SECRET_FILE; its secret checked (never `token`)."""
    from toolkiln.model.state import check_state_url
    from toolkiln.serve.tasks.stores import describe_store
    from toolkiln.state_secret import load_state_secret

    state = configured
    if url:
        try:
            check_state_url(url)
        except ValueError as error:
            raise ConfigError(f"--state-url ({ENV_VAR}): {error}") from None
        state = configured.model_copy(update={"url": url})
    if state.url is not None:
        logger.info("tasks are kept in %s", describe_store(state_dir, state))
    secret_file = os.environ.get(SECRET_ENV_VAR) or state.secret_file
    if secret_file:
        path = Path(secret_file).expanduser().absolute()
        secret = load_state_secret(path)  # private, long enough: refused now, before the server starts
        if token is not None and secret.holds(token):
            raise ConfigError(
                f"{path} ({SECRET_ENV_VAR} or state.secret_file) holds the bearer token: give the "
                "replicas a secret of its own (whoever has the token must not be able to forge requestState)"
            )
        logger.info("requestState is sealed with keys derived from %s: any replica given it opens it", path)
        state = state.model_copy(update={"secret_file": str(path)})
    elif state.url is not None:
        logger.warning(
            "replicas share %s but no secret: each seals requestState with keys of its own, so a "
            "client's answers or confirmation that reach another replica are refused there; and "
            "since nothing replicas tell each other through Redis can be verified, none is told or "
            "believed: dashboard switches and rebuilds elsewhere are not applied here, answers are "
            "not relayed, heartbeats are taken on trust; give every replica the same "
            "state.secret_file (or %s)",
            describe_store(state_dir, state),
            SECRET_ENV_VAR,
        )
    return state
