"""`completion/complete`: suggested values for prompt arguments and resource-template
placeholders.

A prompt argument offers its `enum` values, or else its `examples`; a resource
template offers the `completions` its config lists per placeholder. Values are those
that start with what the user typed (case aside), at most 100, as the spec allows.
"""

from __future__ import annotations

import mcp.types as types

from toolkiln.runner import Registry

MAX_VALUES = 100


def complete(registry: Registry, params: types.CompleteRequestParams) -> types.CompleteResult:
    ref, argument = params.ref, params.argument
    candidates: list[str] = []
    if isinstance(ref, types.PromptReference):
        prompt = registry.prompts.get(ref.name)
        for declared in prompt.arguments if prompt is not None else []:
            if declared.name == argument.name:
                candidates = [str(value) for value in declared.enum or declared.examples or []]
    else:
        for resource in registry.catalog.resources:
            if resource.template and resource.uri == ref.uri:
                candidates = resource.completions.get(argument.name, [])
    typed = argument.value.casefold()
    matches = [value for value in candidates if value.casefold().startswith(typed)]
    return types.CompleteResult(
        completion=types.Completion(
            values=matches[:MAX_VALUES], total=len(matches), has_more=len(matches) > MAX_VALUES
        )
    )
