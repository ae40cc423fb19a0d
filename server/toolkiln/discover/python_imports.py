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

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from toolkiln.conventions.base import Probe
from toolkiln.conventions.python.imports import missing_imports, top_imports
from toolkiln.errors import DiscoveryError
from toolkiln.interpreters import declares_dependencies, named_python

if TYPE_CHECKING:
    from toolkiln.conventions.base import Candidate


async def import_warning(candidate: Candidate, probe: Probe) -> DiscoveryError | None:
    """A warning naming the imports the Python that runs `candidate` cannot satisfy, and
    how to; None when it can, or when that cannot be told (not probed, no such Python)."""
    from toolkiln.conventions.base import read_source

    names = top_imports(read_source(candidate.path))
    named = named_python(candidate.path)
    if not names or (named is not None and Path(named[0]).name == "uv"):  # uv installs them
        return None
    if named is None and declares_dependencies(candidate.path):  # already warned: uv is missing
        return None
    python = sys.executable if named is None else named[0]
    missing = await missing_imports(candidate, names, python, probe, [candidate.path.parent])
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
