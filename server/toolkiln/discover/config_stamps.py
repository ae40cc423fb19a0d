"""The per-tool configs as they are when a discovery starts: each one's stamp (size,
mtime, mode) by file name, from one listing of `config/tools/` and one stat each.

A run that finds nothing changed asks three things of the configs: whether each is the
file the index last saw (`index.py`), whether the fence they make is the one it read last
time (`sources.py`), and which configs no script declares any more (`missing.py`). All
three read this one listing: before it, each listed or stat-ed the 1,000 configs itself.
Nothing writes a config before those questions are asked; a config written later in the
run is stat-ed where it is written.
"""

from __future__ import annotations

import os
from pathlib import Path

from toolkiln.files import tool_configs_dir

Stamp = list[int]  # [size, mtime_ns, mode], as the index records it


def stamp_of(stat: os.stat_result) -> Stamp:
    return [stat.st_size, stat.st_mtime_ns, stat.st_mode]


def read_config_stamps(config_dir: Path) -> dict[str, Stamp | None]:
    """`{"<name>.json": stamp}` for each config in `config/tools/` (a symlink's target
    stamped, as `os.stat` does; None for one that cannot be stat-ed, a link to nothing);
    empty when there is no such folder."""
    stamps: dict[str, Stamp | None] = {}
    try:
        with os.scandir(tool_configs_dir(config_dir)) as listing:
            for entry in listing:
                if not entry.name.endswith(".json"):
                    continue
                try:
                    stamps[entry.name] = stamp_of(entry.stat())
                except OSError:  # gone, or a link to nothing: an invalid config (`missing.py`)
                    stamps[entry.name] = None
    except OSError:
        pass
    return stamps
