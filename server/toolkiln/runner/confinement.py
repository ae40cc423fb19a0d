"""A tool call's confinement, from its compiled settings: what its processes may write,
what they must not see, and the environment they get (docs/security.md)."""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from toolkiln.model import CompiledTool
from toolkiln.process import Confinement, confinement_problem
from toolkiln.runner.workspace import TOOL_DIR

logger = logging.getLogger(__name__)

# The server's variables a confined tool always gets (besides toolkiln's own, its
# arguments, and those its `pass_env` names): what a program needs to run as the user.
STANDARD_ENV = frozenset(
    {"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM", "COLORTERM", "NO_COLOR"}
)
STANDARD_ENV_PREFIXES = ("LC_", "TOOLKILN_", "MCPD_")


class ConfinementRefused(Exception):
    """A tool that must run confined, where it cannot be; the message says why and how to fix it."""


def confinement_for(
    tool: CompiledTool, tool_dir: Path, hidden: Iterable[str], tools_dir: Path
) -> Confinement | None:
    """How a call of `tool` is confined, or None when it runs unconfined: its workspace
    and `writable` folders writable, `hidden` ones empty, the tools folder always seen
    (even in /tmp, which is private to each call). Raises
    `ConfinementRefused` for a tool whose mode is `required` where bubblewrap cannot run."""
    settings = tool.confinement
    if settings.mode == "off":
        return None
    problem = confinement_problem()
    if problem is not None:
        if settings.mode == "required":
            raise ConfinementRefused(
                f"Tool {tool.name!r} must run confined (confinement.mode is 'required'), and cannot be "
                f"here: {problem}."
            )
        _warn_unconfined(problem)
        return None
    writable = [*tool.workspace.allowed_paths, *(settings.writable or [])]
    return Confinement(
        network=settings.network is not False,
        read_only=settings.filesystem == "read-only",
        writable=tuple(_folder(path, tool_dir) for path in writable),
        hidden=tuple(hidden),
        visible=(str(tools_dir),),
    )


def confined_env(env: Mapping[str, str], tool: CompiledTool, server: Mapping[str, str]) -> dict[str, str]:
    """`env` (the server's, with `server`'s variables) without what a confined tool is not
    given: only the standard variables, toolkiln's, and those its `pass_env` names."""
    passed = _pass_env_matcher(tuple(tool.confinement.pass_env or ()))
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


def _folder(path: str, tool_dir: Path) -> str:
    """A `writable` or workspace folder, absolute, with its own symlinks resolved."""
    expanded = Path(path.replace(TOOL_DIR, str(tool_dir)))
    return os.path.realpath(expanded if expanded.is_absolute() else tool_dir / expanded)


@functools.cache
def _warn_unconfined(problem: str) -> None:
    logger.warning("tools run unconfined: %s", problem)
