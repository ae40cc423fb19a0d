"""Asking the user before a tool with `requires_confirmation` runs (seeds/003).

Three ways, by what the client can do:
- `elicit`: a 2025-11-25 client with elicitation is asked with an elicitation request;
- `input_required`: a 2026-07-28 client with elicitation gets an input-required result
  and retries the call with the answer (bound to the same tool and arguments);
- `argument`: any other client sees a required `confirm: true` argument in the tool's
  schema, and a call without it is refused with a message saying so.
A declined or missing confirmation never runs the script.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from toolkiln.model import CompiledTool

Mode = Literal["elicit", "input_required", "argument"]
CONFIRM = "confirm"
_ANSWER_SCHEMA: types.ElicitRequestedSchema = {
    "type": "object",
    "properties": {CONFIRM: {"type": "boolean", "title": "Run it", "description": "Yes, run this tool now"}},
    "required": [CONFIRM],
}
_KEY = secrets.token_bytes(32)  # binds an answer to one call, for this server's lifetime


def confirmation_mode(ctx: ServerRequestContext[Any] | None) -> Mode:
    capabilities = ctx.session.client_capabilities if ctx is not None else None
    if ctx is None or capabilities is None or capabilities.elicitation is None:
        return "argument"
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return "input_required"
    return "elicit" if ctx.session.can_send_request else "argument"


def with_confirm_argument(tool: types.Tool) -> types.Tool:
    """The tool as a client without elicitation sees it: `confirm: true` is required."""
    schema = copy.deepcopy(tool.input_schema)
    schema["properties"][CONFIRM] = {
        "type": "boolean",
        "const": True,
        "description": "This tool needs confirmation: set to true only once the user has agreed to run it.",
    }
    schema["required"] = [*schema.get("required", []), CONFIRM]
    return tool.model_copy(update={"input_schema": schema})


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
    mode = confirmation_mode(ctx)
    question = _question(tool, arguments)
    if mode == "argument":
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
    state = _state(tool, arguments)
    response = (params.input_responses or {}).get(CONFIRM) if params is not None else None
    if response is None or not hmac.compare_digest(params.request_state or "", state):  # type: ignore[union-attr]
        request = types.ElicitRequest(
            params=types.ElicitRequestFormParams(message=question, requested_schema=_ANSWER_SCHEMA)
        )
        return Confirmation(
            arguments, ask=types.InputRequiredResult(input_requests={CONFIRM: request}, request_state=state)
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


def _state(tool: CompiledTool, arguments: Mapping[str, Any]) -> str:
    call = json.dumps([tool.name, arguments], sort_keys=True, ensure_ascii=False).encode()
    return hmac.new(_KEY, call, hashlib.sha256).hexdigest()
