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

The tool is named after the slug of its Name (`create-note`). The schema block is read
as text (JSON, a JavaScript object literal or a Python dict display), never run; in a
shell script it sits in comments (`# schema = {` ... `# }`). A script whose
`schema.input` is empty or missing is not a tool. The grammar is in docs/dialects.md.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolkiln.discover.base import Candidate, Declaration, make_parameter
from toolkiln.discover.naming import MAX_NAME_LENGTH
from toolkiln.discover.object_literal import LiteralError, ObjectLiteral, parse_object_literal
from toolkiln.discover.probe import Probe
from toolkiln.errors import DiscoveryError
from toolkiln.interpreters import INTERPRETERS, find_interpreter, interpreter_names
from toolkiln.vocabulary import PARAM_TYPES, TOOL_NAME_PATTERN, ParamType

if TYPE_CHECKING:
    from toolkiln.model import Parameter

logger = logging.getLogger(__name__)

MAX_SCRIPT_BYTES = 1024 * 1024
# `// Key: value` or `# Key: value`, before the schema; the first of each key wins.
_METADATA = re.compile(r"^\s*(?:#|//)\s*(Name|Description)\s*:(.*)$", re.IGNORECASE)
# `schema = {`, optionally `export const schema: Schema = {`, optionally in a comment.
_SCHEMA = re.compile(
    r"^[ \t]*(?P<marker>#|//)?[ \t]*(?:export[ \t]+)?(?:(?:const|let|var)[ \t]+)?"
    r"schema[ \t]*(?::[^=\n]*)?=[ \t]*(?=\{)",
    re.MULTILINE,
)
_NOT_SLUG = re.compile(r"[^a-z0-9]+")
_TYPES: dict[str, ParamType] = {name: name for name in PARAM_TYPES}
KNOWN_KEYS = ("type", "description", "required", "default", "enum", "min", "max", "items", "secret")
_SCHEMA_KEYS = ("input", "output")


@dataclass(frozen=True)
class _Field:
    value: str
    line: int


# Makes the error for a parameter's key (None: the parameter itself) with its line.
_Fail = Callable[[str | None, str], DiscoveryError]


CLAIM_IS_CERTAIN = True


def claims(candidate: Candidate) -> bool:
    """A script with a `Name:` comment followed by a `schema = {` block, in its first
    16 KiB; it must be executable, or have an extension toolkiln knows how to run."""
    if not (candidate.executable or candidate.path.suffix.lower() in INTERPRETERS):
        return False
    schema = _SCHEMA.search(candidate.head)
    return schema is not None and "name" in read_metadata(candidate.head[: schema.start()])


def tool_name(candidate: Candidate) -> str | None:
    """The slug of the script's Name: `Create Note` -> `create-note`; None when the Name
    has no letters or digits (`declare` reports that, if the script is a tool at all)."""
    schema = _SCHEMA.search(candidate.head)
    name = read_metadata(candidate.head[: schema.start() if schema else None]).get("name")
    return (name and slug_name(name.value)) or None


async def declare(candidate: Candidate, probe: Probe) -> Declaration | None:
    path = candidate.relative_path
    try:
        with candidate.path.open("rb") as handle:
            text = handle.read(MAX_SCRIPT_BYTES).decode("utf-8", errors="replace")
    except OSError as error:
        raise DiscoveryError(f"cannot be read: {error.strerror or error}", path=path) from None
    declaration = parse_script(text, path)
    if declaration is None:
        logger.debug("%s: not a kit tool: its schema.input is empty", path)
        return None
    _check_runnable(candidate)
    return declaration


def read_metadata(text: str) -> dict[str, _Field]:
    """The `Name` and `Description` comments of `text`, by lower-case key."""
    found: dict[str, _Field] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if match := _METADATA.match(line):
            found.setdefault(match.group(1).lower(), _Field(match.group(2).strip(), number))
    return found


