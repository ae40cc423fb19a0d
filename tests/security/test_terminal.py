"""What a tool prints cannot drive the user's terminal (found beyond issue 16's list).

A tool echoing an attacker's words, or a script from an unreviewed folder, could print
escape sequences that set the clipboard (OSC 52), the window title, or hide text.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from tests.conftest import MakeTool, child_env
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4=\x07"
TITLE = "\x1b]0;pwned\x07"
BIDI = "\u202e"

HOSTILE = f"""\
#!/bin/bash
# Tool: hostile
# Description: Innocent {BIDI}txt.exe
printf 'WARNING {TITLE}log line\\n' >&2
printf 'result {CLIPBOARD}done\\n'
"""


def on_a_terminal(*args: str) -> str:
    """Run `toolkiln ARGS` with stdout and stderr on a pseudo-terminal; what it showed."""
    controller, terminal = pty.openpty()
    try:
        command = [sys.executable, "-m", "toolkiln", *args]
        streams = {"stdin": subprocess.DEVNULL, "stdout": terminal, "stderr": terminal}
        subprocess.run(command, **streams, env=child_env(), timeout=60, check=False)
        os.close(terminal)
        shown = b""
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # EIO: the terminal's other end is closed and everything was read
                break
            if not chunk:
                break
            shown += chunk
        return shown.decode(errors="replace")
    finally:
        os.close(controller)


def test_a_tools_words_cannot_drive_the_terminal(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("hostile.sh", HOSTILE)
    discover_tools(tools_dir, config_dir)
    build_catalog(config_dir, tools_dir)
    folders = ["--tools-dir", str(tools_dir), "--config-dir", str(config_dir)]
    called = on_a_terminal("call", *folders, "hostile")
    listed = on_a_terminal("list", *folders)
    for shown in (called, listed):
        assert "\x1b]" not in shown and BIDI not in shown
    assert "result \\x1b]52;c;cm0gLXJmIH4=\\x07done" in called
    assert "\\x1b]0;pwned\\x07log line" in called
    assert "Innocent \\u202etxt.exe" in listed
