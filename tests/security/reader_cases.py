"""Worst cases for every reader of untrusted text, and the child process that times them.

Each reader gets a template that makes its dialect take the file (`@@` marks where the
worst case goes) and, in turn, every filler: long runs of one token (the reader's own
keywords, and `{`, `[`, quotes, backslashes, comment markers...), which are at once deep
nesting and huge lines. A few cases are at each format's largest size. The child reads
each file as `discover --list` does (`discover_tools`, nothing run), or hands the text to
the reader that takes it (`--help` output, JSONC, a config, the audit log), and prints the
CPU seconds each took. A file still read after three times its bound is stopped there
(SIGPROF), so that a reader gone quadratic fails the test in seconds, not hours.

Run as `python -m tests.security.reader_cases CASES_DIR SECONDS_PER_MIB FLOOR_SECONDS`.
"""

from __future__ import annotations

import json
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

SIZE = 16 * 1024  # of the filler in the token sweeps: quadratic work shows long before this
LARGEST = 1024 * 1024  # the largest script a reader reads whole (MAX_SCRIPT_BYTES)

COMMON = (
    "\n", " ", "\t", "a", "{", "[", "(", "<", "'", '"', "`", "\\", "//", "# ", "/**", "*/",
    "-", "--a ", ":", "=", "import ", "@param ", "\u200b",
)  # fmt: skip

