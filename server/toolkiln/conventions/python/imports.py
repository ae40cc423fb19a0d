"""The packages a Python module imports at its top: what the Python that runs it must
have (discover/python_imports.py for scripts, entry_points/imports.py for commands)."""

from __future__ import annotations

import ast
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from toolkiln.errors import ProcessStartError

if TYPE_CHECKING:
    from toolkiln.conventions.base import Candidate, Probe

# Run as `python -c CHECK <file> <names>...` in a probe: prints the names it cannot find.
_CHECK = "import sys, importlib.util as u\nprint(' '.join(n for n in sys.argv[2:] if u.find_spec(n) is None))"
_OUTPUT_LIMIT = 64 * 1024


def top_imports(source: str) -> list[str]:
    """The top-level packages the module imports at its top (not inside `try:`, a function
    or an `if`, which may be optional), outside the standard library."""
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


async def missing_imports(
    candidate: Candidate, names: list[str], python: str, probe: Probe, local: Sequence[Path]
) -> list[str] | None:
    """Which of `names` the Python `python` cannot import for `candidate` (a module found
    in one of the `local` folders counts as there): toolkiln's own Python is asked
    in-process (`find_spec` finds, it does not import), any other in a confined probe.
    None when that cannot be told (not probed, no such Python)."""
    from toolkiln.discover.probe import NotProbed, run_probe  # only when there is a question

    names = [name for name in names if not any(_found_in(folder, name) for folder in local)]
    if not names or python == sys.executable:
        return [name for name in names if not _importable(name)]
    try:
        result = await run_probe(candidate, names, probe, _OUTPUT_LIMIT, [python, "-c", _CHECK])
    except (NotProbed, ProcessStartError):
        return None
    if result.returncode != 0 or result.timed_out:
        return None
    return [name for name in result.stdout_text.split() if name in names]


def _found_in(folder: Path, name: str) -> bool:
    return (folder / f"{name}.py").is_file() or (folder / name).is_dir()


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return True  # cannot tell: say nothing
