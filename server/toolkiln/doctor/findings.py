"""What `toolkiln doctor` reports, and the project it looks at."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from toolkiln.errors import ConfigError
from toolkiln.files import load_tool_config, tool_configs_dir
from toolkiln.model import ToolConfig

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
_WHERE = re.compile(r"^(?P<path>.+?):(?P<line>\d+): (?P<message>.*)$")


class Finding(BaseModel):
    """One problem (or fact): where it is, what is wrong, and how to fix it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    severity: Severity
    check: str  # a short name of the check: not-executable, stale-build, ...
    message: str
    fix: str = ""
    path: str | None = None
    line: int | None = None
    fixable: bool = False  # `doctor --fix` applies the fix

    @property
    def location(self) -> str:
        if self.path is None:
            return "toolkiln"
        return f"{self.path}:{self.line}" if self.line else self.path

    def sort_key(self) -> tuple[int, str, int, str]:
        return (SEVERITIES.index(self.severity), self.path or "", self.line or 0, self.message)


class DoctorReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    findings: list[Finding]
    fixed: list[str]

    def count(self, severity: Severity) -> int:
        return sum(1 for finding in self.findings if finding.severity == severity)

    @property
    def has_errors(self) -> bool:
        return self.count("error") > 0


def findings_from_config_error(error: ConfigError, check: str, fix: str) -> list[Finding]:
    """One finding per line of a `ConfigError` (`file:line: field: message` each)."""
    findings = []
    for text in str(error).splitlines():
        path: str | None = None
        line: int | None = None
        if match := _WHERE.match(text):
            path, line, text = match["path"], int(match["line"]), match["message"]
        else:
            head, separator, rest = text.partition(": ")
            if separator and Path(head).suffix:
                path, text = head, rest
        findings.append(Finding(severity="error", check=check, message=text, fix=fix, path=path, line=line))
    return findings


@dataclass
class Project:
    """The folders doctor looks at, with each per-tool config read once."""

    tools_dir: Path
    config_dir: Path
    prompts_dir: Path | None = None
    resources_dir: Path | None = None
    server_name: str = "toolkiln"

    @cached_property
    def _read_configs(self) -> tuple[list[tuple[Path, ToolConfig]], list[tuple[Path, ConfigError]]]:
        valid, invalid = [], []
        folder = tool_configs_dir(self.config_dir)
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            try:
                valid.append((path, load_tool_config(path)))
            except ConfigError as error:
                invalid.append((path, error))
        return valid, invalid

    @property
    def configs(self) -> list[tuple[Path, ToolConfig]]:
        """(file, config) of every per-tool config that is valid."""
        return self._read_configs[0]

    @property
    def invalid_configs(self) -> list[tuple[Path, ConfigError]]:
        return self._read_configs[1]

    @property
    def enabled(self) -> list[tuple[Path, ToolConfig]]:
        return [(path, config) for path, config in self.configs if config.enabled]

    def script_of(self, config: ToolConfig) -> Path:
        return self.tools_dir / config.script_config.script_path
