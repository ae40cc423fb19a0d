"""Whether the Python that runs a declared command can import what its module imports at
its top (discover/python_imports.py's question, for an entry point): the project's
`.venv` is asked in a confined probe, toolkiln's own Python in-process (`find_spec`
finds, it does not import). A command read correctly whose every call would fail with
`ModuleNotFoundError` is said at discovery, with the remedy."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

from toolkiln.conventions.base import Candidate, Declaration, Probe
from toolkiln.conventions.entry_points.interpreter import project_environment, project_python
from toolkiln.conventions.entry_points.project import IMPORT_ROOTS, Command
from toolkiln.discover.probe import NotProbed, run_probe
from toolkiln.errors import DiscoveryError, ProcessStartError

# Run as `python -c CHECK <module file> <names>...`: prints the names it cannot find.
_CHECK = "import sys, importlib.util as u\nprint(' '.join(n for n in sys.argv[2:] if u.find_spec(n) is None))"
_OUTPUT_LIMIT = 64 * 1024


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
    names = [name for name in top_imports(source) if not _in_project(project, name)]
    if not names:
        return None
    python = project_python(project)
    if project_environment(project) is None:
        missing = [name for name in names if not _importable(name)]
    else:
        module_candidate = Candidate(path=module, relative_path=found[0].companions[0], stat=module.stat())
        try:
            result = await run_probe(module_candidate, names, probe, _OUTPUT_LIMIT, [python, "-c", _CHECK])
        except (NotProbed, ProcessStartError):
            return None
        if result.returncode != 0 or result.timed_out:
            return None
        missing = [name for name in result.stdout_text.split() if name in names]
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


def _in_project(project: Path, name: str) -> bool:
    for root in IMPORT_ROOTS:
        base = project / root if root else project
        if (base / f"{name}.py").is_file() or (base / name).is_dir():
            return True
    return False


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return True  # cannot tell: say nothing
