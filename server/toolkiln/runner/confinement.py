"""A tool call's confinement, from its compiled settings: what its processes may write,
what they must not see, and the environment they get (docs/security.md)."""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from toolkiln.model import CompiledRunCommand, CompiledTool, ConfinementSettings
from toolkiln.process import Confinement, confinement_problem, secret_paths
from toolkiln.writable import WritableFolders
from toolkiln.writable_binds import WritableRefused, writable_folders

logger = logging.getLogger(__name__)

# The server's variables a confined tool always gets (besides those toolkiln sets for
# it, runner/environment.py's TOOL_VARIABLES, its arguments, and those its `pass_env`
# names): what a program needs to run as the user. Never the server's own settings.
STANDARD_ENV = frozenset(
    {"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "COLORTERM", "NO_COLOR"}
)
STANDARD_ENV_PREFIXES = ("LC_",)


class ConfinementRefused(Exception):
    """A tool that must run confined, where it cannot be; the message says why and how to fix it."""


def confinement_for(
    tool: CompiledTool,
    tool_dir: Path,
    hidden: Iterable[str],
    tools_dir: Path,
    others: WritableFolders | None = None,
) -> Confinement | None:
    """How a call of `tool` is confined, or None when it runs unconfined: its workspace
    and `writable` folders writable, `hidden` ones (and toolkiln's state folder) never
    seen, the tools folder always seen (even in /tmp, which is private to each call).
    Raises `ConfinementRefused` for a tool whose mode is `required` where bubblewrap
    cannot run, and for a writable folder that is a symlink, inside another of its own or
    of `others` (every folder a tool may write), or holding the tools folder."""
    writable = [*tool.workspace.allowed_paths, *(tool.confinement.writable or [])]
    fence = (others, tools_dir)
    return _confinement(tool.name, tool.confinement, writable, tool_dir, hidden, [str(tools_dir)], fence)


def command_confinement(
    name: str,
    settings: CompiledRunCommand,
    base_dir: Path,
    hidden: Iterable[str],
    others: WritableFolders | None = None,
    tools_dir: Path | None = None,
) -> Confinement | None:
    """How a `run_command` call is confined (as `confinement_for`): its roots are seen,
    and only its `confinement.writable` folders (relative to the catalog's folder) are writable."""
    roots = [_folder(root, base_dir) for root in settings.roots]
    writable = settings.confinement.writable or []
    return _confinement(name, settings.confinement, writable, base_dir, hidden, roots, (others, tools_dir))


def _confinement(
    name: str,
    settings: ConfinementSettings,
    writable: list[str],
    base_dir: Path,
    hidden: Iterable[str],
    visible: list[str],
    fence: tuple[WritableFolders | None, Path | None] = (None, None),
) -> Confinement | None:
    if settings.mode in (None, "off"):
        return None
    problem = confinement_problem()
    if problem is not None:
        if settings.mode == "required":
            raise ConfinementRefused(
                f"Tool {name!r} must run confined (confinement.mode is 'required'), and cannot be "
                f"here: {problem}."
            )
        _warn_unconfined(problem)
        return None
    try:
        folders = writable_folders(writable, base_dir, *fence)
    except WritableRefused as error:
        raise ConfinementRefused(f"Tool {name!r} cannot run: {error}.") from None
    secrets = tuple(hidden)
    for folder in folders:
        for secret in map(os.path.realpath, (*secrets, *secret_paths())):
            if folder == secret or folder.startswith(secret.rstrip("/") + "/"):
                raise ConfinementRefused(
                    f"Tool {name!r} cannot run: its writable folder {folder} lies in {secret}, which "
                    "no confined process sees (toolkiln's state folder, or a secret the server "
                    "keeps there); give it a folder elsewhere."
                )
    return Confinement(
        network=settings.network is True,
        read_only=settings.filesystem != "open",
        writable=tuple(folders),
        visible=tuple(visible),
        secret=secrets,
    )


def confined_env(
    env: Mapping[str, str], settings: ConfinementSettings, server: Mapping[str, str]
) -> dict[str, str]:
    """`env` (the server's, with `server`'s variables) without what a confined tool is not
    given: only the standard variables, toolkiln's, and those its `pass_env` names."""
    passed = _pass_env_matcher(tuple(settings.pass_env or ()))
    return {key: value for key, value in env.items() if key in server or _standard(key) or passed(key)}


def _standard(name: str) -> bool:
    return name in STANDARD_ENV or name.startswith(STANDARD_ENV_PREFIXES)


@functools.cache
def _pass_env_matcher(patterns: tuple[str, ...]) -> functools.partial[bool]:
    names = frozenset(pattern for pattern in patterns if not pattern.endswith("*"))
    prefixes = tuple(pattern[:-1] for pattern in patterns if pattern.endswith("*"))
    return functools.partial(_matches, names, prefixes)


def _matches(names: frozenset[str], prefixes: tuple[str, ...], name: str) -> bool:
    return name in names or name.startswith(prefixes)


def _folder(path: str, base_dir: Path) -> str:
    """A `run_command` root, absolute, with its own symlinks resolved."""
    expanded = Path(path)
    return os.path.realpath(expanded if expanded.is_absolute() else base_dir / expanded)


@functools.cache
def _warn_unconfined(problem: str) -> None:
    logger.warning("tools run unconfined: %s", problem)
