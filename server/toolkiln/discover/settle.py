"""What becomes of a script discovery had to read: its config written, kept, or the
reason it is not (or no longer) a tool."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from toolkiln.conventions.base import Candidate, Declaration, NotATool, Reader, is_file_tool
from toolkiln.conventions.naming import ENTRY_POINT
from toolkiln.discover.corrections import keep_corrections, snapshot
from toolkiln.discover.fingerprint import fingerprint_file, same_content
from toolkiln.discover.probe import NotProbed
from toolkiln.discover.report import DiscoveryReport, NotTool, status_of
from toolkiln.discover.visible_text import visible_declaration
from toolkiln.errors import ConfigError, DiscoveryError
from toolkiln.files import load_tool_config, tool_config_path, write_tool_config

if TYPE_CHECKING:
    from toolkiln.model import ToolConfig

logger = logging.getLogger(__name__)


@dataclass
class Pending:
    """A script to read: what its reader (the convention that claimed it) made of it lands
    in `outcome`."""

    candidate: Candidate
    reader: Reader
    name: str
    existing: ToolConfig | None
    outcome: Declaration | list[Declaration] | DiscoveryError | NotATool | None = None
    # Another file read in this run would be a tool of the same name: which one is, if
    # either, is known once both are read (a file of several tools leaves its name free).
    contested: bool = False


def settle_file(
    item: Pending,
    tools_dir: Path,
    config_dir: Path,
    write: bool,
    report: DiscoveryReport,
    seen: dict[str, str],
) -> list[tuple[str, Declaration]] | NotATool | None:
    """`settle` for a file that declares one tool, or one per command (an argc `@cmd`,
    a subcommand): each is a tool of its own, named `<file's name>_<command>` unless
    the convention names it. Returns the tools served, by name, or why the file is none."""
    outcome, relative = item.outcome, item.candidate.relative_path
    if isinstance(outcome, list) and (not outcome or is_file_tool(outcome)):
        item.outcome = outcome = outcome[0] if outcome else None
    if not isinstance(outcome, list):
        if isinstance(outcome, Declaration) and seen.setdefault(item.name, relative) != relative:
            report.errors.append(duplicate_error(item.name, seen[item.name], relative))
            return None
        if item.contested and isinstance(outcome, Declaration):
            try:
                item.existing = load_existing(config_dir, item.name)
            except ConfigError as error:
                report.errors.append(config_error(error))
                return None
        settled = settle(item, tools_dir, config_dir, write, report)
        return [(item.name, settled)] if isinstance(settled, Declaration) else settled
    if seen.get(item.name) == relative:
        del seen[item.name]  # the file's own name is none of its tools
    served = []
    for declaration in outcome:
        name = declaration.name or command_tool_name(item.name, declaration.command or "")
        if declaration.name and name in seen:  # its own name is taken (two agents' `add_todo`)
            name = command_tool_name(item.name, declaration.command or "")
            report.warnings.append(
                DiscoveryError(
                    f"{declaration.name!r} is already the tool of {seen[declaration.name]}, so this "
                    f"one is {name!r}",
                    path=relative,
                )
            )
        if name in seen:
            report.errors.append(duplicate_error(name, seen[name], relative))
            continue
        seen[name] = relative
        try:
            existing = load_existing(config_dir, name)
        except ConfigError as error:
            report.errors.append(config_error(error))
            continue
        command = Pending(item.candidate, item.reader, name, existing, declaration)
        if isinstance(settled := settle(command, tools_dir, config_dir, write, report), Declaration):
            served.append((name, settled))
    return served


def command_tool_name(base: str, command: str) -> str:
    """`todo` and `add` make `todo_add`: a name clients accept (letters, digits, _ and -)."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", f"{base}_{command}").strip("_")[:64]


def duplicate_error(name: str, first: str, second: str) -> DiscoveryError:
    return DiscoveryError(f"both {first} and {second} would be the tool {name!r}; rename one", path=second)


def config_error(error: ConfigError) -> DiscoveryError:
    return DiscoveryError(f"{error}\n  (fix the file or delete it to rediscover the tool)")


def load_existing(config_dir: Path, name: str) -> ToolConfig | None:
    path = tool_config_path(config_dir, name)
    return load_tool_config(path) if path.exists() else None


def settle(
    item: Pending, tools_dir: Path, config_dir: Path, write: bool, report: DiscoveryReport
) -> Declaration | NotATool | None:
    """Record what became of one script that had to be read, and write its config.
    Returns the declaration served, or why the file is not a tool (None: neither is known)."""
    outcome, existing, path = item.outcome, item.existing, item.candidate.relative_path
    if isinstance(outcome, Declaration):
        try:
            outcome = visible_declaration(outcome, item.candidate)
        except DiscoveryError as error:
            outcome = error
    if isinstance(outcome, NotProbed):  # it was not run: what its config says stands
        report.warnings.append(outcome)
        if existing:
            report.tools.append(status_of(existing, "unchanged"))
        return None
    if isinstance(outcome, DiscoveryError):
        report.errors.append(outcome)
        if existing:
            report.tools.append(status_of(existing, "failed"))
        return None
    if not isinstance(outcome, Declaration):
        verdict = outcome if isinstance(outcome, NotATool) else NotATool("declares nothing toolkiln reads")
        report.not_tools.append(NotTool(path, verdict.kind, verdict.reason))
        if existing:  # it was a tool, and no longer says it is one
            report.warnings.append(
                DiscoveryError(
                    f"no longer declares a tool: {verdict.reason}; its config {item.name}.json is kept",
                    path=path,
                )
            )
            report.tools.append(status_of(existing, "missing", script_found=True))
        return verdict
    report.warnings.extend(outcome.warnings)
    config = _merge_user_keys(_config_from(item, outcome, tools_dir), existing)
    if existing and same_content(config, existing):
        report.tools.append(status_of(existing, "unchanged"))
        return outcome
    if write:
        # Flushed to disk once for the whole run, before the index records it (core.py).
        write_tool_config(tool_config_path(config_dir, item.name), config, sync=False)
        logger.info("%s config for %s", "updated" if existing else "created", item.name)
    report.tools.append(
        status_of(config, "updated" if existing else "created", has_config=existing is not None)
    )
    return outcome


def _config_from(item: Pending, declaration: Declaration, tools_dir: Path) -> ToolConfig:
    from toolkiln.dotenv_file import env_reads_of
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
            command=declaration.command,
            env_reads=env_reads_of(candidate.path, [p.name for p in declaration.parameters]),
            entry_point=declaration.entry_point,
            guessed=list(declaration.guessed),
            discovered=snapshot(declaration.description, declaration.parameters),
            **declaration.settings,
        ),
        source=fingerprint_file(
            candidate.path, candidate.stat, {name: tools_dir / name for name in declaration.companions}
        ),
    )


def _merge_user_keys(discovered: ToolConfig, existing: ToolConfig | None) -> ToolConfig:
    """Discovery's fresh view, with every key the user owns taken from the old file."""
    from toolkiln.model import USER_KEYS, USER_SCRIPT_KEYS

    if existing is None:
        return discovered
    script = keep_corrections(discovered.script_config, existing.script_config).model_copy(
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
