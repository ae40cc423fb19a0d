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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolkiln.conventions import order  # the module: it imports discover's package in turn
from toolkiln.conventions.base import Candidate, Declaration, NotATool, Probe, ProbeMode, Reader
from toolkiln.conventions.fallback import read as fallback
from toolkiln.conventions.naming import tool_name_for
from toolkiln.discover.config_stamps import read_config_stamps
from toolkiln.discover.declaring import ProgressCallback, declare_all
from toolkiln.discover.fingerprint import unchanged_config
from toolkiln.discover.index import DiscoveryIndex, KnownTool
from toolkiln.discover.missing import find_missing_tools
from toolkiln.discover.probe import end_probes
from toolkiln.discover.reasons import why_not
from toolkiln.discover.report import Change, DiscoveryReport, NotTool, ToolStatus
from toolkiln.discover.scan import first_claimant, scan_tools
from toolkiln.discover.settle import Pending, config_error, duplicate_error, load_existing, settle_file
from toolkiln.discover.sources import SourceFence
from toolkiln.errors import ConfigError, DiscoveryError
from toolkiln.files import sync_filesystem, tool_config_path

__all__ = ["Change", "DiscoveryReport", "NotTool", "ToolStatus", "discover_tools"]

logger = logging.getLogger(__name__)

DEFAULT_PROBE_TIMEOUT = 5.0


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
    opted_in = fallback.record_opt_in(tools_dir, config_dir)  # which files config/server.json opts in
    report = DiscoveryReport()
    index = DiscoveryIndex.load(config_dir, _index_key(opted_in))
    # After an upgrade (or a change to the readers' code, or to the fallback settings) every
    # script is read again once: what it declares may read differently now. Configs are
    # rewritten only where that changed them.
    reread = force or index.stale
    known: dict[str, dict[str, Any]] = {}  # this run's index hits, by relative path
    readers: dict[str, Reader | None] = {}  # the claimants the index names, by module name

    def claimant(candidate: Candidate) -> Reader | None:
        entry = None if force else index.known(candidate.relative_path, candidate.stat, tools_dir)
        if entry is None:
            return first_claimant(candidate, order.readers())
        known[candidate.relative_path] = entry
        if not entry.get("tools"):
            return None
        name = entry.get("claimant")
        name = name if isinstance(name, str) else ""
        reader = readers[name] if name in readers else readers.setdefault(name, order.reader_named(name))
        return reader or first_claimant(candidate, order.readers())

    pending: list[Pending] = []
    seen: dict[str, str] = {}
    configs = read_config_stamps(config_dir)  # the one listing of config/tools/ (`config_stamps.py`)
    fence = SourceFence.load(config_dir, tools_dir, index, configs)
    for candidate, reader in scan_tools(tools_dir, claimant, report.warnings, fence, report.not_tools):
        relative, entry = candidate.relative_path, known.get(candidate.relative_path)
        if reader is None:
            verdict = (entry and index.known_verdict(entry)) or why_not(candidate)
            report.not_tools.append(NotTool(relative, verdict.kind, verdict.reason))
            index.remember_not_tool(relative, candidate.stat, verdict)
            continue
        # "Is it unchanged?", asked once: the index knows the file and its configs are as it
        # saw them; else (a first run with this toolkiln, a `touch`, an index lost) the
        # config itself, as plain JSON, records the script as it is (`fingerprint.py`).
        if (
            entry
            and (tools := index.known_tools(entry, configs))
            and not seen.keys() & {t.name for t in tools}
        ):
            seen.update((tool.name, relative) for tool in tools)
            report.tools += [
                ToolStatus(t.name, relative, t.description, True, True, "unchanged") for t in tools
            ]
            index.keep(relative, entry)
            continue
        name = _tool_name(candidate, reader)
        if name in seen and any(item.candidate.relative_path == seen[name] for item in pending):
            # known once both are read (`settle_file`)
            pending.append(Pending(candidate, reader, name, None, contested=True))
            continue
        if name in seen:
            report.errors.append(duplicate_error(name, seen[name], relative))
            continue
        seen[name] = relative
        config_file = tool_config_path(config_dir, name)
        unchanged = None if reread else _unchanged_status(candidate, config_file, tools_dir)
        if unchanged:
            status, companions = unchanged
            report.tools.append(status)
            tool = KnownTool(status.name, status.description)
            index.remember_tools(
                relative, candidate.stat, _module(reader), [tool], companions, config_dir, tools_dir
            )
            continue
        try:
            existing = load_existing(config_dir, name)
        except ConfigError as error:
            report.errors.append(config_error(error))
            continue
        pending.append(Pending(candidate, reader, name, existing))

    def settle_one(item: Pending) -> None:  # in the order of `pending`, while later ones are probed
        outcome = settle_file(item, tools_dir, config_dir, write, report, seen)
        _remember(index, item, outcome, config_dir, tools_dir)

    if pending:
        import anyio

        probe = Probe(probe_timeout, probes or ("confined" if write else "none"))
        jobs = jobs or max(4, 2 * (os.cpu_count() or 1))
        try:
            anyio.run(declare_all, pending, probe, jobs, on_progress, settle_one)
        finally:
            end_probes()  # the probes' long-lived bubblewraps end with the discovery
    if write and pending and config_dir.is_dir():
        sync_filesystem(config_dir)  # the configs settle_file wrote, on disk before the index says so
        SourceFence.read_again(config_dir, tools_dir, index)
    failed = frozenset(error.path for error in report.errors if error.path)
    report.tools.extend(
        find_missing_tools(tools_dir, config_dir, seen, report.warnings, fence.writable, failed, configs)
    )
    report.tools.sort(key=lambda tool: tool.name)
    if write:
        index.save()
    if prompts_dir is not None or resources_dir is not None:
        _discover_items(report, config_dir, prompts_dir, resources_dir, force=force, write=write)
    return report


