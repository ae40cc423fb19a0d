"""The two settings a user turns on and off: a tool's `enabled`, and which undeclared
scripts the fallback serves (`discovery.fallback` in the config folder's server.json).

Each edit changes one key of a file the user may have edited by hand, and leaves the
rest as it was (read as plain JSON, written atomically). `toolkiln enable`, `disable`
and `fallback` call these, then rebuild; the configs may be a project's or the private
folder toolkiln keeps for a folder of scripts, the same either way.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from toolkiln.errors import ConfigError
from toolkiln.fallback_globs import SERVER_FILE, check_fallback_pattern, read_fallback_patterns
from toolkiln.files import load_tool_config, tool_config_path, tool_configs_dir, write_json_atomic
from toolkiln.model import TOOL_NAME_PATTERN

EVERYTHING = "."  # the fallback pattern for the whole tools folder


def set_tool_enabled(config_dir: Path, name: str, enabled: bool) -> bool:
    """Set `enabled` in the per-tool config of `name`; whether it changed. Raises
    `ConfigError` naming the configs there are, for a name that has none."""
    path = tool_config_path(config_dir, name) if TOOL_NAME_PATTERN.match(name) else None
    if path is None or not path.is_file():
        known = sorted(p.stem for p in tool_configs_dir(config_dir).glob("*.json"))
        raise ConfigError(
            f"{name!r}: no per-tool config {name}.json in {tool_configs_dir(config_dir)} "
            f"(there are: {', '.join(known) or 'none; run toolkiln discover'})"
        )
    if load_tool_config(path).enabled == enabled:  # also refuses a config that does not load
        return False
    data = json.loads(path.read_text(encoding="utf-8"))
    data["enabled"] = enabled
    write_json_atomic(path, data)
    return True


def set_fallback(config_dir: Path, patterns: list[str], on: bool) -> tuple[str, ...]:
    """Add `patterns` to `discovery.fallback` (on), or take them out (off; no patterns:
    all of them); the patterns it holds now. The file is made when there is none."""
    for pattern in patterns:
        try:
            check_fallback_pattern(pattern)
        except ValueError as error:
            raise ConfigError(f"fallback pattern: {error}") from None
    current = list(read_fallback_patterns(config_dir))  # also refuses a malformed key
    if on:
        chosen = current + [pattern for pattern in patterns or [EVERYTHING] if pattern not in current]
    else:
        chosen = [pattern for pattern in current if patterns and pattern not in patterns]
    if chosen != current:
        path = config_dir / SERVER_FILE
        data = _json_object(path)
        discovery = data.setdefault("discovery", {})
        if not isinstance(discovery, dict):
            raise ConfigError(f"{path}: `discovery` must be an object")
        discovery["fallback"] = chosen
        config_dir.mkdir(parents=True, exist_ok=True)
        write_json_atomic(path, data)
    return tuple(chosen)


def _json_object(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ConfigError(f"{path}: cannot be read as JSON ({error}); correct it first") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: must hold a JSON object; correct it first")
    return data
