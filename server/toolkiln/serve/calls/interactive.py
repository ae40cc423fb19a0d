"""How an interactive script's questions (runner/interactive.py) reach the client.

- A 2025 connection that can send requests: each question is sent now, as an
  elicitation, sampling or roots request tied to the call, and the answer goes
  straight back to the waiting script.
- A 2026-07-28 connection, where the server cannot send requests: the call runs on
  in the background (`ParkedCalls`, parked.py), the client gets an input-required result whose
  `requestState` names the waiting call, and when it calls again with the answers
  (`inputResponses`) the same script gets them and goes on. The SDK's
  `RequestStateBoundary` seals the state and binds it to the tool and arguments, so
  a tampered or replayed state is refused before it reaches toolkiln.
- A client without the capability a question needs, or a 2025 client served by
  `--stateless` HTTP (where no answer could come back): the script is told so in
  its answer (`{"error": ...}`), and decides what to do. On 2026-07-28, when no
  request of a question can be asked at all, the call stops with the spec's
  missing-capability error (-32021) instead.
- A 2026-07-28 client that follows tasks (SEP-2663), calling an interactive tool with
  `ask_before_task`: the questions the script asks at once come as input-required
  rounds too, and the call goes on as a task once it works on without asking (parked.py).
  Other task calls ask through the task (tasks/jobs.py).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from mcp_types import MISSING_REQUIRED_CLIENT_CAPABILITY
from pydantic import TypeAdapter

logger = logging.getLogger(__name__)

_REQUEST = TypeAdapter[types.InputRequest](types.InputRequest)
_RESULTS: dict[str, tuple[str, type[types.Result]]] = {
    "elicitation/create": ("elicitation", types.ElicitResult),
    "sampling/createMessage": ("sampling", types.CreateMessageResult),
    "roots/list": ("roots", types.ListRootsResult),
}


async def ask_client_now(
    ctx: ServerRequestContext[Any], requests: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """Send each request to the client, on the call's stream; a result (or error) per key."""
    return {key: await _ask_one(ctx, request) for key, request in requests.items()}


def refusal(capabilities: types.ClientCapabilities | None, method: str) -> dict[str, Any] | None:
    """The answer to a request the client declared no capability for; None if it did."""
    capability = _RESULTS[method][0]
    if capabilities is None or getattr(capabilities, capability) is None:
        return {"error": f"the client does not support {capability} ({method})"}
    return None


async def _ask_one(ctx: ServerRequestContext[Any], request: dict[str, Any]) -> dict[str, Any]:
    method = request["method"]
    if not ctx.session.can_send_request:  # stateless HTTP: the client's answer could not come back
        return {"error": f"the server cannot send {method} to this client (stateless HTTP)"}
    refused = refusal(ctx.session.client_capabilities, method)
    if refused is not None:
        return refused
    try:
        typed = typed_request(request)
        result = await ctx.session.send_request(
            typed, _RESULTS[method][1], metadata=ServerMessageMetadata(related_request_id=ctx.request_id)
        )
    except MCPError as error:
        return {"error": f"the client refused {method}: {error.error.message}"}
    except ValueError as error:  # pydantic: the script's request (or the client's answer) is malformed
        return {"error": f"{method} is malformed: {error}"}
    return result.model_dump(by_alias=True, mode="json", exclude_none=True)


def typed_request(request: dict[str, Any]) -> types.InputRequest:
    """A script's request as the SDK's type; `ValueError` when it is malformed."""
    return _REQUEST.validate_python({"method": request["method"], "params": request.get("params") or {}})


def missing_capability_error(requests: Iterable[dict[str, Any]]) -> MCPError:
    """The spec's -32021 for questions that this client declared no capability to answer."""
    needed = sorted({_RESULTS[request["method"]][0] for request in requests})
    required = types.ClientCapabilities.model_validate({name: {} for name in needed})
    return MCPError(
        code=MISSING_REQUIRED_CLIENT_CAPABILITY,
        message=f"The tool needs the client to support {' and '.join(needed)}, not declared.",
        data=types.MissingRequiredClientCapabilityErrorData(required_capabilities=required).model_dump(
            by_alias=True, mode="json", exclude_none=True
        ),
    )


def as_json(response: Any) -> Any:
    if isinstance(response, types.Result):
        return response.model_dump(by_alias=True, mode="json", exclude_none=True)
    return response
