"""`git` started by `run_command` runs hardened: no config can make it run a program.

git runs commands that its config names: `core.fsmonitor` on `git status`, a
`filter.<driver>.clean` on files that `.gitattributes` marks, `diff.<driver>.textconv`,
`diff.external`, hooks, pagers, editors, aliases starting with `!`, credential helpers,
ssh. A repository's config is not the user's: a tool or a clone may have written it.
So every git that run_command starts gets:

- no system or global config (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`), no
  inherited `GIT_*` variable, no terminal prompt, no pager, editors that fail, ssh that
  fails, no network or local transport (`GIT_ALLOW_PROTOCOL` empty);
- `GIT_CEILING_DIRECTORIES` at the root's parent, so git finds no repository above it;
- overrides (as `-c` would give them) of every config key that names a program: the fixed ones, and each
  such key the repository's config has (drivers have free names: `filter.x.clean`),
  read first with `git config --list` run the same hardened way;
- `--no-ext-diff --no-textconv` after the subcommands that take them;
- and the client may not give git options before the subcommand (`-c`, `-C`,
  `--git-dir`, `--exec-path`...) or the options that run or write something.

The repository itself must not lie in a folder a tool may write (`check_repository`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from toolkiln.process import run_process
from toolkiln.runner.command_fence import CommandRefused, PathFence

# Always set, whatever the repository's config says.
FIXED_OVERRIDES = {
    "core.fsmonitor": "false",
    "core.hooksPath": "/dev/null",
    "core.pager": "cat",
    "core.editor": "false",
    "core.sshCommand": "false",
    "core.askPass": "",
    "sequence.editor": "false",
    "credential.helper": "",
    "diff.external": "",
    "protocol.allow": "never",
    "log.showSignature": "false",
    "gpg.program": "false",
}
# (section, key) of config keys that name a program, and the harmless value they get;
# `None` for the key: every key of the section (alias.NAME, pager.COMMAND).
_PROGRAM_KEYS: dict[tuple[str, str | None], str] = {
    ("filter", "clean"): "",
    ("filter", "smudge"): "",
    ("filter", "process"): "",
    ("filter", "required"): "false",
    ("diff", "textconv"): "",
    ("diff", "command"): "",
    ("merge", "driver"): "",
    ("difftool", "cmd"): "",
    ("mergetool", "cmd"): "",
    ("man", "cmd"): "",
    ("credential", "helper"): "",
    ("remote", "uploadpack"): "",
    ("remote", "receivepack"): "",
    ("remote", "vcs"): "",
    ("protocol", "allow"): "never",
    ("submodule", "update"): "none",
    ("gpg", "program"): "false",
    ("gpg", "defaultkeycommand"): "",
    ("hook", "command"): "",
    ("core", "alternaterefscommand"): "",
    ("core", "gitproxy"): "",
    ("uploadpack", "packobjectshook"): "",
    ("interactive", "difffilter"): "",
    ("alias", None): "",
    ("pager", None): "false",
}
_ENVIRONMENT = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_SYSTEM": "/dev/null",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ASKPASS": "",
    "SSH_ASKPASS": "",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_EDITOR": "false",
    "GIT_SEQUENCE_EDITOR": "false",
    "GIT_SSH_COMMAND": "false",
    "GIT_ALLOW_PROTOCOL": "",
    "GIT_OPTIONAL_LOCKS": "0",
}
# Subcommands that take --no-ext-diff and --no-textconv, and those that take only the latter.
_DIFF_COMMANDS = frozenset({"diff", "log", "show", "whatchanged", "format-patch"})
_TEXTCONV_COMMANDS = frozenset({"blame", "grep", "annotate"})
# Options that run a program, write a file, or read config from elsewhere (prefixes).
_REFUSED_OPTIONS = (
    "--ext-diff",
    "--textconv",
    "--output",
    "--open-files-in-pager",
    "--exec",
    "--upload-pack",
    "--receive-pack",
    "--config-env",
    "--extcmd",
    "--tool",
)
CONFIG_LIST_SECONDS = 10


def is_git(real_path: str) -> bool:
    """Whether a program (its path with every symlink followed) is git."""
    return os.path.basename(real_path) == "git"


def check_git_arguments(arguments: list[str]) -> None:
    """Refuse global options (before the subcommand) and options that run or write."""
    if arguments and arguments[0].startswith("-"):
        raise CommandRefused(
            f"git {arguments[0]!r}: run_command gives git no options before the subcommand "
            "(-c, -C, --git-dir, --work-tree, --exec-path... change which config and files git uses)"
        )
    subcommand = arguments[0] if arguments else ""
    for argument in arguments[1:]:
        if argument == "--":
            break
        refused = next((option for option in _REFUSED_OPTIONS if argument.startswith(option)), None)
        if refused is None and subcommand == "grep" and argument.startswith("-O"):
            refused = "-O"
        if refused is not None:
            raise CommandRefused(
                f"git {subcommand} {argument!r}: run_command never gives git {refused}, "
                "which runs a program or writes a file"
            )


def check_repository(fence: PathFence, cwd: str) -> None:
    """Refuse when the repository git would use from `cwd` (looking up to the root) has its
    git folder in a tool-writable folder: its config and hooks would be a tool's."""
    root = fence.root_of(cwd)
    folder = Path(cwd)
    while True:
        git_dir = _git_dir(folder / ".git")
        if git_dir is not None:
            writable = fence.writable_folder_of(os.path.realpath(git_dir))
            if writable is not None:
                raise CommandRefused(
                    f"the git repository at {folder} keeps its data in {git_dir}, inside {writable}, "
                    "a folder a tool may write; run_command never runs git on a repository "
                    "a tool could have written"
                )
            return
        if root is None or str(folder) == root or folder.parent == folder:
            return
        folder = folder.parent


