"""`toolkiln call`: run one tool from the command line, exactly as the server would."""

from __future__ import annotations

import dataclasses
import json
import logging
import sys
from typing import Any

import click

from toolkiln.cli.app import Folders, RunOptions, cli, folder_options, run_options
from toolkiln.cli.folder_argument import resolve_folders, split_folder_word
from toolkiln.cli.rendering import colour_enabled
from toolkiln.cli.terminal import visible
from toolkiln.errors import ToolkilnError
from toolkiln.files import catalog_path


@cli.command(context_settings={"ignore_unknown_options": False})
@folder_options
@run_options
@click.argument("name")
@click.argument("arguments", nargs=-1, metavar="[DIR] [KEY=VALUE]...")
@click.option("--args", "json_args", metavar="JSON", help="All arguments as one JSON object: '{\"a\": 1}'.")
@click.option("--json", "as_json", is_flag=True, help="Print the whole result as JSON.")
def call(
    folders: Folders,
    run: RunOptions,
    name: str,
    arguments: tuple[str, ...],
    json_args: str | None,
    as_json: bool,
) -> None:
    """Run tool NAME once, exactly as the server would, and print its result.

    Arguments are KEY=VALUE: strings as typed, other types as JSON (count=3,
    verbose=true, tags='["a","b"]'). Exits with status 1 when the tool fails.
    The tool's log lines (INFO, WARNING, ERROR; DEBUG with -v) and its progress are
    shown on stderr as they come: on a terminal progress is a bar, elsewhere a plain
    line. On a terminal, an interactive tool's questions are asked there.

    DIR, when given (the first word after NAME that is no KEY=VALUE), names the
    folders in one word, as `toolkiln serve DIR` does: a project, or a folder of
    scripts whose configs toolkiln keeps (`toolkiln where DIR` shows where).
    """
    import anyio

    from toolkiln.cli.call_display import CallDisplay
    from toolkiln.cli.unknown_tool import explain_unknown_tool
    from toolkiln.runner import Registry, ToolResult, ToolRunner, UnknownToolError
    from toolkiln.schema import parse_cli_value

    folder, arguments = split_folder_word(arguments)
    folders = resolve_folders(folder, folders)
    registry = Registry.load(catalog_path(folders.config))
    try:
        tool = registry.get(name)
    except UnknownToolError:
        raise ToolkilnError(
            explain_unknown_tool(name, registry.tools, folders.tools, folders.config)
        ) from None
    values: dict[str, Any] = _json_object_option(json_args) if json_args else {}
    parameters = {param.name: param for param in tool.parameters}
    for pair in arguments:
        key, separator, text = pair.partition("=")
        if not separator:
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="ARGUMENTS")
        values[key] = parse_cli_value(parameters.get(key), text)
    runner = ToolRunner(registry, run.settings(registry, "cli"))
    display = CallDisplay(
        sys.stderr,
        terminal=sys.stderr.isatty(),
        colour=colour_enabled(err=True),
        threshold=min(logging.getLogger().getEffectiveLevel(), logging.INFO),
        ask=sys.stdin.isatty(),
    )

    async def call_once() -> ToolResult:
        try:  # the display shows the log lines: the result's stderr tail leaves them out
            return await runner.call(name, values, display, tail_logs=False)
        finally:
            display.finish()
            await runner.close()

    result = anyio.run(call_once)
    if as_json:
        click.echo(json.dumps(dataclasses.asdict(result), indent=2, ensure_ascii=False))
    elif result.text:  # on a terminal, the tool's words cannot drive it
        click.echo(visible(result.text) if sys.stdout.isatty() else result.text)
    if result.is_error:
        sys.exit(1)


def _json_object_option(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise click.BadParameter(f"not valid JSON: {error.msg}", param_hint="--args") from None
    if not isinstance(value, dict):
        raise click.BadParameter("must be a JSON object", param_hint="--args")
    return value
