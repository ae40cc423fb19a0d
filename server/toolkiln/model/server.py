"""`config/server.json`: what the server decides for every tool (optional; written by users).

Build compiles it into `config/tools.json` with the tools, so the server still reads
one file: each tool's limits there are its own over these defaults, and the built-in
`run_command` tool is there when it is turned on.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from toolkiln.model.limits import Limits
from toolkiln.model.tools import ToolName


# Never allowed, whatever the allowlist says: they change who runs what, or run anything.
DEFAULT_DENIED_COMMANDS = ("sudo", "su", "doas", "pkexec", "env", "xargs", "nohup", "setsid", "chroot")


class RunCommandSettings(BaseModel):
    """The built-in `run_command` tool (seeds/001): off unless turned on, and then fenced."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True, frozen=True)

    enabled: bool = False
    name: ToolName = "run_command"
    # Executables that may run: names looked up on PATH, or absolute paths.
    allow: list[str] = Field(default_factory=list)
    # Optional regular expressions per allowed executable; the arguments, joined by
    # spaces, must match one of them in full.
    allow_args: dict[str, list[str]] = Field(default_factory=dict)
    deny: list[str] = Field(default_factory=lambda: list(DEFAULT_DENIED_COMMANDS))
    # Run the command through `/bin/sh -c` instead of as an argv list.
    shell: bool = False
    # Folders the working directory must lie in, relative to the project folder.
    roots: list[str] = Field(default_factory=lambda: ["."])
    timeout_seconds: float = Field(default=60.0, gt=0)
    limits: Limits = Field(default_factory=Limits)


class ServerConfig(BaseModel):
    """`config/server.json`."""

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True)

    format_version: Literal[1] = 1
    limits: Limits = Field(default_factory=Limits)
    run_command: RunCommandSettings = Field(default_factory=RunCommandSettings)
