"""MCP prompts: the templates under `prompts/`, listed, checked and rendered on request.

The template is read when a client asks for it, so an edit of its body shows at once;
its arguments come from the compiled catalog. Arguments are checked first (required,
unknown, enum, length), and a bad one is an invalid-params error that says which.

A body renders to one user message, unless the template itself is a JSON object
(render.is_json_template) that renders to one with a `messages` array: then those are
the prompt's messages, with any MCP content (an image or an embedded resource may name
a file, as in a tool's rich result, inside the template's own folder). Values go into
a JSON body as the insides of JSON strings, so an argument cannot add a message, a key
or a file; and a text body is never read as JSON, whatever its values make of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from pydantic import TypeAdapter, ValidationError

from toolkiln.model import CompiledPrompt
from toolkiln.render import FrontMatterError, RenderError, is_json_template, render_text, split_front_matter
from toolkiln.runner import Registry, ToolRunner
from toolkiln.runner.content import ContentError, json_object, with_files_read
from toolkiln.runner.named_files import folder_fence
from toolkiln.runner.registry import OutsideFolderError
from toolkiln.schema import ArgumentChecker, parameters_to_schema, prepare_arguments
from toolkiln.serve.calls.confirm import elicitation_mode

_MESSAGES = TypeAdapter(list[types.PromptMessage])
ASK_KEY = "prompt_inputs"  # the key of a prompt's question in an input-required result


async def ask_user(
    prompt: CompiledPrompt, ctx: ServerRequestContext[Any] | None, input_responses: Mapping[str, Any] | None
) -> dict[str, Any] | types.InputRequiredResult:
    """The `@ask` values: from the user (one elicitation form), or their defaults (empty
    when none) for a client that cannot ask or a user who declines."""
    values: dict[str, Any] = {ask.name: "" if ask.default is None else ask.default for ask in prompt.asks}
    mode = elicitation_mode(ctx)
    if ctx is None or mode == "none":
        return values
    only = prompt.asks[0].description if len(prompt.asks) == 1 else ""
    question = only or f"A few details for the prompt {prompt.title or prompt.name!r}"
    schema: types.ElicitRequestedSchema = parameters_to_schema(prompt.asks)
    schema.pop("additionalProperties", None)  # not part of an elicitation form's schema
    if mode == "input_required":
        answer = (input_responses or {}).get(ASK_KEY)
        if answer is None:
            form = types.ElicitRequestFormParams(message=question, requested_schema=schema)
            return types.InputRequiredResult(input_requests={ASK_KEY: types.ElicitRequest(params=form)})
    else:
        answer = await ctx.session.elicit_form(question, schema, related_request_id=ctx.request_id)
    if isinstance(answer, types.ElicitResult) and answer.action == "accept":
        values |= {key: value for key, value in (answer.content or {}).items() if key in values}
    return values


class PromptService:
    def __init__(self, runner: ToolRunner) -> None:
        self.runner = runner
        self._checkers: dict[str, tuple[CompiledPrompt, ArgumentChecker]] = {}

    @property
    def registry(self) -> Registry:
        return self.runner.registry  # swapped by a reload

    def list_prompts(self) -> types.ListPromptsResult:
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(
                    name=prompt.name,
                    title=prompt.title,
                    description=prompt.description or None,
                    arguments=[
                        types.PromptArgument(
                            name=a.name, description=a.description or None, required=a.required
                        )
                        for a in prompt.arguments
                    ],
                )
                for prompt in self.registry.prompts.values()
            ]
        )

    async def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, str] | None,
        ctx: ServerRequestContext[Any] | None = None,
        input_responses: Mapping[str, Any] | None = None,
    ) -> types.GetPromptResult | types.InputRequiredResult:
        prompt = self.registry.prompts.get(name)
        if prompt is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown prompt: {name!r}")
        schema = parameters_to_schema(prompt.arguments)
        known = self._checkers.get(name)
        if known is None or known[0] is not prompt:  # new, or reloaded since
            known = self._checkers[name] = (prompt, ArgumentChecker(schema))
        checker = known[1]
        problems = checker.problems(arguments or {})
        if problems:
            listing = "; ".join(problems)
            raise MCPError(
                code=types.INVALID_PARAMS, message=f"Invalid arguments for prompt {name!r}: {listing}"
            )
        values = {argument.name: "" for argument in prompt.arguments} | prepare_arguments(
            schema, arguments or {}
        )
        if prompt.asks:
            answers = await ask_user(prompt, ctx, input_responses)
            if isinstance(answers, types.InputRequiredResult):
                return answers
            values |= answers
        text, is_json = self._render(prompt, values)
        return types.GetPromptResult(
            description=prompt.description or None, messages=await self._messages(prompt, text, is_json)
        )

    async def _messages(self, prompt: CompiledPrompt, text: str, is_json: bool) -> list[types.PromptMessage]:
        value = json_object(text) if is_json else None
        if value is None or not isinstance(value.get("messages"), list):
            return [types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))]
        assert self.registry.prompts_dir is not None
        files = folder_fence((self.registry.prompts_dir / prompt.template_path).parent)
        turns = [
            turn
            for turn in value["messages"]
            if isinstance(turn, dict) and isinstance(turn.get("content"), dict)
        ]
        try:  # the files of all messages together are capped, as a tool's result's are
            contents = await with_files_read([turn["content"] for turn in turns], files)
            for turn, content in zip(turns, contents, strict=True):
                turn["content"] = content
            return _MESSAGES.validate_python(value["messages"])
        except (ContentError, ValidationError) as error:
            message = f"Prompt {prompt.name!r} rendered messages that are not valid MCP: {error}"
            raise MCPError(code=types.INTERNAL_ERROR, message=message) from None

    def _render(self, prompt: CompiledPrompt, values: Mapping[str, str]) -> tuple[str, bool]:
        """The rendered body, and whether the template is a JSON body."""
        try:
            path = self.registry.prompt_path(prompt)
            _, body, first_line = split_front_matter(path.read_text(encoding="utf-8"))
            is_json = is_json_template(body)
            # Blank lines in front keep jinja2's line numbers those of the file.
            text = render_text(
                "\n" * (first_line - 1) + body, values, source=str(path), escape="json" if is_json else None
            )
            return text.lstrip("\n"), is_json
        except (OSError, FrontMatterError, RenderError, OutsideFolderError) as error:
            message = f"Prompt {prompt.name!r} cannot be rendered: {error}"
            raise MCPError(code=types.INTERNAL_ERROR, message=message) from None
