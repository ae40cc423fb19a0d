"""The one place templates are read and rendered: jinja2's sandbox, undefined names an error.

Prompt templates and resource templates are written by users, so they run in the
sandboxed environment: no access to Python internals from a template. Their values
come from the client, so where the output is structured they are escaped: in a JSON
body (`escape="json"`) every `{{ ... }}` becomes the inside of a JSON string (a value
can never close a string or add a key; `tojson` gives a whole JSON value), in HTML or
XML (`escape="markup"`) it is HTML-escaped. toolkiln's own HTML pages (the dashboard)
are read from a folder of the package and HTML-escaped. jinja2 is imported on the
first render, not when a server starts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from toolkiln.errors import ToolkilnError

if TYPE_CHECKING:
    from pathlib import Path

    from jinja2 import Environment
    from jinja2.sandbox import SandboxedEnvironment

FENCE = "---"
Escape = Literal["json", "markup"] | None
# Whitespace, jinja comments and tags before a body's first character of its own.
_LEADING_JINJA = re.compile(r"(?:\s|\{#.*?#\}|\{%.*?%\})*", re.DOTALL)
_MARKUP_TYPES = frozenset({"text/html", "text/xml", "application/xml", "application/xhtml+xml"})


class RenderError(ToolkilnError):
    """A template that cannot be rendered; the message says where and why."""


class FrontMatterError(ToolkilnError):
    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def split_front_matter(text: str) -> tuple[list[str], str, int]:
    """(front matter lines, body, the body's first line number); none: ([], text, 1).

    Front matter is the block between a first line `---` and the next `---`.
    """
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != FENCE:
        return [], text, 1
    for index, line in enumerate(lines[1:], start=1):
        if line.strip() == FENCE:
            return [raw.rstrip("\n") for raw in lines[1:index]], "".join(lines[index + 1 :]), index + 2
    raise FrontMatterError("the front matter opened with --- is never closed by ---", line=1)


def is_json_template(template: str) -> bool:
    """Whether a template's own text (not what values make of it) is a JSON object: its
    first character after whitespace and jinja comments and tags is `{`."""
    match = _LEADING_JINJA.match(template)
    rest = template[match.end() if match else 0 :]
    return rest.startswith("{") and not rest.startswith(("{{", "{%", "{#"))


def escape_for(mime_type: str | None) -> Escape:
    """How values rendered into a file of this MIME type are escaped."""
    base = (mime_type or "").split(";")[0].strip().lower()
    if base in ("application/json", "text/json") or base.endswith("+json"):
        return "json"
    if base in _MARKUP_TYPES or base.endswith("+xml"):
        return "markup"
    return None


class _JsonValue(str):
    """`tojson`'s output in a JSON body: a whole JSON value, left as it is."""


def _json_value(value: object, indent: int | None = None) -> _JsonValue:
    return _JsonValue(json.dumps(value, ensure_ascii=False, indent=indent))


def _inside_json_string(value: object) -> object:
    """Every `{{ ... }}` of a JSON body, as the inside of a JSON string."""
    if isinstance(value, _JsonValue):
        return value
    return json.dumps(str(value), ensure_ascii=False)[1:-1]


@lru_cache(maxsize=3)
def _environment(escape: Escape = None) -> SandboxedEnvironment:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    environment = SandboxedEnvironment(
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        autoescape=escape == "markup",
        finalize=_inside_json_string if escape == "json" else None,
    )
    if escape == "json":
        environment.filters["tojson"] = _json_value
    return environment


def render_text(
    template: str, values: Mapping[str, object], *, source: str = "<template>", escape: Escape = None
) -> str:
    """`template` rendered with `values`, escaped for its kind of output (see `escape_for`)."""
    from jinja2 import TemplateError

    try:
        return _environment(escape).from_string(template).render(**values)
    except TemplateError as error:
        line = getattr(error, "lineno", None)
        where = f"{source}:{line}" if line else source
        raise RenderError(f"{where}: {error}") from None


@lru_cache(maxsize=4)
def _page_environment(folder: Path) -> Environment:
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    return Environment(
        loader=FileSystemLoader(folder),
        undefined=StrictUndefined,
        autoescape=True,  # every value is HTML-escaped unless a template says otherwise
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render_page(folder: Path, name: str, values: Mapping[str, object]) -> str:
    """toolkiln's own HTML template `name` from `folder`, every value escaped."""
    return _page_environment(folder).get_template(name).render(**values)
