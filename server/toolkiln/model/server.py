"""`config/server.json`: what the server decides for every tool (optional; written by users).

Build compiles it into `config/tools.json` with the tools, so the server still reads
one file: each tool's limits there are its own over these defaults, and the built-in
`run_command` tool is there when it is turned on.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from toolkiln.fallback_globs import check_fallback_pattern
from toolkiln.model.confinement import ConfinementSettings, ServerConfinement
from toolkiln.model.limits import Limits
from toolkiln.model.oauth import OAuthSettings
from toolkiln.model.state import StateSettings
from toolkiln.model.telemetry import TelemetrySettings
from toolkiln.model.tools import ToolName

# Never allowed, whatever the allowlist says: they change who runs what, or run anything.
DEFAULT_DENIED_COMMANDS = ("sudo", "su", "doas", "pkexec", "env", "xargs", "nohup", "setsid", "chroot")


def check_program(entry: str) -> str:
    """An `allow` or `deny` entry: a program's name (looked up on PATH) or an absolute path."""
    if not entry or any(char.isspace() or char == "\0" for char in entry):
        raise ValueError(f"{entry!r} must be a program's name or an absolute path, without spaces")
    if "/" in entry and not entry.startswith("/"):
        raise ValueError(
            f"{entry!r} is a relative path; give a name looked up on PATH ('ls') or an absolute path"
        )
    if entry.endswith("/"):
        raise ValueError(f"{entry!r} is a folder, not a program")
    return entry


def check_pattern(pattern: str) -> str:
    """An `allow_args` entry: a regular expression that compiles."""
    try:
        re.compile(pattern)
    except re.error as error:
        raise ValueError(f"{pattern!r} is not a valid regular expression: {error}") from None
    return pattern


# A path or glob of `discovery.fallback`, relative to the tools folder.
FallbackPattern = Annotated[str, AfterValidator(check_fallback_pattern)]
# A program in `allow` or `deny`, and a regular expression of `allow_args`.
Program = Annotated[str, AfterValidator(check_program)]
ArgsPattern = Annotated[str, AfterValidator(check_pattern)]


class RunCommandSettings(BaseModel):
    """The built-in `run_command` tool (seeds/001): off unless turned on, and then fenced.

    A command runs only when its program is in `allow` and not in `deny`, its
    arguments match `allow_args` (when the program has an entry there), and its
    working directory lies inside one of `roots`. docs/configuration.md has the whole
    security model, and what it does not protect against.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True, frozen=True)

    enabled: bool = False
    # The tool's name, as clients see it.
    name: ToolName = "run_command"
    # Programs that may run: names looked up on PATH, or absolute paths. Empty: none.
    allow: list[Program] = Field(default_factory=list)
    # Per program of `allow` (spelled as there), regular expressions: the arguments,
    # joined by single spaces, must match one of them in full.
    allow_args: dict[str, list[ArgsPattern]] = Field(default_factory=dict)
    # Programs never run, even when `allow` lists them.
    deny: list[Program] = Field(default_factory=lambda: list(DEFAULT_DENIED_COMMANDS))
    # Run the command through `/bin/sh -c` instead of as an argv list (risky: see the docs).
    shell: bool = False
    # Folders the working directory must lie in. In config/server.json: absolute, or
    # relative to the project folder (the one that holds the config folder); in the
    # compiled catalog: relative to the catalog's folder. The first is the default workdir.
    roots: list[str] = Field(default_factory=lambda: ["."], min_length=1)
    timeout_seconds: float = Field(default=60.0, gt=0)
    # Ask the user before each command runs (as a tool's `requires_confirmation`).
    requires_confirmation: bool = False
    limits: Limits = Field(default_factory=Limits)
    # Its programs are toolkiln's to fence: confined wherever bubblewrap works, whatever
    # the tools' default, read-only and without network unless `config/server.json` says otherwise.
    confinement: ConfinementSettings = Field(default_factory=lambda: ConfinementSettings(mode="auto"))

    @model_validator(mode="after")
    def _check_allow_args_programs(self) -> RunCommandSettings:
        unknown = sorted(set(self.allow_args) - set(self.allow))
        if unknown:
            raise ValueError(
                f"allow_args has entries for {', '.join(map(repr, unknown))}, which `allow` does not list; "
                "use the program exactly as `allow` spells it"
            )
        return self


class DiscoverySettings(BaseModel):
    """How discovery reads the tools folder (docs/configuration.md).

    `fallback`: executables that no dialect declares, served as a tool that takes the
    client's `args` as its whole command line (docs/dialects.md, docs/security.md). Off
    unless listed: paths or globs relative to the tools folder; a folder means everything
    under it. Here and not in the tools folder, which may not be the user's to trust.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True, frozen=True)

    fallback: list[FallbackPattern] = Field(default_factory=list)


