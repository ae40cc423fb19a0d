"""Stage 1: read `tools/` and write one config per tool, `config/tools/<name>.json`.

Incremental by default: a script whose fingerprint matches its config is not read
again. Rediscovery refreshes what discovery owns and keeps what the user set. A
broken script is reported with file and line and keeps its last good config; the
other tools are discovered all the same.

A run that finds nothing changed reads each config as plain JSON and never imports
the models, pydantic or anyio (~0.1 s of a ~0.25 s run with 1,000 tools): those load
when a script has to be read or a config written.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from toolkiln.discover import fallback
from toolkiln.discover.base import Candidate, Declaration, Dialect
from toolkiln.discover.dialects import ALL_DIALECTS
from toolkiln.discover.fingerprint import fingerprint_file, is_unchanged, same_content, unchanged_config
from toolkiln.discover.naming import ENTRY_POINT, tool_name_for
from toolkiln.discover.probe import NotProbed, Probe, ProbeMode
from toolkiln.discover.scan import scan_tools
from toolkiln.errors import ConfigError, DiscoveryError
from toolkiln.files import load_tool_config, tool_config_path, tool_configs_dir, write_tool_config

if TYPE_CHECKING:
    from toolkiln.discover.items import ItemStatus
    from toolkiln.model import ToolConfig

logger = logging.getLogger(__name__)

DEFAULT_PROBE_TIMEOUT = 5.0
ProgressCallback = Callable[[int, int], None]
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


@dataclass
class DiscoveryReport:
    tools: list[ToolStatus] = field(default_factory=list)
    errors: list[DiscoveryError] = field(default_factory=list)
    warnings: list[DiscoveryError] = field(default_factory=list)

    prompts: list[ItemStatus] = field(default_factory=list)
    resources: list[ItemStatus] = field(default_factory=list)

    def count(self, change: Change) -> int:
        return sum(1 for tool in self.tools if tool.change == change)


@dataclass
class _Pending:
    candidate: Candidate
    dialect: Dialect
    name: str
    existing: ToolConfig | None
    outcome: Declaration | DiscoveryError | None = None


def discover_tools(
    tools_dir: Path,
    config_dir: Path,
    *,
    force: bool = False,
    write: bool = True,
    probe_timeout: float = DEFAULT_PROBE_TIMEOUT,
    probes: ProbeMode | None = None,
    jobs: int | None = None,
    on_progress: ProgressCallback | None = None,
    prompts_dir: Path | None = None,
    resources_dir: Path | None = None,
) -> DiscoveryReport:
    """Discover the tools under `tools_dir` (and the prompts and resources under their
    folders, when given and present); with `write=False`, only report.

    `probes` says whether scripts may run to be understood (`probe.py`): by default
    confined when writing, and never when only reporting."""
    if not tools_dir.is_dir():
        raise DiscoveryError(f"no tools folder at {tools_dir}; create it or pass --tools-dir")
    tools_dir = tools_dir.resolve()
    fallback.record_opt_in(tools_dir, config_dir)  # which files config/server.json opts in
    report = DiscoveryReport()
    pending: list[_Pending] = []
    seen: dict[str, str] = {}
    for candidate, dialect in scan_tools(tools_dir, ALL_DIALECTS, report.warnings):
        name = _tool_name(candidate, dialect)
        if name in seen:
            report.errors.append(
                DiscoveryError(
                    f"both {seen[name]} and {candidate.relative_path} would be the tool {name!r}; rename one",
                    path=candidate.relative_path,
                )
            )
            continue
        seen[name] = candidate.relative_path
        unchanged = None if force else _unchanged_status(candidate, tool_config_path(config_dir, name))
        if unchanged:
            report.tools.append(unchanged)
            continue
        try:
            existing = _load_existing(config_dir, name)
        except ConfigError as error:
            report.errors.append(
                DiscoveryError(f"{error}\n  (fix the file or delete it to rediscover the tool)")
            )
            continue
        if not force and existing and _still_current(candidate, existing):
            report.tools.append(_status(existing, "unchanged"))
        else:
            pending.append(_Pending(candidate, dialect, name, existing))

    if pending:
        import anyio

        probe = Probe(probe_timeout, probes or ("confined" if write else "none"))
        anyio.run(_declare_all, pending, probe, jobs or max(4, 2 * (os.cpu_count() or 1)), on_progress)
    for item in pending:
        _settle(item, tools_dir, config_dir, write, report)
    report.tools.extend(_missing_tools(tools_dir, config_dir, seen, report.warnings))
    report.tools.sort(key=lambda tool: tool.name)
    if prompts_dir is not None or resources_dir is not None:
        _discover_items(report, config_dir, prompts_dir, resources_dir, force=force, write=write)
    return report


def _discover_items(
    report: DiscoveryReport,
    config_dir: Path,
    prompts_dir: Path | None,
    resources_dir: Path | None,
    *,
    force: bool,
    write: bool,
) -> None:
    from toolkiln.discover.items import PROMPTS, RESOURCES, discover_items

    for kind, folder, statuses in (
        (PROMPTS, prompts_dir, report.prompts),
        (RESOURCES, resources_dir, report.resources),
    ):
        if folder is not None:
            found, errors = discover_items(kind, folder, config_dir, force=force, write=write)
            statuses.extend(found)
            report.errors.extend(errors)


def _tool_name(candidate: Candidate, dialect: Dialect) -> str:
    """The name a dialect reads from the file (kit's `// Name:`), else the one from its path."""
    read_name: Callable[[Candidate], str | None] | None = getattr(dialect, "tool_name", None)
    return (read_name and read_name(candidate)) or tool_name_for(candidate.relative_path)


def _unchanged_status(candidate: Candidate, config_file: Path) -> ToolStatus | None:
    """A tool whose config records its script as it is (see `unchanged_config`)."""
    path_key = ("script_config", "script_path")
    data = unchanged_config(config_file, candidate.path, candidate.stat, candidate.relative_path, path_key)
    if data is None:
        return None
    name, description = data["script_config"].get("name"), data["script_config"].get("description", "")
    if not (isinstance(name, str) and isinstance(description, str)):
        return None
    return ToolStatus(name, candidate.relative_path, description, True, True, "unchanged")


def _load_existing(config_dir: Path, name: str) -> ToolConfig | None:
    path = tool_config_path(config_dir, name)
    return load_tool_config(path) if path.exists() else None


def _still_current(candidate: Candidate, config: ToolConfig) -> bool:
    return config.script_config.script_path == candidate.relative_path and is_unchanged(
        candidate.path, candidate.stat, config.source
    )


async def _declare_all(
    pending: Sequence[_Pending], probe: Probe, jobs: int, on_progress: ProgressCallback | None
) -> None:
    import anyio

    limiter = anyio.CapacityLimiter(jobs)
    done = 0

    async def declare(item: _Pending) -> None:
        nonlocal done
        async with limiter:
            try:
                item.outcome = await item.dialect.declare(item.candidate, probe)
            except DiscoveryError as error:
                item.outcome = error
        done += 1
        if on_progress:
            on_progress(done, len(pending))

    async with anyio.create_task_group() as group:
        for item in pending:
            group.start_soon(declare, item)


def _settle(item: _Pending, tools_dir: Path, config_dir: Path, write: bool, report: DiscoveryReport) -> None:
    """Record what became of one script that had to be read, and write its config."""
    outcome, existing = item.outcome, item.existing
    if isinstance(outcome, NotProbed):  # it was not run: what its config says stands
        report.warnings.append(outcome)
        if existing:
            report.tools.append(_status(existing, "unchanged"))
        return
    if isinstance(outcome, DiscoveryError):
        report.errors.append(outcome)
        if existing:
            report.tools.append(_status(existing, "failed"))
        return
    if outcome is None:
        if existing:  # it was a tool, and no longer says it is one
            report.warnings.append(
                DiscoveryError(
                    f"no longer declares a tool; its config {item.name}.json is kept",
                    path=item.candidate.relative_path,
                )
            )
            report.tools.append(_status(existing, "missing", script_found=True))
        return
    report.warnings.extend(outcome.warnings)
    config = _merge_user_keys(_config_from(item, outcome, tools_dir), existing)
    if existing and same_content(config, existing):
        report.tools.append(_status(existing, "unchanged"))
        return
    if write:
        write_tool_config(tool_config_path(config_dir, item.name), config)
        logger.info("%s config for %s", "updated" if existing else "created", item.name)
    report.tools.append(
        _status(config, "updated" if existing else "created", has_config=existing is not None)
    )


def _config_from(item: _Pending, declaration: Declaration, tools_dir: Path) -> ToolConfig:
    from toolkiln.model import ScriptConfig, ToolConfig

    candidate = item.candidate
    return ToolConfig(
        last_modified=datetime.now(UTC).isoformat(timespec="seconds"),
        script_config=ScriptConfig(
            name=item.name,
            description=declaration.description,
            script_path=candidate.relative_path,
            script_type=candidate.script_type,
            dialect=declaration.dialect,
            parameters=declaration.parameters,
            declared_title=declaration.title,
            version=declaration.version,
            state=declaration.state,
            requirements_file=_requirements_file(candidate, declaration, tools_dir),
            python_entry=declaration.python_entry,
            input_schema=declaration.input_schema,
        ),
        source=fingerprint_file(candidate.path, candidate.stat),
    )


def _merge_user_keys(discovered: ToolConfig, existing: ToolConfig | None) -> ToolConfig:
    """Discovery's fresh view, with every key the user owns taken from the old file."""
    from toolkiln.model import USER_KEYS, USER_SCRIPT_KEYS

    if existing is None:
        return discovered
    script = discovered.script_config.model_copy(
        update={key: getattr(existing.script_config, key) for key in USER_SCRIPT_KEYS}
    )
    kept = {key: getattr(existing, key) for key in (*USER_KEYS, "auto_detected", "created_by")}
    return discovered.model_copy(update={**kept, "script_config": script})


def _requirements_file(candidate: Candidate, declaration: Declaration, tools_dir: Path) -> str | None:
    """The `requirements.txt` beside a tool folder's `run.sh`, or beside a Python module."""
    if candidate.path.name != ENTRY_POINT and declaration.dialect != "python":
        return None
    requirements = candidate.path.parent / "requirements.txt"
    return requirements.relative_to(tools_dir).as_posix() if requirements.is_file() else None


def _missing_tools(
    tools_dir: Path, config_dir: Path, seen: dict[str, str], warnings: list[DiscoveryError]
) -> list[ToolStatus]:
    """Configs whose script is gone, or is now another tool: reported, never deleted."""
    tool_of_script = {script_path: name for name, script_path in seen.items()}
    folder = tool_configs_dir(config_dir)
    if not folder.is_dir():
        return []
    missing = []
    for path in sorted(folder.glob("*.json")):
        if path.stem in seen:
            continue
        try:
            config = load_tool_config(path)
        except ConfigError:
            missing.append(ToolStatus(path.stem, "?", "(config file is invalid)", True, False, "missing"))
            continue
        script_path = config.script_config.script_path
        if script_path in tool_of_script:  # its Name changed, so it became a new tool
            warnings.append(
                DiscoveryError(
                    f"is now the tool {tool_of_script[script_path]!r}; its old config {path.name} "
                    "is kept: delete it, after copying any settings of yours to the new one",
                    path=script_path,
                )
            )
        found = (tools_dir / script_path).is_file()
        missing.append(_status(config, "missing", script_found=found))
    return missing


def _status(
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