async def harden_git(
    git: str, arguments: list[str], *, cwd: str, env: Mapping[str, str], fence: PathFence
) -> tuple[list[str], dict[str, str]]:
    """The argv (from `git`, its path) and the environment of a hardened git run."""
    plain_env = git_environment(env, fence, cwd, FIXED_OVERRIDES)
    listed = await run_process(
        [git, "--no-pager", "config", "--null", "--name-only", "--list"],
        timeout=CONFIG_LIST_SECONDS,
        cwd=cwd,
        env=plain_env,
    )
    if listed.returncode != 0 or listed.stdout_truncated:
        raise CommandRefused(
            f"git could not read its config in {cwd} (exit code {listed.returncode}): "
            f"{listed.stderr_text.strip()[:500]}"
        )
    overrides = {**FIXED_OVERRIDES, **program_overrides(listed.stdout_text.split("\0"))}
    subcommand = arguments[0] if arguments else ""
    extra = []
    if subcommand in _DIFF_COMMANDS:
        extra = ["--no-ext-diff", "--no-textconv"]
    elif subcommand in _TEXTCONV_COMMANDS:
        extra = ["--no-textconv"]
    argv = [git, "--no-pager", *arguments[:1], *extra, *arguments[1:]]
    return argv, git_environment(env, fence, cwd, overrides)


def git_environment(
    env: Mapping[str, str], fence: PathFence, cwd: str, overrides: Mapping[str, str]
) -> dict[str, str]:
    """`env` without its GIT_* variables, with the hardening ones and `overrides` as config
    (GIT_CONFIG_KEY_n and _VALUE_n: unlike `-c name=value`, a name with `=` stays whole)."""
    clean = {name: value for name, value in env.items() if not name.startswith("GIT_")}
    root = fence.root_of(cwd) or cwd
    config = {"GIT_CONFIG_COUNT": str(len(overrides))}
    for index, (name, value) in enumerate(overrides.items()):
        config[f"GIT_CONFIG_KEY_{index}"] = name
        config[f"GIT_CONFIG_VALUE_{index}"] = value
    return {**clean, **_ENVIRONMENT, **config, "GIT_CEILING_DIRECTORIES": os.path.dirname(root) or "/"}


def program_overrides(names: list[str]) -> dict[str, str]:
    """The overrides for the config keys among `names` that name a program."""
    overrides: dict[str, str] = {}
    for name in names:
        section, _, rest = name.partition(".")
        key = rest.rpartition(".")[2].lower()
        section = section.lower()
        value = _PROGRAM_KEYS.get((section, key), _PROGRAM_KEYS.get((section, None)))
        if value is not None and key:
            overrides[name] = value
    return overrides


def _git_dir(dot_git: Path) -> str | None:
    """The git folder that a `.git` entry means: itself, or where a `gitdir:` file points."""
    if dot_git.is_dir():
        return str(dot_git)
    if dot_git.is_file():
        try:
            first = (
                dot_git.read_text(errors="replace").splitlines()[0] if dot_git.stat().st_size < 4096 else ""
            )
        except (OSError, IndexError):
            return str(dot_git)
        if first.startswith("gitdir:"):
            return str(dot_git.parent / first.removeprefix("gitdir:").strip())
        return str(dot_git)
    return None
