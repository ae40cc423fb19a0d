"""The help-json dialect (seeds/000): an executable that describes itself when run
with `--help`: metadata JSON on stdout, options JSON on stderr, exit status 0.

    stdout: {"description": "Adds two numbers", "title": "Add", "version": "1.0", "state": false}
    stderr: {"a": {"description": "First", "required": true, "value_type": "integer",
                   "size": {"min": 0, "max": 100}}}

The newer key spellings `type` and `default` are accepted beside `value_type` and
`default_value`. Metadata may instead give a whole JSON Schema as `input_schema`
(for what the options cannot say: `$defs`, `allOf`, `if`/`then`); clients get it as
it is, and arguments are checked against it. The probe runs confined (`probe.py`), with stdin
closed, a timeout and an output cap. A file the user opted in to the fallback whose
`--help` answers in plain text is handed to `fallback.py` with that same answer.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from toolkiln.conventions.base import Candidate, Declaration, NotATool, Probe, make_parameter
from toolkiln.conventions.fallback import read as fallback
from toolkiln.conventions.start_failure import start_failure
from toolkiln.discover.probe import run_probe
from toolkiln.errors import DiscoveryError, ProcessStartError
from toolkiln.files import locate_key
from toolkiln.vocabulary import ParamType

if TYPE_CHECKING:
    from toolkiln.model import Parameter
    from toolkiln.process import ProcessResult


PROBE_OUTPUT_LIMIT = 1024 * 1024
VALUE_TYPES: dict[str, ParamType] = {
    "string": "string", "integer": "integer", "float": "number", "number": "number",
    "boolean": "boolean", "any": "any", "array": "array", "object": "object",
}  # fmt: skip
OPTION_KEYS = {"description", "required", "value_type", "type", "default_value", "default", "size", "secret"}
# Scripts written for mcpd run optional booleans as false and optional `any` as null
# when no default is given; every other optional option must declare its default.
_IMPLICIT_DEFAULT_TYPES = ("boolean", "any")
_NOT_SCRIPTS = {".json", ".md", ".txt", ".toml", ".yaml", ".yml", ".cfg", ".ini", ".lock", ".pyc", ".csv"}


CLAIM_IS_CERTAIN = False  # only the `--help` probe can tell


def claims(candidate: Candidate) -> bool:
    """Any executable file (data files aside): only the probe can tell more."""
    return candidate.executable and candidate.path.suffix.lower() not in _NOT_SCRIPTS


async def declare(candidate: Candidate, probe: Probe) -> list[Declaration]:
    path = candidate.relative_path
    try:
        result = await run_probe(candidate, ["--help"], probe, PROBE_OUTPUT_LIMIT)
    except ProcessStartError as error:
        raise start_failure(candidate, error) from None
    speaks_json = result.stdout.lstrip().startswith(b"{")
    if fallback.opted_in(candidate) and (result.timed_out or not speaks_json):
        return [fallback.declare_from_help(candidate, result, probe.timeout)]  # plain text: opted in
    if result.stdout_truncated or result.stderr_total > len(result.stderr_tail):
        if not speaks_json:
            raise NotATool("`--help` printed a flood of plain text, not JSON", kind="plain-help")
        raise DiscoveryError(f"`--help` printed more than {PROBE_OUTPUT_LIMIT} bytes", path=path)
    if result.timed_out:
        raise NotATool(
            f"`--help` did not finish within {probe.timeout:g} s (a help-json script answers "
            "`--help` at once); it is not asked again until the file changes "
            "(`toolkiln discover --force` asks again)",
            kind="help-timeout",
        )
    metadata = _metadata(result.stdout_text, path) if speaks_json else None
    if metadata is None and not speaks_json:
        return [_declare_plain_help(candidate, result)]
    if metadata is None:
        raise _not_help_json(result.stdout_text, result.stderr_text, result.returncode)
    if result.returncode != 0:  # it speaks the protocol, and says it failed
        raise DiscoveryError(
            f"`--help` printed its metadata but exited {result.returncode}; it must exit 0", path=path
        )
    return [parse_help(metadata, result.stderr_text, path)]


def parse_help(metadata: dict[str, Any], options_text: str, path: str) -> Declaration:
    """Turn the two JSON documents of a `--help` answer into a declaration (a whole
    `input_schema` in the metadata stands for the options, which are then not read)."""
    warnings: list[DiscoveryError] = []
    input_schema = metadata.get("input_schema")
    if input_schema is not None:
        parameters = _parameters_of_schema(input_schema, path)
    else:
        parameters = _parameters_of_options(options_text, path, warnings)
    title = metadata.get("title")
    version = metadata.get("version")
    state = metadata.get("state", False)
    if not isinstance(state, bool):
        raise DiscoveryError(f"metadata 'state' must be true or false, not {state!r}", path=path)
    return Declaration(
        dialect="help-json",
        description=metadata["description"],
        parameters=parameters,
        title=title if isinstance(title, str) and title else None,
        version=str(version) if version not in (None, "") else None,
        state=state,
        input_schema=input_schema,
        warnings=warnings,
    )


def _parameters_of_options(options_text: str, path: str, warnings: list[DiscoveryError]) -> list[Parameter]:
    options, skipped = _parse_options_json(options_text, path)
    json_text = "\n".join(options_text.splitlines()[skipped:])
    parameters = []
    for name, spec in options.items():
        line = locate_key(json_text, (name,))
        parameters.append(_parse_option(name, spec, path, line and line + skipped, warnings))
    return parameters


def _parameters_of_schema(schema: Any, path: str) -> list[Parameter]:
    """The parameters of a whole JSON Schema given as `input_schema`: its top-level
    properties, for the env vars and stdin the script gets; the schema itself is what
    clients see and what arguments are checked against."""
    from jsonschema import Draft202012Validator, SchemaError  # only for the few tools that need it

    if not (isinstance(schema, dict) and schema.get("type") == "object"):
        raise DiscoveryError("metadata 'input_schema' must be a JSON Schema of type object", path=path)
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        where = "/".join(str(part) for part in error.absolute_path) or "the top"
        raise DiscoveryError(
            f"metadata 'input_schema' is not a valid JSON Schema at {where}: {error.message}", path=path
        ) from None
    required = schema.get("required") or []
    return [
        make_parameter(
            path,
            None,
            name=name,
            type=VALUE_TYPES.get(str(spec.get("type")), "any") if isinstance(spec, dict) else "any",
            description=str(spec.get("description", "")) if isinstance(spec, dict) else "",
            required=name in required,
        )
        for name, spec in (schema.get("properties") or {}).items()
    ]


class _DuplicateKeyError(ValueError):
    pass


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    for key in keys:
        if keys.count(key) > 1:
            raise _DuplicateKeyError(repr(key))
    return dict(pairs)


_STRICT_DECODER = json.JSONDecoder(object_pairs_hook=_reject_duplicates)


def _metadata(stdout: str, path: str) -> dict[str, Any] | None:
    """The metadata object a `--help` that starts with `{` printed; a `DiscoveryError` with
    the parse error when it is not JSON (a script that means to speak help-json, and
    fails), None when it is JSON but not metadata."""
    try:
        value = json.loads(stdout)
    except json.JSONDecodeError as error:
        raise DiscoveryError(
            f"`--help` printed invalid JSON on stdout: {error.msg} (stdout line {error.lineno}, "
            f"column {error.colno})",
            path=path,
        ) from None
    if isinstance(value, dict) and isinstance(value.get("description"), str):
        return value
    return None


def _declare_plain_help(candidate: Candidate, result: ProcessResult) -> Declaration:
    """Plain-text help that is the program's own and names every argument is a tool
    (conventions/usage/from_help.py: argparse, optparse, getopt, a `usage()` text); any
    other plain answer is not, with help-json's reason and why the text could not serve."""
    from toolkiln.conventions.usage.from_help import declare_from_help  # only for plain answers

    try:
        return declare_from_help(candidate, result)
    except NotATool as why:
        reason = _not_help_json(result.stdout_text, result.stderr_text, result.returncode)
        if why.reason.startswith("answers `--help` with plain text toolkiln cannot serve: "):
            detail = why.reason.split(": ", 1)[1]
            raise NotATool(
                f"{reason.reason} (and not help toolkiln can serve: {detail})", kind=reason.kind
            ) from None
        raise reason from None


