"""How a tool's processes are confined: per tool, with defaults in `config/server.json`."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# auto: confined where bubblewrap works, otherwise run as before (the log says so once);
# required: a call that cannot be confined is refused; off: never confined.
ConfinementMode = Literal["auto", "required", "off"]
FilesystemAccess = Literal["read-only", "open"]


class ConfinementSettings(BaseModel):
    """A tool's confinement (docs/security.md). None leaves a setting to the server's default.

    - `mode`: see `ConfinementMode`.
    - `filesystem`: `read-only` (nothing writable but its workspace, `writable` folders
      and a private /tmp; /run hidden) or `open` (as the user sees it). Either way the
      server's state folder (its token) is hidden and processes cannot outlive the call.
    - `network`: whether its processes reach the network (else only a loopback of their own).
    - `writable`: folders a `read-only` tool may write besides its workspace and a
      private /tmp (absolute, or relative to the tool's folder; `{TOOL_DIR}` is that folder).
    - `pass_env`: the only server variables it gets besides the standard ones (PATH,
      HOME, LANG, ...), its own arguments and toolkiln's; `*` ends a prefix (`AWS_*`),
      and `["*"]` passes them all.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True, frozen=True)

    mode: ConfinementMode | None = None
    filesystem: FilesystemAccess | None = None
    network: bool | None = None
    writable: list[str] | None = None
    pass_env: list[str] | None = None

    def over(self, defaults: ConfinementSettings) -> ConfinementSettings:
        """These settings, with each one left unset taken from `defaults`."""
        return ConfinementSettings(**{**dict(defaults), **self.model_dump(exclude_none=True)})


class ServerConfinement(ConfinementSettings):
    """`config/server.json`'s defaults for every tool: each setting has a value."""

    # Off unless turned on: a PID namespace and a private /tmp change what a script sees
    # (`$$` is the same small number in every call), so an ordinary script that names its
    # files by it, writes outside its workspace or calls a web API would break. Turned on,
    # it is the whole fence: docs/security.md says why, and how to open each part.
    mode: ConfinementMode | None = "off"
    filesystem: FilesystemAccess | None = "read-only"
    network: bool | None = False
    writable: list[str] | None = Field(default_factory=list)
    pass_env: list[str] | None = Field(default_factory=list)
