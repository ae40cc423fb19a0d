"""The kit dialect (seeds/002): a script in any language whose comments name it and
whose `schema` object declares its input.

    // Name: Create Note
    // Description: Format a note from a title and a body
    const schema = {
      input: {
        title: { type: 'string', required: true, description: 'The title' },
        stars: { type: 'integer', min: 0, max: 5, default: 0 },  // trailing commas are fine
      },
    }

Script Kit's call form works too, `const { input, output } = defineSchema({...})` (or
`export const schema = defineSchema({...})`), and its typed metadata object
`export const metadata = { name, description }` in place of the comments
(`metadata.py`). The tool is named after the slug of its Name (`create-note`); a
`defineSchema` script without a Name, after its path. The schema block is read
as text (JSON, a JavaScript object literal or a Python dict display), never run; in a
shell script it sits in comments (`# schema = {` ... `# }`). A script whose
`schema.input` is empty or missing is not a tool. The grammar is in docs/dialects.md.
A JavaScript or TypeScript one that imports `@johnlindquist/kit` or uses Script Kit's
globals (`defineSchema`, `await input()`, ...) is of the `scriptkit` dialect: it runs
under toolkiln's Script Kit runtime (conventions/scriptkit/read.py, runtimes/scriptkit).
"""

from __future__ import annotations

import logging
import re
from pathlib import PurePath
from typing import TYPE_CHECKING

from toolkiln.conventions.base import Candidate, Declaration, Probe
from toolkiln.conventions.javascript.object_literal import LiteralError, ObjectLiteral, parse_object_literal
from toolkiln.conventions.kit.inputs import input_parameter
from toolkiln.conventions.kit.metadata import all_metadata, name_and_description
from toolkiln.conventions.kit.metadata import read_metadata as read_metadata
from toolkiln.conventions.kit.metadata import slug_name as slug_name
from toolkiln.conventions.scriptkit.read import check_runnable as check_scriptkit_runnable
from toolkiln.conventions.scriptkit.read import mcp_name, uses_scriptkit
from toolkiln.errors import DiscoveryError
from toolkiln.interpreters import INTERPRETERS, find_interpreter, interpreter_names

if TYPE_CHECKING:
    pass

logger = logging.getLogger(__name__)

# `schema = {`, optionally `export const schema: Schema = {`, optionally in a comment; or
# Script Kit's call `defineSchema({`, optionally `const { input } = ` or `export const schema = `.
_SCHEMA = re.compile(
    r"^[ \t]*+(?P<marker>#|//)?[ \t]*+(?:export[ \t]++)?(?:(?:const|let|var)[ \t]++)?"
    r"(?:schema[ \t]*+(?::[^=\n]*+)?=[ \t]*+(?=\{)"
    r"|(?:(?:[A-Za-z_$][\w$]*+|\{[^{}\n]*\})[ \t]*+(?::[^=\n]*+)?=[ \t]*+)?(?:await[ \t]++)?"
    r"(?P<define>defineSchema)[ \t]*+(?:<[^<>\n]*>)?[ \t]*+\(\s*+(?=\{))",
    re.MULTILINE,
)
_SCHEMA_KEYS = ("input", "output")
# `import { defineSchema } from "convex/server"`: some other library's defineSchema.
_IMPORTED_DEFINE = re.compile(
    r"""\bimport\s*+(?:type\s*+)?\{[^{}]*\bdefineSchema\b[^{}]*\}\s*+from\s*+["']([^"']+)["']"""
)


CLAIM_IS_CERTAIN = True


def claims(candidate: Candidate) -> bool:
    """A script with a `Name:` comment (or a `metadata = { name }`) and a `schema = {`
    block, or a `defineSchema({` call, in its first 16 KiB; it must be executable, or
    have an extension toolkiln knows how to run."""
    if not (candidate.executable or candidate.path.suffix.lower() in INTERPRETERS):
        return False
    schema = _SCHEMA.search(candidate.head)
    if schema is None:
        return False
    if schema.group("define") is not None:
        imported = _IMPORTED_DEFINE.search(candidate.head)
        return imported is None or "kit" in imported.group(1)  # not Convex's nor another library's
    return "name" in all_metadata(candidate.head, schema.start())


