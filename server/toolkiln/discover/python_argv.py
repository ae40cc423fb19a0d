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
python dialect's `argv` entry, runner/python_argv_argv.py). What is read is in
python_argv_read.py; a poor variable name (`a`, `arg`) gives way to the usage line's word.
A script that reads stdin gets a `stdin` parameter fed to it; one that takes nothing at
all (run as a script, with a docstring or a header comment) is a tool without parameters.

Not served, each with its reason: a script that reads its command line in a way not read
(getopt, optparse, `"-v" in sys.argv`, `main(sys.argv)`), one that asks while it runs
(`input()`, getpass), docopt and Fire scripts python_docopt and python_fire cannot read.
This dialect claims a `.py` file (or an executable whose `#!` names python) that runs
something when run as a script and is not opted in to the fallback; an executable only
when it is served here (else help-json asks its `--help`). Read with `ast`, never imported.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import TYPE_CHECKING

from toolkiln.discover import fallback
from toolkiln.discover.base import Candidate, Declaration, NotATool, make_parameter
from toolkiln.discover.probe import Probe
from toolkiln.discover.python_argv_read import ArgvReading, read_argv
from toolkiln.discover.python_argv_usage import UsageWord, usage_words
from toolkiln.discover.python_cli import is_main_guard, runs_as_script
from toolkiln.discover.python_module import read_source
from toolkiln.errors import DiscoveryError
from toolkiln.vocabulary import PARAM_NAME_PATTERN, is_sensitive_env_name, value_matches_type

if TYPE_CHECKING:
    from toolkiln.model import Parameter

CLAIM_IS_CERTAIN = True


# What reads the command line by hand, by the name the reason gives it.
def _imports(name: str) -> re.Pattern[str]:
    """`import name`, `import sys, name` or `from name import ...`."""
    return re.compile(rf"^\s*(?:import\s+(?:[\w.]+\s*,\s*)*{name}\b|from\s+{name}\s+import\b)", re.MULTILINE)


