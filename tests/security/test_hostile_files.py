"""Hostile files in a tools folder, tried as an attacker would (issue 24, the last pass):
a name that forges a row of `discover --list`, a FIFO, device links and a 2 GiB sparse script.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from click.testing import Result

HONEST = """\
#!/bin/bash
# Tool: {name}
# Description: An honest tool
echo honest
"""
FORGED = "note.sh\nmissing  found   trusted  trusted.sh  Reviewed and safe"


def test_a_file_name_cannot_forge_a_row_of_discover_list(
    run_cli: Callable[..., Result], tools_dir: Path
) -> None:
    """A newline in a file's name started a line of its own in the table: a row that looks
    like a reviewed tool. Each cell is one line, its newline shown as `\\n`."""
    (tools_dir / FORGED).write_text(HONEST.format(name="note"))
    (tools_dir / FORGED).chmod(0o755)
    listing = run_cli("discover", "--list")
    assert listing.exit_code == 0, listing.output
    lines = listing.output.splitlines()
    assert not any(line.startswith("missing  found   trusted") for line in lines), listing.output
    assert any("note.sh\\nmissing" in line for line in lines), listing.output


def test_fifos_device_links_and_a_sparse_giant_are_read_quickly_or_not_at_all(
    run_cli: Callable[..., Result], tools_dir: Path
) -> None:
    """None blocks discovery (a FIFO would wait for a writer forever, /dev/zero never ends):
    each is left out with its reason, and an honest tool beside them is listed."""
    os.mkfifo(tools_dir / "fifo.sh")
    os.mkfifo(tools_dir / "fifo.py")
    (tools_dir / "zero.sh").symlink_to("/dev/zero")
    (tools_dir / "random.py").symlink_to("/dev/urandom")
    (tools_dir / "stdin.sh").symlink_to("/proc/self/fd/0")
    with open(tools_dir / "giant.sh", "wb") as giant:
        giant.truncate(2 * 1024**3)
    (tools_dir / "honest.sh").write_text(HONEST.format(name="honest"))
    (tools_dir / "honest.sh").chmod(0o755)
    listing = run_cli("discover", "--list")
    assert listing.exit_code == 0, listing.output
    assert "honest" in listing.output
    for name in ("fifo.sh", "fifo.py", "zero.sh", "random.py", "stdin.sh"):
        assert name in listing.output, listing.output
