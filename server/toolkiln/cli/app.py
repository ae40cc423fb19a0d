"""The `toolkiln` group, its shared options, and the one place errors become exit codes.

Commands live in `pipeline.py` (discover, build, list) and `running.py` (call, serve);
each parses options, calls one library function and renders what it returns. Heavy
imports (the mcp SDK, jsonschema) happen inside the commands that need them, so
`discover`, `build`, `list` and `call` start fast.
"""

from __future__ import annotations

import functools
import importlib
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from toolkiln import __version__
from toolkiln.cli.hints import WORDS_KEY, current_folder, in_mode, no_project_hint
from toolkiln.cli.rendering import paint
from toolkiln.cli.terminal import VisibleFormatter, visible
from toolkiln.dotenv_file import EnvFile, env_file_for, hide_env_file
from toolkiln.errors import ConfigError, ToolkilnError
from toolkiln.hint_words import for_folder

if TYPE_CHECKING:
    from toolkiln.runner import Registry, RunSettings

LOG_LEVELS = ("debug", "info", "warning", "error")


# Each command's module, imported when the command is asked for: `toolkiln discover`
# loads pipeline.py, not the sixteen commands' modules and what they import (~40 ms of
# a run that finds nothing changed). tests/test_cli.py checks the table is complete.
COMMAND_MODULES = {
    "audit": "auditing",
    "build": "pipeline",
    "call": "running",
    "config": "connecting",
    "disable": "switching",
    "discover": "pipeline",
    "doctor": "checking",
    "enable": "switching",
    "fallback": "switching",
    "init": "initializing",
    "install": "connecting",
    "list": "pipeline",
    "new": "scaffolding",
    "serve": "serving",
    "tasks": "tasking",
    "where": "locating",
}


class _Cli(click.Group):
    """Turns toolkiln's own errors into a message and an exit status, in one place; loads
    each command's module on first use (`COMMAND_MODULES`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMAND_MODULES, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMAND_MODULES.get(cmd_name)
        if module is not None and cmd_name not in self.commands:
            importlib.import_module(f"toolkiln.cli.{module}")
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        # The command's words, for a hint that repeats them with DIR (hints.no_project_hint).
        ctx.meta[WORDS_KEY] = [*getattr(ctx, "_protected_args", ()), *ctx.args]
        try:
            return super().invoke(ctx)
        except ToolkilnError as error:
            # An error may quote a file's or a script's words: they cannot drive the terminal.
            message = visible(no_project_hint(in_mode(str(error))))
            click.echo(f"toolkiln: {paint('error', 'red', err=True, bold=True)}: {message}", err=True)
            ctx.exit(1)
        except KeyboardInterrupt:
            click.echo("toolkiln: interrupted", err=True)
            ctx.exit(130)


@click.group(cls=_Cli, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="toolkiln")
@click.option("-v", "--verbose", is_flag=True, help="Log debug details (what runs, how long it takes).")
@click.option(
    "--log-level", type=click.Choice(LOG_LEVELS), help="Log level on stderr [default: warning; serve: info]."
)
@click.pass_context
def cli(ctx: click.Context, verbose: bool, log_level: str | None) -> None:
    """Turn a folder of ordinary scripts into an MCP server.

    \b
    toolkiln init [DIR]     make a project: tools/ with a starter tool, config/, .gitignore
    toolkiln serve DIR      discover, build and serve any folder of scripts, in one command
    toolkiln new NAME       write a new tool from a template (discovered and built)
    toolkiln discover       read tools/ and write config/tools/<name>.json
    toolkiln build          merge the enabled tools into config/tools.json
    toolkiln serve          serve config/tools.json to MCP clients
    toolkiln tasks          the calls running as MCP tasks: list, show, cancel
    toolkiln install CLIENT make Claude, Cursor, VS Code, Gemini CLI, Codex... use the tools
    toolkiln doctor         find what is wrong with the tools, and how to fix it
    toolkiln where DIR      where a folder's configs, build, audit log and .env are

    Every command that reads the tools takes DIR, a project or a folder of scripts, as
    its last word (`toolkiln call NAME DIR KEY=VALUE`).
    """
    default = "info" if ctx.invoked_subcommand == "serve" else "warning"
    level = "debug" if verbose else (log_level or default)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(VisibleFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level.upper(), handlers=[handler])


@dataclass(frozen=True)
class Folders:
    """Where a project's pieces are: given to every command as `folders`."""

    tools: Path
    config: Path
    prompts: Path
    resources: Path

    def existing(self, folder: Path) -> Path | None:
        """The prompts or resources folder when there is one (they are optional)."""
        return folder if folder.is_dir() else None


