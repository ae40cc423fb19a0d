"""Stage 2: merge the enabled per-item configs into one compiled `config/tools.json`.

Tools from `config/tools/`, prompts from `config/prompts/`, resources from
`config/resources/`. All or nothing: every config is checked first, and any error
leaves the previous compiled file exactly as it was; except a config that names a
file outside its folder, which is left out (and reported) while the others are built.
The output is sorted, so building twice from the same configs gives the same bytes
(the timestamp aside).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from toolkiln.build.catalog_file import write_catalog
from toolkiln.build.catalog_search import catalog_search_collisions
from toolkiln.build.compile_item import compile_prompt, compile_resource, compile_tool, tool_scopes
from toolkiln.build.run_command import catalog_run_command, compile_run_command
from toolkiln.build.writable_binds import leave_out_unsafe_writable
from toolkiln.containment import escape_reason
from toolkiln.conventions.entry_points.project import command_file
from toolkiln.errors import BuildError, ConfigError
from toolkiln.fallback_globs import is_opted_in
from toolkiln.files import catalog_path, load_model, load_server_config, tool_configs_dir
from toolkiln.model import (
    Catalog,
    CompiledPrompt,
    CompiledResource,
    CompiledTool,
    PromptConfig,
    ResourceConfig,
    ToolConfig,
)
from toolkiln.wording import counted
from toolkiln.writable import WritableFolder, WritableFolders, config_writable_folders

logger = logging.getLogger(__name__)

ConfigT = TypeVar("ConfigT", ToolConfig, PromptConfig, ResourceConfig)
CompiledT = TypeVar("CompiledT", CompiledTool, CompiledPrompt, CompiledResource)


@dataclass
class BuildReport:
    path: Path
    tools: list[CompiledTool] = field(default_factory=list)
    prompts: list[CompiledPrompt] = field(default_factory=list)
    resources: list[CompiledResource] = field(default_factory=list)
    disabled: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # Items left out because their config names a file outside its folder: the others
    # are built all the same (one bad config never takes the rest down), and the
    # command exits with an error.
    errors: list[str] = field(default_factory=list)


def build_catalog(
    config_dir: Path, tools_dir: Path, prompts_dir: Path | None = None, resources_dir: Path | None = None
) -> BuildReport:
    """Compile the per-item configs under `config_dir` into `config_dir/tools.json`."""
    if not tool_configs_dir(config_dir).is_dir():
        raise BuildError(
            f"no per-tool configs in {tool_configs_dir(config_dir)}; run `toolkiln discover` first"
        )
    report = BuildReport(path=catalog_path(config_dir))
    errors: list[str] = []
    try:
        server = load_server_config(config_dir)
    except ConfigError as error:
        raise BuildError(f"{error}\n{report.path} was left as it was.") from None
    report.tools = _compile_all(
        tool_configs_dir(config_dir), ToolConfig, compile_tool, "tool", errors, report
    )
    report.tools = [
        tool.model_copy(
            update={
                "limits": tool.limits.over(server.limits),
                "confinement": tool.confinement.over(server.confinement),
                "scopes": tool_scopes(tool, server.oauth),
            }
        )
        for tool in report.tools
    ]
    report.prompts = _compile_all(
        config_dir / "prompts", PromptConfig, compile_prompt, "prompt", errors, report
    )
    report.resources = _compile_all(
        config_dir / "resources", ResourceConfig, compile_resource, "resource", errors, report
    )
    _check_unique_uris(report.resources, errors)
    command = compile_run_command(server, config_dir, report.tools, errors, report.warnings)
    command_settings = (
        catalog_run_command(server.run_command, config_dir, tools_dir, errors, server.confinement)
        if command
        else None
    )
    writable = WritableFolders(config_writable_folders(config_dir, tools_dir))
    _refuse_scripts_in_writable_folders(report, writable, tools_dir, errors)
    _refuse_writable_configs(config_dir, writable, errors)
    if errors:
        raise BuildError("\n".join([*errors, f"{report.path} was left as it was."]))
    _leave_out_escapes(report, tools_dir, prompts_dir, resources_dir)
    report.tools = leave_out_unsafe_writable(
        report.tools, tools_dir, report.path.parent, report.errors, writable
    )
    _leave_out_missing_files(report, tools_dir, prompts_dir, resources_dir)
    _leave_out_not_opted_in(report, server.discovery.fallback)
    if command is not None:
        report.tools = sorted([*report.tools, command], key=lambda tool: tool.name)
    search_collisions = catalog_search_collisions(report.tools, server.catalog)
    if search_collisions:
        raise BuildError("\n".join([*search_collisions, f"{report.path} was left as it was."]))
    catalog = Catalog(
        generated_at=datetime.now(UTC).isoformat(timespec="seconds"),
        tools_dir=_relative_to(tools_dir, config_dir),
        tools=report.tools,
        prompts_dir=_relative_to(prompts_dir, config_dir) if prompts_dir and report.prompts else None,
        prompts=report.prompts,
        resources_dir=_relative_to(resources_dir, config_dir) if resources_dir and report.resources else None,
        resources=report.resources,
        writable_folders=sorted({_relative_to(Path(folder.path), config_dir) for folder in writable.folders}),
        run_command=command_settings,
        tasks=server.tasks,
        interactive=server.interactive,
        state=server.state,
        catalog_search=server.catalog,
        oauth=server.oauth,
        telemetry=server.telemetry,
    )
    write_catalog(report.path, catalog)
    counts = (("tool", report.tools), ("prompt", report.prompts), ("resource", report.resources))
    logger.info("built %s: %s", report.path, ", ".join(counted(len(items), kind) for kind, items in counts))
    return report


def _compile_all(
    folder: Path,
    model: type[ConfigT],
    compile_one: Callable[[ConfigT, str], CompiledT],
    kind: str,
    errors: list[str],
    report: BuildReport,
) -> list[CompiledT]:
    compiled: dict[str, tuple[CompiledT, Path]] = {}
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            config = load_model(path, model)
        except ConfigError as error:
            errors.append(str(error))
            continue
        item = compile_one(config, f"{folder.name}/{path.name}")
        if not config.enabled:
            report.disabled.append(f"{kind} {item.name}")
            continue
        if item.name in compiled:
            errors.append(
                f"{path}: the {kind} name {item.name!r} is also used by {compiled[item.name][1]}; "
                "set a different `name` in one of them"
            )
            continue
        compiled[item.name] = (item, path)
    return [compiled[name][0] for name in sorted(compiled)]


def _check_unique_uris(resources: list[CompiledResource], errors: list[str]) -> None:
    owners: dict[str, str] = {}
    for resource in resources:
        if resource.uri in owners:
            errors.append(
                f"{resource.config_file} and {owners[resource.uri]} both claim the URI {resource.uri!r}"
            )
        owners[resource.uri] = resource.config_file


def _refuse_scripts_in_writable_folders(
    report: BuildReport, writable: WritableFolders, tools_dir: Path, errors: list[str]
) -> None:
    """A tool whose script lies in a folder a tool may write fails the build: a client
    could have written that script (docs/security.md, "Where tools come from")."""
    for tool in report.tools:
        script = Path(os.path.abspath(tools_dir / tool.script_path))
        if tool.entry_point and (runs := command_file(script, tool.entry_point)) is not None:
            script = runs  # a declared command: the module or bin file it runs
        folder = writable.writer_of(script)
        if folder is None:
            continue
        errors.append(
            f"{report.path.parent / tool.config_file}: script_config.script_path: the script of tool "
            f"{tool.name!r}, {script}, lies in {folder.describe()}. A folder a tool may write is never "
            "a source of tools (a client could have written the script). Move the script out of that "
            f"folder, or take the folder out of {folder.field} in {folder.source}; or set "
            f"`enabled: false` in {report.path.parent / tool.config_file}"
        )


def _refuse_writable_configs(config_dir: Path, writable: WritableFolders, errors: list[str]) -> None:
    """A folder a tool may write that holds the config folder, or lies in it, fails the
    build: a tool could rewrite the configs that say what is served and how."""
    configs = WritableFolders([WritableFolder(os.path.abspath(config_dir), "", "", "")])
    writer = writable.writer_of(config_dir) or next(
        (folder for folder in writable.folders if configs.writer_of(Path(folder.path))), None
    )
    if writer is not None:
        errors.append(
            f"{config_dir} (the config folder) and {writer.describe()} overlap: a tool could rewrite "
            "the configs that say what is served and how. Take that folder out of that field, or "
            "choose one outside the config folder"
        )


def _leave_out_escapes(
    report: BuildReport, tools_dir: Path, prompts_dir: Path | None, resources_dir: Path | None
) -> None:
    """An item whose config names a file outside its folder (`../x`, `/usr/bin/id`, a
    symlink that leads out) is refused: left out, with an error naming file and field."""

    def inside(folder: Path | None, config_file: str, fields: dict[str, str | None]) -> bool:
        problems = [
            f"{report.path.parent / config_file}: {key}: {reason}; it is left out. Point it at a "
            f"file inside {folder}, or move the file there"
            for key, relative in fields.items()
            if folder is not None
            and relative is not None
            and (reason := escape_reason(folder, relative)) is not None
        ]
        report.errors += problems
        return not problems

    report.tools = [
        t
        for t in report.tools
        if inside(
            tools_dir,
            t.config_file,
            {
                "script_config.script_path": t.script_path,
                "script_config.requirements_file": t.requirements_file,
            },
        )
    ]
    report.prompts = [
        p
        for p in report.prompts
        if inside(prompts_dir, p.config_file, {"prompt_config.template_path": p.template_path})
    ]
    report.resources = [
        r
        for r in report.resources
        if inside(resources_dir, r.config_file, {"resource_config.file_path": r.file_path})
    ]


def _leave_out_missing_files(
    report: BuildReport, tools_dir: Path, prompts_dir: Path | None, resources_dir: Path | None
) -> None:
    """A config whose file is gone is kept (discovery reports it) but not served."""

    def present(folder: Path | None, config_file: str, relative: str) -> bool:
        if folder is None or (folder / relative).is_file():
            return True
        report.warnings.append(
            f"{report.path.parent / config_file}: left out, its file {folder / relative} is gone"
        )
        return False

    report.tools = [t for t in report.tools if present(tools_dir, t.config_file, t.script_path)]
    report.prompts = [p for p in report.prompts if present(prompts_dir, p.config_file, p.template_path)]
    report.resources = [r for r in report.resources if present(resources_dir, r.config_file, r.file_path)]


def _leave_out_not_opted_in(report: BuildReport, patterns: list[str]) -> None:
    """A fallback tool is served only while config/server.json opts its program in."""

    def opted_in(tool: CompiledTool) -> bool:
        if tool.dialect != "fallback" or is_opted_in(tool.script_path, patterns):
            return True
        report.warnings.append(
            f"{report.path.parent / tool.config_file}: left out, as {tool.script_path} is no longer in "
            "discovery.fallback of config/server.json (delete the config, or opt the file in again)"
        )
        return False

    report.tools = [tool for tool in report.tools if opted_in(tool)]


def _relative_to(path: Path, start: Path) -> str:
    """`path` as seen from `start` (relative when possible, so a project can move)."""
    try:
        return Path(os.path.relpath(path.resolve(), start.resolve())).as_posix()
    except ValueError:  # another drive
        return str(path.resolve())
