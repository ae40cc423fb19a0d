"""The dashboard's fallback switch: serve the scripts no reader understood, as tools that
take their whole command line, or stop (what `toolkiln fallback on|off DIR` does).

The opt-in is `discovery.fallback` in the config folder's server.json (switches.py), and
it takes effect at discovery: the switch writes it, rediscovers the folder served, and
the dashboard rebuilds and serves the result as its tool switches do.
"""

from __future__ import annotations

from pathlib import Path

from toolkiln.errors import ConfigError
from toolkiln.fallback_globs import read_fallback_patterns
from toolkiln.runner import Registry
from toolkiln.switches import set_fallback


def fallback_patterns(config_dir: Path) -> tuple[str, ...] | str:
    """What the fallback serves now (empty: nothing), or why server.json cannot say."""
    try:
        return read_fallback_patterns(config_dir)
    except ConfigError as error:
        return str(error)


def switch_fallback(registry: Registry, config_dir: Path, on: bool) -> None:
    """Turn the fallback on for the whole folder (or off), and rediscover it. Raises
    `ConfigError` when server.json cannot be edited."""
    from toolkiln.discover import discover_tools  # discovery's readers: only when switched

    set_fallback(config_dir, [], on)
    discover_tools(
        registry.tools_dir,
        config_dir,
        prompts_dir=registry.prompts_dir,
        resources_dir=registry.resources_dir,
    )
