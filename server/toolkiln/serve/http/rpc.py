"""`POST /rpc`: one plain JSON-RPC 2.0 request in, one JSON response out (seeds/002).

For curl and simple clients that do not speak Streamable HTTP: no session, no
stream, no handshake needed. Tool calls go through the same `ToolService` as MCP.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pydantic_core
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.types import Scope

from toolkiln import __version__
from toolkiln.runner.call_watch import watching
from toolkiln.serve.caller import granted_scopes
from toolkiln.serve.handlers import SERVER_NAME
from toolkiln.serve.service import ToolService

logger = logging.getLogger(__name__)

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
RPC_PROTOCOL_VERSION = "2025-11-25"

Endpoint = Callable[[Request], Awaitable[Response]]


class _RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def rpc_endpoint(service: ToolService) -> Endpoint:
    """The endpoint; a client that disconnects mid-call has its tool process stopped."""

    async def endpoint(request: Request) -> Response:
        try:
            message = _parse(await request.body())
        except _RpcError as error:
            return _error(None, error, status=400)
        except ClientDisconnect:  # gone before its request was whole: nothing to answer
            logger.info("/rpc client went away before sending its whole request")
            return Response(status_code=499)
        request_id = message.get("id")
        outcome: Response | None = None

        async def answer() -> None:
            nonlocal outcome
            outcome = await _answer(service, message, request_id, request.scope)
            group.cancel_scope.cancel()

        async def watch() -> None:
            while (await request.receive())["type"] != "http.disconnect":
                pass
            logger.info("/rpc client went away; stopping its call")
            group.cancel_scope.cancel()

        async with anyio.create_task_group() as group:
            group.start_soon(answer)
            group.start_soon(watch)
        return outcome or Response(status_code=499)

    return endpoint


def _parse(body: bytes) -> dict[str, Any]:
    try:
        # Strict JSON, as the MCP transports read it: no NaN, no lone surrogate (which no
        # script could be given), at most 200 levels deep (json.loads would raise
        # RecursionError past ~1,000 and answer 500).
        message = pydantic_core.from_json(body, allow_inf_nan=False)
    except ValueError as error:
        raise _RpcError(PARSE_ERROR, f"Parse error: {error}") from None
    if isinstance(message, list):
        raise _RpcError(INVALID_REQUEST, "Invalid Request: batches are not supported; send one request")
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        raise _RpcError(INVALID_REQUEST, 'Invalid Request: expected an object with "jsonrpc": "2.0"')
    if not isinstance(message.get("method"), str):
        raise _RpcError(INVALID_REQUEST, 'Invalid Request: "method" must be a string')
    request_id = message.get("id")
    if isinstance(request_id, bool) or not isinstance(request_id, str | int | None):
        raise _RpcError(INVALID_REQUEST, 'Invalid Request: "id" must be a string or a number')
    return message


async def _answer(
    service: ToolService, message: dict[str, Any], request_id: Any, scope: Scope | None = None
) -> Response:
    try:
        result = await _dispatch(service, message["method"], message.get("params"), scope)
    except _RpcError as error:
        return _error(request_id, error)
    except MCPError as error:
        return _error(request_id, _RpcError(error.code, error.message))
    if "id" not in message:  # a notification: nothing to answer
        return Response(status_code=202)
    return JSONResponse({"jsonrpc": "2.0", "id": request_id, "result": result})


async def _dispatch(service: ToolService, method: str, params: Any, scope: Scope | None) -> dict[str, Any]:
    """`scope`: the HTTP request's, whose OAuth principal (if any) decides what it sees."""
    if params is not None and not isinstance(params, dict):
        raise _RpcError(INVALID_PARAMS, 'Invalid params: "params" must be an object')
    params = params or {}
    if method == "initialize":
        return {
            "protocolVersion": RPC_PROTOCOL_VERSION,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": SERVER_NAME, "version": __version__},
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        return service.list_tools(granted=granted_scopes(scope))
    if method == "tools/call":
        name, arguments = params.get("name"), params.get("arguments", {})
        if not isinstance(name, str):
            raise _RpcError(INVALID_PARAMS, 'Invalid params: "name" must be the tool\'s name')
        if not isinstance(arguments, dict):
            raise _RpcError(INVALID_PARAMS, 'Invalid params: "arguments" must be an object')
        telemetry = service.telemetry  # metrics of the call, and its process span (no request span: not MCP)
        with watching(telemetry.watch() if telemetry is not None else None):
            return _dump(await service.call_tool(name, arguments, transport="rpc", http_scope=scope))
    raise _RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")


def _dump(result: BaseModel) -> dict[str, Any]:
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


def _error(request_id: Any, error: _RpcError, status: int = 200) -> JSONResponse:
    body = {"jsonrpc": "2.0", "id": request_id, "error": {"code": error.code, "message": error.message}}
    return JSONResponse(body, status_code=status)
