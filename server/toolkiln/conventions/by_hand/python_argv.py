"""Python scripts that read their input by hand: served when every word they read is
named in the file, explained when not.

    import sys

    if len(sys.argv) != 3:
        print("Usage: convert_pdf_to_images.py [input pdf] [output directory]")
        sys.exit(1)
    pdf_path = sys.argv[1]
    output_dir = sys.argv[2]

is a tool with two required parameters, `pdf_path` and `output_dir`, given as the words
of its command line in that order (`python3 convert_pdf_to_images.py a.pdf out/`; the
python dialect's `argv` entry, conventions/by_hand/python_argv_argv.py). What is read is in
python_argv_read.py; a poor variable name (`a`, `arg`) gives way to the usage line's word.
A script that reads stdin gets a `stdin` parameter fed to it; one that takes nothing at
all (run as a script, with a docstring or a header comment) is a tool without parameters.

Not served, each with its reason: a script that reads its command line in a way toolkiln cannot name
(getopt, optparse, `"-v" in sys.argv`, `main(sys.argv)`), one that asks while it runs
(`input()`, getpass), docopt and Fire scripts python_docopt and python_fire cannot read.
This reader claims a `.py` file (or an executable whose `#!` names python) that runs
something when run as a script and is not opted in to the fallback; an executable only
when it is served here (else help-json asks its `--help`). Read with `ast`, never imported.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from toolkiln.conventions.base import Candidate, Declaration, NotATool, Probe, make_parameter, read_source
from toolkiln.conventions.by_hand.python_argv_argv import STDIN_PARAMETER
from toolkiln.conventions.by_hand.python_argv_params import FALLBACK_HINT, header_description, positionals
from toolkiln.conventions.by_hand.python_argv_read import read_argv
from toolkiln.conventions.by_hand.python_argv_reading import ArgvReading
from toolkiln.conventions.by_hand.python_argv_usage import usage_words
from toolkiln.conventions.fallback import read as fallback
from toolkiln.conventions.python_cli.read import is_main_guard, runs_as_script
from toolkiln.errors import DiscoveryError

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
    ("argparse", _imports("argparse")),
    ("click", _imports("click")),
    ("typer", _imports("typer")),
    ("sys.argv", re.compile(r"\bsys\.argv\b|^[ \t]*from[ \t]+sys[ \t]+import[ \t]+.*\bargv\b", re.MULTILINE)),
)
# docopt and Fire scripts are read (python_docopt, python_fire); these are the ones that are not.
_UNREAD = {
    "docopt": "reads its command line with docopt, from a docopt usage text toolkiln cannot read "
    "without running it (made when it runs, or handed to several docopt() calls)",
    "fire": "reads its command line with Python Fire, handed something toolkiln cannot read without "
    "running it (not a function, class or dict of functions of the file)",
    "optparse": "reads its command line with optparse, whose positional arguments are not declared "
    "anywhere toolkiln can read",
}
_FRAMEWORKS = re.compile(r"^[ \t]*(?:import|from)[ \t]+(?:argparse|click|typer)\b", re.MULTILINE)
_ASKS = re.compile(r"(?<![\w.])input\s*\(|\bgetpass\s*\(")
_STDIN = re.compile(r"\bsys\.stdin\b|\bfileinput\b|\bopen\(\s*0\s*[,)]")
# What a help-json script's text says: it answers `--help` with a JSON "description".
_HELP_LITERAL = re.compile(r"[\"'](?:--help|description)[\"']")


def claims(candidate: Candidate) -> bool:
    is_python = candidate.path.suffix == ".py" or (candidate.executable and candidate.script_type == "python")
    if not is_python or candidate.path.name == "__init__.py" or fallback.opted_in(candidate):
        return False
    text = candidate.head
    if (
        candidate.executable
    ):  # served here, or asked its `--help` by help-json (a help-json script says `--help`)
        return _HELP_LITERAL.search(text) is None and _serves(candidate)
    module = _module(candidate)
    if module is None:
        return False
    if _argv_reader(text) is not None or _ASKS.search(text):
        return _runs(module)
    return _takes_nothing_or_stdin(text, module)


def _takes_nothing_or_stdin(text: str, module: ast.Module) -> bool:
    """A script (a `#!` line or a `__main__` block) that runs something and reads no
    command line (its stdin perhaps); a framework's script is the framework readers'."""
    script = text.startswith("#!") or any(is_main_guard(node) for node in module.body)
    return script and _does_something(module) and _FRAMEWORKS.search(text) is None


def _does_something(module: ast.Module) -> bool:
    """A module-level statement that runs code: a call, a loop, a `with`, an assignment of a call."""
    for node in module.body:
        if isinstance(node, ast.For | ast.While | ast.With | ast.Try | ast.If | ast.AsyncWith):
            return True
        if isinstance(node, ast.Expr | ast.Assign | ast.AnnAssign) and isinstance(
            node.value, ast.Call | ast.Await
        ):
            return True
    return runs_as_script(module)


async def declare(candidate: Candidate, probe: Probe) -> list[Declaration]:
    module = _module(candidate)
    if module is None:  # claimed, then changed: say what it is now
        raise NotATool("is not valid Python 3", kind="argv-by-hand")
    reader = _argv_reader(candidate.text())
    if reader in _UNREAD:
        raise NotATool(f"{_UNREAD[reader]}: {FALLBACK_HINT}", kind="argv-by-hand")
    if reader not in (None, "sys.argv"):
        raise NotATool(
            f"reads its command line by hand ({reader}), so it declares no parameters: {FALLBACK_HINT}",
            kind="argv-by-hand",
        )
    reading = read_argv(module)
    if reading.problems:
        line, what = reading.problems[0]
        lines = candidate.text().splitlines()
        where = f" (line {line}: `{lines[line - 1].strip()[:80]}`)" if 0 < line <= len(lines) else ""
        raise NotATool(
            f"{what}{where}, so not every word it reads is named: {FALLBACK_HINT}", kind="argv-by-hand"
        )
    if reading.asks is not None:
        raise NotATool(
            f"asks for its input while it runs ({reading.asks}), which a tool call cannot answer: take "
            "the values as arguments (sys.argv, argparse, click or typer) to serve it",
            kind="asks-input",
        )
    return [_declaration(candidate, module, reading)]


def _declaration(candidate: Candidate, module: ast.Module, reading: ArgvReading) -> Declaration:
    path = candidate.relative_path
    usage = usage_words(reading.strings)
    guesses: list[tuple[str, str, int | None]] = []
    parameters = positionals(path, reading, usage[1] if usage else [], guesses)
    if reading.reads_stdin:
        parameters.append(
            make_parameter(
                path,
                None,
                name=STDIN_PARAMETER,
                description="The text given to the script on its standard input.",
                required=not reading.reads_argv and reading.rest is None and not reading.checks_tty,
                multiline=True,
            )
        )
    usage_line = usage[0].replace("PROG", candidate.path.name, 1) if usage else ""
    # A usage line describes the words it names; a script that reads none is described by its author.
    description = header_description(module, candidate) or (usage_line if parameters else "")
    if not description and not parameters:
        raise NotATool(
            "a Python script that takes no arguments, with no module docstring or header comment to "
            'say what it does (add one, `"""What it does."""`, to serve it as a tool)',
            kind="undocumented-script",
        )
    warnings = [
        DiscoveryError(
            f"parameter {name!r} is named from {source}, not from the code: check it (a variable "
            "named for the word, or a `Usage:` line naming it, in the script names it for good)",
            path=path,
            line=line,
        )
        for name, source, line in guesses
    ]
    return Declaration(
        dialect="python",
        description=description,
        parameters=parameters,
        python_entry="argv",
        warnings=warnings,
    )


def _argv_reader(text: str) -> str | None:
    return next((name for name, pattern in _ARGV_READERS if pattern.search(text)), None)


def _module(candidate: Candidate) -> ast.Module | None:
    try:
        return _parse(candidate.path.as_posix(), candidate.stat.st_mtime_ns, candidate.stat.st_size)
    except (SyntaxError, ValueError, MemoryError, RecursionError, DiscoveryError):
        return None  # not Python 3: the reasons for any file apply


_PARSED: dict[tuple[str, int, int], ast.Module] = {}


def _parse(path: str, mtime: int, size: int) -> ast.Module:
    """The file's syntax tree, parsed once for `claims` and `declare` (the last one kept)."""
    key = (path, mtime, size)
    if key not in _PARSED:
        _PARSED.clear()
        _PARSED[key] = ast.parse(read_source(Path(path)))
    return _PARSED[key]


def _serves(candidate: Candidate) -> bool:
    """Whether an executable is one this reader serves (else it goes on to help-json)."""
    text = candidate.head
    module = _module(candidate)
    if module is None or not _runs(module):
        return False
    reader = _argv_reader(text)
    if reader not in (None, "sys.argv"):
        return False
    if _ASKS.search(text):
        return True  # asks while it runs: said so, rather than run by a `--help` probe waiting for an answer
    if reader is None and not _STDIN.search(text):  # takes nothing: only a documented one, else `--help` asks
        return _takes_nothing_or_stdin(text, module) and bool(header_description(module, candidate))
    reading = read_argv(module)
    return not reading.problems and reading.asks is None


def _runs(module: ast.Module) -> bool:
    """Whether running the file does something (a `__main__` block, a module-level call,
    or a module-level statement that reads `sys.argv`); a module that only defines things is a library."""
    if runs_as_script(module):
        return True
    return any(
        not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and any(isinstance(inner, ast.Attribute) and inner.attr == "argv" for inner in ast.walk(node))
        for node in module.body
    )