_ARGV_READERS = (
    ("getopt", _imports("getopt")),
    ("optparse", _imports("optparse")),
    ("docopt", _imports("docopt")),
    ("fire", _imports("fire")),
    ("argparse", _imports("argparse")),
    ("click", _imports("click")),
    ("typer", _imports("typer")),
    ("sys.argv", re.compile(r"\bsys\.argv\b|^\s*from\s+sys\s+import\s+.*\bargv\b", re.MULTILINE)),
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
_FRAMEWORKS = re.compile(r"^\s*(?:import|from)\s+(?:argparse|click|typer)\b", re.MULTILINE)
_ASKS = re.compile(r"(?<![\w.])input\s*\(|\bgetpass\s*\(")
_STDIN = re.compile(r"\bsys\.stdin\b|\bfileinput\b|\bopen\(\s*0\s*[,)]")
# What a help-json script's text says: it answers `--help` with a JSON "description".
_HELP_LITERAL = re.compile(r"[\"'](?:--help|description)[\"']")
_FALLBACK_HINT = (
    "serve it as it is with the fallback (its command line as one `args` array: "
    "`discovery.fallback` in config/server.json), or declare its parameters (argparse, click, "
    "typer, or `@param` lines; docs/dialects.md)"
)
_POOR_NAMES = {"arg", "args", "argv", "param", "params", "val", "value", "tmp", "item", "items", "_"}
_STDIN_PARAMETER = "stdin"
# More words than any script reads by hand: a file asking for more is written to stall a reader.
MAX_WORDS = 100


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
    command line (its stdin perhaps); a framework's script is the framework dialects'."""
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


async def declare(candidate: Candidate, probe: Probe) -> Declaration:
    module = _module(candidate)
    if module is None:  # claimed, then changed: say what it is now
        raise NotATool("is not valid Python 3", kind="argv-by-hand")
    reader = _argv_reader(read_source(candidate.path))
    if reader in _UNREAD:
        raise NotATool(f"{_UNREAD[reader]}: {_FALLBACK_HINT}", kind="argv-by-hand")
    if reader not in (None, "sys.argv"):
        raise NotATool(
            f"reads its command line by hand ({reader}), so it declares no parameters: {_FALLBACK_HINT}",
            kind="argv-by-hand",
        )
    reading = read_argv(module)
    if reading.problems:
        line, what = reading.problems[0]
        where = f" (sys.argv, line {line})" if line else ""
        raise NotATool(
            f"{what}{where}, so not every word it reads is named: {_FALLBACK_HINT}",
            kind="argv-by-hand",
        )
    if reading.asks is not None:
        raise NotATool(
            f"asks for its input while it runs ({reading.asks}), which a tool call cannot answer: take "
            "the values as arguments (sys.argv, argparse, click or typer) to serve it",
            kind="asks-input",
        )
    return _declaration(candidate, module, reading)


def _declaration(candidate: Candidate, module: ast.Module, reading: ArgvReading) -> Declaration:
    path = candidate.relative_path
    usage = usage_words(reading.strings)
    guesses: list[tuple[str, str, int | None]] = []
    parameters = _positionals(path, reading, usage[1] if usage else [], guesses)
    if reading.reads_stdin:
        parameters.append(
            make_parameter(
                path,
                None,
                name=_STDIN_PARAMETER,
                description="The text given to the script on its standard input.",
                required=not reading.reads_argv and reading.rest is None and not reading.checks_tty,
                multiline=True,
            )
        )
    usage_line = usage[0].replace("PROG", candidate.path.name, 1) if usage else ""
    # A usage line describes the words it names; a script that reads none is described by its author.
    description = _description(module, candidate) or (usage_line if parameters else "")
    if not description and not parameters:
        raise NotATool(
            "a Python script that takes no arguments, with no module docstring or header comment to "
            'say what it does (add one, `"""What it does."""`, to serve it as a tool)',
            kind="undocumented-script",
        )
    warnings = [
        DiscoveryError(
            f"parameter {name!r} is named from {source}, not from the code: check its name and "
            "description in its config/tools/ file",
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


def _positionals(
    path: str, reading: ArgvReading, usage: list[UsageWord], guesses: list[tuple[str, str, int | None]]
) -> list[Parameter]:
    rest = reading.rest
    last = max([*reading.slots, reading.required_words, reading.exact_words or 0, 0])
    if last > MAX_WORDS or (rest is not None and rest.index > MAX_WORDS):
        raise DiscoveryError(
            f"reads word {max(last, rest.index if rest else 0)} of its command line; toolkiln reads at "
            f"most {MAX_WORDS} (declare its parameters with argparse, click or typer)",
            path=path,
            line=max((slot.line for slot in reading.slots.values()), default=None),
        )
    if rest is not None and last >= rest.index:
        if any(index >= rest.index for index in reading.slots):
            raise NotATool(
                f"reads sys.argv[{rest.index}:] and a word within it (sys.argv[{max(reading.slots)}]), "
                f"so toolkiln cannot tell one parameter from the other: {_FALLBACK_HINT}",
                kind="argv-by-hand",
            )
        last = rest.index - 1
    required_upto = max(
        [reading.required_words, *(i for i, slot in reading.slots.items() if not slot.optional)], default=0
    )
    parameters: list[Parameter] = []
    taken: set[str] = set()
    for index in range(1, last + 1):
        slot = reading.slots.get(index)
        word = usage[index - 1] if index - 1 < len(usage) and not usage[index - 1].repeated else None
        name = _name(slot.name if slot else None, word.name if word else None, f"arg{index}", taken)
        if not _good_name(slot.name if slot else None):
            source = "the usage text" if word is not None and name == word.name else "its position"
            guesses.append((name, source, slot.line if slot else None))
        required = index <= required_upto
        type_ = slot.type if slot else "string"
        default = slot.default if slot and not required and slot.default is not None else None
        if default is not None and not value_matches_type(default, type_):
            default = None
        fields = {"type": type_, "required": required, "option": ""}
        parameters.append(
            make_parameter(
                path,
                slot.line if slot else None,
                name=name,
                description=word.text if word else "",
                **fields,
                **({"default": default} if default is not None else {}),
            )
        )
    if rest is not None:
        word = next((w for w in usage[rest.index - 1 :] if w.repeated), None)
        name = _name(rest.name, word.name if word else None, "args", taken)
        minimum = reading.required_words - rest.index + 1
        parameters.append(
            make_parameter(
                path,
                rest.line,
                name=name,
                type="array",
                items="string",
                description=word.text if word else "",
                required=minimum > 0 and not rest.optional,
                option="",
                **({"min": float(minimum)} if minimum > 0 else {}),
            )
        )
    return parameters


def _name(variable: str | None, usage: str | None, fallback_name: str, taken: set[str]) -> str:
    good = _good_name(variable)
    for name in (variable if good else None, usage, fallback_name):
        if name and PARAM_NAME_PATTERN.match(name) and not is_sensitive_env_name(name) and name not in taken:
            name = name if name != _STDIN_PARAMETER else f"{name}_path"
            taken.add(name)
            return name
    taken.add(fallback_name)
    return fallback_name


def _good_name(name: str | None) -> bool:
    """A variable's name that says what the word is: not `a`, `arg`, `value` or `_max`."""
    return (
        name is not None and len(name) >= 2 and not name.startswith("_") and name.lower() not in _POOR_NAMES
    )


def _description(module: ast.Module, candidate: Candidate) -> str:
    docstring = (ast.get_docstring(module) or "").strip()
    if docstring:
        return docstring.split("\n\n")[0].strip()
    lines: list[str] = []
    for line in candidate.head.splitlines()[:40]:
        if line.startswith("#!") or re.match(r"#.*coding[:=]", line):
            continue
        if not line.startswith("#"):
            if lines or line.strip():
                break
            continue
        text = line.lstrip("#").strip()
        if not text:
            if lines:
                break
            continue
        lines.append(text)
    return " ".join(lines)


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
    """Whether an executable is one this dialect serves (else it goes on to help-json)."""
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
        return _takes_nothing_or_stdin(text, module) and bool(_description(module, candidate))
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
