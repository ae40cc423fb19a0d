"""The tool of one JavaScript function, read from the JSDoc comment above it: shared by
llm-functions' `run` (`function.py`) and an agent's exported functions (`agent.py`)."""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING, Any

from toolkiln.conventions.base import Declaration, make_parameter
from toolkiln.conventions.javascript.jsdoc import Block, Tag, read_default, read_type
from toolkiln.errors import DiscoveryError

if TYPE_CHECKING:
    from toolkiln.model import Parameter

_PARAMETERS = re.compile(r"\(([^()]*)\)|(?<![\w$])([A-Za-z_$][\w$]*+)[ \t]*+=>")
_PARAM_TAGS = ("property", "param")
_BLANK = re.compile(r"\s*")


def function_declaration(
    text: str,
    blocks: list[Block],
    own: Block | None,
    sites: list[re.Match[str]],
    path: str,
    *,
    name: str = "run",
    alone: bool = False,
) -> Declaration:
    """The tool of one function: `own` is its JSDoc, `sites` where it is defined. `alone`
    (one of an agent's several functions): only its own JSDoc declares its parameters."""
    typedefs = {**_typedefs(blocks), **(_typedefs([own]) if own else {})}  # its own `Args` first
    if alone:  # never another function's JSDoc
        tags, described = _parameter_tags(own, [own], typedefs) if own and own.tags else (None, own)
    else:
        tags, described = _parameter_tags(own, blocks, typedefs)
    description = (own.description if own else "") or (described.description if described else "")
    takes = _takes_arguments(text, sites)
    line = text.count("\n", 0, sites[0].start()) + 1 if sites else 1
    if tags is None:
        if takes:
            raise DiscoveryError(
                f"{name}() takes arguments, but no JSDoc says which: add `@typedef {{Object}} Args` "
                "with an `@property {type} name - description` line for each, and `@param {Args} args`, "
                f"in the /** */ comment above {name}",
                path=path,
                line=line,
            )
        tags = []
    known = frozenset(typedefs)
    warnings: list[DiscoveryError] = []
    parameters = [
        parameter for tag in tags if (parameter := _parameter(tag, known, path, warnings)) is not None
    ]
    return Declaration(dialect="function", description=description, parameters=parameters, warnings=warnings)


def block_above(blocks: list[Block], text: str, start: int) -> Block | None:
    """The JSDoc block that ends right above `start` (nothing but blank space between):
    only the last block before `start` can (blocks are in order and do not overlap)."""
    index = bisect.bisect_right(blocks, start, key=lambda block: block.end) - 1
    if index < 0:
        return None
    block = blocks[index]
    blank = _BLANK.match(text, block.end, start)
    return block if blank is not None and blank.end() == start else None


def _typedefs(blocks: list[Block]) -> dict[str, tuple[Block, list[Tag]]]:
    """Each `@typedef` with the `@property` tags that follow it in its block."""
    found: dict[str, tuple[Block, list[Tag]]] = {}
    for block in blocks:
        current: list[Tag] | None = None
        for tag in block.tags:
            if tag.name == "typedef":
                current = []
                found[tag.target] = (block, current)
            elif tag.name == "property" and current is not None:
                current.append(tag)
    return found


def _parameter_tags(
    own: Block | None, blocks: list[Block], typedefs: dict[str, tuple[Block, list[Tag]]]
) -> tuple[list[Tag] | None, Block | None]:
    """The tags that declare run's parameters (None when nothing does), and the block
    that holds them: run's own JSDoc, else the typedef its `@param` names, else the one
    typedef (or block of `@property` tags) in the file."""
    if own is not None:
        params = [tag for tag in own.tags if tag.name == "param"]
        first = params[0] if params else None
        if first is not None and first.type in typedefs:
            block, properties = typedefs[first.type]
            return _top_level(properties, ""), block
        dotted = [tag for tag in params if "." in tag.target]
        if dotted:
            return _top_level(dotted, dotted[0].target.split(".")[0]), own
        properties = [tag for tag in own.tags if tag.name == "property"]
        if properties:
            return _top_level(properties, ""), own
        if first is not None and read_type(first.type).type not in ("object", "any"):
            return params, own  # `@param {string} code` for `run({ code })`
        if first is not None and first.type.lower() in ("object", ""):
            return [], own
    referenced = {tag.type for block in blocks for tag in block.tags if tag.name == "param"}
    candidates = [typedefs[name] for name in typedefs if name in referenced] or list(typedefs.values())
    if len(candidates) == 1:
        return _top_level(candidates[0][1], ""), candidates[0][0]
    with_properties = [block for block in blocks if any(tag.name == "property" for tag in block.tags)]
    if own is None and len(with_properties) == 1:
        block = with_properties[0]
        return _top_level([tag for tag in block.tags if tag.name == "property"], ""), block
    return None, own


def _top_level(tags: list[Tag], prefix: str) -> list[Tag]:
    """The tags of the arguments themselves: `args.name` -> `name`; `options.verbose`
    (a member of the `options` object argument) is part of `options`, not an argument."""
    kept = []
    for tag in tags:
        target = tag.target.removeprefix(f"{prefix}.") if prefix else tag.target
        if "." not in target and target:
            kept.append(Tag(tag.name, tag.type, target, tag.optional, tag.default, tag.text, tag.line))
    return kept


def _takes_arguments(text: str, sites: list[re.Match[str]]) -> bool:
    """Whether run is declared with a parameter (`run(args)`, `({ a }) =>`, `args =>`)."""
    functions_first = sorted(sites, key=lambda site: "(" not in site.group(0))
    for site in functions_first:
        following = text[site.end() - 1 : site.end() + 300]
        match = _PARAMETERS.search(following)
        if match is not None:
            return bool(match.group(2) is not None or match.group(1).strip())
    return True


def _parameter(
    tag: Tag, typedefs: frozenset[str], path: str, warnings: list[DiscoveryError]
) -> Parameter | None:
    js_type = read_type(tag.type or "string", typedefs)
    required = not (tag.optional or js_type.optional or tag.default is not None)
    if not js_type.known:
        message = f"{tag.target!r}: toolkiln cannot read the type {{{tag.type}}}; it takes any JSON value"
        warnings.append(DiscoveryError(message, path=path, line=tag.line))
    fields: dict[str, Any] = {
        "name": tag.target,
        "type": js_type.type,
        "description": tag.text,
        "required": required,
    }
    if js_type.items:
        fields["items"] = js_type.items
    if js_type.enum:
        fields["enum"] = js_type.enum
    if tag.default is not None:
        fields["default"] = read_default(tag.default, js_type.type)
    try:
        return make_parameter(path, tag.line, **fields)
    except DiscoveryError as error:
        if required:
            raise DiscoveryError(
                f"@{tag.name} {tag.target}: {error.reason}", path=path, line=tag.line
            ) from None
        fields.pop("default", None)  # an optional one whose default does not fit: run() applies its own
        warnings.append(
            DiscoveryError(
                f"@{tag.name} {tag.target}: {error.reason}; its default is left out", path=path, line=tag.line
            )
        )
        try:
            return make_parameter(path, tag.line, **fields)
        except DiscoveryError:
            return None
