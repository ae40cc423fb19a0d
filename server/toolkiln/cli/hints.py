"""Every hint the command line prints, in the words that work for the folder it names.

The library writes its hints for a project (`toolkiln discover`, `config/server.json`,
`` `discovery.fallback` in config/server.json ``): that is what a project has. A folder
of scripts served as `toolkiln serve DIR` has no `config/` of its own (its configs are
in a private folder toolkiln keeps for it), and every command reaches it only through
DIR. This module is the one place that knows the mode: every line the command line
prints that may hold a hint (errors, warnings, doctor's fixes, discovery's reasons)
goes through `in_mode`, which, in folder mode, names DIR in each command and the real
path of each config file, so that a hint works as printed.

Nothing here imports the rest of the command line: `app.py` (the error handler) uses it.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from toolkiln.served_folder import ServedFolder

SERVED_KEY = "toolkiln.served"  # click's ctx.meta: the ServedFolder, when DIR was given
WORDS_KEY = "toolkiln.words"  # click's ctx.meta: the command's words (`call slug text=x`)

# The commands that take DIR as their last positional word (after NAME where they take one).
_DIR_COMMANDS = "discover|build|list|doctor|audit|serve|where|fallback on|fallback off"
_GIVEN = r"(?!\s+(?:DIR\b|[/~.'\"]))"  # not when a folder is named already
_COMMAND = re.compile(rf"\btoolkiln ({_DIR_COMMANDS})\b{_GIVEN}")
_NAMED = re.compile(rf"\btoolkiln (new|enable|disable) (NAME|[A-Za-z0-9_-]+)\b{_GIVEN}")
_CALL = re.compile(rf"\btoolkiln call (NAME|[A-Za-z0-9_-]+)\b{_GIVEN}")
_FALLBACK = re.compile(r"`?discovery\.fallback`? in config/server\.json")
_CONFIG_FILE = re.compile(r"(?<![\w./~-])config/(server\.json|tools\.json|tools/|prompts/|resources/|logs/)")


def current_folder() -> ServedFolder | None:
    """What DIR resolved to in the command that is running (None: no DIR, or no command)."""
    context = click.get_current_context(silent=True)
    served: ServedFolder | None = context.meta.get(SERVED_KEY) if context is not None else None
    return served


def in_mode(text: str) -> str:
    """`text`, with its hints in the words of the folder the command was given.

    For a plain folder of scripts (configs kept by toolkiln): each `toolkiln COMMAND`
    that takes DIR gets it, each `config/...` path becomes the private folder's, and the
    fallback's setting becomes the command that sets it. For a project named as DIR
    (or no DIR), only the commands get DIR, so that they work from any folder.
    """
    served = current_folder()
    if served is None:
        return text
    folder = shlex.quote(str(served.root))
    if served.owned or served.config != Path.cwd() / "config":
        text = _FALLBACK.sub(f"`toolkiln fallback on {folder}`", text)
        text = _CONFIG_FILE.sub(lambda match: f"{served.config}/{match.group(1)}", text)
    if served.root == Path.cwd() and not served.owned:
        return text  # a project, here: the commands work as they are
    text = _COMMAND.sub(lambda match: f"toolkiln {match.group(1)} {folder}", text)
    text = _NAMED.sub(lambda match: f"toolkiln {match.group(1)} {match.group(2)} {folder}", text)
    return _CALL.sub(lambda match: f"toolkiln call {match.group(1)} {folder}", text)


def no_project_hint(text: str) -> str:
    """`text`, and, when no DIR was given and the current folder is no project, how to
    name a folder of scripts (the usual reason a command found no tools or no build)."""
    if current_folder() is not None or not any(
        words in text for words in ("no compiled config", "no tools folder", "no audit log")
    ):
        return text
    here = Path.cwd()
    if (here / "tools").is_dir() and (here / "config").is_dir():
        return text
    return (
        f"{text}\n  {here} is not a toolkiln project (tools/ and config/); to use it as a folder of "
        f"scripts, name it as DIR: {_with_here()} (toolkiln where . says where its files are)"
    )


def _with_here() -> str:
    """The command that failed, with `.` as its DIR (after NAME for `call`, `new`, ...)."""
    context = click.get_current_context(silent=True)
    words: list[str] = list(context.meta.get(WORDS_KEY, [])) if context is not None else []
    if not words or any(word.startswith("--") and word.endswith("-dir") for word in words):
        return "toolkiln serve ., toolkiln call NAME ."
    at = 1
    if words[0] in ("call", "new", "enable", "disable"):  # DIR comes after NAME
        at = next((i + 1 for i, word in enumerate(words[1:], 1) if not word.startswith("-")), len(words))
    return shlex.join(["toolkiln", *words[:at], ".", *words[at:]])
