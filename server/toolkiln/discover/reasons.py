"""Why a file under the tools folder is not a tool, and one hint per shared reason.

Discovery offers every file to the readers; a file none of them declares gets a
`NotATool` here (or from the reader that looked and said no). `discover --why`, `discover
--list` and `doctor` say it per file; the summary groups files by `kind`, so that a
folder of 21 scripts that share one reason gets one line telling what to do about it.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable

from toolkiln.conventions.base import Candidate, NotATool
from toolkiln.discover.report import NotTool

# Files that are data or documentation, never scripts (looked at by their extension).
DATA_SUFFIXES = frozenset(
    {
        ".json", ".md", ".markdown", ".rst", ".txt", ".toml", ".yaml", ".yml", ".cfg", ".ini", ".conf",
        ".lock", ".pyc", ".pyo", ".csv", ".tsv", ".xml", ".html", ".css", ".png", ".jpg", ".jpeg",
        ".gif", ".svg", ".ico", ".pdf", ".zip", ".gz", ".tar", ".env", ".example", ".sample", ".log",
        ".sql", ".d.ts", ".map", ".tmpl", ".j2", ".jinja", ".template",
    }
)  # fmt: skip
_PY_ENTRY_GUARD = re.compile(r"""^if\s+__name__\s*==\s*["']__main__["']\s*:""", re.MULTILINE)

# One line per shared reason (kinds not listed here read as "declares nothing").
HINTS: dict[str, tuple[str, str, str]] = {  # kind: (one file, several files, what to do)
    "plain-help": (
        "executable answers", "executables answer",
        "`--help` with plain text, not toolkiln's JSON: serve them as they are with the fallback "
        "(`toolkiln fallback on`; `--fallback` on serve or discover: these files only), or declare "
        "each one's parameters: a `# Tool:` / `# @param` comment header, argc tags or a sidecar "
        "JSON (docs/dialects.md)",
    ),
    "help-failed": (
        "executable fails", "executables fail",
        "when asked `--help`, or prints nothing: give each a declaration (a comment header, argc "
        "tags or a sidecar JSON; docs/dialects.md)",
    ),
    "help-timeout": (
        "executable did", "executables did",
        "not answer `--help` in time: give each a declaration (docs/dialects.md); each is asked "
        "again when it changes, or with `discover --force`",
    ),
    "not-executable": (
        "script declares", "scripts declare",
        "nothing toolkiln reads and cannot be asked `--help` (not executable): declare the "
        "parameters (docs/dialects.md), or make the file executable",
    ),
    "no-declaration": (
        "file declares", "files declare", "nothing toolkiln reads (docs/dialects.md lists what it reads)"
    ),
    "scriptkit-no-mcp": (
        "Script Kit script has", "Script Kit scripts have",
        "no `// mcp:` line (nor a schema): add `// mcp: <name>` to serve one as a tool",
    ),
    "undocumented-script": (
        "Python script takes", "Python scripts take",
        'no arguments and has no module docstring: add one (`"""What it does."""`) to serve it',
    ),
    "python-helper": (
        "Python file defines", "Python files define",
        "`run()` without a docstring or type hints: document `run` to serve it as a tool",
    ),
    "python-script": ("Python file calls", "Python files call", "its own `run()` when imported: a script"),
    "subcommands": (
        "script has", "scripts have", "subcommands none of which could be read (see each file's reason)"
    ),
    "argc-no-eval": (
        "script has", "scripts have",
        'argc tags but never calls argc (`eval "$(argc --argc-eval "$0" "$@")"`)',
    ),
    "argc-taskfile": ("file is an argc task file", "files are argc task files", "(Argcfile.sh): not tools"),
    "raycast-template": ("file is a Raycast template", "files are Raycast templates", "(`.template.`)"),
    "argv-by-hand": (
        "Python script reads", "Python scripts read",
        "their command line by hand (sys.argv, getopt, optparse): serve them as they are with the "
        "fallback (`toolkiln fallback on`; `--fallback` on serve or discover: these files only), "
        "or declare their parameters",
    ),
    "shell-unread": (
        "shell script reads", "shell scripts read",
        "arguments toolkiln could not read (see each file's reason): serve them with the fallback "
        "(`toolkiln fallback on`; `--fallback` on serve or discover: these files only), "
        "or name their arguments",
    ),
    "shell-library": (
        "shell file only defines", "shell files only define", "functions: libraries to source, not tools"
    ),
    "asks-input": (
        "Python script asks", "Python scripts ask",
        "for input while running (`input()`), which a tool call cannot answer",
    ),
    "runtime-missing": (
        "script needs", "scripts need", "a program that is not installed here (see each file's reason)"
    ),
    "library": ("Python file is a library", "Python files are libraries", "(no entry point, no CLI)"),
    "empty": ("file is", "files are", "empty"),
    "sidecar": ("file is a sidecar", "files are sidecars", "(declarations of the programs beside them)"),
    "data": ("file is", "files are", "data or documentation, not scripts"),
    "writable-folder": (
        "folder is", "folders are",
        "written by tools (a workspace, a `writable` folder): never read for tools, as a client could "
        "have put a script there (docs/security.md, \"Where tools come from\")",
    ),
}  # fmt: skip
# Hints about files that are plainly not tools come last, and are left out of the
# summary when nothing else is wrong (a README is not worth a line of its own).
QUIET_KINDS = frozenset(
    {"data", "empty", "library", "sidecar", "argc-taskfile", "raycast-template", "writable-folder"}
)


def why_not(candidate: Candidate) -> NotATool:
    """Why no reader claimed `candidate` (which reads its head, never runs it)."""
    path = candidate.path
    if candidate.stat.st_size == 0:
        return NotATool("an empty file", kind="empty")
    if path.name == "__init__.py":
        return NotATool("a Python package's __init__.py", kind="library")
    if path.name.endswith((".meta.json", ".tool.json")):
        return NotATool("a sidecar: it declares the program beside it, when there is one", kind="sidecar")
    suffixes = "".join(path.suffixes[-2:]).lower()
    if path.suffix.lower() in DATA_SUFFIXES or suffixes in DATA_SUFFIXES:
        return NotATool(f"not a script ({path.suffix or path.name})", kind="data")
    text = candidate.head
    if not text:
        return NotATool("a binary file that is not executable", kind="data")
    if path.suffix == ".py" and not text.startswith("#!") and not _PY_ENTRY_GUARD.search(text):
        return NotATool(
            "a Python module with no entry point (`execute`, `main`, `run`, a command line "
            'or `if __name__ == "__main__":`)',
            kind="library",
        )
    if not candidate.executable:
        return NotATool(
            "declares nothing toolkiln reads, and is not executable (so its `--help` is not asked)",
            kind="not-executable",
        )
    return NotATool("declares nothing toolkiln reads", kind="no-declaration")


def summarise(verdicts: Iterable[NotTool]) -> list[str]:
    """One line per reason many files share, the actionable ones first, naming the files
    (up to `NAMED` of them); none when every file that is not a tool is plainly so (data,
    empty files, libraries), whose lines name no file."""
    paths: dict[str, list[str]] = defaultdict(list)
    for verdict in verdicts:
        paths[verdict.kind].append(verdict.path)
    counts = Counter({kind: len(files) for kind, files in paths.items()})
    if not set(counts) - QUIET_KINDS:
        return []
    order = sorted(counts, key=lambda kind: (kind in QUIET_KINDS, -counts[kind], kind))
    return [_hint(kind, paths[kind]) for kind in order]


# How many files a hint names; `discover --list` names every one.
NAMED = 5


def _hint(kind: str, paths: list[str]) -> str:
    count = len(paths)
    one, several, rest = HINTS.get(kind, HINTS["no-declaration"])
    hint = f"{count} {one if count == 1 else several} {rest}"
    if kind in QUIET_KINDS:
        return hint
    named = ", ".join(sorted(paths)[:NAMED])
    more = f" and {count - NAMED} more" if count > NAMED else ""
    return f"{hint} (files: {named}{more})"