# reader: (file name, template, its own keywords). A sidecar case is two files.
SCRIPTS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "annotations": (
        "t.sh",
        "#!/bin/bash\n# Tool: t\n# Description: d\n@@\n# @param name: string (required: true) A name\necho\n",
        ("# @param ", "# Description: ", "(type:", "# Tool: "),
    ),
    "annotations-comment": (
        "t.sh",
        "#!/bin/bash\n# Tool: t\n# @param name: string A @@\necho\n",
        ("(type: ", "(", " :", "enum:"),
    ),
    "annotations-field": (  # the worst case inside a line, between words
        "t.sh",
        "#!/bin/bash\n# Tool: t\n# Description: a@@b \n"
        "# @param name: string (required: true, default: a@@b) x\necho\n",
        (" ", "\t", ":", "(", ","),
    ),
    "kit-field": (
        "t.js",
        '// Name: T\n// Description: a@@b \nconst schema = { input: { name: { type: "string" } } }\n',
        (" ", "\t", ":"),
    ),
    "argc-field": (
        "t.sh",
        "#!/usr/bin/env bash\n# @describe a@@b \n# @option --name[=a@@b] A @@ name\n"
        'eval "$(argc --argc-eval "$0" "$@")"\n',
        (" ", "\t", "=", "[", "`"),
    ),
    "kit": (
        "t.js",
        "#!/usr/bin/env node\n// Name: T\n// Description: d\n@@\nconst schema = {\n"
        '  input: { name: { type: "string", description: "n" } },\n}\n',
        ("schema = ", "const ", "defineSchema(", "// Name: ", "a: ", "=  ", "\t="),
    ),
    "kit-schema": (
        "t.js",
        '// Name: T\nconst schema = { input: { name: { type: "string", description: @@ } } }\n',
        ("{a:", "[", "'\\", '"\\u', "0x", "1e", "`${", "/*"),
    ),
    "scriptkit": (
        "t.js",
        '// Name: T\n// mcp: t\n@@\nimport "@johnlindquist/kit"\nconst name = await arg("Your name")\n',
        (
            "import a ",
            "require(",
            "await arg(",
            "arg(",
            "params(",
            "for (",
            "case ",
            " as ",
            "mcp: ",
            "const a = ",
        ),
    ),
    "scriptkit-header": (  # issue 24's file: a Script Kit header, no `// mcp:`, words in a comment
        "t.js",
        '// Name: Evil\n// Description: d\n/* @@ */\nconst name = await arg("Your name")\n',
        ("import ", "import a ", "require("),
    ),
    "scriptkit-params": (
        "t.ts",
        '// mcp: t\nimport "@johnlindquist/kit"\n'
        'const { a } = await params({ type: "object", properties: @@ })\n',
        ("{", "[", "'", "a: ", ","),
    ),
    "raycast": (
        "t.sh",
        "#!/bin/bash\n# @raycast.schemaVersion 1\n# @raycast.title T\n# @raycast.mode silent\n"
        '# @raycast.argument1 { "type": "text", "placeholder": "a@@" }\n@@\necho\n',
        ("# @raycast.", " (", " [", "=", ": "),
    ),
    "argc": (
        "t.sh",
        "#!/usr/bin/env bash\n# @describe d\n# @option --name@@ A name\n@@\n"
        'eval "$(argc --argc-eval "$0" "$@")"\n',
        ("# @option ", "# @cmd ", "[", "<", "=", "*", "-a"),
    ),
    "python-module": (
        "t.py",
        'def execute(name: str) -> str:\n    """Greet.\n\n    Args:\n        name: @@\n    """\n'
        "    return name\n",
        ("@param ", "    Args:\n", "a (", ":param ", "\n    a: ", "{'a'|"),
    ),
    "python-function": (
        "t.py",
        'def run(name: str) -> str:\n    """Greet.\n\n    Parameters\n    ----------\n'
        '    name : @@\n    """\n'
        "    return name\n",
        ("a : ", "\n    a : ", ",", "[", "{"),
    ),
    "python-google": (
        "t.py",
        'def run(name):\n    """Greet.\n\n    Args:\n        name (@@): A name.\n    """\n    return name\n',
        (",", "a,", "[", "]", "'a'|", "{"),
    ),
    "python-raw": (
        "t.py",
        '#!/usr/bin/env python3\n@@\nimport sys\nprint(sys.argv)\nif __name__ == "__main__":\n    pass\n',
        ("import a, ", "from sys import ", "def main(", "def execute(", "input (", "\n \n"),
    ),
    "python-script": (
        "t.py",
        '"""Say hello @@."""\n@@\nif __name__ == "__main__":\n    print("hello")\n',
        ("if __name__ ", "input (", "'--help'"),
    ),
    "python-argparse": (
        "t.py",
        '"""Greet @@."""\nimport argparse\nparser = argparse.ArgumentParser(description=__doc__)\n'
        'parser.add_argument("--name", help="%(default)s @@")\nparser.parse_args()\n',
        ("%(", "%%", "%(a)s"),
    ),
    "python-click": (
        "t.py",
        'import click\n@click.command()\n@click.option("--name", help="@@")\ndef main(name):\n'
        '    """Greet."""\nmain()\n',
        ("%(", "\\b", "\b"),
    ),
    "python-typer": (
        "t.py",
        'import typer\nimport t\ndef main(name: str = typer.Option("x", help="@@")):\n'
        '    """Greet."""\napp = typer.Typer()\napp.add_typer(t.app, name="u")\n@@\ntyper.run(main)\n',
        ("%(", "[", "{", "app.add_typer(t.app, name=", "import t\n"),
    ),
    "python-fire": (
        "t.py",
        'import fire\ndef greet(name):\n    """Greet.\n\n    Args:\n      name: @@\n    """\n'
        "fire.Fire(greet)\n",
        ("a (", "\n      a: ", ":"),
    ),
    "python-docopt": (
        "t.py",
        '"""Greet.\n\nUsage:\n  t.py [--name=<n>] @@\n\nOptions:\n  --name=<n>  A name [default: x].\n"""\n'
        "from docopt import docopt\nif __name__ == '__main__':\n    docopt(__doc__)\n",
        ("usage:", "options:", "[default: ", "<a>", "...", "|"),
    ),
    "node-commander": (
        "t.js",
        'const { program } = require("commander")\n@@\n'
        'program.option("--name <n>", "a @@")\nprogram.parse()\n',
        ('require("', ".option(", "<a ", "[", "--", ".command("),
    ),
    "node-yargs": (
        "t.js",
        'const yargs = require("yargs")\n@@\nyargs.option("name", { type: "string", describe: "@@" }).argv\n',
        ('require("', ".option(", ".argv", "{a:"),
    ),
    "node-parseargs": (
        "t.mjs",
        'import { parseArgs } from "node:util"\n@@\nparseArgs({ options: { name: { type: "string" } } })\n',
        ("import a from ", "parseArgs(", "{"),
    ),
    "js-function": (
        "t.js",
        "/**\n * Greet.\n * @param {string} args.name @@\n */\n@@\nexports.run = function (args) {}\n",
        (" * @param {", "{", "module.exports = {", "exports.run", "=>", "(", "@typedef "),
    ),
    "js-agent": (
        "tools.js",
        "/** Greet. @param {string} name @@ */\nexport function greet(name) {}\n@@\n",
        ("export function ", "exports.a = function", "/**"),
    ),
    "fallback-text": (
        "t.sh",
        "#!/bin/sh\n@@\necho\n",  # says nothing, reads nothing: the --help probe's
        ("# ", "usage: ", "#-", "\n#\n"),
    ),
    "shell": (
        "t.sh",
        "#!/bin/bash\n# Usage: t.sh [-v] [-o FILE] <input>\n# $1 - The input @@.\n@@\n"
        'while getopts "vo:" opt; do\n  case "$opt" in\n    v) verbose=1;;\n    o) out="$OPTARG";;\n'
        '  esac\ndone\nshift $((OPTIND - 1))\nif [ "$1" = "-w" ]; then w=1; shift; fi\n'
        'input="${1:?an input}"\nrest=${*:2}\nfor name; do echo "$name"; done\necho >&2 Usage: t.sh x\n',
        (
            "getopts ",
            "case ",
            '"$1"',
            "$",
            "'",
            '"',
            "shift ",
            ";;",
            "# $1 - ",
            "usage: ",
            "${1:-",
            "\\",
            'if [ "$1" = "-w" ]; then ',
            "fi\n",
            "for a; do ",
            "${*:2",
            "echo >&2 Usage: ",
            "set -e\n",
        ),
    ),
    "node-argv": (
        "t.js",
        "// Greet @@.\nconst name = process.argv[2] || 'a@@';\n@@\nconst [, , a, ...b] = process.argv;\n"
        'if (process.argv.length < 3) console.log("Usage: t.js <name> [@@]");\n',
        (
            "process.argv",
            "process.argv[2]",
            "const [",
            "const a = ",
            "||",
            "'",
            "Usage: ",
            ".slice(2)",
            "a[",
            "const a: string | b = ",
            ": ",
        ),
    ),
}
# The readers that read a whole script (up to MAX_SCRIPT_BYTES), not its first 16 KiB.
WHOLE_FILE_READERS = (
    "kit",
    "scriptkit",
    "node-commander",
    "js-function",
    "js-agent",
    "python-raw",
    "python-docopt",
    "node-argv",
)
# (text, reader) for the readers handed text, not files.
TEXT_READERS = (
    "help-json",
    "help-text",
    "usage-text",
    "jsonc",
    "server-config",
    "tool-config",
    "audit",
    "prompt",
)
TEXT_KEYWORDS = (
    "usage: a ",
    "[options] ",
    "  -o, --output=FILE  ",
    "[",
    "<a",
    "{a,",
    "(a|",
    "...",
    "or: ",
    "description: a ",
    "@param ",
    " ",
    '{"a":',
    '"\\u',
    "[",
    "//",
    "/*",
    ",",
    "-1e",
    '"a',
    "\\",
)
PLAIN_TEXTS = {
    "prompt": "---\ndescription: d\n@param a: x\n---\nHi\n",
    "help-json": '{"description": "d", "a": {"type": "string", "description": "a"}}',
}
SIDECAR_KEYWORDS = ('{"a":', "[", '"\\', "\\u00", ",")
# Declared entry points (conventions/entry_points): a project file and the module or bin
# file it names, the worst case in both (`@@`).
ENTRY_POINTS: dict[str, dict[str, str]] = {
    "entry-point-pyproject": {
        "pyproject.toml": '[project]\nname = "p"\ndescription = "a@@b"\n[project.scripts]\ngo = "zz:cli"\n'
        '[tool.x]\nk = ["@@"]\n',
        "zz.py": 'import click\n"""@@"""\n@click.command()\n'
        '@click.option("--name", help="@@")\ndef cli(name):\n    pass\n',
    },
    "entry-point-package": {
        "package.json": '{"name": "p", "description": "a@@b", "bin": {"go": "zz.js"}, "x": ["@@"]}',
        "zz.js": "const { program } = require('commander');\n// @@\n"
        "program.option('--name <n>', '@@').parse();\n",
    },
}
ENTRY_POINT_KEYWORDS = ("[project.scripts]\n", '"bin": {', "[", "{", '"', "\\", "=", ":")


