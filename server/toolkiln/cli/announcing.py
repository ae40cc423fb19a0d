"""A rebuild reaches the replicas: `toolkiln build`, and `serve --watch`, tell them on Redis.

With `state.url` (config/server.json, or TOOLKILN_STATE_URL), a new config/tools.json is
announced (serve/replicas/announce.py): every replica that shares the config folder loads it
and tells its clients the lists changed; one with its own copy warns that it serves
another catalog. Redis down: the build stands, and one line says the replicas were not
told. The news is sealed with the replicas' shared secret (state.secret_file, or
TOOLKILN_STATE_SECRET_FILE), without which they would not believe it. Nothing here
imports `redis` or the SDK unless there is a URL to tell.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from toolkiln.cli.rendering import echo_problem
from toolkiln.cli.state_option import ENV_VAR, load_seals
from toolkiln.errors import ConfigError

if TYPE_CHECKING:
    from toolkiln.serve.replicas.replication import Replication
    from toolkiln.serve.service import ToolService

logger = logging.getLogger("toolkiln")


def announce_build(config_dir: Path, catalog_file: Path) -> None:
    """After `toolkiln build`: tell the replicas, when a state URL names their Redis."""
    from toolkiln.files import SERVER_CONFIG_FILE, load_server_config
    from toolkiln.model.state import check_state_url, redact_url
    from toolkiln.serve.replicas.announce import announce_rebuild

    try:
        state = load_server_config(config_dir).state
    except ConfigError:
        return  # the build said what is wrong with it
    url = os.environ.get(ENV_VAR) or state.url
    if not url:
        return
    try:
        check_state_url(url)
    except ValueError as error:
        echo_problem("warning", f"{ENV_VAR}: {error}; the replicas were not told of this build")
        return
    try:
        seals = load_seals(state)
    except ConfigError as error:
        echo_problem("warning", f"{error}; the replicas were not told of this build")
        return
    lag = announce_rebuild(state.model_copy(update={"url": url}), catalog_file, "build", seals)
    if lag is not None:
        echo_problem("warning", lag)
        return
    source = ENV_VAR if os.environ.get(ENV_VAR) else f"{config_dir / SERVER_CONFIG_FILE} `state.url`"
    click.echo(
        f"told the replicas through Redis at {redact_url(url)} ({source}): those that share "
        "this config folder serve it now"
    )


def watch_announcer(
    service: ToolService, replication: Replication | None
) -> Callable[[], Awaitable[None]] | None:
    """What a `--watch` server does after each rebuild it serves: tell the replicas when its
    tools.json changed (None without a state URL: no `replication`)."""
    import anyio

    from toolkiln.serve.replicas.announce import announce_rebuild
    from toolkiln.serve.replicas.news import digest_of

    if replication is None:
        return None
    told = {"digest": digest_of(service.registry.catalog_file)}

    async def announce() -> None:
        catalog_file = service.registry.catalog_file
        digest = digest_of(catalog_file)
        if digest is None or digest == told["digest"]:
            return  # the same tools.json: nothing for the replicas to load
        told["digest"] = digest
        tell = functools.partial(
            announce_rebuild,
            replication.state,
            catalog_file,
            "watch",
            replication.seals,
            replication.instance,
            replication.untold,  # told when Redis is back, if it is away now
        )
        lag = await anyio.to_thread.run_sync(tell)
        if lag is not None:
            logger.warning("%s", lag)
        else:
            logger.info("told the other replicas of the rebuild")

    return announce
