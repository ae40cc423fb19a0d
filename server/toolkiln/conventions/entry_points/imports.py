"""Whether the Python that runs a declared command can import what its module imports at
its top (discover/python_imports.py's question, for an entry point): the project's
`.venv` is asked in a confined probe, toolkiln's own Python in-process (`find_spec`
finds, it does not import). A command read correctly whose every call would fail with
`ModuleNotFoundError` is said at discovery, with the remedy."""

from __future__ import annotations

import sys
from pathlib import Path

from toolkiln.conventions.base import Candidate, Declaration, Probe
from toolkiln.conventions.entry_points.interpreter import project_python
from toolkiln.conventions.entry_points.project import IMPORT_ROOTS, Command
from toolkiln.conventions.python.imports import missing_imports, top_imports
from toolkiln.errors import DiscoveryError


async def import_warning(
    candidate: Candidate, command: Command, found: list[Declaration], probe: Probe
) -> DiscoveryError | None:
    """A warning naming the imports the command's Python cannot satisfy, and how to."""
    if not found or not found[0].companions:
        return None
    project = candidate.path.parent
    tools_dir = Path(str(candidate.path)[: -len(candidate.relative_path) - 1])
    module = tools_dir / found[0].companions[0]
    try:
        source = module.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    python = project_python(project)
    local = [project / root if root else project for root in IMPORT_ROOTS]
    module_candidate = Candidate(path=module, relative_path=found[0].companions[0], stat=module.stat())
    missing = await missing_imports(module_candidate, top_imports(source), python, probe, local)
    if not missing:
        return None
    listed = ", ".join(missing)
    if python == sys.executable:
        remedy = (
            f"create the project's environment and install it there (`python3 -m venv {project}/.venv && "
            f"{project}/.venv/bin/pip install -e {project}`): its commands then run with that Python"
        )
    else:
        remedy = f"install the project in it (`{python} -m pip install -e {project}`)"
    return DiscoveryError(
        f"{command.name} ({command.target}) imports {listed}, which {python} cannot import: every call "
        f"would fail with ModuleNotFoundError; {remedy}",
        path=candidate.relative_path,
    )
