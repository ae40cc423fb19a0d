"""Python scripts that read their input by hand, and so declare nothing toolkiln can read:
say why they are not tools, rather than the generic reasons.

    import sys

    source, target = sys.argv[1], sys.argv[2]      # or getopt, optparse
    ...

    name = input("Your name? ")                      # asks while it runs

(docopt and Python Fire scripts are read by python_docopt and python_fire; those whose
usage text or Fire component is made at run time come here.)

A large share of the scripts in public collections are of this kind. This dialect claims
only a `.py` file that is not executable (an executable is asked its `--help` by help-json,
and handed to the fallback when opted in) and not opted in to the fallback (which then
serves it with one `args` array), that runs something when run as a script, and that reads
its command line or stdin by hand. It always answers with `NotATool`; it never serves a
file. Read with `ast`, never imported.
"""

from __future__ import annotations

import ast
import re

from toolkiln.discover import fallback
from toolkiln.discover.base import Candidate, Declaration, NotATool
from toolkiln.discover.probe import Probe
from toolkiln.discover.python_cli import runs_as_script
from toolkiln.discover.python_module import read_source

CLAIM_IS_CERTAIN = True


# What reads the command line by hand, by the name the reason gives it.
def _imports(name: str) -> re.Pattern[str]:
    """`import name`, `import sys, name` or `from name import ...`."""
    return re.compile(
        rf"^[ \t]*(?:import[ \t]++(?:[\w.]++[ \t]*+,[ \t]*+)*{name}\b|from[ \t]++{name}[ \t]++import\b)",
        re.MULTILINE,
    )


_ARGV_READERS = (
    ("getopt", _imports("getopt")),
    ("optparse", _imports("optparse")),
    ("docopt", _imports("docopt")),
    ("fire", _imports("fire")),
    ("sys.argv", re.compile(r"\bsys\.argv\b|^[ \t]*from[ \t]+sys[ \t]+import[ \t]+.*\bargv\b", re.MULTILINE)),
)
# docopt and Fire scripts are read (python_docopt, python_fire); these are the ones that are not.
_UNREAD = {
    "docopt": "reads its command line with docopt, from a docopt usage text toolkiln cannot read "
    "without running it (made when it runs, or handed to several docopt() calls)",
    "fire": "reads its command line with Python Fire, handed something toolkiln cannot read without "
    "running it (not a function, class or dict of functions of the file)",
}
_ASKS = re.compile(r"(?<![\w.])input\s*\(|\bgetpass\s*\(")
_FALLBACK_HINT = (
    "serve it as it is with the fallback (its command line as one `args` array: "
    "`discovery.fallback` in config/server.json), or declare its parameters (argparse, click, "
    "typer, or `@param` lines; docs/dialects.md)"
)


def claims(candidate: Candidate) -> bool:
    if candidate.path.suffix != ".py" or candidate.executable or candidate.path.name == "__init__.py":
        return False
    text = candidate.head
    if _argv_reader(text) is None and not _ASKS.search(text):
        return False
    return not fallback.opted_in(candidate) and _runs(candidate)


async def declare(candidate: Candidate, probe: Probe) -> Declaration:
    text = read_source(candidate.path)
    reader = _argv_reader(text)
    if reader == "optparse":
        raise NotATool(
            "reads its command line with optparse, whose positional arguments are not declared "
            f"anywhere toolkiln can read: {_FALLBACK_HINT}",
            kind="argv-by-hand",
        )
    if reader in _UNREAD:
        raise NotATool(f"{_UNREAD[reader]}: {_FALLBACK_HINT}", kind="argv-by-hand")
    if reader is not None:
        raise NotATool(
            f"reads its command line by hand ({reader}), so it declares no parameters: {_FALLBACK_HINT}",
            kind="argv-by-hand",
        )
    raise NotATool(
        "asks for its input while it runs (input()), which a tool call cannot answer: take the "
        "values as arguments (argparse, click or typer) to serve it",
        kind="asks-input",
    )


def _argv_reader(text: str) -> str | None:
    return next((name for name, pattern in _ARGV_READERS if pattern.search(text)), None)


def _runs(candidate: Candidate) -> bool:
    """Whether running the file does something (a `__main__` block, a module-level call,
    or a module-level read of `sys.argv`); a module that only defines things is a library."""
    try:
        module = ast.parse(read_source(candidate.path))
    except (SyntaxError, ValueError):
        return False  # not Python 3: the reasons for any file apply
    if runs_as_script(module):
        return True
    return any(
        not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and "sys.argv" in ast.unparse(node)
        for node in module.body
    )
