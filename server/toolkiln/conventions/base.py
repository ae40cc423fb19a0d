"""What every convention's reader offers discovery, and what it hands back: the shared
words of `conventions/` (a leaf: it imports no convention, nor discovery, nor the runner)."""

from __future__ import annotations

import os
import stat as stat_module
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from toolkiln.errors import DiscoveryError
from toolkiln.vocabulary import DialectName, PythonEntry

if TYPE_CHECKING:
    from toolkiln.model import Parameter

HEAD_BYTES = 16 * 1024
# The largest script a reader reads whole; a larger one is no script a person wrote by hand.
MAX_SCRIPT_BYTES = 1024 * 1024

# confined: only inside bubblewrap; trusted: inside bubblewrap where it works, else as
# the user (who said so, for a folder they trust); unconfined: as the user (a caller
# that knows the scripts, such as a test of the probe itself); none: never (commands
# that only report).
ProbeMode = Literal["confined", "trusted", "unconfined", "none"]


@dataclass(frozen=True)
class Probe:
    """How discovery may run a script to learn what it declares."""

    timeout: float
    mode: ProbeMode = "confined"


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

    def text(self) -> str:
        """The whole script as text (bad UTF-8 replaced), read once: what every reader that
        needs more than `head` reads. `DiscoveryError` when it cannot be read or is larger
        than `MAX_SCRIPT_BYTES`."""
        text = self._text
        if isinstance(text, DiscoveryError):
            raise text
        return text

    @cached_property
    def _text(self) -> str | DiscoveryError:
        try:
            return read_source(self.path, self.relative_path)
        except DiscoveryError as error:
            return error

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


def read_unframed(candidate: Candidate, limit: int, what: str, kind: str) -> str:
    """The text of a script written for no framework, up to `limit` bytes: one longer is
    not a tool (`NotATool` of `kind`, naming `what`: "a shell script"), not an error, since
    nothing in it asked toolkiln to read it. `DiscoveryError` when it cannot be read."""
    try:
        with candidate.path.open("rb") as handle:
            data = handle.read(limit + 1)
    except OSError as error:
        raise DiscoveryError(f"cannot be read: {error.strerror}", path=candidate.relative_path) from None
    if len(data) > limit:
        raise NotATool(f"is {what} over {limit // 1024} KiB: toolkiln reads none so long", kind=kind)
    return data.decode("utf-8", errors="replace")


def read_source(path: Path, shown: str | None = None) -> str:
    """The text of the script at `path` (bad UTF-8 replaced), up to `MAX_SCRIPT_BYTES`; a
    `DiscoveryError` naming `shown` (else the path) when it cannot be read or is larger."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_SCRIPT_BYTES + 1)
    except OSError as error:
        raise DiscoveryError(f"cannot be read: {error.strerror or error}", path=shown or str(path)) from None
    if len(data) > MAX_SCRIPT_BYTES:
        raise DiscoveryError(
            f"is larger than {MAX_SCRIPT_BYTES} bytes; toolkiln reads scripts up to that size",
            path=shown or str(path),
        )
    return data.decode("utf-8", errors="replace")


_SCRIPT_TYPES = (
    ("bash", "shell"), ("sh", "shell"), ("zsh", "shell"), ("dash", "shell"), ("ksh", "shell"),
    ("python", "python"), ("py", "python"), ("node", "node"), ("js", "node"), ("mjs", "node"),
    ("ruby", "ruby"), ("rb", "ruby"), ("perl", "perl"), ("pl", "perl"),
    ("ts", "typescript"), ("mts", "typescript"), ("cjs", "node"),
)  # fmt: skip


@dataclass(frozen=True)
class Declaration:
    """What a script declares about itself, whatever its convention."""

    # How the tool runs (`launchers.py`): the `dialect` of its config and of tools.json.
    # One reader may give several (python/execute.py: `python`, run in toolkiln's workers,
    # or a script of `python_entry`); the reader is the module, never named here.
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
    # selects it, passed by the runtime; and its name, when the convention gives one (else
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
    """A file looked at is not a tool, and why: raised by a reader's `declare` (the file
    turned out not to be its own) or made by `reasons.why_not` for a file no reader
    claims. `discover --list`, `discover --why` and `doctor` say it; `kind` groups files
    that share one reason into one hint (see `reasons.HINTS`)."""

    def __init__(self, reason: str, kind: str = "no-declaration") -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind


class Reader(Protocol):
    """One way of declaring a tool: a convention's reader module provides these three names.

    A reader whose files name their tool (kit's `// Name:`) also provides
    `tool_name(candidate) -> str | None`: a cheap read of the name, or None for the name
    from the path, which is how the other readers' tools are named.
    """

    # True when `claims` alone decides (the file is read, not run). Only such a claim on
    # a folder's run.sh makes the folder one tool whose other files are not offered.
    CLAIM_IS_CERTAIN: bool

    def claims(self, candidate: Candidate) -> bool:
        """Cheap first look (may read the file, never runs it): could this file be mine?"""

    async def declare(self, candidate: Candidate, probe: Probe) -> list[Declaration]:
        """The tools the file declares: one, the file's own tool (`is_file_tool`: no
        `command`, no `name`), or one per command, each with its `command` (and its `name` when the convention
        gives one). The file's own warnings are said once, by its first tool
        (`subcommands.with_file_warnings`). A reader that must run the file to know runs it
        through `probe.run_probe`, as `probe` allows.

        Raises `NotATool` when it turns out not to be mine, saying why (an empty list says
        so without a reason), and `DiscoveryError` (with file and line) when it is
        mine but broken: a tool that cannot be served whole (a required parameter it
        cannot represent) is broken, never published without it.
        """


def is_file_tool(declarations: list[Declaration]) -> bool:
    """Whether `declarations` is the file's own tool, named after the file: one tool that
    no command word selects and the convention does not name. (A `run(**)` tool's `command`
    is the function it calls, Windmill's `main`, not a word that selects one of several.)"""
    if len(declarations) != 1:
        return False
    only = declarations[0]
    return only.name is None and (only.command is None or only.python_entry == "run(**)")


def make_parameter(path: str, line: int | None, **fields: object) -> Parameter:
    """A `Parameter`, or a `DiscoveryError` saying where and why it is not one."""
    from pydantic import ValidationError

    from toolkiln.model import Parameter  # only when a script is read: an unchanged run needs no models

    try:
        return Parameter.model_validate(fields)
    except ValidationError as error:
        reasons = "; ".join(str(detail["msg"]).removeprefix("Value error, ") for detail in error.errors())
        raise DiscoveryError(reasons, path=path, line=line) from None
