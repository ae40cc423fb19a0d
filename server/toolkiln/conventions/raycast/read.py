"""Raycast script commands (raycast/script-commands): metadata in comments at the top.

    #!/bin/bash
    # @raycast.schemaVersion 1
    # @raycast.title Search Flights
    # @raycast.mode silent
    # @raycast.description Opens a flight search
    # @raycast.argument1 { "type": "text", "placeholder": "from city", "percentEncoded": true }
    # @raycast.argument2 { "type": "dropdown", "placeholder": "Class", "optional": true,
    #                      "data": [{"title": "Economy", "value": "eco"}] }   (one line in a script)

Comments start with `#`, `//` or `--` (AppleScript, Lua); field names are read in any
case, the first of each wins. Each `argumentN` is a parameter named after its
placeholder (or `argumentN`); `password` (and the older `secure: true`) is a secret;
`dropdown` an enum of its `data` values; an argument is required unless `optional`.
They reach the script as Raycast gives them: `$1 $2 $3` in order, "" for an optional
one left out, percent-encoded when `percentEncoded` (`conventions/raycast/argv.py`). Read as text.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolkiln.conventions.base import Candidate, Declaration, NotATool, Probe, make_parameter
from toolkiln.errors import DiscoveryError
from toolkiln.interpreters import INTERPRETERS, find_interpreter
from toolkiln.vocabulary import PARAM_NAME_PATTERN, sensitive_env_reason

if TYPE_CHECKING:
    from toolkiln.model import Parameter

CLAIM_IS_CERTAIN = True

_FIELD = re.compile(r"^[ \t]*(?:#|//|--)[ \t]*@raycast\.([A-Za-z0-9]+)[ \t]*(.*)$", re.MULTILINE)
_ARGUMENT = re.compile(r"argument(\d+)")
_ARGUMENT_TYPES = ("text", "password", "dropdown")
# Programs that exist only on macOS: a script for them is read, and said not to run here.
_MACOS_ONLY = ("osascript", "swift", "shortcuts")
_MACOS_SUFFIXES = {".applescript": "osascript", ".scpt": "osascript", ".swift": "swift"}


@dataclass(frozen=True)
class _Field:
    value: str
    line: int


def claims(candidate: Candidate) -> bool:
    """A file whose head has `@raycast.title` or `@raycast.schemaVersion` in a comment."""
    head = candidate.head
    if "@raycast." not in head:
        return False
    return any(match.group(1).lower() in ("title", "schemaversion") for match in _FIELD.finditer(head))


async def declare(candidate: Candidate, probe: Probe) -> list[Declaration]:
    path = candidate.relative_path
    fields = read_fields(candidate.head)
    if ".template." in candidate.path.name:
        raise NotATool(
            "a Raycast template: set the values it asks for, then remove `.template.` from its name "
            "(Raycast does not run templates either)",
            kind="raycast-template",
        )
    version = fields.get("schemaversion")
    if version is not None and version.value != "1":
        raise NotATool(
            f"Raycast schemaVersion {version.value!r}: only version 1 is known", kind="unsupported"
        )
    title = fields.get("title")
    if title is None or not title.value:
        raise DiscoveryError(
            "a Raycast script command needs `@raycast.title` (and schemaVersion, mode)",
            path=path,
            line=title.line if title else None,
        )
    problem = runtime_problem(candidate)
    if problem is not None:
        raise NotATool(problem, kind="runtime-missing")
    warnings = []
    if "mode" not in fields:
        warnings.append(
            DiscoveryError("has no `@raycast.mode` (Raycast needs one); served all the same", path=path)
        )
    _check_argument_numbers(candidate.head, path)
    described = fields.get("description")
    return [
        Declaration(
            dialect="raycast",
            description=described.value if described and described.value else title.value,
            parameters=_parameters(fields, path),
            title=title.value,
            warnings=warnings,
            # Raycast asks before running such a command; toolkiln asks the client's user.
            settings={"requires_confirmation": True} if _is_true(fields.get("needsconfirmation")) else {},
        )
    ]


def _is_true(field: _Field | None) -> bool:
    return field is not None and field.value.lower() == "true"


def read_fields(text: str) -> dict[str, _Field]:
    """Each `@raycast.<name> value` of the text, by lowercased name; the first one wins."""
    fields: dict[str, _Field] = {}
    for match in _FIELD.finditer(text):
        name = match.group(1).lower()
        if name not in fields:
            line = text.count("\n", 0, match.start()) + 1
            fields[name] = _Field(match.group(2).strip(), line)
    return fields


def runtime_problem(candidate: Candidate) -> str | None:
    """Why the script cannot run here (its interpreter is missing), or None."""
    first = candidate.head.split("\n", 1)[0].strip()
    if first.startswith("#!"):
        words = first[2:].split()
        if not words:
            return None
        program = words[0]
        if program.endswith("/env"):
            rest = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
            program = rest[0] if rest else program
            found = shutil.which(program) is not None
        else:
            found = os.access(program, os.X_OK)
        if not found:
            return _missing(os.path.basename(program), f"its #! line names {program}")
        if candidate.executable or candidate.path.suffix.lower() in INTERPRETERS:
            return None
        return "is not executable and its extension names no interpreter: `chmod +x` it"
    suffix = candidate.path.suffix.lower()
    if suffix in _MACOS_SUFFIXES:
        return _missing(_MACOS_SUFFIXES[suffix], f"a {suffix} script")
    if suffix in INTERPRETERS and find_interpreter(candidate.path) is None:
        return _missing(INTERPRETERS[suffix][0][0], f"a {suffix} script")
    if suffix not in INTERPRETERS:
        return "has no #! line, so nothing here knows what runs it: add one (#!/bin/bash)"
    return None


def _missing(program: str, what: str) -> str:
    macos = " (a macOS program)" if program in _MACOS_ONLY else ""
    return f"needs {program}{macos}, which is not installed here ({what}); it cannot run as a tool"


def _check_argument_numbers(text: str, path: str) -> None:
    """Each `argumentN` once, and numbered 1, 2, 3 without a gap: the values reach the
    script by position (`$1 $2 $3`), so a second `argument2` (whose parameter would be
    dropped) or an `argument3` without `argument2` (whose value would arrive as `$2`) would
    serve a tool that gets its arguments wrong."""
    seen: dict[int, _Field] = {}
    for match in _FIELD.finditer(text):
        number = _ARGUMENT.fullmatch(match.group(1).lower())
        if number is None:
            continue
        key = int(number.group(1))
        field = _Field(match.group(2).strip(), text.count("\n", 0, match.start()) + 1)
        if key in seen and seen[key].value != field.value:
            raise DiscoveryError(
                f"`@raycast.argument{key}` is declared twice, with different values (first on "
                f"line {seen[key].line}): give each argument its own number, in the order the "
                "script reads them ($1 $2 $3)",
                path=path,
                line=field.line,
            )
        seen.setdefault(key, field)
    for key, field in sorted(seen.items()):
        if key > 1 and key - 1 not in seen:
            raise DiscoveryError(
                f"`@raycast.argument{key}` without `@raycast.argument{key - 1}`: the arguments "
                f"reach the script in order ($1 $2 $3), so its value would arrive as ${key - 1}; "
                "number them 1, 2, 3 without a gap",
                path=path,
                line=field.line,
            )


def _parameters(fields: dict[str, _Field], path: str) -> list[Parameter]:
    numbered = sorted(
        (int(match.group(1)), field) for name, field in fields.items() if (match := _ARGUMENT.fullmatch(name))
    )
    taken: set[str] = set()
    parameters = []
    for number, field in numbered:
        spec = _argument_spec(number, field, path)
        name = _parameter_name(spec.get("placeholder"), number, taken)
        taken.add(name)
        parameters.append(_parameter(name, number, spec, field.line, path))
    return parameters


def _argument_spec(number: int, field: _Field, path: str) -> dict[str, Any]:
    try:
        spec = json.loads(field.value)
    except json.JSONDecodeError as error:
        raise DiscoveryError(
            f"`@raycast.argument{number}` is not valid JSON: {error.msg} (column {error.colno}); "
            'it should read { "type": "text", "placeholder": "Query" }',
            path=path,
            line=field.line,
        ) from None
    if not isinstance(spec, dict):
        raise DiscoveryError(f"`@raycast.argument{number}` must be a JSON object", path=path, line=field.line)
    return spec


def _parameter(name: str, number: int, spec: dict[str, Any], line: int, path: str) -> Parameter:
    where = f"`@raycast.argument{number}`"
    kind = spec.get("type", "text")
    if kind not in _ARGUMENT_TYPES:
        raise DiscoveryError(
            f"{where}: unknown type {kind!r} (Raycast knows {', '.join(_ARGUMENT_TYPES)})",
            path=path,
            line=line,
        )
    for flag in ("optional", "percentEncoded", "secure"):
        if not isinstance(spec.get(flag, False), bool):
            raise DiscoveryError(f"{where}: {flag!r} must be true or false", path=path, line=line)
    placeholder = spec.get("placeholder")
    description = placeholder.strip() if isinstance(placeholder, str) else ""
    enum = None
    if kind == "dropdown":
        enum, choices = _dropdown(spec.get("data"), where, path, line)
        description = f"{description} ({choices})" if description else choices
    required = not spec.get("optional", False)
    return make_parameter(
        path,
        line,
        name=name,
        type="string",
        description=description,
        required=required,
        # Raycast runs no script with a required argument left empty.
        min=1 if required and enum is None else None,
        enum=enum,
        secret=kind == "password" or spec.get("secure", False),
        encoding="percent" if spec.get("percentEncoded", False) else None,
    )


def _dropdown(data: Any, where: str, path: str, line: int) -> tuple[list[str], str]:
    """The values of a dropdown's `data`, and how to read them ("Title = value, ...")."""
    if not isinstance(data, list) or not data:
        raise DiscoveryError(
            f'{where}: a dropdown needs "data": [{{"title": "...", "value": "..."}}, ...]',
            path=path,
            line=line,
        )
    values, shown = [], []
    for item in data:
        value = item.get("value") if isinstance(item, dict) else None
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise DiscoveryError(f"{where}: each dropdown item needs a string 'value'", path=path, line=line)
        value = str(value)
        title = item.get("title")
        values.append(value)
        shown.append(f"{title} = {value}" if isinstance(title, str) and title and title != value else value)
    return values, "one of: " + ", ".join(shown)


def _parameter_name(placeholder: Any, number: int, taken: set[str]) -> str:
    """The placeholder as a name (`"from city"` -> `from_city`), without the example or
    format that often follows it (`"Color (e.g. #FFEEFF)"` -> `color`, `"Intensity=5"` ->
    `intensity`: the description keeps them); else the whole placeholder; else `argumentN`."""
    fallback = f"argument{number}"
    text = placeholder if isinstance(placeholder, str) else ""
    for candidate in (_EXAMPLE.sub("", text), text):
        name = _slug(candidate)
        if PARAM_NAME_PATTERN.match(name) and not sensitive_env_reason(name) and name not in taken:
            return name
    while fallback in taken:  # a placeholder took `argumentN` itself
        fallback += "_"
    return fallback


# What follows the words of a placeholder: `(e.g. ...)`, `[...]`, `=default`, `: example`.
_EXAMPLE = re.compile(r"(?<!\s)\s*(?:\(.*|\[.*|=.*|:\s.*)$", re.DOTALL)


def _slug(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text.casefold()).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", ascii_text).strip("_")[:64]
