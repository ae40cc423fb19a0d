"""`toolkiln call` on a terminal: an interactive tool's questions asked there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio.to_thread
import click

from toolkiln.runner import LoggingObserver


class TerminalObserver(LoggingObserver):
    """An interactive tool's questions, asked on the terminal: a form field by field,
    roots as the working directory. There is no model here to sample."""

    async def on_input(self, tool: str, requests: dict[str, dict[str, Any]]) -> dict[str, Any]:
        answers: dict[str, Any] = {}
        for key, request in requests.items():
            params = request.get("params") or {}
            if request["method"] == "elicitation/create":
                answers[key] = await anyio.to_thread.run_sync(_ask_form, tool, params)
            elif request["method"] == "roots/list":
                answers[key] = {"roots": [{"uri": Path.cwd().as_uri(), "name": Path.cwd().name}]}
            else:
                answers[key] = {"error": f"toolkiln call cannot answer {request['method']}: it has no model"}
        return answers


_PROMPT_TYPES: dict[str, click.ParamType[Any, Any]] = {
    "integer": click.INT,
    "number": click.FLOAT,
    "boolean": click.BOOL,
}


def _ask_form(tool: str, params: dict[str, Any]) -> dict[str, Any]:
    click.echo(f"{tool} asks: {params.get('message', '')}", err=True)
    schema = params.get("requestedSchema") or {}
    required = set(schema.get("required") or [])
    content: dict[str, Any] = {}
    try:
        for field, spec in (schema.get("properties") or {}).items():
            label = spec.get("title") or spec.get("description") or field
            default = spec.get("default", None if field in required else "")
            choices = spec.get("enum")
            kind: click.ParamType[Any, Any] | None = (
                click.Choice([str(c) for c in choices]) if choices else _PROMPT_TYPES.get(spec.get("type"))
            )
            value = click.prompt(
                f"  {label}", default=default, type=kind, err=True, show_default=default != ""
            )
            if value != "" or field in required:
                content[field] = value
    except click.Abort:  # Ctrl-C or Ctrl-D at a prompt
        return {"action": "cancel"}
    return {"action": "accept", "content": content}
