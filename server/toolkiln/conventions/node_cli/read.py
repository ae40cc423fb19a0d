"""The node-cli dialect: a Node.js script that parses its own command line with
commander, yargs or `node:util`'s `parseArgs`, read from its declarations as text.

    #!/usr/bin/env node
    const { program } = require('commander');
    program
      .description('Resize an image')
      .requiredOption('-w, --width <number>', 'width in pixels', parseInt)
      .option('--format <fmt>', 'output format', 'png')
      .argument('<file>', 'the image')
      .parse();

The script is never run to be understood. Each library's reader
(`node_cli_commander`, `node_cli_yargs`, `node_cli_parseargs`) turns the declarations
into parameters whose `option` says how `conventions/node_cli/argv.py` passes them:
`--name` (`--name=value`; a boolean is the flag alone), `-n` (`-nvalue`), `""` for a
positional given before the options, `"--"` for a positional given after `--`.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from toolkiln.conventions.base import Candidate, Declaration, NotATool
from toolkiln.conventions.node_cli.spec import CliSpec
from toolkiln.conventions.subcommands import (
    before_the_word,
    subcommand_description,
    with_file_warnings,
    with_own_parameters,
)
from toolkiln.errors import DiscoveryError

if TYPE_CHECKING:
    from toolkiln.conventions.base import Probe

CLAIM_IS_CERTAIN = True  # read as text, never run

_SUFFIXES = {".js", ".mjs", ".cjs", ".ts", ".mts", ".cts"}
_IMPORT = r"""(?:require\(|\bfrom\b|\bimport\b)\s*['"]"""
_LIBRARIES = (
    ("commander", re.compile(_IMPORT + r"""(?:commander|@commander-js/extra-typings)['"]""")),
    ("yargs", re.compile(_IMPORT + r"""yargs(?:/yargs)?['"]""")),
    ("parseArgs", re.compile(_IMPORT + r"""(?:node:)?util['"]""")),
)
_PARSES = {
    "commander": re.compile(r"\.parse(?:Async)?\s*\("),
    "yargs": re.compile(r"\.(?:argv\b|parse(?:Sync|Async)?\s*\()"),
    "parseArgs": re.compile(r"\bparseArgs\s*\("),
}
# Not ours: a Script Kit script (`// Name:` with `arg(` prompts or `defineSchema`), and
# a function-style tool (`exports.run`), which the function dialect reads.
# (a `// Name:` line, then a prompt after it: two searches, each over the text once)
_KIT_NAME = re.compile(r"^[ \t]*//[ \t]*Name[ \t]*:", re.MULTILINE)
_KIT_PROMPT = re.compile(r"\bawait\s++arg\s*+\(|\bdefineSchema\s*+\(")
_FUNCTION_STYLE = re.compile(
    r"\bexports\.run\s*=|\bmodule\.exports\s*=\s*\{[^{}]*\brun\b|\bexport\s+(?:async\s+)?function\s+run\s*\("
)


def library_of(text: str) -> str | None:
    """The command-line library the script imports and parses with, or None."""
    for library, imports in _LIBRARIES:
        if imports.search(text) and _PARSES[library].search(text):
            return library
    return None


def claims(candidate: Candidate) -> bool:
    """A Node.js script (by extension, or an executable with a node shebang) that imports
    commander, yargs or `node:util` and parses its command line with it."""
    if candidate.path.suffix.lower() not in _SUFFIXES and not (
        candidate.executable and candidate.script_type in ("node", "typescript")
    ):
        return False
    head = candidate.head
    if library_of(head) is None:
        return False
    name = _KIT_NAME.search(head)
    is_kit = name is not None and _KIT_PROMPT.search(head, name.end()) is not None
    return not (is_kit or _FUNCTION_STYLE.search(head))


async def declare(candidate: Candidate, probe: Probe) -> list[Declaration]:
    path = candidate.relative_path
    text = candidate.text()
    library = library_of(text)
    if library is None:
        raise NotATool("imports no command-line library it parses with", kind="no-declaration")
    if library == "commander":
        from toolkiln.conventions.node_cli.commander import read_commander

        spec = read_commander(text, path)
    elif library == "yargs":
        from toolkiln.conventions.node_cli.yargs import read_yargs

        spec = read_yargs(text, path)
    else:
        from toolkiln.conventions.node_cli.parseargs import read_parse_args

        spec = read_parse_args(text, path)
    _check_runnable(candidate)
    description = spec.description or leading_comment(text)
    if spec.has_commands:
        return _command_declarations(spec, description)
    return [
        Declaration(
            dialect="node-cli",
            description=description,
            parameters=spec.parameters,
            version=spec.version,
            warnings=spec.warnings,
        )
    ]


def _command_declarations(spec: CliSpec, description: str) -> list[Declaration]:
    """One tool per subcommand (`command` its word), with the program's options (given
    before the word) and its own; the program's own when it runs without one. The file's
    warnings go with the first."""
    declarations = []
    if spec.runs_alone:
        declarations.append(
            Declaration(dialect="node-cli", description=description, parameters=spec.parameters)
        )
    early = before_the_word([param for param in spec.parameters if param.option not in ("", "--")])
    for command in spec.commands:

        def prefixed(name: str, taken: set[str], word: str = command.name) -> str:
            """`add_tag`: the program's option of this name is another one."""
            while name in taken:
                name = f"{word}_{name}".replace("-", "_")[:64]
            return name

        parameters, _ = with_own_parameters(early, command.parameters, prefixed)
        declarations.append(
            Declaration(
                dialect="node-cli",
                description=subcommand_description(description, command.description, command.name),
                parameters=parameters,
                warnings=command.warnings,
                command=command.name,
            )
        )
    if not declarations:
        reasons = "; ".join(warning.reason for warning in spec.warnings) or "none can be read"
        raise NotATool(f"a program whose subcommands cannot be served here ({reasons})", kind="subcommands")
    declarations = with_file_warnings(declarations, spec.warnings)
    return [dataclasses.replace(declaration, version=spec.version) for declaration in declarations]


def _check_runnable(candidate: Candidate) -> None:
    from toolkiln.interpreters import interpreter_names

    if candidate.executable or interpreter_names(candidate.path):
        return
    raise DiscoveryError(
        f"is not executable and has no extension toolkiln runs with node: chmod +x {candidate.relative_path}",
        path=candidate.relative_path,
    )


_DIRECTIVE = re.compile(r"^(?:eslint|@ts-|prettier|jshint|global\s|istanbul|#region|#endregion)")
_LICENSE = re.compile(
    r"@license|\bcopyright\b|SPDX-License-Identifier|Permission is hereby granted|Licensed under",
    re.IGNORECASE,
)


def leading_comment(text: str) -> str:
    """The first comment of the file (after the shebang and `'use strict'`) that says
    something, as prose: `//` lines or a `/* */` block, without JSDoc tags and linter
    directives. A license header is skipped for the comment below it."""
    lines = text.splitlines()
    index = 1 if lines and lines[0].startswith("#!") else 0
    while True:
        while index < len(lines) and (
            not lines[index].strip() or lines[index].strip().strip(";") in ('"use strict"', "'use strict'")
        ):
            index += 1
        prose, index = _comment_at(lines, index)
        if prose is None:
            return ""
        kept = [line for line in prose if not line.startswith("@") and not _DIRECTIVE.match(line)]
        if kept and not _LICENSE.search(" ".join(prose)):
            return " ".join(" ".join(kept).split())[:1000]


def _comment_at(lines: list[str], index: int) -> tuple[list[str] | None, int]:
    """The lines of the comment that starts at `index` (None if none does), and the index after it."""
    if index >= len(lines):
        return None, index
    prose: list[str] = []
    if lines[index].lstrip().startswith("/*"):
        for line in lines[index:]:
            index += 1
            closed = "*/" in line
            prose.append(line.split("*/")[0].strip().lstrip("/").lstrip("*").strip())
            if closed:
                break
        return prose, index
    if not lines[index].lstrip().startswith("//"):
        return None, index
    while index < len(lines) and lines[index].lstrip().startswith("//"):
        prose.append(lines[index].lstrip().lstrip("/").strip())
        index += 1
    return prose, index
