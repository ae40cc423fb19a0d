"""`build` refuses a confined tool whose writable folders could widen what a call may
write: one that goes through a symlink, lies inside another of its own or inside one
another tool or `run_command` may write, or holds the tools folder (`writable_binds.py`).
The runner checks again before every call, since a folder can become a link between two."""

from __future__ import annotations

from pathlib import Path

from toolkiln.model import CompiledTool
from toolkiln.writable import WritableFolders
from toolkiln.writable_binds import WritableRefused, writable_folders


def leave_out_unsafe_writable(
    tools: list[CompiledTool], tools_dir: Path, config_dir: Path, errors: list[str], others: WritableFolders
) -> list[CompiledTool]:
    """`tools` without those whose writable folders are refused; an error for each, naming
    its config file and the fields. `others`: every folder a tool or `run_command` may write."""
    kept = []
    for tool in tools:
        if tool.confinement.mode in (None, "off") or not tool.script_path:
            kept.append(tool)
            continue
        folders = [*tool.workspace.allowed_paths, *(tool.confinement.writable or [])]
        try:
            writable_folders(folders, (tools_dir / tool.script_path).parent, others, tools_dir)
        except WritableRefused as error:
            errors.append(
                f"{config_dir / tool.config_file}: script_config.confinement.writable / "
                f"workspace_config.allowed_paths: {error}; it is left out"
            )
            continue
        kept.append(tool)
    return kept
