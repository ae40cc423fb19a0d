"""Secrets for tools: a `.env` file beside the scripts, and the names a script reads.

A folder of scripts keeps its secrets in `DIR/.env`, a project in `.env` beside its
`tools/` and `config/`: the file users already write for their programs, read with
python-dotenv. Only the server reads it, and only if it is the user's own and private
(mode 0600: no one else may read or change it); a value reaches only the tools whose
per-tool config names it (`env_reads`, which discovery fills from the script's text,
or `confinement.pass_env`), never every tool, and no log, audit record or listing
shows it. Confined tools never see the file itself (it is hidden like the token).
"""

from __future__ import annotations

import errno
import logging
import os
import re
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path

from toolkiln.errors import ConfigError

ENV_FILE = ".env"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# What a script reads, found by a cheap scan of its text (each pattern linear: no nesting),
# each with a word it cannot match without: a pattern that starts at a `\b` tries every
# position of the text (~30 us a script each), `in` finds the word's absence at once.
_READS = (
    ("$", re.compile(r"\$\{?([A-Z][A-Z0-9_]*)\b")),  # shell: $WEATHER_API_KEY, ${WEATHER_API_KEY:-x}
    (
        "environ",
        re.compile(r"\benviron(?:\.get)?\s*[\[(]\s*['\"]([A-Za-z_][A-Za-z0-9_]*)['\"]"),
    ),  # os.environ["X"]
    (
        "getenv",
        re.compile(r"\bgetenv\s*\(\s*['\"]([A-Za-z_][A-Za-z0-9_]*)['\"]"),
    ),  # os.getenv("X"), getenv in C/PHP
    ("process.env", re.compile(r"\bprocess\.env\.([A-Za-z_][A-Za-z0-9_]*)")),  # process.env.X
    (
        "process.env",
        re.compile(r"\bprocess\.env\s*\[\s*['\"]([A-Za-z_][A-Za-z0-9_]*)['\"]"),
    ),  # process.env["X"]
    ("ENV", re.compile(r"\bENV\s*\[\s*['\"]([A-Za-z_][A-Za-z0-9_]*)['\"]")),  # Ruby's ENV["X"]
)
# Names every program has, and toolkiln's own: not worth recording as what a tool needs.
_COMMON = frozenset(
    {"PATH", "HOME", "USER", "LOGNAME", "SHELL", "PWD", "OLDPWD", "LANG", "TERM", "TMPDIR", "TZ", "IFS"}
)
_OWN_PREFIXES = ("TOOLKILN_", "MCPD_", "LC_", "BASH_")


def env_names_read(text: str) -> list[str]:
    """The environment variables `text` (a script) reads, by a cheap static scan:
    `$NAME` and `${NAME}` (upper-case, as shell scripts name the environment's),
    `os.environ["NAME"]`, `os.environ.get("NAME")`, `os.getenv("NAME")`,
    `process.env.NAME`, `process.env["NAME"]`, `ENV["NAME"]`. Sorted, without the
    names every program has (PATH, HOME, ...) and toolkiln's own (TOOLKILN_*)."""
    found = {match.group(1) for word, pattern in _READS if word in text for match in pattern.finditer(text)}
    return sorted(name for name in found if name not in _COMMON and not name.startswith(_OWN_PREFIXES))


def env_file_for(tools_dir: Path, root: Path | None = None) -> Path:
    """Where the `.env` of these tools is: in DIR (`root`, a served folder or project),
    else beside the tools folder (a project's root)."""
    return (root if root is not None else tools_dir.absolute().parent) / ENV_FILE


