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
from toolkiln.conventions.help_json.options import VALUE_TYPES, parameters_of_options
from toolkiln.conventions.start_failure import start_failure
from toolkiln.discover.probe import run_probe
from toolkiln.errors import DiscoveryError, ProcessStartError

if TYPE_CHECKING:
    from toolkiln.model import Parameter
    from toolkiln.process import ProcessResult


PROBE_OUTPUT_LIMIT = 1024 * 1024
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
        parameters = parameters_of_options(options_text, path, warnings)
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
