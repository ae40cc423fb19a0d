"""The pipeline `serve` composes: discover and build before serving (`--discover`, DIR),
on every change (`--watch`), and on a dashboard switch."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING

from toolkiln.cli.app import Folders
from toolkiln.errors import ToolkilnError
from toolkiln.files import catalog_path

if TYPE_CHECKING:
    from toolkiln.runner import Registry

logger = logging.getLogger("toolkiln")


def build_folders(folders: Folders, *, discover: bool, force: bool = False) -> bool:
    """Build (after a discover, when asked); whether it built. What failed is logged,
    and the last good tools.json stays in place."""
    from toolkiln.build.merge import build_catalog
    from toolkiln.discover import discover_tools

    prompts, resources = folders.existing(folders.prompts), folders.existing(folders.resources)
    try:
        if discover:
            report = discover_tools(
                folders.tools, folders.config, force=force, prompts_dir=prompts, resources_dir=resources
            )
            for problem in report.errors:
                logger.error("discover: %s", problem)
        for refusal in build_catalog(folders.config, folders.tools, prompts, resources).errors:
            logger.error("build: %s", refusal)
    except ToolkilnError as error:
        logger.error("%s\nstill serving the last good %s", error, catalog_path(folders.config))
        return False
    return True


def build_and_tell(folders: Folders) -> bool:
    """Build, as `toolkiln build` does, for the commands that change a tool (`new`,
    `enable`, `fallback`): what was refused, and what was built; whether all was."""
    import click

    from toolkiln.build.merge import build_catalog
    from toolkiln.cli.announcing import announce_build
    from toolkiln.cli.rendering import echo_problem
    from toolkiln.wording import counted

    report = build_catalog(
        folders.config, folders.tools, folders.existing(folders.prompts), folders.existing(folders.resources)
    )
    for problem in report.errors:
        echo_problem("error", problem)
    click.echo(f"built {report.path} with {counted(len(report.tools), 'tool')}")
    announce_build(folders.config, report.path)  # with a state URL: every replica serves it
    return not report.errors


def built_from(folders: Folders, registry: Registry) -> Folders:
    """The folders `registry` was built from (its tools.json says), so that a rebuild by a
    server started elsewhere, or without --tools-dir, does not read another project."""
    return replace(
        folders,
        tools=registry.tools_dir,
        prompts=registry.prompts_dir or folders.prompts,
        resources=registry.resources_dir or folders.resources,
    )


def rebuild_folders(folders: Folders, *, discover: bool) -> Registry | None:
    """What `--watch` runs on a change (`discover`), or a dashboard switch without it: the
    registry to serve now, or None to keep the current one."""
    from toolkiln.runner import Registry

    if not build_folders(folders, discover=discover):
        return None
    try:
        return Registry.load(catalog_path(folders.config))
    except ToolkilnError as error:
        logger.error("%s", error)
        return None