def fillers(own: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    for token in dict.fromkeys((*COMMON, *own)):
        yield token, (token * (SIZE // len(token) + 1))[:SIZE]


def write_cases(root: Path) -> list[dict[str, Any]]:
    """Write every case under `root` (one folder each); the list of what each is."""
    cases: list[dict[str, Any]] = []

    def add(reader: str, token: str, files: dict[str, str], kind: str = "tools") -> None:
        folder = root / f"case{len(cases)}"
        folder.mkdir()
        for name, text in files.items():
            path = folder / name
            path.write_text(text, encoding="utf-8", errors="surrogatepass")
            path.chmod(0o644 if name.endswith(".py") else 0o755)  # an executable .py is another dialect's
        size = sum(len(text.encode("utf-8", "surrogatepass")) for text in files.values())
        lines = sum(text.count("\n") + 1 for text in files.values())
        case = {"reader": reader, "token": token, "folder": str(folder), "kind": kind, "bytes": size}
        cases.append({**case, "lines": lines})

    for reader, (name, template, own) in SCRIPTS.items():
        add(reader, "", {name: template.replace("@@", "a")})  # plain: which dialect takes it
        for token, filler in fillers(own):
            add(reader, token, {name: template.replace("@@", filler)})
        if reader == "scriptkit-header":  # issue 24's very file: 140 KB
            add(reader, "issue 24", {name: template.replace("@@", "import " * 20000)})
        if reader in WHOLE_FILE_READERS:
            largest = (("import a from 'b' // @param {x} y /** (a [b {c \"d\\\" */\n") * LARGEST)[
                : LARGEST - 4096
            ]
            add(reader, "largest", {name: template.replace("@@", largest, 1).replace("@@", "a")})
    sidecar = '{"description": "d", "inputSchema": {"type": "object", "properties": {"a": @@}}}'
    add("sidecar", "", {"t.sh": "#!/bin/sh\n", "t.tool.json": sidecar.replace("@@", "{}")})
    for token, filler in fillers(SIDECAR_KEYWORDS):
        for text in (sidecar.replace("@@", filler), sidecar.replace("@@", json.dumps(filler))):
            add("sidecar", token, {"t.sh": "#!/bin/sh\n", "t.tool.json": text})
    for reader, files in ENTRY_POINTS.items():
        add(reader, "", {name: text.replace("@@", "a") for name, text in files.items()})
        for token, filler in fillers(ENTRY_POINT_KEYWORDS):
            add(reader, token, {name: text.replace("@@", filler) for name, text in files.items()})
        largest = ('a [b {c "d\\" */ @@ = :\n' * LARGEST)[: LARGEST - 4096]
        add(reader, "largest", {name: text.replace("@@", largest, 1) for name, text in files.items()})
    nested = "[" * (LARGEST // 2 - 200) + "]" * (LARGEST // 2 - 200)
    add("sidecar", "largest", {"t.sh": "#!/bin/sh\n", "t.tool.json": sidecar.replace("@@", nested)})
    for reader in TEXT_READERS:
        add(reader, "", {"text": PLAIN_TEXTS.get(reader, "{}")}, kind="text")  # warms its imports
        for token, filler in fillers(TEXT_KEYWORDS):
            add(reader, token, {"text": filler}, kind="text")
            add(reader, token, {"text": '{"description": "d", "a": ' + json.dumps(filler) + "}"}, kind="text")
            add(
                reader,
                token,
                {"text": f"---\ndescription: a{filler}b \n@param a: x{filler}y\n---\nHi\n"},
                kind="text",
            )
        add(reader, "largest", {"text": "[" * (LARGEST // 2) + "]" * (LARGEST // 2)}, kind="text")
    return cases


class _Over(BaseException):
    """Raised by SIGPROF in the file that took past the cutoff."""


def _stop(signum: int, frame: object) -> None:
    raise _Over


def _readers() -> dict[str, Callable[[Path], object]]:
    from toolkiln.audit.reading import read_audit
    from toolkiln.clients.jsonc import parse_jsonc
    from toolkiln.conventions.base import Candidate
    from toolkiln.conventions.fallback import read as fallback
    from toolkiln.conventions.fallback.text import help_of
    from toolkiln.conventions.help_json import read as help_json
    from toolkiln.conventions.usage.read import read_usage_text
    from toolkiln.discover.prompts import parse_prompt
    from toolkiln.files import load_server_config, load_tool_config

    def help_as_json(path: Path) -> object:
        text = path.read_text()
        metadata = help_json._metadata(text, "t") or {"description": "d"}
        return help_json.parse_help(metadata, text, "t")

    def help_as_text(path: Path) -> object:
        text = path.read_text()
        candidate = Candidate(path, path.name, path.stat())
        return fallback.describe(candidate, text), fallback.clean_text(text), help_of(candidate, text, 1)

    def help_as_tool(path: Path) -> object:
        from toolkiln.conventions.usage.help_tool import Unservable, parameters_from_help
        from toolkiln.errors import DiscoveryError

        try:
            return parameters_from_help(path.read_text(), "t")
        except (Unservable, DiscoveryError) as why:
            return str(why)

    def server_config(path: Path) -> object:
        (path.parent / "server.json").write_bytes(path.read_bytes())
        return load_server_config(path.parent)

    return {
        "help-json": help_as_json,
        "help-text": help_as_text,
        "usage-text": lambda path: read_usage_text(path.read_text()),
        "help-tool": help_as_tool,
        "jsonc": lambda path: parse_jsonc(path.read_text()),
        "server-config": server_config,
        "tool-config": load_tool_config,
        "audit": read_audit,
        "prompt": lambda path: parse_prompt(path.read_text(), "p"),
    }


PER_LINE = 10e-6  # seconds: a reader that goes line by line pays Python's cost per line


def read_bound(size: int, lines: int, per_mib: float, floor: float) -> float:
    """The CPU seconds a reader may take for a file of `size` bytes in `lines` lines."""
    return floor + per_mib * size / (1024 * 1024) + PER_LINE * lines


def time_cases(cases: list[dict[str, Any]], per_mib: float, floor: float) -> Iterator[dict[str, Any]]:
    from toolkiln.conventions import order
    from toolkiln.conventions.base import Candidate
    from toolkiln.discover import discover_tools
    from toolkiln.discover.scan import first_claimant

    readers = _readers()
    signal.signal(signal.SIGPROF, _stop)
    for case in cases:
        folder = Path(case["folder"])
        claimant = None
        if case["kind"] == "tools":
            config = folder.parent / (folder.name + "-config")

            def read(folder: Path = folder, config: Path = config) -> object:
                return discover_tools(folder, config, write=False)

            if not case["token"]:
                path = next(
                    p
                    for p in sorted(folder.iterdir())
                    if p.name == "package.json" or not p.name.endswith(".json")
                )
                dialect = first_claimant(Candidate(path, path.name, path.stat()), order.readers())
                claimant = getattr(dialect, "__name__", None)
        else:
            reader, path = readers[case["reader"]], folder / "text"

            def read(reader: Callable[[Path], object] = reader, path: Path = path) -> object:
                return reader(path)

        bound = read_bound(case["bytes"], case["lines"], per_mib, floor)
        # A file over its bound is read twice more, and its best time kept: a reader gone
        # quadratic is over every time, a collection or a busy machine's cache only once.
        seconds = _cpu_time(read, 3 * bound)
        for _ in range(2 if seconds > bound else 0):
            seconds = min(seconds, _cpu_time(read, 3 * bound))
        yield {**case, "seconds": seconds, "claimant": claimant}


def _cpu_time(read: Callable[[], object], limit: float) -> float:
    """The CPU seconds one read takes, stopped at `limit`."""
    start = time.process_time()
    signal.setitimer(signal.ITIMER_PROF, limit)
    try:
        read()
    except (_Over, BaseExceptionGroup, Exception):
        pass  # refusing a file is a reader's answer too: only the time matters here
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    return time.process_time() - start


def main() -> None:
    root, per_mib, floor = Path(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
    cases = json.loads((root / "cases.json").read_text())
    # Imports and first-use caches are not any file's cost: each reader reads a plain file first.
    list(time_cases([case for case in cases if not case["token"]], per_mib, floor))
    for result in time_cases(cases, per_mib, floor):
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
