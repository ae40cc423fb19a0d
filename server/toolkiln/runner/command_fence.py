"""Where `run_command` may work and what files its arguments may name: the roots, less
every folder a tool may write.

A command's working directory, each argument that names a path (or looks like one)
and each shell redirection's file must lead, every symlink followed, inside one of
`roots` and outside every tool-writable folder (build lists them in the catalog: the
tools' workspaces). A tool-writable folder is refused because a tool, driven by an
untrusted client, could have planted something there that a program run by the
server would obey: a git repository whose config runs commands, a program, a link.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

SETTINGS_FILE = "config/server.json"


class CommandRefused(Exception):
    """A command the settings do not admit; the message says why, and how to allow it."""


@dataclass(frozen=True)
class PathFence:
    """The real paths of the roots, and of the folders tools may write."""

    roots: tuple[str, ...]
    tool_writable: tuple[str, ...]

    @classmethod
    def from_catalog(cls, roots: Iterable[str], tool_writable: Iterable[str], base_dir: Path) -> PathFence:
        """From the catalog's folders, relative to `base_dir` (its folder) or absolute."""
        return cls(
            roots=tuple(os.path.realpath(base_dir / root) for root in roots),
            tool_writable=tuple(os.path.realpath(base_dir / folder) for folder in tool_writable),
        )

    def root_of(self, real: str) -> str | None:
        """The root that holds `real` (a path with every symlink followed), if any."""
        return next((root for root in self.roots if _inside(real, root)), None)

    def writable_folder_of(self, real: str) -> str | None:
        """The tool-writable folder that holds `real`, if any."""
        return next((folder for folder in self.tool_writable if _inside(real, folder)), None)

    def why_not(self, real: str) -> str | None:
        """Why `real` is out of bounds (a sentence to end a refusal with), or None."""
        if self.root_of(real) is None:
            return f"outside the allowed roots ({', '.join(self.roots)})"
        folder = self.writable_folder_of(real)
        if folder is not None:
            return (
                f"inside {folder}, a folder a tool may write (a tool's workspace); run_command "
                "never works there, since a tool could have planted a program, a link or a git config in it"
            )
        return None


def resolve_workdir(fence: PathFence, workdir: str | None) -> str:
    """The real working directory: `workdir` (from the first root when relative) or the first
    root, which must lie inside the fence once every symlink is followed."""
    if not workdir:
        target = fence.roots[0]
    else:
        check_encodable("workdir", workdir)
        target = os.path.realpath(os.path.join(fence.roots[0], workdir))  # an absolute workdir stays itself
    why = fence.why_not(target)
    if why is not None:
        raise CommandRefused(
            f"workdir {workdir!r} leads to {target}, {why}; give a folder inside them, "
            f"or add one to run_command.roots in {SETTINGS_FILE}"
        )
    if not os.path.isdir(target):
        raise CommandRefused(f"workdir {workdir or target!r} is not a folder")
    return target


def check_path_arguments(fence: PathFence, program: str, arguments: list[str], cwd: str) -> None:
    """Refuse an argument that names an existing file, or looks like a path (absolute, with a
    `..` part, or starting with `~`), unless it leads inside the fence.

    An option's value counts too: `--output=/x` and `-f/x` are checked as `/x`.
    """
    for argument in arguments:
        for candidate in _path_candidates(argument):
            if not (looks_like_path(candidate) or os.path.lexists(os.path.join(cwd, candidate))):
                continue
            real = os.path.realpath(os.path.join(cwd, os.path.expanduser(candidate)))
            why = fence.why_not(real)
            if why is not None:
                raise CommandRefused(
                    f"the argument {argument!r} of {program} names {real}, {why}; a command may "
                    "only name files inside the roots"
                )


def looks_like_path(word: str) -> bool:
    """Absolute, a home folder (`~`, `~user`), or climbing with `..`."""
    return word.startswith(("/", "~")) or ".." in word.split("/")


def check_encodable(what: str, text: str) -> None:
    if "\0" in text:
        raise CommandRefused(f"the {what} contains a NUL character")
    try:
        os.fsencode(text)
    except UnicodeEncodeError:
        raise CommandRefused(f"the {what} contains characters no program can be given") from None


def _path_candidates(argument: str) -> list[str]:
    """The argument, and an option's value: after `=`, or after a short option's letter."""
    candidates = [argument]
    if argument.startswith("-"):
        if "=" in argument:
            candidates.append(argument.split("=", 1)[1])
        elif not argument.startswith("--") and len(argument) > 2:
            candidates.append(argument[2:])
    return [candidate for candidate in candidates if candidate]


def _inside(path: str, folder: str) -> bool:
    return Path(path).is_relative_to(folder)
