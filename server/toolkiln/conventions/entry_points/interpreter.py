"""Which Python runs a project's declared command: the project's own virtual
environment (`.venv/` beside its pyproject.toml, which holds the packages it was
installed with) where there is one, else the Python running toolkiln. Shared by
discovery (which reports a broken one, with the remedy) and the runner, so neither
imports the other."""

from __future__ import annotations

import os
import sys
from pathlib import Path

VENV_FOLDERS = (".venv", "venv")


def project_environment(project: Path) -> Path | None:
    """The project's virtual environment (a folder with `pyvenv.cfg`), or None."""
    for name in VENV_FOLDERS:
        if (project / name / "pyvenv.cfg").is_file():
            return project / name
    return None


def project_python(project: Path) -> str:
    """The Python that runs the project's commands (see the module's docstring)."""
    environment = project_environment(project)
    return str(environment / "bin" / "python") if environment else sys.executable


def python_problem(project: Path) -> str | None:
    """Why the project's environment cannot run its commands, with the remedy; None when it can."""
    environment = project_environment(project)
    if environment is None:
        return None
    python = environment / "bin" / "python"
    if os.access(python, os.X_OK):
        return None
    return (
        f"its virtual environment {environment.name}/ has no working bin/python (made on another "
        f"machine, or its Python was removed): make it again (`python3 -m venv --clear {environment}`, "
        f"then `{environment}/bin/pip install -e {project}`)"
    )