def folder_arguments(folders: Folders) -> list[str]:
    """The folder options that repeat `folders` on a command line (defaults left out)."""
    arguments = []
    for key, default, _ in _FOLDERS:
        folder = getattr(folders, key)
        if default is not None and folder != Path(default):
            arguments += [f"--{key}-dir", str(folder)]
    return arguments


_FOLDERS = (
    ("tools", "tools", "the scripts"),
    ("config", "config", "the per-item configs (tools/, prompts/, resources/) and the compiled tools.json"),
    # None: beside the tools folder, so `--tools-dir elsewhere/tools` finds elsewhere/prompts.
    ("prompts", None, "prompt templates (optional)"),
    ("resources", None, "files served as resources (optional)"),
)


def folder_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """--tools-dir, --config-dir, --prompts-dir and --resources-dir, on every command."""

    @functools.wraps(function)
    def command(*args: Any, **kwargs: Any) -> Any:
        given = {key: kwargs.pop(f"{key}_dir") for key, _, _ in _FOLDERS}
        beside_tools = {key: given["tools"].parent / key for key, default, _ in _FOLDERS if default is None}
        folders = Folders(**{key: given[key] or beside_tools[key] for key in given})
        hide_env_file(env_file_for(folders.tools))  # no probe or confined tool reads the secrets
        return function(*args, folders=folders, **kwargs)

    for key, default, what in reversed(_FOLDERS):
        variable = f"TOOLKILN_{key.upper()}_DIR"
        command = click.option(
            f"--{key}-dir",
            type=click.Path(file_okay=False, path_type=Path),
            default=default,
            show_default=default or f"{key}/ beside the tools folder",
            envvar=variable,
            help=f"Folder of {what}. Env: {variable}.",
        )(command)
    return command


@dataclass(frozen=True)
class RunOptions:
    """How tools run, from the options `serve` and `call` share."""

    timeout: float
    max_output: int | None  # None: the runner's default
    script_config: tuple[str, ...]

    def settings(
        self, registry: Registry, transport: str, max_concurrency: int | None = None, **server: Any
    ) -> RunSettings:
        """The runner's settings: these options plus the server variables scripts get."""
        from toolkiln.runner import RunSettings, server_env

        script_config = {}
        for pair in self.script_config:
            key, separator, value = pair.partition("=")
            if not separator:
                raise ConfigError(f"--script-config {pair!r}: expected KEY=VALUE")
            script_config[key] = value
        env = server_env(
            tools_dir=registry.tools_dir,
            catalog_file=registry.catalog_file,
            transport=transport,
            log_level=logging.getLevelName(logging.getLogger().level),
            script_config=script_config,
            **server,
        )
        limits: dict[str, Any] = {"max_concurrency": max_concurrency} if max_concurrency else {}
        if self.max_output is not None:
            limits["max_output_bytes"] = self.max_output
        served = current_folder()
        hints = None if served is None else functools.partial(for_folder, served=served, here=None)
        return RunSettings(
            default_timeout=self.timeout, env=env, env_file=tool_env_file(registry), hints=hints, **limits
        )


def tool_env_file(registry: Registry) -> EnvFile:
    """The `.env` beside the scripts (DIR's, or the project's), read by the server only:
    hidden from every confined process, its values given to the tools that name them.
    Read now, so that a file toolkiln refuses (not private) stops the command at once."""
    served = current_folder()
    env_file = EnvFile(env_file_for(registry.tools_dir, served.root if served is not None else None))
    env_file.values(refuse=True)  # ConfigError: the command says why and stops
    return env_file


def run_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """--timeout, --max-output and --script-config, handed to the command as `run`."""

    @functools.wraps(function)
    def command(
        *args: Any, timeout: float, max_output: int | None, script_config: tuple[str, ...], **kwargs: Any
    ) -> Any:
        return function(*args, run=RunOptions(timeout, max_output, script_config), **kwargs)

    for option in reversed(
        [
            click.option(
                "--timeout",
                type=click.FloatRange(min=0, min_open=True),
                default=60.0,
                show_default=True,
                help="Seconds a tool may run when its config sets no timeout_seconds.",
            ),
            click.option(
                "--max-output",
                type=click.IntRange(min=1024),
                show_default="256 KiB",
                help="Bytes of a tool's stdout kept; the rest is cut and the result says so. "
                "A tool's own limits.max_output_bytes wins.",
            ),
            click.option(
                "--script-config",
                "script_config",
                multiple=True,
                metavar="KEY=VALUE",
                help="An env var every script gets (repeatable), as mcpd's --script-config.",
            ),
        ]
    ):
        command = option(command)
    return command
