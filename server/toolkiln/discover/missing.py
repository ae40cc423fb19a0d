"""Configs whose script is gone, or now declares other tools: reported (with a warning
that says what to do), never deleted.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from toolkiln.discover.report import ToolStatus, status_of
from toolkiln.errors import ConfigError, DiscoveryError
from toolkiln.files import load_tool_config, tool_configs_dir
from toolkiln.writable import WritableFolders


def find_missing_tools(
    tools_dir: Path,
    config_dir: Path,
    seen: dict[str, str],
    warnings: list[DiscoveryError],
    writable: WritableFolders | None = None,
    failed: frozenset[str] = frozenset(),
    configs: Iterable[str] | None = None,
) -> list[ToolStatus]:
    """Configs whose script is gone, is now another tool, or lies in a folder a tool may
    write (`writable`, which discovery does not read): reported, never deleted. A script
    that could not be read this run (`failed`: its error says why) still declares what its
    configs say: they are `failed`, kept and served as last read, never said to be stale."""
    tools_of_script: dict[str, list[str]] = {}
    for name, script_path in seen.items():
        tools_of_script.setdefault(script_path, []).append(name)
    folder = tool_configs_dir(config_dir)
    if configs is None:
        if not folder.is_dir():
            return []
        configs = [path.name for path in folder.glob("*.json")]
    missing = []
    for name in sorted(configs):
        if name.removesuffix(".json") in seen:
            continue
        path = folder / name
        try:
            config = load_tool_config(path)
        except ConfigError:
            missing.append(ToolStatus(path.stem, "?", "(config file is invalid)", True, False, "missing"))
            continue
        script_path = config.script_config.script_path
        if script_path in failed:
            missing.append(status_of(config, "failed"))
            continue
        now = tools_of_script.get(script_path)
        if now and len(now) == 1 and config.script_config.command is None:  # its Name changed
            warnings.append(
                DiscoveryError(
                    f"is now the tool {now[0]!r}; its old config {path.name} "
                    "is kept: delete it, after copying any settings of yours to the new one",
                    path=script_path,
                )
            )
        elif now:  # one of the file's commands is gone, or was renamed
            warnings.append(
                DiscoveryError(
                    f"no longer declares the tool {path.stem!r} (it declares {', '.join(sorted(now))}); "
                    f"its config {path.name} is kept: delete it when you no longer need it",
                    path=script_path,
                )
            )
        writer = writable.writer_of(tools_dir / script_path) if writable else None
        if writer is not None:
            warnings.append(
                DiscoveryError(
                    f"lies in {writer.describe()}; a folder a tool may write is never a source of tools, "
                    f"so `toolkiln build` refuses {path.name}: move the script out of that folder, or set "
                    f"`enabled: false` in {path}",
                    path=script_path,
                )
            )
        found = (tools_dir / script_path).is_file()
        missing.append(status_of(config, "missing", script_found=found))
    return missing
