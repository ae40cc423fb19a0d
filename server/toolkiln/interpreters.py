"""Which program runs a script that cannot run by itself.

A script with a shebang line and the exec bit runs by itself. Any other kit script
(seeds/002) runs with the interpreter for its extension, when one is installed.
Discovery asks so that it can report a script nothing can run; the runner asks on
every call. Shared by both stages, like `process/`, so neither imports the other.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

_NODE = (("node",),)
_TYPESCRIPT = (("tsx",), ("ts-node",), ("bun",), ("deno", "run", "--allow-all"))
# The commands that run a script of each extension, in order of preference.
INTERPRETERS: dict[str, tuple[tuple[str, ...], ...]] = {
    ".js": _NODE, ".mjs": _NODE, ".cjs": _NODE,
    ".ts": _TYPESCRIPT, ".mts": _TYPESCRIPT,
    ".py": (("python3",),),
    ".sh": (("bash",),), ".bash": (("bash",),),
}  # fmt: skip


def runs_by_itself(script: Path) -> bool:
    """Whether the script is executable and starts with a shebang line."""
    if not os.access(script, os.X_OK):
        return False
    try:
        with script.open("rb") as handle:
            return handle.read(2) == b"#!"
    except OSError:
        return False


def interpreter_names(script: Path) -> list[str]:
    """The programs that could run the script, by its extension (empty when none could)."""
    return [command[0] for command in INTERPRETERS.get(script.suffix.lower(), ())]


def find_interpreter(script: Path) -> list[str] | None:
    """The command (program and options) of the first installed interpreter for the
    script's extension, or None when none is installed or the extension is unknown."""
    for command in INTERPRETERS.get(script.suffix.lower(), ()):
        if shutil.which(command[0]):
            return list(command)
    return None


def script_command(script: Path) -> list[str]:
    """The words that start a script: itself when it runs by itself (a shebang and the
    exec bit); else a `.py` file with the Python running toolkiln, never by the kernel
    ("Exec format error"); else the interpreter for its extension (when none is
    installed, the first one toolkiln knows, so that the error names what to install);
    else the file itself (a binary; the error names it)."""
    if runs_by_itself(script):
        return [str(script)]
    if script.suffix.lower() == ".py":
        return [sys.executable, str(script)]
    command = find_interpreter(script) or interpreter_names(script)[:1]
    return [*command, str(script)]
