"""`serve --state-url` (or TOOLKILN_STATE_URL): the Redis server replicas share.

It wins over config/server.json `state.url`, and unlike that file it may carry a
password (`redis://:PASSWORD@host:6379/0`), which is never printed: logs and errors
show the URL with `***` in its place.

TOOLKILN_STATE_SECRET_FILE wins over `state.secret_file` in the same way: the file of the
secret replicas derive their requestState keys from (serve/keys.py). It is checked here,
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

if TYPE_CHECKING:
    from toolkiln.model import StateSettings

logger = logging.getLogger("toolkiln")
ENV_VAR = "TOOLKILN_STATE_URL"
# serve/keys.py reads it (that module imports the SDK; this one must not).
SECRET_FILE_VARIABLE = "TOOLKILN_STATE_SECRET_FILE"


state_option: Callable[[Callable[..., Any]], Callable[..., Any]] = click.option(
    "--state-url",
    envvar=ENV_VAR,
    show_envvar=True,
    metavar="URL",
    help="Keep tasks in this Redis server, shared by replicas: redis://HOST:PORT/DB, "
    "rediss://... (TLS) or unix:///path.sock [default: config/server.json `state.url`; "
    "none: a SQLite file in the state folder]. A URL with a password: give it in the variable.",
)


def chosen_state(
    configured: StateSettings, url: str | None, state_dir: Path, token: str | None = None
) -> StateSettings:
    """The catalog's `state`, with `url` (from the option or variable) in its place, and
    the secret file of TOOLKILN_STATE_SECRET_FILE; its secret checked (never `token`)."""
    from toolkiln.model.state import check_state_url
    from toolkiln.serve.keys import SECRET_ENV_VAR, load_state_secret
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
            "client's answers or confirmation that reach another replica are refused there; give "
            "every replica the same state.secret_file (or %s)",
            describe_store(state_dir, state),
            SECRET_ENV_VAR,
        )
    return state
