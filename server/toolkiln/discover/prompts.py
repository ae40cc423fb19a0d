"""Prompts: jinja2 templates under `prompts/` with a small front matter.

    ---
    title: Code review
    description: Review a piece of code for bugs and style
    @param code: The code to review (required: true)
    @param language: Its language (enum: python|rust|go, default: python)
    ---
    Please review this {{ language }} code:
    {{ code }}

The front matter uses the `@param` grammar of the annotations dialect; prompt
arguments are strings (MCP's rule), optionally limited to an enum. `@ask` lines, in
the same grammar, are values the server asks the user for (one elicitation form)
each time the prompt is got, rendered like arguments. The body is
rendered by the server, in jinja2's sandbox, when a client asks for the prompt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from toolkiln.conventions.annotations.read import parse_param_line
from toolkiln.errors import DiscoveryError
from toolkiln.render import FrontMatterError, split_front_matter

if TYPE_CHECKING:
    from toolkiln.model import Parameter

SUFFIXES = {".md", ".j2", ".jinja", ".jinja2", ".txt", ".prompt"}
# (`(?:.*\S)?\s*$`, not `(.*?)\s*$`, which tried a long run of blanks again at each character)
_FIELD = re.compile(r"^(title|description)\s*:\s*+((?:.*\S)?)\s*$", re.IGNORECASE)
_PARAM = re.compile(r"^@(param|ask)\b\s*(.*)$", re.IGNORECASE)
# What an elicitation form can ask (MCP allows only flat, primitive fields).
_ASKABLE = ("string", "integer", "number", "boolean")


@dataclass(frozen=True)
class PromptDeclaration:
    description: str = ""
    title: str | None = None
    arguments: list[Parameter] = field(default_factory=list)
    asks: list[Parameter] = field(default_factory=list)


def parse_prompt(text: str, path: str) -> PromptDeclaration:
    try:
        front, _, _ = split_front_matter(text)
    except FrontMatterError as error:
        raise DiscoveryError(str(error), path=path, line=error.line) from None
    fields: dict[str, str] = {}
    arguments: list[Parameter] = []
    asks: list[Parameter] = []
    for number, raw in enumerate(front, start=2):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if match := _FIELD.match(line):
            fields[match.group(1).lower()] = match.group(2)
        elif match := _PARAM.match(line):
            asked = match.group(1).lower() == "ask"
            value = parse_param_line(match.group(2), path, number)
            if not asked and value.type != "string":
                raise DiscoveryError(
                    f"prompt argument {value.name!r} is a {value.type}; prompt arguments are strings",
                    path=path,
                    line=number,
                )
            if asked and value.type not in _ASKABLE:
                raise DiscoveryError(
                    f"@ask {value.name!r} is a {value.type}; the user can be asked for {', '.join(_ASKABLE)}",
                    path=path,
                    line=number,
                )
            if any(existing.name == value.name for existing in [*arguments, *asks]):
                raise DiscoveryError(f"{value.name!r} is declared twice", path=path, line=number)
            (asks if asked else arguments).append(value)
        else:
            raise DiscoveryError(
                "expected `title:`, `description:`, `@param name: ...` or `@ask name: ...` "
                f"in the front matter, got {line!r}",
                path=path,
                line=number,
            )
    return PromptDeclaration(fields.get("description", ""), fields.get("title") or None, arguments, asks)