def _not_help_json(stdout: str, stderr: str, returncode: int | None) -> NotATool:
    """Why a `--help` answer is not help-json: plain text, or a failure."""
    if stdout.lstrip().startswith("{"):
        return NotATool('`--help` printed JSON with no "description" string', kind="no-declaration")
    if stdout.strip() and returncode == 0:
        return NotATool("answers `--help` with plain text, not toolkiln's JSON", kind="plain-help")
    if stdout.strip() or stderr.strip():  # usage text on stderr and a status 1 or 2, as many tools do
        return NotATool(
            f"answers `--help` with plain text (exit status {returncode}), not toolkiln's JSON",
            kind="plain-help",
        )
    return NotATool(f"`--help` printed nothing (exit status {returncode})", kind="help-failed")


def _parse_options_json(text: str, path: str) -> tuple[dict[str, Any], int]:
    """The options object, and how many log lines before it were skipped."""
    stripped = text.strip()
    if not stripped:
        return {}, 0
    # Tolerate log lines a script printed before its options JSON.
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if line.lstrip().startswith("{")), 0)
    try:
        # Log lines after the JSON are tolerated too: raw_decode stops at its end.
        options, _ = _STRICT_DECODER.raw_decode("\n".join(lines[first:]))
    except json.JSONDecodeError as error:
        raise DiscoveryError(
            f"the options JSON that `--help` printed on stderr is invalid: {error.msg} "
            f"(stderr line {first + error.lineno}, column {error.colno})",
            path=path,
        ) from None
    except _DuplicateKeyError as error:
        raise DiscoveryError(f"the options JSON on stderr names {error} twice", path=path) from None
    if not isinstance(options, dict) or not all(isinstance(spec, dict) for spec in options.values()):
        raise DiscoveryError(
            "the options `--help` printed on stderr must be a JSON object of objects: "
            '{"name": {"description": ..., "value_type": ...}}',
            path=path,
        )
    return options, first


