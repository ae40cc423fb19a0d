"""The discovery index, `config/.discovery.json`: what discovery last concluded about each
file under the tools folder, so that a run over files that have not changed reads one
JSON file instead of every script and every config, and never probes again an
executable that answered `--help` with plain text.

It is a cache, never the truth: a missing or unreadable index is ignored and rewritten;
an outdated one (another toolkiln version, other reader code, other fallback settings)
makes the run read every script again (`stale`); a file whose size, mtime or mode moved,
or a tool whose config was edited or deleted, goes the long way.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkiln.conventions.base import NotATool
from toolkiln.discover.config_stamps import Stamp, stamp_of
from toolkiln.files import tool_config_path

logger = logging.getLogger(__name__)

INDEX_NAME = ".discovery.json"
_FORMAT = 1
# Verdicts that may change with the machine, not the file (a program installed since):
# looked at again on the next run, which costs no probe. A `--help` that timed out is
# remembered like any verdict (by the file's size, mtime and mode): asking it again on
# every `discover` and every `serve DIR` start cost the whole probe timeout each time.
# It is asked again when the file changes, or with `discover --force`.
UNSETTLED_KINDS = frozenset({"runtime-missing"})


@dataclass(frozen=True)
class KnownTool:
    name: str
    description: str


class DiscoveryIndex:
    """Last run's verdicts (`known`), and this run's (`remember_*`), which `save` writes."""

    def __init__(self, path: Path, key: str, entries: dict[str, Any]) -> None:
        self.path = path
        self.key = key
        self._last = entries
        self._next: dict[str, Any] = {}
        # The folders tools may write, as `sources.py` read them from the configs last time
        # (with the stamps of the files it read them from), and as it reads them this run.
        self.last_fences: Any = None
        self.next_fences: Any = None
        # Written by another toolkiln, other reader code or other fallback settings: its
        # verdicts, and the configs it vouched for, are read again once (`core.py`).
        self.stale = False

    @classmethod
    def load(cls, config_dir: Path, key: str) -> DiscoveryIndex:
        path = config_dir / INDEX_NAME
        entries: dict[str, Any] = {}
        fences: Any = None
        stale = False
        try:
            data = json.loads(path.read_bytes())
            if data.get("format") == _FORMAT and data.get("key") == key and isinstance(data["files"], dict):
                entries = data["files"]
                fences = data.get("fences")
            else:
                stale = True
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            pass
        index = cls(path, key, entries)
        index.stale = stale
        index.last_fences = fences
        return index

    def known(self, relative: str, stat: os.stat_result, tools_dir: Path) -> dict[str, Any] | None:
        """Last run's entry for the file, when it and the files it was read with are as they were."""
        entry = self._last.get(relative)
        if not isinstance(entry, dict) or entry.get("stamp") != stamp_of(stat):
            return None
        for companion, stamp in entry.get("companions", {}).items():
            try:
                if stamp_of(os.stat(tools_dir / companion)) != stamp:
                    return None
            except OSError:
                return None
        return entry

    @staticmethod
    def known_tools(entry: dict[str, Any], configs: dict[str, Stamp | None]) -> list[KnownTool] | None:
        """The tools an entry records, when each config is the file discovery last saw
        (`configs`: the stamps of the configs as the run found them, `config_stamps.py`)."""
        try:
            tools = [KnownTool(tool["name"], tool["description"]) for tool in entry["tools"]]
            for tool, recorded in zip(tools, entry["tools"], strict=True):
                if configs.get(f"{tool.name}.json") != recorded["config"]:
                    return None
        except (KeyError, TypeError, ValueError):
            return None
        return tools or None

    @staticmethod
    def known_verdict(entry: dict[str, Any]) -> NotATool | None:
        verdict = entry.get("not_a_tool")
        if isinstance(verdict, list) and len(verdict) == 2 and all(isinstance(v, str) for v in verdict):
            return NotATool(verdict[1], kind=verdict[0])
        return None

    def keep(self, relative: str, entry: dict[str, Any]) -> None:
        self._next[relative] = entry

    def remember_tools(
        self,
        relative: str,
        stat: os.stat_result,
        claimant: str,
        tools: list[KnownTool],
        companions: tuple[str, ...],
        config_dir: Path,
        tools_dir: Path,
    ) -> None:
        """The tools a file declares (one, or one per command), with their configs as written."""
        try:
            entry: dict[str, Any] = {
                "stamp": stamp_of(stat),
                "claimant": claimant,
                "tools": [
                    {
                        "name": tool.name,
                        "description": tool.description,
                        "config": stamp_of(os.stat(tool_config_path(config_dir, tool.name))),
                    }
                    for tool in tools
                ],
            }
            if companions:
                entry["companions"] = {c: stamp_of(os.stat(tools_dir / c)) for c in companions}
        except OSError:
            return  # not written (a --list run), or gone: next run reads it again
        self._next[relative] = entry

    def remember_not_tool(self, relative: str, stat: os.stat_result, verdict: NotATool) -> None:
        if verdict.kind in UNSETTLED_KINDS:
            return
        self._next[relative] = {"stamp": stamp_of(stat), "not_a_tool": [verdict.kind, verdict.reason]}

    def save(self) -> None:
        """Write this run's verdicts, when they differ from the last run's."""
        if self._next == self._last and (self.next_fences == self.last_fences or not self._next):
            return  # (an empty tools folder needs no fence, nor an index)
        data = {"format": _FORMAT, "key": self.key, "files": self._next, "fences": self.next_fences}
        temporary = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_text(json.dumps(data, separators=(",", ":")))
            os.replace(temporary, self.path)
        except OSError as error:  # a cache: the next run goes the long way
            logger.debug("could not write the discovery index %s: %s", self.path, error)
            temporary.unlink(missing_ok=True)
