"""The one place templates are rendered: jinja2's sandbox, with undefined names an error.

Prompt templates and resource templates are written by users, so they run in the
sandboxed environment: no access to Python internals from a template.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from jinja2 import StrictUndefined, TemplateError
from jinja2.sandbox import SandboxedEnvironment

from toolkiln.errors import ToolkilnError


class RenderError(ToolkilnError):
    """A template that cannot be rendered; the message says where and why."""


@lru_cache(maxsize=1)
def _environment() -> SandboxedEnvironment:
    return SandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=True, autoescape=False)


def render_text(template: str, values: Mapping[str, object], *, source: str = "<template>") -> str:
    try:
        return _environment().from_string(template).render(**values)
    except TemplateError as error:
        line = getattr(error, "lineno", None)
        where = f"{source}:{line}" if line else source
        raise RenderError(f"{where}: {error}") from None