def tool_name(candidate: Candidate) -> str | None:
    """The slug of the script's Name: `Create Note` -> `create-note`; None when the Name
    has no letters or digits (`declare` reports that, if the script is a tool at all).
    Script Kit's `// mcp: tool-name` comes first."""
    if mcp := mcp_name(candidate.head):
        return mcp
    schema = _SCHEMA.search(candidate.head)
    name = all_metadata(candidate.head, schema.start() if schema else None).get("name")
    return (name and slug_name(name.value)) or None


async def declare(candidate: Candidate, probe: Probe) -> list[Declaration]:
    path = candidate.relative_path
    text = candidate.text()
    declaration = parse_script(text, path)
    if declaration is None:
        logger.debug("%s: not a kit tool: its schema.input is empty", path)
        return []
    if declaration.dialect == "scriptkit":
        check_scriptkit_runnable(candidate)
    else:
        _check_runnable(candidate)
    return [declaration]


def parse_script(text: str, path: str) -> Declaration | None:
    """Read a kit script's declaration; None when its `schema.input` is empty or missing.

    `path` is only used in errors.
    """
    schema_match = _SCHEMA.search(text)
    if schema_match is None:
        raise DiscoveryError(
            "has no `schema = { input: {...} }` block nor `defineSchema({...})` call", path=path
        )
    schema = _read_schema(text, schema_match, path)
    if schema_match.group("define") and not set(schema.value) & set(_SCHEMA_KEYS):
        logger.debug("%s: not a kit tool: its defineSchema({...}) has no input or output", path)
        return None
    for key in schema.value:
        if key not in _SCHEMA_KEYS:
            raise DiscoveryError(
                f"unknown key {key!r} in the schema (a schema has {' and '.join(_SCHEMA_KEYS)})",
                path=path,
                line=schema.line_of((key,)),
            )
    inputs = schema.value.get("input", {})
    if not isinstance(inputs, dict):
        raise DiscoveryError(
            "schema.input must be an object: { name: { type: ... }, ... }",
            path=path,
            line=schema.line_of(("input",)),
        )
    if not inputs:
        return None
    metadata = all_metadata(text, schema_match.start())
    named = schema_match.group("define") is None
    name, description = name_and_description(metadata, path, named=named)
    warnings: list[DiscoveryError] = []
    parameters = [input_parameter(key, spec, schema, path, warnings) for key, spec in inputs.items()]
    return Declaration(
        dialect="scriptkit" if uses_scriptkit(text, PurePath(path).suffix) else "kit",
        description=description,
        parameters=parameters,
        title=name,
        warnings=warnings,
    )


def _read_schema(text: str, match: re.Match[str], path: str) -> ObjectLiteral:
    """The schema object; in comments, each line is read without its comment marker."""
    first_line = text.count("\n", 0, match.start()) + 1
    marker = match.group("marker")
    if marker is None:
        source, start = text, match.end()
    else:
        first, *rest = text[match.end() :].split("\n")
        lines = [first]
        for line in rest:
            stripped = line.lstrip()
            if not stripped.startswith(marker):
                break
            lines.append(stripped[len(marker) :])
        source, start = "\n".join(lines), 0
    try:
        return parse_object_literal(source, start, first_line)
    except LiteralError as error:
        where = "schema (in comments)" if marker else "schema"
        raise DiscoveryError(f"{where}: {error.message}", path=path, line=error.line) from None


def _check_runnable(candidate: Candidate) -> None:
    """A script without a shebang line (or the exec bit) needs an installed interpreter."""
    if candidate.executable and candidate.head.startswith("#!"):
        return
    if find_interpreter(candidate.path):
        return
    path = candidate.relative_path
    suffix = candidate.path.suffix.lower()
    names = interpreter_names(candidate.path)
    if not names:
        raise DiscoveryError(
            f"cannot be run: it has no shebang line (or is not executable) and toolkiln knows no "
            f"interpreter for {suffix or 'files without an extension'}; add a shebang line "
            f"such as #!/usr/bin/env ruby and run: chmod +x {candidate.path}",
            path=path,
        )
    listing = names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" or {names[-1]}"
    raise DiscoveryError(
        f"cannot be run: it has no shebang line (or is not executable), and no interpreter for "
        f"{suffix} files ({listing}) is installed on the PATH; install one, or add a shebang line "
        f"and run: chmod +x {candidate.path}",
        path=path,
    )
