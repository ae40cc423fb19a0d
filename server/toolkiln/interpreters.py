"""Which program runs a script that cannot run by itself.

A script with a shebang line and the exec bit runs by itself. Any other kit script
(seeds/002) runs with the interpreter for its extension, when one is installed; a
TypeScript one also with `node` 22.6 or later, which strips the types itself.
Discovery asks so that it can report a script nothing can run; the runner asks on
every call. Shared by both stages, like `process/`, so neither imports the other.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

from toolkiln.errors import ProcessStartError

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
    try:  # asked on every call: two bytes read without a buffered file object (~10 us)
        descriptor = os.open(script, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        return os.read(descriptor, 2) == b"#!"
    except OSError:
        return False
    finally:
        os.close(descriptor)


def interpreter_names(script: Path) -> list[str]:
    """The programs that could run the script, by its extension (empty when none could)."""
    names = [command[0] for command in INTERPRETERS.get(script.suffix.lower(), ())]
    return [*names, NODE_TYPESCRIPT] if script.suffix.lower() in TYPESCRIPT_SUFFIXES else names


def find_interpreter(script: Path) -> list[str] | None:
    """The command (program and options) of the first installed interpreter for the
    script's extension, or None when none is installed or the extension is unknown."""
    for command in INTERPRETERS.get(script.suffix.lower(), ()):
        if shutil.which(command[0]):
            return list(command)
    if script.suffix.lower() in TYPESCRIPT_SUFFIXES:
        return node_command(typescript=True)
    return None


# A script's inline metadata (PEP 723): `# /// script`, its dependencies, `# ///`.
_INLINE_METADATA = re.compile(rb"^# /// script[ \t]*$", re.MULTILINE)


def declares_dependencies(script: Path) -> bool:
    """Whether a Python script declares its dependencies inline (PEP 723), in its head."""
    try:
        with script.open("rb") as handle:
            return _INLINE_METADATA.search(handle.read(16 * 1024)) is not None
    except OSError:
        return False


def find_uv() -> str | None:
    """uv on the PATH, or beside the Python running toolkiln (installed with it)."""
    beside = Path(sys.executable).with_name("uv")
    return shutil.which("uv") or (str(beside) if os.access(beside, os.X_OK) else None)


def shebang_words(script: Path) -> list[str]:
    """The program and words the script's `#!` line names, `env` and its options taken
    away (`#!/usr/bin/env -S uv run --script` is `["uv", "run", "--script"]`); empty
    when it has no `#!` line."""
    try:
        with script.open("rb") as handle:
            first = handle.read(512).split(b"\n", 1)[0]
    except OSError:
        return []
    if not first.startswith(b"#!"):
        return []
    words = first[2:].decode("utf-8", errors="replace").split()
    if words and Path(words[0]).name == "env":
        words = words[1:]
        while words and (words[0].startswith("-") or "=" in words[0]):
            words = words[1:]  # `-S`, `-i`, `NAME=value`
    return words


_PYTHON_NAME = re.compile(r"^(?:python|pypy)[\d.]*$")


def named_python(script: Path) -> list[str] | None:
    """The command the script's `#!` line names to run it, when it names a particular
    Python: `uv run --script` (`#!/usr/bin/env -S uv run --script`), or a Python by its
    path (`#!/home/me/venv/bin/python`: a virtual environment holding the script's
    packages); None when it names none in particular (`#!/usr/bin/env python3` is
    whatever `python3` is first on the PATH, so toolkiln's own Python runs it) or no
    Python at all (nor uv, when uv is not installed: toolkiln's own Python runs the script,
    and discovery warns when it declares dependencies). A Python named by its path may be
    missing: `interpreter_problem` says so."""
    words = shebang_words(script)
    if not words:
        return None
    program = words[0]
    if Path(program).name == "uv" and "run" in words[1:]:
        # without uv, toolkiln's own Python runs it, as the PEP 723 warning says
        uv = program if "/" in program and os.access(program, os.X_OK) else find_uv()
        return [uv, "run", "--quiet", "--script"] if uv else None
    if program.startswith("/") and _PYTHON_NAME.match(Path(program).name):
        return words
    return None


