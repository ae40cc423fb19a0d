"""The MCP server: the SDK's low-level `Server` with toolkiln's handlers, for both
protocol eras and every transport."""

from __future__ import annotations

import logging
from typing import Any, cast

import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from toolkiln import __version__
from toolkiln.serve.calls.progress import ClientNotifier, LogLevels, sdk_deprecations_silenced
from toolkiln.serve.calls.record import client_name
from toolkiln.serve.calls.request_state import SealedRequestState
from toolkiln.serve.catalog.completion import complete
from toolkiln.serve.catalog.prompts import PromptService
from toolkiln.serve.catalog.resources import ResourceService
from toolkiln.serve.catalog.search.calls import route_call
from toolkiln.serve.service import ToolService
from toolkiln.serve.tasks.listen import TasksListenHandler
from toolkiln.serve.tasks.protocol import CreateTaskResult, TasksExtension, apply_extension
from toolkiln.serve.tool_list import server_instructions

logger = logging.getLogger(__name__)

SERVER_NAME = "toolkiln"


class ToolkilnServer(Server[Any]):
    """Advertises `listChanged` on every transport (the HTTP transports build their
    initialization options without asking)."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        changes = NotificationOptions(tools_changed=True, resources_changed=True, prompts_changed=True)
        return super().create_initialization_options(
            notification_options or changes, experimental_capabilities, extensions
        )


def build_server(service: ToolService) -> Server[Any]:
    levels = LogLevels()
    resources = ResourceService(service.runner)
    prompts = PromptService(service.runner)
    broadcaster = service.broadcaster

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> dict[str, Any]:
        broadcaster.seen(ctx)
        if service.catalog_search.active(service.registry, client_name(ctx)):  # a big catalog
            return {**service.list_tools(ctx), "tools": service.catalog_search.listed(service.registry)}
        return service.list_tools(ctx)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult | CreateTaskResult:
        broadcaster.seen(ctx)
        routed = await route_call(service, ctx, params)  # search mode's two tools (catalog_search/)
        if isinstance(routed, types.CallToolResult):
            return routed
        params = routed
        transport = "http" if ctx.request is not None else "stdio"
        # 2026-07-28 requests opt in to logs themselves, and the SDK applies it.
        threshold = "debug" if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS else levels.get(ctx)
        notifier = ClientNotifier(ctx, threshold)
        return await service.call_tool(
            params.name, params.arguments, transport=transport, ctx=ctx, params=params, notifier=notifier
        )

    async def set_logging_level(
        ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        levels.set(ctx, params.level)
        return types.EmptyResult()

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        broadcaster.seen(ctx)
        return resources.list_resources()

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return await resources.read(str(params.uri), modern=ctx.protocol_version in MODERN_PROTOCOL_VERSIONS)

    async def list_templates(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        return resources.list_templates()

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        broadcaster.seen(ctx)
        return prompts.list_prompts()

    async def get_prompt(
        ctx: ServerRequestContext[Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult | types.InputRequiredResult:
        return await prompts.get_prompt(params.name, params.arguments, ctx, params.input_responses)

    async def subscribe(
        ctx: ServerRequestContext[Any], params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        broadcaster.subscribe(ctx, str(params.uri))
        return types.EmptyResult()

    async def unsubscribe(
        ctx: ServerRequestContext[Any], params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        broadcaster.unsubscribe(ctx, str(params.uri))
        return types.EmptyResult()

    async def completion(
        ctx: ServerRequestContext[Any], params: types.CompleteRequestParams
    ) -> types.CompleteResult:
        return complete(service.registry, params)

    def task_support(name: str) -> str | None:
        tool = service.registry.tools.get(name)
        return tool.task_support if tool is not None else None

    def input_schema(name: str) -> dict[str, Any] | None:
        tool = service.registry.tools.get(name)  # the registry a reload may have swapped
        if tool is None and service.catalog_search.role_of(service.registry, name) is not None:
            return next(
                dict(listed["inputSchema"])
                for listed in service.catalog_search.listed(service.registry)
                if listed["name"] == name
            )
        return tool.input_schema if tool is not None else None

    with sdk_deprecations_silenced():
        server = ToolkilnServer(
            SERVER_NAME,
            version=__version__,
            instructions=server_instructions(service.registry.tools_dir),
            # Its result may be a task's (apply_extension below registers it as it is).
            on_call_tool=cast(Any, call_tool),
            on_set_logging_level=set_logging_level,
            on_list_resources=list_resources,
            on_read_resource=read_resource,
            on_list_resource_templates=list_templates,
            on_list_prompts=list_prompts,
            on_get_prompt=get_prompt,
            on_subscribe_resource=subscribe,
            on_unsubscribe_resource=unsubscribe,
            # The SDK's handler, and task status notifications for `taskIds` (SEP-2663).
            on_subscriptions_listen=TasksListenHandler(
                broadcaster.listen_handler, broadcaster.bus, service.tasks
            ),
            on_completion=completion,
            get_tool_input_schema=input_schema,
        )
    # A plain dict (see ToolService.list_tools): the generic registration takes one.
    server.add_request_handler("tools/list", types.PaginatedRequestParams, list_tools)
    # Tasks (SEP-2663): tasks/get, tasks/update, tasks/cancel, and -32021 for a tool that
    # runs only as a task, called by a client that cannot follow one.
    apply_extension(server, TasksExtension(service.tasks, task_support), call_tool)
    # requestState (2026-07-28) sealed on the way out and checked on the way back, so a
    # client can neither read nor forge the state of a waiting call or a confirmation;
    # under keys from `state.secret_file`, any replica given that secret opens it.
    server.middleware.append(SealedRequestState(service.secret, SERVER_NAME, lambda: service.secret))
    if service.telemetry is not None:  # our spans (docs/operations.md) in place of the SDK's
        from toolkiln.serve.telemetry import TelemetryMiddleware, replace_sdk_middleware

        def secret_names(name: str) -> list[str]:
            tool = service.registry.tools.get(name)
            return [p.name for p in tool.parameters if p.secret] if tool is not None else []

        def is_known(method: str, name: str) -> bool:
            if method == "prompts/get":
                return any(prompt.name == name for prompt in service.registry.catalog.prompts)
            return name in service.registry.tools

        middleware = TelemetryMiddleware(service.telemetry, secret_names, is_known)
        replace_sdk_middleware(server.middleware, middleware)
    return server
