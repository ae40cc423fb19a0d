"""The one place templates are read and rendered: jinja2's sandbox, undefined names an error.

Prompt templates and resource templates are written by users, so they run in the
sandboxed environment: no access to Python internals from a template. toolkiln's own
HTML pages (the dashboard) are read from a folder of the package and HTML-escaped.
jinja2 is imported on the first render, not when a server starts.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING

from toolkiln.errors import ToolkilnError

if TYPE_CHECKING:
    from pathlib import Path

    from jinja2 import Environment
    from jinja2.sandbox import SandboxedEnvironment

FENCE = "---"


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


@lru_cache(maxsize=1)
def _environment() -> SandboxedEnvironment:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    return SandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=True, autoescape=False)


def render_text(template: str, values: Mapping[str, object], *, source: str = "<template>") -> str:
    from jinja2 import TemplateError

    try:
        return _environment().from_string(template).render(**values)
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
