"""toolkiln/discover/declaring.py: scripts read several at once, each settled (its config
written) in order as soon as it and those before it are read, while later ones are probed."""

from __future__ import annotations

import os
from pathlib import Path

import anyio

from tests.conftest import MakeTool
from tests.discover.test_core import discover
from toolkiln.conventions.base import Candidate, Declaration, Probe
from toolkiln.discover.declaring import declare_all
from toolkiln.discover.settle import Pending
from toolkiln.files import load_tool_config, tool_config_path

# Answers `--help` once the config of `first` is on disk, or after ~4 s without it.
WAITS_FOR_FIRST = """
    #!/bin/sh
    if [ "$1" = "--help" ]; then
      seen=no
      for _ in $(seq 80); do
        if [ -f '{config}' ]; then seen=yes; break; fi
        sleep 0.05
      done
      echo '{{"description": "saw the first config: '$seen'"}}'
      exit 0
    fi
    """
FIRST = """
    #!/bin/sh
    [ "$1" = "--help" ] && echo '{"description": "first"}' && exit 0
    """


def test_a_config_is_written_while_later_scripts_are_still_probed(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("a_first.sh", FIRST)
    make_tool("b_waits.sh", WAITS_FOR_FIRST.format(config=tool_config_path(config_dir, "a_first")))
    report = discover(tools_dir, config_dir, jobs=2)
    assert report.errors == []
    waited = load_tool_config(tool_config_path(config_dir, "b_waits"))
    assert waited.script_config.description == "saw the first config: yes"


class _Reader:
    """A reader whose scripts are read in the reverse of their order: the last one first."""

    def __init__(self, count: int) -> None:
        self.turn = count - 1
        self.read: list[str] = []

    async def declare(self, candidate: Candidate, probe: Probe) -> list[Declaration]:
        number = int(candidate.relative_path.removesuffix(".sh"))
        while self.turn != number:
            await anyio.sleep(0.001)
        self.read.append(candidate.relative_path)
        self.turn -= 1
        return [Declaration(dialect="help-json", description=candidate.relative_path)]


def test_outcomes_are_handed_on_in_the_order_of_the_scripts(tmp_path: Path) -> None:
    count = 5
    reader = _Reader(count)
    pending = []
    for number in range(count):
        path = tmp_path / f"{number}.sh"
        path.write_text("#!/bin/sh\n")
        candidate = Candidate(path, path.name, os.stat(path))
        pending.append(Pending(candidate, reader, f"t{number}", None))  # type: ignore[arg-type]
    handed_on: list[str] = []

    def on_declared(item: Pending) -> None:
        assert item.outcome is not None  # read, and every one before it
        assert all(earlier.outcome is not None for earlier in pending[: pending.index(item)])
        handed_on.append(item.candidate.relative_path)

    anyio.run(declare_all, pending, Probe(1.0, "none"), count, None, on_declared)
    assert reader.read == [f"{number}.sh" for number in reversed(range(count))]
    assert handed_on == [f"{number}.sh" for number in range(count)]