def _index_key(opted_in: tuple[str, ...]) -> str:
    """What the index's verdicts depend on besides the files: toolkiln's version, the
    reader code itself (a development checkout changes it without a new version), and
    which files config/server.json opts in to the fallback."""
    from toolkiln import __version__

    folder = Path(__file__).parent
    newest = max(entry.stat().st_mtime_ns for entry in os.scandir(folder) if entry.name.endswith(".py"))
    return f"{__version__}:{newest}" + (f":{list(opted_in)}" if opted_in else "")


def _remember(
    index: DiscoveryIndex,
    item: Pending,
    outcome: list[tuple[str, Declaration]] | NotATool | None,
    config_dir: Path,
    tools_dir: Path,
) -> None:
    candidate = item.candidate
    if isinstance(outcome, NotATool):
        index.remember_not_tool(candidate.relative_path, candidate.stat, outcome)
    elif outcome:
        tools = [KnownTool(name, declaration.description) for name, declaration in outcome]
        companions = tuple(dict.fromkeys(c for _, declaration in outcome for c in declaration.companions))
        claimant = _module(item.reader)
        index.remember_tools(
            candidate.relative_path, candidate.stat, claimant, tools, companions, config_dir, tools_dir
        )


def _module(reader: Reader) -> str:
    return getattr(reader, "__name__", "")


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


def _tool_name(candidate: Candidate, reader: Reader) -> str:
    """The name a reader reads from the file (kit's `// Name:`), else the one from its path."""
    read_name: Callable[[Candidate], str | None] | None = getattr(reader, "tool_name", None)
    return (read_name and read_name(candidate)) or tool_name_for(candidate.relative_path)


def _unchanged_status(
    candidate: Candidate, config_file: Path, tools_dir: Path
) -> tuple[ToolStatus, tuple[str, ...]] | None:
    """A tool whose config records its script (and companions) as it is (`unchanged_config`)."""
    path_key = ("script_config", "script_path")
    data = unchanged_config(
        config_file, candidate.path, candidate.stat, candidate.relative_path, path_key, tools_dir
    )
    if data is None:
        return None
    name, description = data["script_config"].get("name"), data["script_config"].get("description", "")
    if not (isinstance(name, str) and isinstance(description, str)):
        return None
    status = ToolStatus(name, candidate.relative_path, description, True, True, "unchanged")
    return status, tuple(data["source"].get("companions") or ())