def slug_name(name: str) -> str:
    """`Create Note` -> `create-note`: lower-case ASCII letters and digits joined by `-`
    (at most 64 characters); "" when the name has none."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = _NOT_SLUG.sub("-", ascii_name.lower()).strip("-")
    return slug[:MAX_NAME_LENGTH].rstrip("-")


def parse_script(text: str, path: str) -> Declaration | None:
    """Read a kit script's declaration; None when its `schema.input` is empty or missing.

    `path` is only used in errors.
    """
    schema_match = _SCHEMA.search(text)
    if schema_match is None:
        raise DiscoveryError("has no `schema = { input: {...} }` block", path=path)
    schema = _read_schema(text, schema_match, path)
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
    name, description = _name_and_description(text[: schema_match.start()], path)
    warnings: list[DiscoveryError] = []
    parameters = [_parameter(key, spec, schema, path, warnings) for key, spec in inputs.items()]
    return Declaration(
        dialect="kit",
        description=description,
        parameters=parameters,
        title=name,
        warnings=warnings,
    )


def _name_and_description(header: str, path: str) -> tuple[str, str]:
    """The Name and Description comments of a tool, both required."""
    metadata = read_metadata(header)
    name = metadata.get("name")
    if name is None:
        raise DiscoveryError("has no `// Name:` (or `# Name:`) comment before its schema", path=path)
    if not TOOL_NAME_PATTERN.match(slug_name(name.value)):
        raise DiscoveryError(
            f"the Name {name.value!r} has no letters or digits to make a tool name of "
            "(a kit tool's name is its Name's ASCII letters and digits joined by `-`)",
            path=path,
            line=name.line,
        )
    description = metadata.get("description", _Field("", name.line))
    if not description.value:
        raise DiscoveryError(
            "needs a `// Description:` (or `# Description:`) comment before its schema: "
            "what the tool does, for the model that calls it",
            path=path,
            line=description.line,
        )
    return name.value, description.value


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


def _parameter(
    name: str, spec: Any, schema: ObjectLiteral, path: str, warnings: list[DiscoveryError]
) -> Parameter:
    line = schema.line_of(("input", name))

    def fail(key: str | None, message: str) -> DiscoveryError:
        """The error for one of the parameter's keys (or the parameter), at its line."""
        where = ("input", name, key) if key else ("input", name)
        return DiscoveryError(f"input {name!r}: {message}", path=path, line=schema.line_of(where))

    if not isinstance(spec, dict):
        raise fail(None, "must be an object such as { type: 'string', description: '...' }")
    for key in spec:
        if key not in KNOWN_KEYS:
            warnings.append(fail(key, f"ignoring unknown key {key!r} (known: {', '.join(KNOWN_KEYS)})"))
    fields: dict[str, Any] = {"name": name}
    fields["type"], kind = _parameter_type(spec, fail)
    if kind:
        fields["kind"] = kind
    if "enum" in spec:
        fields["enum"] = spec["enum"]
    if not isinstance(description := spec.get("description", ""), str):
        raise fail("description", "'description' must be a string")
    fields["description"] = description
    for flag in ("required", "secret"):
        if flag in spec:
            if not isinstance(spec[flag], bool):
                raise fail(flag, f"'{flag}' must be true or false, not {spec[flag]!r}")
            fields[flag] = spec[flag]
    for bound in ("min", "max"):
        if spec.get(bound) is not None:
            if not _is_number(spec[bound]):
                raise fail(bound, f"'{bound}' must be a number, not {spec[bound]!r}")
            fields[bound] = spec[bound]
    if "items" in spec:
        fields["items"] = _items_type(spec["items"], fail)
    if "default" in spec and not fields.get("required"):
        fields["default"] = spec["default"]
    try:
        return make_parameter(path, line, **fields)
    except DiscoveryError as error:
        raise fail(None, error.reason.removeprefix(f"parameter {name!r}: ")) from None


def _parameter_type(spec: dict[str, Any], fail: _Fail) -> tuple[ParamType, str | None]:
    """The parameter's type, and its kind ("path") if it has one."""
    raw = spec.get("type")
    if raw is None:
        return (_enum_type(spec, fail), None) if "enum" in spec else ("string", None)
    if not isinstance(raw, str):
        raise fail("type", f"'type' must be a string such as 'string', not {raw!r}")
    name = raw.lower()
    if name == "enum":
        if "enum" not in spec:
            raise fail("type", "type 'enum' needs its values: enum: ['a', 'b']")
        return _enum_type(spec, fail), None
    if name == "path":
        return "string", "path"
    if name not in _TYPES:
        raise fail("type", f"unknown type {raw!r} (known: {', '.join(PARAM_TYPES)}, enum, path)")
    return _TYPES[name], None


def _enum_type(spec: dict[str, Any], fail: _Fail) -> ParamType:
    """The type that an enum's values share."""
    values = spec["enum"]
    if not isinstance(values, list) or not values:
        raise fail("enum", "'enum' must be a non-empty list of values: ['a', 'b']")
    if all(isinstance(value, str) for value in values):
        return "string"
    if all(isinstance(value, int) and not isinstance(value, bool) for value in values):
        return "integer"
    if all(_is_number(value) for value in values):
        return "number"
    raise fail("enum", "enum values must all be strings or all numbers")


def _items_type(raw: Any, fail: _Fail) -> ParamType:
    """`items: 'string'` or `items: { type: 'string' }`."""
    if isinstance(raw, dict) and set(raw) == {"type"}:
        raw = raw["type"]
    name = raw.lower() if isinstance(raw, str) else ""
    if name not in _TYPES:
        raise fail("items", f"'items' must be a type name such as 'string' (one of {', '.join(PARAM_TYPES)})")
    return _TYPES[name]


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


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
