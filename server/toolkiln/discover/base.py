"""What every script dialect offers discovery, and what it hands back."""

from __future__ import annotations

import os
import stat as stat_module
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from toolkiln.errors import DiscoveryError
from toolkiln.vocabulary import DialectName, PythonEntry

if TYPE_CHECKING:
    from toolkiln.discover.probe import Probe
    from toolkiln.model import Parameter

HEAD_BYTES = 16 * 1024


@dataclass(frozen=True)
class Candidate:
    """A file under the tools folder that might be a tool."""

    path: Path
    relative_path: str
    stat: os.stat_result

    @cached_property
    def head(self) -> str:
        """The start of the file as text, or "" for a binary file."""
        try:
            with self.path.open("rb") as handle:
                data = handle.read(HEAD_BYTES)
        except OSError:
            return ""
        return "" if b"\0" in data else data.decode("utf-8", errors="replace")

    @property
    def executable(self) -> bool:
        return bool(self.stat.st_mode & (stat_module.S_IXUSR | stat_module.S_IXGRP | stat_module.S_IXOTH))

    @property
    def script_type(self) -> str:
        """shell, python, node, ... from the shebang or the extension; else executable."""
        first = self.head.split("\n", 1)[0]
        interpreter = ""
        if first.startswith("#!"):
            words = first[2:].split()
            interpreter = words[1] if words and words[0].endswith("/env") and len(words) > 1 else ""
            interpreter = interpreter or (Path(words[0]).name if words else "")
        interpreter = interpreter or self.path.suffix.lstrip(".")
        for prefix, kind in _SCRIPT_TYPES:
            if interpreter.startswith(prefix):
                return kind
        return "executable"


_SCRIPT_TYPES = (
    ("bash", "shell"), ("sh", "shell"), ("zsh", "shell"), ("dash", "shell"), ("ksh", "shell"),
    ("python", "python"), ("py", "python"), ("node", "node"), ("js", "node"), ("mjs", "node"),
    ("ruby", "ruby"), ("rb", "ruby"), ("perl", "perl"), ("pl", "perl"),
    ("ts", "typescript"), ("mts", "typescript"), ("cjs", "node"),
)  # fmt: skip


@dataclass(frozen=True)
class Declaration:
    """What a script declares about itself, whatever its dialect."""

    dialect: DialectName
    description: str = ""
    parameters: list[Parameter] = field(default_factory=list)
    title: str | None = None
    version: str | None = None
    state: bool = False
    python_entry: PythonEntry | None = None
    # A JSON Schema the script gives whole (help-json's `input_schema`), served as it is.
    input_schema: dict[str, Any] | None = None
    warnings: list[DiscoveryError] = field(default_factory=list)
    # Other files read to declare the tool (a sidecar JSON), relative to the tools folder:
    # a change to one of them is a change to the tool.
    companions: tuple[str, ...] = ()
    # One of several tools a file declares (an argc `@cmd`, a subcommand): the word that
    # selects it, passed by the runtime; and its name, when the dialect gives one (else
    # `<the file's tool name>_<command>`).
    command: str | None = None
    name: str | None = None
    # Starting values for settings the user owns (`timeout_seconds`, `read_only`, ...):
    # written when the tool's config is created, the user's from then on.
    settings: dict[str, Any] = field(default_factory=dict)
    # A command a project declares (conventions/entry_points): `module:function`, or the
    # bin file relative to the project folder.
    entry_point: str | None = None
    # What is a guess, not read (a positional's name from prose, an inferred type): paths
    # into the tool's config, `description` or `parameters.<name>.<field>` (`.name`, `.type`,
    # `.description`, ...). The config lists them in `guessed` for the user to check.
    guessed: tuple[str, ...] = ()


class NotATool(Exception):
    """A file looked at is not a tool, and why: raised by a dialect's `declare` (the file
    turned out not to be its own) or made by `reasons.why_not` for a file no dialect
    claims. `discover --list`, `discover --why` and `doctor` say it; `kind` groups files
    that share one reason into one hint (see `reasons.HINTS`)."""

    def __init__(self, reason: str, kind: str = "no-declaration") -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind


class Dialect(Protocol):
    """One way of declaring a tool. Each dialect module provides these three names.

    A dialect whose files name their tool (kit's `// Name:`) also provides
    `tool_name(candidate) -> str | None`: a cheap read of the name, or None for the name
    from the path, which is how the other dialects' tools are named.
    """

    # True when `claims` alone decides (the file is read, not run). Only such a claim on
    # a folder's run.sh makes the folder one tool whose other files are not offered.
    CLAIM_IS_CERTAIN: bool

    def claims(self, candidate: Candidate) -> bool:
        """Cheap first look (may read the file, never runs it): could this file be mine?"""

    async def declare(self, candidate: Candidate, probe: Probe) -> Declaration | list[Declaration] | None:
        """The tool the file declares, or its tools (one per command, each with its
        `command`; an empty list is no tool). A dialect that must run the file to know runs it
        through `probe.run_probe`, as `probe` allows.

        Raises `NotATool` when it turns out not to be mine, saying why (returning None
        says so without a reason), and `DiscoveryError` (with file and line) when it is
        mine but broken: a tool that cannot be served whole (a required parameter it
        cannot represent) is broken, never published without it.
        """


def make_parameter(path: str, line: int | None, **fields: object) -> Parameter:
    """A `Parameter`, or a `DiscoveryError` saying where and why it is not one."""
    from pydantic import ValidationError

    from toolkiln.model import Parameter  # only when a script is read: an unchanged run needs no models

    try:
        return Parameter.model_validate(fields)
    except ValidationError as error:
        reasons = "; ".join(str(detail["msg"]).removeprefix("Value error, ") for detail in error.errors())
        raise DiscoveryError(reasons, path=path, line=line) from None
