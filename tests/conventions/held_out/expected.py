"""What a person expects of each script in the held-out folders: real public folders
toolkiln was not written against (personal `bin/` folders of dotfiles repositories, the
example folders of CLI libraries), measured with `python -m tests.conventions.held_out`.

The fixtures under `folders/` are written from those scripts: each keeps its script's
interface as the author wrote it (shebang, `# Usage:` line, argument handling: getopts,
`$1` bindings, `"$@"`, argparse/optparse/getopt, typer signatures), with its prose said
again and its body cut down to an `echo` of what it was given. The measurement in
docs/benchmarks.md was made on the scripts as published; these hold the interfaces.

A tool's parameters: (name, required) in order, a name of None for one whose name is a
guess any reading may make (`$1` named by nothing). A file that is not a tool says why a
person would agree (its interpreter is missing here, it hands its words to another
program with no usage line: the fallback's case).
"""

from __future__ import annotations

from dataclasses import dataclass, field

Params = list[tuple[str | None, bool]]


@dataclass(frozen=True)
class Folder:
    source: str  # repository, folder and commit read
    tools: dict[str, Params]  # tool name -> its parameters
    not_tools: dict[str, str] = field(default_factory=dict)  # file -> why it is no tool here


FOLDERS: dict[str, Folder] = {
    "mislav_bin": Folder(
        source="github.com/mislav/dotfiles bin/ (62ca947 and the files' later commits)",
        tools={
            "git-promote": [("remote", False)],
            "git-thanks": [("range", True)],
            "changelog": [("range", False), ("directory", False)],
            "search-and-replace": [("w", False), ("term", True), ("replacement", True)],
            "wifi-pass": [],
            "coauthor": [("name", False)],
            "gitio": [("url", True), ("code", False)],
            "git-where": [("ref", True)],
            "websize": [("url", True)],
        },
        not_tools={"git-big-file": "needs ruby", "stdev": "needs ruby"},
    ),
    "jessfraz_bin": Folder(
        source="github.com/jessfraz/dotfiles bin/ (07816fc, 1892d48, 12bfeb7, 2ac4a5c, 4d1cea4)",
        tools={
            "keyboard-backlight": [(None, True)],
            "browser-exec": [("uri", True)],
            "tor-ips": [],
            "slackpm": [(None, True), ("message", True)],
            "check-go-repos": [],
            "generate-md-toc": [(None, True), ("stdin", False)],
        },
    ),
    "thoughtbot_bin": Folder(
        source="github.com/thoughtbot/dotfiles bin/ (1492d66, 7b7a730, 24b34d1, 396d255, 48873f7)",
        tools={
            "replace": [("find_this", True), ("replace_with", True), (None, False)],
            "tat": [],
            "clear-port": [(None, True)],
            "whats-in-port": [(None, True)],
            "git-create-branch": [(None, True)],
            "git-rename-branch": [(None, True)],
        },
        not_tools={"git-up": "hands its words to git rebase, and no usage line names them: the fallback's"},
    ),
    "typer_docs": Folder(
        source="github.com/fastapi/typer docs_src/ (arguments/, options/, subcommands/)",
        tools={
            "arguments_default": [("name", False)],
            "arguments_help": [("name", True)],
            "arguments_optional": [("name", True)],
            "arguments_envvar": [("name", False)],
            "options_required": [("name", True), ("lastname", True)],
            "options_name": [("name", True), ("formal", False)],
            "options_help": [("name", True), ("lastname", False), ("formal", False)],
            "options_prompt": [("name", True), ("lastname", True)],
            "subcommands_name_help_users_create": [("name", True)],
            "subcommands__users_create": [("user_name", True)],
            "subcommands__users_delete": [("user_name", True)],
            "subcommands__items_create": [("item", True)],
            "subcommands__items_delete": [("item", True)],
            "subcommands__items_sell": [("item", True)],
            # main.py adds the apps of users.py and items.py (read from beside it).
            "subcommands__main_users_create": [("user_name", True)],
            "subcommands__main_users_delete": [("user_name", True)],
            "subcommands__main_items_create": [("item", True)],
            "subcommands__main_items_delete": [("item", True)],
            "subcommands__main_items_sell": [("item", True)],
        },
    ),
    "cpython_scripts": Folder(
        source="github.com/python/cpython Tools/scripts/ (diff.py, byext.py, untabify.py, lll.py, ...)",
        tools={
            "diff": [
                ("c", False),
                ("u", False),
                ("n", False),
                ("lines", False),
                ("fromfile", True),
                ("tofile", True),
            ],
            "byext": [(None, False)],
            "untabify": [("t", False), ("file", True)],
            "lll": [(None, False)],
            "get-remote-certificate": [(None, True)],
            "checkpip": [],
        },
    ),
}
