"""What a probe may see inside the folders hidden from it (the homes): exactly what it
needs to start, never a file beside it (docs/security.md, "Discovery runs no untrusted
code unconfined").

- the tools folder;
- each PATH entry that is a folder of programs: every entry in it an executable file
  or a symlink, and no folder (`~/.cargo/bin`, `~/.local/bin`). A PATH entry holding
  anything else (`~/.cargo` with `credentials.toml`, `~/.config`, the home itself, a
  link to it) is not shown; a relative one (`.`, empty) names no folder to show;
- the program that runs the script (found on PATH, or named by the `#!` line or the
  interpreter), resolved: that file alone, never the folder above it (`~/.local` for
  `~/.local/bin/x` would show `~/.local/share/keyrings`);
- for a Python, what it needs and nothing else, found by asking nothing: its standard
  library (`<prefix>/lib/pythonX.Y`, the folder Python itself looks for beside
  `<prefix>/bin`) and its shared library (`<prefix>/lib/libpythonX.Y.so*`); and a virtual
  environment's root, only when its `pyvenv.cfg` proves it is one;
- for a version manager's shim (`~/.pyenv/shims/python3`, rbenv's, nodenv's: a program in
  a `shims` folder beside a `libexec` one, which the shim runs), that manager's root,
  which holds its code and its versions.

toolkiln's own Python and files are shown to every confined process (`process/confine.py`);
the state folder is hidden after all of it.
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

# A folder of programs holds at most this many entries to be shown (more are not read).
_MOST_PROGRAMS = 4096


def probe_view(tools_root: Path, program: str | None, named: str | None, hidden: Sequence[str]) -> list[str]:
    """The folders and files a probe sees again inside `hidden` ones: `tools_root`, the
    PATH entries that are folders of programs, `program` (a word of the `#!` line or the
    interpreter: a path, or a name looked up on PATH) with its installation, and the
    Python `named` by the `#!` line with its virtual environment."""
    from toolkiln.process.confine import ALWAYS_HIDDEN, PRIVATE

    emptied = (*hidden, *PRIVATE, *ALWAYS_HIDDEN)  # what a probe sees empty (process/confine.py)
    needed = {str(tools_root)}
    entries = [entry for entry in os.environ.get("PATH", "").split(os.pathsep) if os.path.isabs(entry)]
    # Only what lies in an emptied folder is looked at: the rest is seen anyway (/usr/bin).
    needed.update(entry for entry in entries if _inside(entry, emptied) and _holds_only_programs(entry))
    found = _find(program, entries) if program else None
    for runner in (found, named):
        if runner is not None and os.access(runner, os.X_OK) and _inside(runner, emptied):
            needed.update(_program_needs(runner))
    return sorted(real for real in map(os.path.realpath, needed) if not _holds_hidden(real, hidden))


@functools.lru_cache(maxsize=1024)
def _inside(path: str, folders: tuple[str, ...]) -> bool:
    """Whether `path`, as written or resolved, lies in one of `folders` (a link in /usr/bin
    to a Python under the home counts). Remembered: every probe of a discovery asks it of
    the same PATH entries (12,000 realpaths for 1,000 probes); an answer gone stale only
    shows a probe less (a folder seen anyway) or what it would see anyway."""
    spellings = {os.path.abspath(path), os.path.realpath(path)}
    return any(
        place == outer or place.startswith(outer.rstrip("/") + "/")
        for place in spellings
        for outer in folders
    )


def _find(program: str, entries: Sequence[str]) -> str | None:
    if "/" in program:
        return program if os.path.isabs(program) else None
    return shutil.which(program, path=os.pathsep.join(entries))


def _program_needs(path: str) -> list[str]:
    """`path` resolved, and, for a Python, its standard library and shared library, and
    the virtual environment (pyvenv.cfg) it is the Python of, as named or resolved; for a
    version manager's shim, the manager's root."""
    real = Path(os.path.realpath(path))
    needed = [str(real)]
    for spelled in dict.fromkeys((Path(os.path.abspath(path)), real)):
        environment = spelled.parent.parent
        if (environment / "pyvenv.cfg").is_file() and spelled.parent.name == "bin":
            needed.append(str(environment))
    if real.parent.name == "bin":
        needed += _python_parts(real.parent.parent)
    if real.parent.name == "shims" and (real.parent.parent / "libexec").is_dir():
        needed.append(str(real.parent.parent))  # a version manager's root (below)
    return needed


def _python_parts(prefix: Path) -> list[str]:
    """A Python installation's standard library folders (those with Python's landmark,
    `os.py`) and shared libraries under `prefix/lib`; none for anything else."""
    library = prefix / "lib"
    try:
        names = os.listdir(library)
    except OSError:
        return []
    parts = [
        str(library / name)
        for name in names
        if name.startswith("python3") and (library / name / "os.py").is_file()
    ]
    if parts:
        parts += [str(library / name) for name in names if name.startswith("libpython3")]
    return parts


def _holds_only_programs(folder: str) -> bool:
    """Whether everything in `folder` is an executable file or a symlink (whose target
    is shown only if it is shown anyway): what a PATH entry is for. Read once per state
    of the folder (its entries change its mtime) in a discovery of many scripts."""
    try:
        status = os.stat(folder)
    except OSError:
        return False
    return _listed_programs_only(folder, status.st_ino, status.st_mtime_ns)


@functools.lru_cache(maxsize=256)
def _listed_programs_only(folder: str, inode: int, mtime: int) -> bool:
    try:
        with os.scandir(folder) as listing:
            for count, entry in enumerate(listing):
                if count >= _MOST_PROGRAMS or not _is_program(entry):
                    return False
    except OSError:
        return False
    return True


def _is_program(entry: os.DirEntry[str]) -> bool:
    if entry.is_symlink():
        return True
    try:
        mode = entry.stat(follow_symlinks=False).st_mode
    except OSError:
        return False
    return stat.S_ISREG(mode) and bool(mode & 0o111)


def _holds_hidden(real: str, hidden: Iterable[str]) -> bool:
    """Whether `real` is a hidden folder itself, or holds one (a PATH entry `~`, or `/`)."""
    return any(real == outer or outer.startswith(real.rstrip("/") + "/") for outer in (*hidden, "/"))
