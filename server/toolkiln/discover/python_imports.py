"""Whether the Python that runs a command-line script can import what the script imports
at its top: a script read correctly that fails every call with `ModuleNotFoundError`
(`import typer`, and typer is not installed for that Python) is said at discovery, with
the remedy, not at the first call.

Only the module's own top-level `import x` and `from x import y` count (not those inside
`try:`, a function or an `if`, which may be optional), and only what the standard library
does not hold. Nothing of the script runs: toolkiln's own Python is asked in-process
(`importlib.util.find_spec` finds, it does not import); a Python the `#!` line names (a
virtual environment's) is asked the same question in a confined probe.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from toolkiln.conventions.base import Probe
from toolkiln.discover.probe import NotProbed, run_probe
from toolkiln.errors import DiscoveryError, ProcessStartError
from toolkiln.interpreters import declares_dependencies, named_python

if TYPE_CHECKING:
    from toolkiln.conventions.base import Candidate

# Run by the named Python as `python -c CHECK <script> <names>...`, in the script's folder.
_CHECK = "import sys, importlib.util as u\nprint(' '.join(n for n in sys.argv[2:] if u.find_spec(n) is None))"
_OUTPUT_LIMIT = 64 * 1024


def top_imports(source: str) -> list[str]:
    """The top-level packages the module imports at its top, outside the standard library."""
    try:
        module = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    names: list[str] = []
    for node in module.body:
        if isinstance(node, ast.Import):
            names += [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module.split(".")[0])
    known = sys.stdlib_module_names
    return [name for name in dict.fromkeys(names) if name not in known and name.isidentifier()]


async def import_warning(candidate: Candidate, probe: Probe) -> DiscoveryError | None:
    """A warning naming the imports the Python that runs `candidate` cannot satisfy, and
    how to; None when it can, or when that cannot be told (not probed, no such Python)."""
    from toolkiln.conventions.base import read_source

    names = top_imports(read_source(candidate.path))
    named = named_python(candidate.path)
    if not names or (named is not None and Path(named[0]).name == "uv"):  # uv installs them
        return None
    if named is None:
        if declares_dependencies(candidate.path):  # already warned: uv is missing
            return None
        python = sys.executable
        missing = [name for name in names if not _importable_here(name, candidate.path.parent)]
    else:
        python = named[0]
        try:
            result = await run_probe(candidate, names, probe, _OUTPUT_LIMIT, [python, "-c", _CHECK])
        except (NotProbed, ProcessStartError):
            return None
        if result.returncode != 0 or result.timed_out:
            return None
        missing = [name for name in result.stdout_text.split() if name in names]
    if not missing:
        return None
    listed = ", ".join(missing)
    whose = "toolkiln's own Python" if named is None else "the Python its #! line names"
    also = "" if named is not None else ", or name in its #! line the Python of an environment that has them"
    return DiscoveryError(
        f"imports {listed}, which {whose} ({python}) cannot import: every call would fail with "
        f"ModuleNotFoundError; install what provides {listed} for it (`{python} -m pip install ...`){also}",
        path=candidate.relative_path,
    )


def _importable_here(name: str, folder: Path) -> bool:
    """Whether toolkiln's own Python could import `name` from a script in `folder`."""
    if (folder / f"{name}.py").exists() or (folder / name).is_dir():
        return True
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return True  # cannot tell: say nothing
