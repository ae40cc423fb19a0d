"""Stage 2: merge the enabled per-tool configs into one compiled `config/tools.json`.

All or nothing: every config is checked first, and any error leaves the previous
compiled file exactly as it was. The output is sorted, so building twice from the
same configs gives the same bytes (the timestamp aside).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from toolkiln.errors import BuildError, ConfigError
from toolkiln.files import catalog_path, load_tool_config, tool_configs_dir, write_catalog
from toolkiln.model import Catalog, CompiledTool, ToolConfig, ToolHints
from toolkiln.schema import parameters_to_schema

logger = logging.getLogger(__name__)


@dataclass
class BuildReport:
    path: Path
    tools: list[CompiledTool]
    disabled: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def build_catalog(config_dir: Path, tools_dir: Path) -> BuildReport:
    """Compile `config_dir/tools/*.json` into `config_dir/tools.json`."""
    folder = tool_configs_dir(config_dir)
    if not folder.is_dir():
        raise BuildError(f"no per-tool configs in {folder}; run `toolkiln discover` first")
    errors: list[str] = []
    compiled: dict[str, tuple[CompiledTool, Path]] = {}
    report = BuildReport(path=catalog_path(config_dir), tools=[])
    for path in sorted(folder.glob("*.json")):
        try:
            config = load_tool_config(path)
        except ConfigError as error:
            errors.append(str(error))
            continue
        if not config.enabled:
            report.disabled.append(config.script_config.name)
            continue
        tool = compile_tool(config, f"{folder.name}/{path.name}")
        if tool.name in compiled:
            errors.append(
                f"{path}: the tool name {tool.name!r} is also used by {compiled[tool.name][1]}; "
                "set a different `name` in one of them"
            )
            continue
        compiled[tool.name] = (tool, path)
        if not (tools_dir / tool.script_path).is_file():
            report.warnings.append(f"{path}: its script {tools_dir / tool.script_path} does not exist")
    if errors:
        raise BuildError("\n".join([*errors, f"{report.path} was left as it was."]))
    report.tools = [compiled[name][0] for name in sorted(compiled)]
    catalog = Catalog(
        generated_at=datetime.now(UTC).isoformat(timespec="seconds"),
        tools_dir=_relative_to(tools_dir, config_dir),
        tools=report.tools,
    )
    write_catalog(report.path, catalog)
    logger.info("built %s with %d tools", report.path, len(report.tools))
    return report


def compile_tool(config: ToolConfig, config_file: str) -> CompiledTool:
    script = config.script_config
    return CompiledTool(
        name=script.name,
        title=script.title or script.declared_title,
        description=script.description,
        dialect=script.dialect,
        script_path=script.script_path,
        script_type=script.script_type,
        parameters=script.parameters,
        input_schema=parameters_to_schema(script.parameters),
        hints=ToolHints(
            read_only=script.read_only,
            destructive=script.destructive,
            idempotent=script.idempotent,
            open_world=script.open_world,
        ),
        requires_confirmation=script.requires_confirmation,
        timeout_seconds=script.timeout_seconds,
        max_concurrency=script.max_concurrency,
        workspace=script.workspace_config,
        tags=config.tags,
        state=script.state,
        version=script.version,
        config_file=config_file,
    )


def _relative_to(path: Path, start: Path) -> str:
    """`path` as seen from `start` (relative when possible, so a project can move)."""
    try:
        return Path(os.path.relpath(path.resolve(), start.resolve())).as_posix()
    except ValueError:  # another drive
        return str(path.resolve())
