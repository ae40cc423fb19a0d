"""Asking the user before a tool with `requires_confirmation` runs (seeds/003).

Three ways, by what the client can do:
- `elicit`: a 2025-11-25 client with elicitation is asked with an elicitation request;
- `input_required`: a 2026-07-28 client with elicitation gets an input-required result
  and retries the call with the answer; the SDK's `RequestStateBoundary` (installed in
  handlers.py) seals the state and binds it to the same tool and arguments;
- `none` (it cannot be asked): the client sees a required `confirm: true` argument in
  the tool's schema, and a call without it is refused with a message saying so.

`elicitation_mode` is how any form reaches a client: prompts' `@ask` values use it too.
A declined or missing confirmation never runs the script.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from toolkiln.model import CompiledTool
from toolkiln.serve.tool_list import CONFIRM

Mode = Literal["elicit", "input_required", "none"]
_ANSWER_SCHEMA: types.ElicitRequestedSchema = {
    "type": "object",
    "properties": {CONFIRM: {"type": "boolean", "title": "Run it", "description": "Yes, run this tool now"}},
    "required": [CONFIRM],
}


def elicitation_mode(ctx: ServerRequestContext[Any] | None) -> Mode:
    """How this client can be asked to fill in a form: a request now (`elicit`), an
    input-required result it answers by retrying (`input_required`), or not at all."""
    capabilities = ctx.session.client_capabilities if ctx is not None else None
    if ctx is None or capabilities is None or capabilities.elicitation is None:
        return "none"
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return "input_required"
    return "elicit" if ctx.session.can_send_request else "none"


@dataclass(frozen=True)
class Confirmation:
    """The outcome of asking: run with `arguments`, stop with `refusal`, or ask with `ask`."""

    arguments: dict[str, Any]
    refusal: str | None = None
    ask: types.InputRequiredResult | None = None


async def confirm(
    ctx: ServerRequestContext[Any] | None, tool: CompiledTool, params: types.CallToolRequestParams | None,
    arguments: Mapping[str, Any] | None,
) -> Confirmation:  # fmt: skip
    arguments = dict(arguments or {})
    mode = elicitation_mode(ctx)
    question = _question(tool, arguments)
    if mode == "none":
        if arguments.pop(CONFIRM, None) is not True:
            return Confirmation(
                arguments,
                refusal=f"Tool {tool.name!r} needs the user's confirmation before it runs. Ask the user; "
                'if they agree, call it again with "confirm": true. Nothing was run.',
            )
        return Confirmation(arguments)
    assert ctx is not None
    if mode == "elicit":
        answer = await ctx.session.elicit_form(question, _ANSWER_SCHEMA, related_request_id=ctx.request_id)
        return Confirmation(arguments, refusal=_refusal(tool, answer))
    response = (params.input_responses or {}).get(CONFIRM) if params is not None else None
    if response is None or params is None or params.request_state != CONFIRM:
        request = types.ElicitRequest(
            params=types.ElicitRequestFormParams(message=question, requested_schema=_ANSWER_SCHEMA)
        )
        return Confirmation(
            arguments, ask=types.InputRequiredResult(input_requests={CONFIRM: request}, request_state=CONFIRM)
        )
    return Confirmation(arguments, refusal=_refusal(tool, response))


def _question(tool: CompiledTool, arguments: Mapping[str, Any]) -> str:
    shown = json.dumps(arguments, ensure_ascii=False)
    return f"Run the tool {tool.title or tool.name!r} with {shown}?"


def _refusal(tool: CompiledTool, answer: Any) -> str | None:
    if (
        isinstance(answer, types.ElicitResult)
        and answer.action == "accept"
        and (answer.content or {}).get(CONFIRM)
    ):
        return None
    return f"The user did not confirm running {tool.name!r}, so nothing was run."
