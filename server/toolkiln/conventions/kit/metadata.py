"""A kit script's name and description: its `// Name:` and `// Description:` comments
(`# Name:` in a shell or Python script), or Script Kit's typed metadata object.

    // Name: Create Note                     export const metadata = {
    // Description: Format a note              name: "Create Note",
                                               description: "Format a note",
                                             }

Comments count only before the schema; the metadata object (`metadata = {...}`, also
`export const metadata: Metadata = {...}`) anywhere in the script. Where both give a
key, the comment wins. Read as text, never run.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from dataclasses import dataclass

from toolkiln.conventions.javascript.object_literal import LiteralError, parse_object_literal
from toolkiln.conventions.naming import MAX_NAME_LENGTH
from toolkiln.errors import DiscoveryError
from toolkiln.vocabulary import TOOL_NAME_PATTERN

logger = logging.getLogger(__name__)

# `// Key: value` or `# Key: value`, before the schema; the first of each key wins.
_COMMENT = re.compile(r"^\s*(?:#|//)\s*(Name|Description)\s*:(.*)$", re.IGNORECASE)
_OBJECT = re.compile(
    r"^[ \t]*(?:export[ \t]+)?(?:(?:const|let|var)[ \t]+)?metadata[ \t]*(?::[^=\n]*)?=[ \t]*(?=\{)",
    re.MULTILINE,
)
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class Field:
    value: str
    line: int


def read_metadata(text: str) -> dict[str, Field]:
    """The `Name` and `Description` comments of `text`, by lower-case key."""
    found: dict[str, Field] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if match := _COMMENT.match(line):
            found.setdefault(match.group(1).lower(), Field(match.group(2).strip(), number))
    return found


def read_metadata_object(text: str) -> dict[str, Field]:
    """The string `name` and `description` of the script's `metadata = {...}` object;
    empty when it has none, or one that is not a plain literal."""
    match = _OBJECT.search(text)
    if match is None:
        return {}
    first_line = text.count("\n", 0, match.start()) + 1
    try:
        metadata = parse_object_literal(text, match.end(), first_line)
    except LiteralError as error:
        logger.debug("its metadata object is not a plain literal (line %d): %s", error.line, error.message)
        return {}
    return {
        key: Field(value.strip(), metadata.line_of((key,)))
        for key in ("name", "description")
        if isinstance(value := metadata.value.get(key), str)
    }


def all_metadata(text: str, schema_start: int | None) -> dict[str, Field]:
    """The comments before the schema, and what they lack from the metadata object."""
    return {**read_metadata_object(text), **read_metadata(text[:schema_start])}


def slug_name(name: str) -> str:
    """`Create Note` -> `create-note`: lower-case ASCII letters and digits joined by `-`
    (at most 64 characters); "" when the name has none."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = _NOT_SLUG.sub("-", ascii_name.lower()).strip("-")
    return slug[:MAX_NAME_LENGTH].rstrip("-")


def name_and_description(
    metadata: dict[str, Field], path: str, *, named: bool = True
) -> tuple[str | None, str]:
    """The Name and Description of a tool, both required (the Name only when `named`:
    a `defineSchema(...)` script without one is named after its path)."""
    name = metadata.get("name")
    if name is None and named:
        raise DiscoveryError(
            "has no `// Name:` (or `# Name:`) comment before its schema, nor a `metadata = { name }`",
            path=path,
        )
    if name is not None and not TOOL_NAME_PATTERN.match(slug_name(name.value)):
        raise DiscoveryError(
            f"the Name {name.value!r} has no letters or digits to make a tool name of "
            "(a kit tool's name is its Name's ASCII letters and digits joined by `-`)",
            path=path,
            line=name.line,
        )
    description = metadata.get("description", Field("", name.line if name else 1))
    if not description.value:
        raise DiscoveryError(
            "needs a `// Description:` (or `# Description:`) comment before its schema, or a "
            "`metadata = { description }`: what the tool does, for the model that calls it",
            path=path,
            line=description.line,
        )
    return (name.value if name else None), description.value
