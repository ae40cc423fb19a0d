"""Stage 2's compiling of one item: a per-tool, per-prompt or per-resource config turned
into its entry in `config/tools.json` (the tool's JSON Schema made from its parameters
when discovery did not write one, and its task support chosen from its timeout).
"""

from __future__ import annotations

from toolkiln.model import (
    CompiledPrompt,
    CompiledResource,
    CompiledTool,
    PromptConfig,
    ResourceConfig,
    ToolConfig,
    ToolHints,
)
from toolkiln.model.oauth import OAuthSettings
from toolkiln.model.tools import TaskSupport
from toolkiln.schema import parameters_to_schema


def compile_tool(config: ToolConfig, config_file: str) -> CompiledTool:
    script = config.script_config
    return CompiledTool(
        name=script.name,
        title=script.title or script.declared_title,
        description=script.description,
        dialect=script.dialect,
        script_path=script.script_path,
        script_type=script.script_type,
        parameters=script.parameters,
        input_schema=script.input_schema or parameters_to_schema(script.parameters),
        hints=ToolHints(
            read_only=script.read_only,
            destructive=script.destructive,
            idempotent=script.idempotent,
            open_world=script.open_world,
        ),
        requires_confirmation=script.requires_confirmation,
        interactive=script.interactive,
        timeout_seconds=script.timeout_seconds,
        task_support=script.task or default_task_support(script.timeout_seconds),
        ask_before_task=script.ask_before_task,
        max_concurrency=script.max_concurrency,
        workspace=script.workspace_config,
        limits=script.limits,
        confinement=script.confinement,
        tags=config.tags,
        scopes=sorted(set(config.scopes)),
        state=script.state,
        version=script.version,
        python_entry=script.python_entry,
        command=script.command,
        entry_point=script.entry_point,
        requirements_file=script.requirements_file,
        env_reads=script.env_reads or [],
        config_file=config_file,
    )


def tool_scopes(tool: CompiledTool, oauth: OAuthSettings | None) -> list[str]:
    """The OAuth scopes a call of `tool` needs: its own, and those of its tags in
    config/server.json `oauth.tag_scopes`; sorted, each once."""
    by_tag = oauth.tag_scopes if oauth is not None else {}
    return sorted({*tool.scopes, *(scope for tag in tool.tags for scope in by_tag.get(tag, ()))})


# A tool allowed more than this may run as a task unless its config says otherwise.
TASK_TIMEOUT_THRESHOLD = 60.0


def default_task_support(timeout_seconds: float | None) -> TaskSupport:
    """A tool that may run longer than a minute runs as a task for a client that can
    follow one; the others answer within their call."""
    return (
        "optional"
        if timeout_seconds is not None and timeout_seconds > TASK_TIMEOUT_THRESHOLD
        else "forbidden"
    )


def compile_prompt(config: PromptConfig, config_file: str) -> CompiledPrompt:
    prompt = config.prompt_config
    return CompiledPrompt(
        name=prompt.name,
        title=prompt.title or prompt.declared_title,
        description=prompt.description,
        arguments=prompt.arguments,
        asks=prompt.asks,
        template_path=prompt.template_path,
        config_file=config_file,
    )


def compile_resource(config: ResourceConfig, config_file: str) -> CompiledResource:
    resource = config.resource_config
    uri = resource.uri or f"toolkiln://resources/{resource.file_path}"
    return CompiledResource(
        name=resource.name,
        title=resource.title,
        description=resource.description,
        uri=uri,
        template="{" in resource.file_path,
        mime_type=resource.mime_type or resource.detected_mime_type,
        binary=resource.binary,
        file_path=resource.file_path,
        config_file=config_file,
        completions=resource.completions,
    )
