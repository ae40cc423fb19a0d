"""A writable folder swapped for a symlink between toolkiln's check and bubblewrap's bind
(issue 24, finding 4, its time-of-check/time-of-use member).

The check (not a symlink, not inside another writable folder of the tool) and the bind are
a few milliseconds apart, and the bind goes by path: a concurrent call of a tool that may
write a folder on that path (here tool `b`, whose workspace holds `a`'s folder) could
swap the folder for a link to the home in between, and `a`'s call was bound read-write to
the home. The attacker here is a process flipping the folder in a loop while `a` is called.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from tests.conftest import MakeTool
from tests.security.test_confinement_binds import build
from tests.serve.stdio_server import connect, text_of
from toolkiln.process import confinement_problem

pytestmark = pytest.mark.skipif(confinement_problem() is not None, reason=f"{confinement_problem()}")

WRITER = """\
#!/bin/bash
# Tool: {name}
# Description: Write a file into its writable folder
for _ in 1 2 3 4 5 6 7 8; do
  echo x > "$OUT/pwned" 2>/dev/null
  echo x > "$HOME_DIR/pwned" 2>/dev/null
done
echo done
"""
CALLS = 150


# The attacker: a process of its own (as a concurrent call of `b` would be), swapping the
# folder between a real folder and a link to the home as fast as it can, counting its swaps.
FLIPPER = """\
import os, sys, time
folder, target, count = sys.argv[1:]
real, link = folder + ".real", folder + ".link"
flips = 0
while not os.path.exists(count):
    os.symlink(target, link)
    os.rename(folder, real)
    os.rename(link, folder)
    time.sleep(0.002)
    os.unlink(folder)
    os.rename(real, folder)
    time.sleep(0.002)
    flips += 1
with open(count + ".n", "w") as file:
    file.write(str(flips))
"""


@pytest.mark.anyio
async def test_a_folder_swapped_between_check_and_bind_is_never_bound(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    make_tool("a/run.sh", WRITER.format(name="a"))
    make_tool("b/run.sh", WRITER.format(name="b"))
    out = tools_dir / "b" / "workspace" / "out"  # b's workspace: b's calls may write here
    out.mkdir(parents=True)
    safe = {"confinement": {"writable": [str(tmp_path / "elsewhere")], "pass_env": ["OUT", "HOME_DIR"]}}
    required = {"confinement": {"mode": "required"}}
    await anyio.to_thread.run_sync(lambda: build(tools_dir, config_dir, required, a=safe))
    # The build refuses `a` writing inside b's workspace; a catalog edited by hand says so.
    racy = {"confinement": {**safe["confinement"], "writable": [str(out)]}}
    report = await anyio.to_thread.run_sync(lambda: build(tools_dir, config_dir, required, a=racy))
    (error,) = report.errors
    assert "a.json" in error and "tool 'b' may write" in error, error
    await anyio.to_thread.run_sync(lambda: build(tools_dir, config_dir, required, a=safe))
    catalog = json.loads((config_dir / "tools.json").read_text())
    tool = next(tool for tool in catalog["tools"] if tool["name"] == "a")
    tool["confinement"]["writable"] = [str(out)]
    (config_dir / "tools.json").write_text(json.dumps(catalog))

    count = tmp_path / "stop"
    texts: list[str] = []
    async with connect(config_dir, "legacy", OUT=str(out), HOME_DIR=str(home)) as client:
        attacker = subprocess.Popen([sys.executable, "-c", FLIPPER, str(out), str(home), str(count)])
        try:
            for _ in range(CALLS):
                texts.append(text_of(await client.call_tool("a", {})))
                if (home / "pwned").exists():
                    break
        finally:
            count.touch()
            attacker.wait(timeout=30)
    flips = int(count.with_suffix(".n").read_text())
    assert flips > 10, flips  # the attacker ran all along
    assert not (home / "pwned").exists(), f"bound to the home after {len(texts)} calls"
    assert all("tool 'b' may write" in text for text in texts), sorted({t[:60] + t[-200:] for t in texts})