def load_env_file(path: Path) -> dict[str, str]:
    """The variables of `path` (none when there is no such file). Raises `ConfigError`
    when the file is a symlink (a folder of scripts may come from anyone's repository:
    `.env -> ~/.aws/credentials` would hand another file's lines to its tools), not this
    user's own regular file, or others may read or change it. Opened once, without
    following a link, and checked on what was opened."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return {}
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise ConfigError(
                f"{path}: a symlink; the secrets file must be a plain file of its own, not a link"
            ) from None
        raise ConfigError(f"{path}: cannot read the secrets file: {error.strerror}") from None
    with open(fd, encoding="utf-8", errors="replace", closefd=True) as handle:
        info = os.fstat(fd)
        _check_private(path, info)
        from dotenv import dotenv_values

        values = dotenv_values(stream=handle, interpolate=False)
    bad = [name for name in values if not _NAME.match(name)]
    if bad:
        raise ConfigError(f"{path}: {bad[0]!r} is not a variable name (letters, digits and _)")
    return {name: value for name, value in values.items() if value is not None}


def _check_private(path: Path, info: os.stat_result) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"{path}: not a file; the secrets file must be a plain file")
    if info.st_uid != os.getuid():
        raise ConfigError(
            f"{path}: belongs to another user (uid {info.st_uid}); toolkiln reads only your own"
        )
    if stat.S_IMODE(info.st_mode) & 0o077:
        raise ConfigError(
            f"{path}: other users may read or change it (mode {stat.S_IMODE(info.st_mode):o}), and it holds "
            f"secrets; toolkiln reads it only when it is private: chmod 600 {path}"
        )


class EnvFile:
    """The `.env` of the folder served, read again when it changes: a key added while the
    server runs reaches the next call, no restart needed. Seen (one stat) at each call."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._seen: tuple[int, ...] | None = None
        self._values: dict[str, str] = {}

    def values(self, *, refuse: bool = False) -> dict[str, str]:
        """Its variables now. A file toolkiln refuses (another user's, or readable by
        others: its values may not be the user's) raises `ConfigError` with `refuse`,
        else gives none, with the reason logged."""
        try:
            info = os.lstat(self.path)
            seen: tuple[int, ...] | None = (
                info.st_ino,
                info.st_mtime_ns,
                info.st_size,
                info.st_mode,
                info.st_uid,
            )
        except OSError:
            seen = None
        if seen == self._seen:
            return self._values
        self._seen = seen
        hide_env_file(self.path)  # hidden from every confined process before any value is used
        try:
            self._values = load_env_file(self.path)
        except ConfigError as error:
            if refuse:
                self._seen = None
                raise
            logging.getLogger("toolkiln").error("%s; no tool gets its values", error)
            self._values = {}
        else:  # names only: a value is never logged
            names = ", ".join(sorted(self._values)) or "no variables"
            logging.getLogger("toolkiln").info("%s: %s for the tools that name them", self.path, names)
        return self._values


def secrets_for(secrets: Mapping[str, str], reads: Sequence[str], pass_env: Sequence[str]) -> dict[str, str]:
    """Of the `.env` variables, those one tool names: in what it reads (`env_reads`), or
    in its `confinement.pass_env` (`*` ends a prefix; `["*"]` names them all)."""
    names = set(reads) | {pattern for pattern in pass_env if not pattern.endswith("*")}
    prefixes = tuple(pattern[:-1] for pattern in pass_env if pattern.endswith("*"))
    return {key: value for key, value in secrets.items() if key in names or key.startswith(prefixes)}


def env_reads_of(path: Path, parameters: Sequence[str] = (), limit: int = 256 * 1024) -> list[str] | None:
    """What the script at `path` reads from the environment (`env_names_read` of its
    first `limit` bytes), without its own parameters (which reach it as variables of
    the same name): None when it reads nothing else, or cannot be read."""
    try:
        with path.open("rb") as handle:
            text = handle.read(limit).decode("utf-8", errors="replace")
    except OSError:
        return None
    own = set(parameters)
    names = [name for name in env_names_read(text) if name not in own]
    return names or None


def hide_env_file(path: Path) -> None:
    """Hide `path` (a `.env`) from every process confined from now on (probes and tool
    calls): its values reach a tool only through the variables its config names."""
    if path.exists():
        from toolkiln.process import hide_from_every_process  # anyio: only when there is one

        hide_from_every_process(path)
