"""A declaration's words made visible before they are stored: a description, title,
parameter description or example, or a description or title in a whole JSON Schema,
that holds characters nobody can see (`toolkiln.invisible`) is stored with each one
escaped (`\\u200b`), and discovery warns, naming the file and the line of the first.

The review of `config/tools/*.json` before a build, and `discover --list`, then show
what the model will read in `tools/list`: an instruction spelled in Unicode tag
characters reads `\\U000e0049\\U000e0067...`, not nothing.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from toolkiln.conventions.base import Candidate, Declaration
from toolkiln.errors import DiscoveryError
from toolkiln.invisible import describe_invisible, escape_invisible, has_invisible, invisible_positions

_SCHEMA_WORDS = ("description", "title")


def visible_declaration(declaration: Declaration, candidate: Candidate) -> Declaration:
    """The declaration with its words escaped where they hold invisible characters, and
    a warning that says so; the declaration itself when they hold none.

    Values are not words: an escaped enum value, default or property name would be
    another value, so a declaration whose values hold such characters is refused
    (`DiscoveryError`)."""
    hidden_values = [v for v in _values(declaration) if has_invisible(v)]
    if hidden_values:
        raise DiscoveryError(
            f"a parameter's name, choices or default hold characters nobody can see "
            f"({describe_invisible(''.join(hidden_values))}): the model would read values the "
            "reviewer cannot see; remove them from the script",
            path=candidate.relative_path,
            line=_first_line(candidate.head),
        )
    found: list[str] = []

    def clean(text: str) -> str:
        if has_invisible(text):
            found.append(text)
            return escape_invisible(text)
        return text

    description, title = clean(declaration.description), declaration.title and clean(declaration.title)
    parameters = []
    for parameter in declaration.parameters:
        update: dict[str, Any] = {"description": clean(parameter.description)}
        if parameter.examples:
            update["examples"] = [clean(e) if isinstance(e, str) else e for e in parameter.examples]
        parameters.append(parameter.model_copy(update=update))
    cleaned = dataclasses.replace(
        declaration,
        description=description,
        title=title,
        parameters=parameters,
        input_schema=_clean_schema(declaration.input_schema, clean),
    )
    if not found:
        return declaration
    named = describe_invisible("".join(found))
    warning = DiscoveryError(
        f"its description or parameters hold characters nobody can see ({named}); "
        "they are kept escaped (`\\u200b`), so that the model reads no words the reviewer cannot "
        "see: remove them from the script",
        path=candidate.relative_path,
        line=_first_line(candidate.head),
    )
    return dataclasses.replace(cleaned, warnings=[*cleaned.warnings, warning])


def _values(declaration: Declaration) -> list[str]:
    """The strings of a declaration that are values, not words: parameter names, enum
    choices and defaults, and the same in a whole JSON Schema (property names, `enum`,
    `const`, `default`)."""
    values: list[str] = []
    for parameter in declaration.parameters:
        values += [parameter.name, *(v for v in parameter.enum or () if isinstance(v, str))]
        values += [parameter.default] if isinstance(parameter.default, str) else []
    pending: list[Any] = [declaration.input_schema]
    while pending:
        schema = pending.pop()
        if isinstance(schema, list):
            pending += schema
        elif isinstance(schema, dict):
            for key, value in schema.items():
                if key in ("enum", "const", "default"):
                    values += [
                        s for s in (value if isinstance(value, list) else [value]) if isinstance(s, str)
                    ]
                elif key == "properties" and isinstance(value, dict):
                    values += [name for name in value if isinstance(name, str)]
                    pending += value.values()
                else:
                    pending.append(value)
    return values


def _clean_schema(schema: Any, clean: Any) -> Any:
    """A JSON Schema with each `description` and `title` string cleaned, at any depth."""
    if isinstance(schema, dict):
        return {
            key: clean(value)
            if key in _SCHEMA_WORDS and isinstance(value, str)
            else _clean_schema(value, clean)
            for key, value in schema.items()
        }
    if isinstance(schema, list):
        return [_clean_schema(item, clean) for item in schema]
    return schema


def _first_line(head: str) -> int | None:
    """The line of the script's first invisible character, when it is in the file's head
    (a description from `--help` output has no line in the script)."""
    positions = invisible_positions(head)
    return head.count("\n", 0, positions[0]) + 1 if positions else None
