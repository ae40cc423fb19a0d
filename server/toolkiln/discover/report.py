"""What discovery hands back: each tool's status, each file that is not a tool and why."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from toolkiln.errors import DiscoveryError

if TYPE_CHECKING:
    from toolkiln.discover.items import ItemStatus
    from toolkiln.model import ToolConfig

Change = Literal["created", "updated", "unchanged", "missing", "failed"]


@dataclass(frozen=True)
class ToolStatus:
    """Where one tool stands after discovery (a row of `discover --list`)."""

    name: str
    script_path: str
    description: str
    has_config: bool
    script_found: bool
    change: Change


@dataclass(frozen=True)
class NotTool:
    """A file under the tools folder that is not a tool: `kind` groups it (reasons.HINTS)."""

    path: str
    kind: str
    reason: str


@dataclass
class DiscoveryReport:
    tools: list[ToolStatus] = field(default_factory=list)
    errors: list[DiscoveryError] = field(default_factory=list)
    warnings: list[DiscoveryError] = field(default_factory=list)
    not_tools: list[NotTool] = field(default_factory=list)

    prompts: list[ItemStatus] = field(default_factory=list)
    resources: list[ItemStatus] = field(default_factory=list)

    def count(self, change: Change) -> int:
        return sum(1 for tool in self.tools if tool.change == change)


def status_of(
    config: ToolConfig, change: Change, *, has_config: bool = True, script_found: bool = True
) -> ToolStatus:
    script = config.script_config
    return ToolStatus(
        name=script.name,
        script_path=script.script_path,
        description=script.description,
        has_config=has_config,
        script_found=script_found,
        change=change,
    )
