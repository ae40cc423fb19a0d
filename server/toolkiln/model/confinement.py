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
    - `pass_env`: when set, the only server variables it gets besides the standard ones
      (PATH, HOME, LANG, ...), its own arguments and toolkiln's; `*` ends a prefix
      (`AWS_*`). Unset: the server's whole environment.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True, frozen=True)

    mode: ConfinementMode | None = None
    filesystem: FilesystemAccess | None = None
    network: bool | None = None
    writable: list[str] | None = None
    pass_env: list[str] | None = None

    def over(self, defaults: ConfinementSettings) -> ConfinementSettings:
        """These settings, with each one left unset taken from `defaults`."""
        return defaults.model_copy(update=self.model_dump(exclude_none=True))


class ServerConfinement(ConfinementSettings):
    """`config/server.json`'s defaults for every tool: each setting has a value."""

    mode: ConfinementMode | None = "auto"
    # An ordinary script writes where it likes (~/.cache, a report folder) and reads its
    # keys from the environment; the defaults keep that working, and docs/security.md
    # says how to close each (`read-only`, `network: false`, `pass_env: []`).
    filesystem: FilesystemAccess | None = "open"
    network: bool | None = True
    writable: list[str] | None = Field(default_factory=list)