class TaskSettings(BaseModel):
    """Calls run as MCP tasks (SEP-2663): how long a finished task's result is kept, and
    how much the task store may hold (docs/configuration.md). Past either bound, new
    tasks are refused: a tool whose task support is `optional` then runs as a plain call."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True, frozen=True)

    # A task lives for its tool's timeout plus this (its `ttlMs`), then it is removed.
    keep_seconds: float = Field(default=3600.0, gt=0)
    # Tasks kept at once (running and finished, every client).
    max_tasks: int = Field(default=1000, ge=1)
    # Bytes of results, logs and questions kept at once.
    max_bytes: int = Field(default=64 * 1024 * 1024, ge=1024)
    # The polling interval suggested to clients.
    poll_interval_ms: int = Field(default=1000, ge=10)
    # A tool with `ask_before_task`: its questions asked within this many seconds (of its
    # start, or of its latest answers) come back as input-required rounds of the call
    # itself; once it reports progress, works on that long without asking, or ends, the
    # call goes on as a task. 0: a task at once, and every question through it.
    ask_window_seconds: float = Field(default=1.0, ge=0, le=60)


class InteractiveSettings(BaseModel):
    """Interactive scripts (docs/configuration.md): how long a call waits for a client's
    answers before it is stopped. A call parked between 2026-07-28 input-required rounds,
    and a task in `input_required`, hold a process (and a slot of `--max-concurrency`)
    while they wait: a human's pause ends here, not at the tool's run timeout."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True, frozen=True)

    answer_timeout_seconds: float = Field(default=300.0, gt=0)


class CatalogSettings(BaseModel):
    """Big catalogs (docs/configuration.md `catalog`): past `search_above` tools, `tools/list`
    shows two tools instead of all of them, one that searches the catalog (BM25 over
    names, descriptions and parameters) and one that calls a tool it found. Every tool
    stays callable by its own name, and authorised, exactly as before.

    `search`: `auto` (on when more than `search_above` tools are served, for clients not
    in `clients_that_search`), `on` (always), `off` (never). `toolkiln serve
    --catalog-search` overrides it. The two tools' names may be changed, so that a
    script already named `search_tools` or `call_tool` keeps its name."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True, frozen=True)

    search: Literal["auto", "on", "off"] = "auto"
    search_above: int = Field(default=40, ge=0)
    search_tool: ToolName = "search_tools"
    call_tool: ToolName = "call_tool"
    # Clients (their `clientInfo.name`) that search a big list themselves: they get every tool.
    clients_that_search: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check_distinct_names(self) -> CatalogSettings:
        if self.search_tool == self.call_tool:
            raise ValueError(f"search_tool and call_tool are both {self.search_tool!r}; give them two names")
        return self


class ServerConfig(BaseModel):
    """`config/server.json`."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    format_version: Literal[1] = 1
    limits: Limits = Field(default_factory=Limits)
    confinement: ServerConfinement = Field(default_factory=ServerConfinement)
    run_command: RunCommandSettings = Field(default_factory=RunCommandSettings)
    discovery: DiscoverySettings = Field(default_factory=DiscoverySettings)
    tasks: TaskSettings = Field(default_factory=TaskSettings)
    interactive: InteractiveSettings = Field(default_factory=InteractiveSettings)
    state: StateSettings = Field(default_factory=StateSettings)
    catalog: CatalogSettings = Field(default_factory=CatalogSettings)
    # OAuth 2.1 resource server (model/oauth.py); None: the shared bearer token.
    oauth: OAuthSettings | None = None
    telemetry: TelemetrySettings = Field(default_factory=TelemetrySettings)