def _parse_option(
    name: str, spec: dict[str, Any], path: str, line: int | None, warnings: list[DiscoveryError]
) -> Parameter:
    # `line` counts lines of the probe's stderr, not of the script: it goes in the
    # message, never in `path:line`, which would send the user to the wrong place.
    where = f"option {name!r}" + (f" (stderr line {line})" if line else "")

    def fail(message: str) -> DiscoveryError:
        return DiscoveryError(f"{where}: {message}", path=path)

    unknown = sorted(set(spec) - OPTION_KEYS)
    if unknown:
        warnings.append(fail(f"ignoring unknown keys {unknown} (known: {sorted(OPTION_KEYS)})"))
    raw_type = spec.get("value_type", spec.get("type", "string"))
    param_type, enum = _parse_value_type(raw_type, fail)
    flags = {flag: spec.get(flag, False) for flag in ("required", "secret")}
    for flag, value in flags.items():
        if not isinstance(value, bool):
            raise fail(f"'{flag}' must be true or false, not {value!r}")
    required = flags["required"]
    fields: dict[str, Any] = {
        "name": name,
        "type": param_type,
        "description": spec.get("description", ""),
        "enum": enum,
        "kind": "path" if raw_type == "path" else None,
        **flags,
    }
    if not isinstance(fields["description"], str):
        raise fail("'description' must be a string")
    default = spec.get("default_value", spec.get("default"))
    if not required:
        if default is None and param_type not in _IMPLICIT_DEFAULT_TYPES:
            raise fail(
                "an optional option needs a 'default_value' of its type "
                '(docs/dialects.md, "The help-json dialect")'
            )
        fields["default"] = False if default is None and param_type == "boolean" else default
    size = spec.get("size")
    if size is not None:
        if not isinstance(size, dict) or set(size) - {"min", "max"}:
            raise fail("'size' must be an object with 'min' and/or 'max'")
        fields["min"], fields["max"] = size.get("min"), size.get("max")
    try:
        return make_parameter(path, None, **fields)
    except DiscoveryError as error:
        raise fail(error.reason.removeprefix(f"parameter {name!r}: ")) from None


def _parse_value_type(raw: Any, fail: Any) -> tuple[ParamType, list[Any] | None]:
    if isinstance(raw, dict) and set(raw) == {"enum"}:
        values = raw["enum"]
        if not isinstance(values, list) or not values:
            raise fail('an enum value_type needs a non-empty list: {"enum": ["a", "b"]}')
        if all(isinstance(v, str) for v in values):
            return "string", values
        if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            return "integer", values
        if all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            return "number", values
        raise fail("enum values must all be strings or all numbers")
    if isinstance(raw, str) and raw.lower() in VALUE_TYPES:
        return VALUE_TYPES[raw.lower()], None
    if raw == "path":
        return "string", None
    raise fail(f'unknown value_type {raw!r} (known: {", ".join(VALUE_TYPES)}, path, or {{"enum": [...]}})')
