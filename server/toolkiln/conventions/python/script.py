"""A documented Python script that takes no arguments: a tool with no parameters.

    #!/usr/bin/env python3
    \"\"\"Print today's date and the week number.\"\"\"
    import datetime

    if __name__ == "__main__":
        print(datetime.date.today().strftime("%Y-%m-%d, week %V"))

A `.py` file with a module docstring and an `if __name__ == "__main__":` block that reads
nothing from its command line, stdin or the terminal (no `sys.argv`, argparse, click,
typer, fire, docopt, getopt, `input()`, `sys.stdin`) is run as it is: `python file.py`.
Read with `ast`, never imported. A script that reads its arguments itself declares
nothing to read, and goes on to the readers after this one (help-json asks its `--help`).
"""

from __future__ import annotations

import ast
import re

from toolkiln.conventions.base import Candidate, Declaration, NotATool, Probe
from toolkiln.conventions.python.execute import dependency_warning
from toolkiln.conventions.python.syntax import parse_module

CLAIM_IS_CERTAIN = True

_MAIN_GUARD = re.compile(r"""^if\s+__name__\s*==\s*["']__main__["']\s*:""", re.MULTILINE)
# Anything that reads the command line, stdin or the terminal: such a script takes input.
_READS_INPUT = re.compile(
    r"\bsys\.argv\b|\bargv\b|\bargparse\b|\bclick\b|\btyper\b|\bfire\b|\bdocopt\b|\bgetopt\b|\boptparse\b"
    r"|\binput\s*\(|\bsys\.stdin\b|\bfileinput\b|\bgetpass\b|[\"']--help[\"']"
)


def claims(candidate: Candidate) -> bool:
    text = candidate.head
    return (
        candidate.path.suffix == ".py"
        and candidate.path.name != "__init__.py"
        and _MAIN_GUARD.search(text) is not None
        and _READS_INPUT.search(text) is None
        and candidate.stat.st_size <= len(text.encode())  # all of it was looked at
    )


async def declare(candidate: Candidate, probe: Probe) -> list[Declaration]:
    module = parse_module(candidate)
    docstring = (ast.get_docstring(module) or "").strip()
    if not docstring:
        raise NotATool(
            "a Python script that takes no arguments, with no module docstring to say what it does "
            '(add one, `"""What it does."""`, to serve it as a tool)',
            kind="undocumented-script",
        )
    warning = dependency_warning(candidate)
    return [
        Declaration(
            dialect="python",
            description=docstring.split("\n\n")[0],
            python_entry="script",
            warnings=[warning] if warning else [],
        )
    ]
