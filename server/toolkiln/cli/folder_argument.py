"""The optional DIR argument: a folder of scripts, or a project, named in one word.

`toolkiln serve ~/scripts` serves a folder that is not a project without writing into
it (its configs go into a folder toolkiln owns: `served_folder.py`); `toolkiln serve
~/my-project` serves a project (tools/ and config/) from its own folders. Commands that
take DIR take it the same way, as their last positional word (`call NAME DIR`, `new
NAME DIR`, `tasks show ID DIR`), so `discover`, `build`, `list`, `call`, `audit`, ...
of DIR see what `serve DIR` serves. `resolve_folders` is the one resolver; the
`folder_argument` decorator gives it to a command.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from toolkiln.cli.app import Folders
from toolkiln.cli.hints import SERVED_KEY, current_folder
from toolkiln.dotenv_file import env_file_for, hide_env_file

if TYPE_CHECKING:
    from toolkiln.served_folder import ServedFolder

DIR_HELP = (
    "DIR, when given, names the folders in one word: a toolkiln project (tools/ and config/), or "
    "any folder of scripts, whose configs are then in toolkiln's own folder for it, as "
    "`toolkiln serve DIR` keeps them."
)


def folder_argument(function: Callable[..., Any]) -> Callable[..., Any]:
    """An optional DIR argument that sets `folders` (put it below `folder_options`).

    With DIR, --tools-dir on the command line is an error; --config-dir says where a
    plain folder's configs go instead of toolkiln's own folder; --prompts-dir and
    --resources-dir still apply. DIR wins over the TOOLKILN_*_DIR variables (which
    start_server.sh sets), so the folder named on the command line is the one served.
    """

    @functools.wraps(function)
    def command(*args: Any, folder: Path | None, folders: Folders, **kwargs: Any) -> Any:
        return function(*args, folders=resolve_folders(folder, folders), **kwargs)

    if "DIR" not in (command.__doc__ or ""):  # a command that says nothing of DIR gets a word on it
        # cleaned first: a paragraph at column 0 after an indented docstring would leave its
        # paragraphs indented, which click then wraps mid-line ("is not read     again")
        command.__doc__ = f"{inspect.cleandoc(command.__doc__ or '')}\n\n{DIR_HELP}"
    return click.argument(
        "folder", metavar="[DIR]", required=False, type=click.Path(file_okay=False, path_type=Path)
    )(command)


def served_folder() -> ServedFolder | None:
    """What DIR resolved to, in the command that is running (None: no DIR was given)."""
    return current_folder()


def resolve_folders(folder: Path | None, given: Folders) -> Folders:
    """The folders of DIR (`given`, the options' folders, when DIR is None); what DIR
    resolved to is kept for `served_folder()` and for the hints (`hints.in_mode`)."""
    if folder is None:
        return given
    from toolkiln.served_folder import resolve_served_folder  # (hashlib) only for a DIR

    context = click.get_current_context()

    def explicit(key: str) -> bool:
        return context.get_parameter_source(f"{key}_dir") == ParameterSource.COMMANDLINE

    if explicit("tools"):
        raise click.UsageError("give DIR or --tools-dir, not both: DIR is the folder of the scripts")
    served = resolve_served_folder(folder, given.config if explicit("config") else None)
    context.meta[SERVED_KEY] = served
    hide_env_file(env_file_for(served.tools, served.root))  # no probe or confined tool reads the secrets
    return Folders(
        tools=served.tools,
        config=served.config,
        prompts=given.prompts if explicit("prompts") else served.prompts,
        resources=given.resources if explicit("resources") else served.resources,
    )


def split_folder_word(words: tuple[str, ...]) -> tuple[Path | None, tuple[str, ...]]:
    """`call NAME [DIR] [KEY=VALUE]...`: DIR is the first word when it is no KEY=VALUE
    pair (a pair always has `=`; a folder whose name has one is given with
    --tools-dir)."""
    if words and "=" not in words[0]:
        if not Path(words[0]).expanduser().is_dir():
            raise click.BadParameter(
                f"{words[0]!r} is neither KEY=VALUE nor a folder (DIR)", param_hint="[DIR] [KEY=VALUE]..."
            )
        return Path(words[0]), words[1:]
    return None, words
