"""Every hint the command line prints, in the words that work for the folder it names.

This module is the one place that knows the command's mode: every line the command
line prints that may hold a hint (errors, warnings, doctor's fixes, discovery's
reasons) goes through `in_mode`, which, when DIR was given, words it for that folder
(hint_words.py: DIR in each command, the real path of each config file).

Nothing here imports the rest of the command line: `app.py` (the error handler) uses it.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import click

from toolkiln.hint_words import for_folder

if TYPE_CHECKING:
    from toolkiln.served_folder import ServedFolder

SERVED_KEY = "toolkiln.served"  # click's ctx.meta: the ServedFolder, when DIR was given
WORDS_KEY = "toolkiln.words"  # click's ctx.meta: the command's words (`call slug text=x`)


def current_folder() -> ServedFolder | None:
    """What DIR resolved to in the command that is running (None: no DIR, or no command)."""
    context = click.get_current_context(silent=True)
    served: ServedFolder | None = context.meta.get(SERVED_KEY) if context is not None else None
    return served


def in_mode(text: str) -> str:
    """`text`, with its hints in the words of the folder the command was given
    (hint_words.for_folder; unchanged when no DIR was given)."""
    served = current_folder()
    return text if served is None else for_folder(text, served, here=Path.cwd())


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