def interpreter_problem(script: Path) -> str | None:
    """Why the Python its `#!` line names cannot run the script here, with the remedy; None
    when it can (or the line names none in particular)."""
    command = named_python(script)
    if command is None:
        return None
    program = command[0]
    if not os.access(program, os.X_OK):
        environment = Path(program).parent.parent
        remedy = (
            f"create it (`python3 -m venv {environment}`, then install the script's packages with "
            f"`{environment}/bin/pip install ...`)"
            if Path(program).parent.name == "bin" and environment != Path("/usr")
            else f"install {Path(program).name} there"
        )
        return f"its #! line names {program}, which does not exist here: {remedy}, or change the #! line"
    return None


def python_command(script: Path) -> list[str]:
    """What runs a Python script: the Python its `#!` line names in particular (a virtual
    environment's, or `uv run --script`); else `uv run --script` for one that declares its
    dependencies inline (PEP 723), so that they are there, when uv is installed; else the
    Python running toolkiln. A named one that is missing is a `ProcessStartError` with
    the remedy, not a run with another Python that lacks the script's packages."""
    problem = interpreter_problem(script)
    if problem is not None:
        raise ProcessStartError(f"{script.name}: {problem}")
    named = named_python(script)
    if named is not None:
        return named
    if declares_dependencies(script) and (uv := find_uv()):
        return [uv, "run", "--quiet", "--script"]
    return [sys.executable]


def named_interpreter(script: Path) -> list[str] | None:
    """The interpreter a script without the exec bit names by its path in its `#!` line
    (`#!/opt/node-18/bin/node`: a particular version), when it is installed there; None
    for `#!/usr/bin/env ...` (whatever the PATH holds: the extension's interpreter) or none."""
    try:
        with script.open("rb") as handle:
            first = handle.read(512).split(b"\n", 1)[0].decode("utf-8", errors="replace")
    except OSError:
        return None
    words = first[2:].split() if first.startswith("#!") else []
    if not words or not words[0].startswith("/") or Path(words[0]).name == "env":
        return None
    return words if os.access(words[0], os.X_OK) and not os.path.isdir(words[0]) else None


def script_command(script: Path, language: str | None = None) -> list[str]:
    """The words that start a script: itself when it runs by itself (a shebang and the
    exec bit); else a `.py` file with the Python running toolkiln, never by the kernel
    ("Exec format error"); else, for a file of a language toolkiln knows by its extension
    (or by its convention: `language`, "node" for a Node command-line script named
    `todo`), the interpreter its `#!` line names by its path, when it is installed there
    (`named_interpreter`); else the interpreter for its extension (when
    none is installed, the first one toolkiln knows, or `language`, so that the error names
    what to install); else the file itself (a binary; the error names it)."""
    if runs_by_itself(script):
        return [str(script)]
    if script.suffix.lower() == ".py":
        return [*python_command(script), str(script)]
    known = interpreter_names(script)  # a file of no known language without the bit stays as it is
    fallback = known[:1] or ([language] if language else [])
    command = (fallback and named_interpreter(script)) or find_interpreter(script) or fallback
    return [*command, str(script)]


TYPESCRIPT_SUFFIXES = (".ts", ".mts")
NODE_TYPESCRIPT = "node 22.6 or later"
# Node runs TypeScript by stripping its types from 22.6 on, behind a flag until 22.18
# (and 23.6); module hooks (`module.register`), which the Script Kit runtime needs, from 20.6.
_STRIPS_TYPES = (22, 6)
_STRIPS_TYPES_UNFLAGGED = ((22, 18), (23, 6))
_HAS_MODULE_HOOKS = (20, 6)


def node_command(*, typescript: bool) -> list[str] | None:
    """`node` on the PATH with the options it needs to run an ES module that uses module
    hooks and, when `typescript`, a TypeScript file; None when there is no `node`, or
    one too old for it (its version is asked once, and again only when it changes)."""
    from toolkiln.process.version import program_version

    node = shutil.which("node")
    version = program_version(node) if node else None
    if node is None or version is None:
        return None
    major_minor = version[:2]
    if major_minor < (_STRIPS_TYPES if typescript else _HAS_MODULE_HOOKS):
        return None
    if not typescript:
        return [node]
    unflagged = any(major_minor >= since and major_minor[0] == since[0] for since in _STRIPS_TYPES_UNFLAGGED)
    flags = [] if unflagged or major_minor[0] > 23 else ["--experimental-strip-types"]
    return [node, *flags, "--disable-warning=ExperimentalWarning"]
