"""Why `toolkiln call NAME` found no tool NAME in config/tools.json, and what to do.

A name the build left out has a per-tool config that says why (disabled, or not built
since it was discovered); a file that discovery looked at and turned down has its
reason in the discovery index; any other name gets the served names closest to it.
Only files are read: nothing runs.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable
from pathlib import Path

from toolkiln.errors import ToolkilnError
from toolkiln.files import catalog_path, load_tool_config, tool_config_path, tool_configs_dir
from toolkiln.wording import counted

_SAFE_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")  # a name that is a file name in config/tools/
_INDEX_NAME = ".discovery.json"  # discover/index.py's cache: read here as data, never trusted


def explain_unknown_tool(name: str, served: Iterable[str], tools_dir: Path, config_dir: Path) -> str:
    """One message: what NAME is, and how to serve it (or which names are close)."""
    served = sorted(served)
    catalog = catalog_path(config_dir)
    config_file = tool_config_path(config_dir, name)
    if _SAFE_NAME.fullmatch(name) and config_file.is_file():
        try:
            config = load_tool_config(config_file)
        except ToolkilnError as error:
            return f"tool {name!r} is not served: its config is invalid: {error}"
        if not config.enabled:
            return f"tool {name!r} is disabled (in {config_file}): `toolkiln enable {name}` serves it again"
        return (
            f"tool {name!r} is not in {catalog}: it was discovered after the last build, or the "
            "build left it out (it says why): run `toolkiln build`"
        )
    turned_down = _turned_down(name, tools_dir, config_dir)
    if turned_down is not None:
        path, reason = turned_down
        return f"{tools_dir / path} is not a tool: {reason} (`toolkiln discover --list` says more)"
    configured = [path.stem for path in tool_configs_dir(config_dir).glob("*.json")]
    close = difflib.get_close_matches(name, sorted({*served, *configured}), n=3, cutoff=0.6)
    if close:
        return f"unknown tool {name!r}; did you mean {_either(close)}?"
    if not served:
        return f"unknown tool {name!r}: {catalog} serves no tools (run `toolkiln discover && toolkiln build`)"
    return (
        f"unknown tool {name!r}: `toolkiln list` shows what {catalog} serves ({counted(len(served), 'tool')})"
    )


def _turned_down(name: str, tools_dir: Path, config_dir: Path) -> tuple[str, str] | None:
    """The file under the tools folder named like the tool, and why discovery turned it down."""
    from toolkiln.conventions.naming import tool_name_for

    try:
        files = json.loads((config_dir / _INDEX_NAME).read_bytes())["files"]
        for path, entry in files.items():
            verdict = entry.get("not_a_tool") if isinstance(entry, dict) else None
            if isinstance(verdict, list) and len(verdict) == 2 and tool_name_for(path) == name:
                return path, str(verdict[1])
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        pass
    return None


def _either(names: list[str]) -> str:
    quoted = [repr(name) for name in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
