"""Resource limits of a tool's processes: per tool, with defaults in `config/server.json`."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Limits(BaseModel):
    """Resource limits of a tool's processes (rlimits set in the child before exec).

    None leaves a limit as the server's own. `processes` counts every process of the
    user running the server (RLIMIT_NPROC is per user, not per call).
    """

    model_config = ConfigDict(defer_build=True, extra="forbid", strict=True, frozen=True)

    cpu_seconds: int | None = Field(default=None, ge=1)
    memory_mb: int | None = Field(default=None, ge=1)
    open_files: int | None = Field(default=None, ge=1)
    processes: int | None = Field(default=None, ge=1)
    max_output_bytes: int | None = Field(default=None, ge=1)

    def over(self, defaults: Limits) -> Limits:
        """These limits, with each one left unset taken from `defaults`."""
        return defaults.model_copy(update=self.model_dump(exclude_none=True))
