"""docopt scripts (docopt, docopt-ng): the usage text handed to `docopt(...)`, read as text
(`docopt_usage`), the module with `ast` (never imported or run).

    \"\"\"Naval Fate.

    Usage:
      naval_fate.py ship <name> move <x> <y> [--speed=<kn>]
      naval_fate.py mine (set|remove) <x> <y> [--moored | --drifting]

    Options:
      --speed=<kn>  Speed in knots [default: 10].
    \"\"\"
    from docopt import docopt

    arguments = docopt(__doc__)

Each usage line is a tool; its command words name it (`naval_fate_ship_move`, like a
subcommand of an argparse script), and a line without any is the file's own tool. Its
`<x>`/`X` arguments and options are its parameters, required as the line requires them: a
value option takes a string (`[default: 10]` its default), a flag a boolean, a repeated
flag (`-v...`) a count, a repeated argument or value option (`<name>...`) an array, a
choice of command words (`(set|remove)`) an enum. Options the line cannot name but
`[options]` brings are optional. A call gives the options first, then the line's words
with the arguments in their places (`command`: the words, each `<>` the next argument).
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass
from typing import Any

from toolkiln.conventions.base import Declaration, NotATool
from toolkiln.conventions.python_cli.docopt_call import usage_text
from toolkiln.conventions.python_cli.read import (
    Reading,
    check_runnable,
    first_paragraph,
    usable_name,
)
from toolkiln.conventions.python_cli.tools import tool_schema
from toolkiln.conventions.subcommands import with_file_warnings
from toolkiln.conventions.usage.docopt_usage import Node, Option, UsageError, read_usage
from toolkiln.errors import DiscoveryError

_SKIPPED = ("-h", "--help", "--version")
SLOT = "<>"


@dataclass
class _Reading(Reading):
    line: int = 0
    # A repeated argument was read: docopt gives it every argument after it too.
    repeated_argument: str | None = None


class _LineError(Exception):
    """A usage line whose shape toolkiln cannot pass (it is left out, with a warning)."""


def read_docopt(module: ast.Module, path: str) -> list[Declaration]:
    """One tool per usage line (the file's own tool for a line without command words)."""
    check_runnable(module, "docopt")
    found = usage_text(module)
    if found is None:
        raise NotATool(
            "its docopt usage text is made when it runs, so it cannot be read", kind="argv-by-hand"
        )
    text, text_line = found
    line = text_line
    try:
        usage = read_usage(text)
    except UsageError as error:
        raise DiscoveryError(f"its docopt usage text cannot be read: {error}", path=path, line=line) from None
    description = first_paragraph(usage.before)
    declarations: list[Declaration] = []
    warnings: list[DiscoveryError] = []
    seen: dict[tuple[str, ...], str] = {}
    for usage_line in usage.patterns:
        source, pattern, line = usage_line.source, usage_line.node, text_line + usage_line.line
        leaves = list(_leaves(pattern))
        if all(leaf.kind == "option" and leaf.name in _SKIPPED for leaf in leaves):
            continue  # `prog (-h | --help)`, `prog --version`
        reading = _Reading(path, {}, line=line)
        try:
            template = _read_line(pattern, reading, usage.options)
        except _LineError as error:
            warnings.append(DiscoveryError(f"usage line `{source}` left out: {error}", path=path, line=line))
            continue
        words = tuple(word for word in template if word != SLOT)
        if words in seen:
            warnings.append(
                DiscoveryError(
                    f"usage line `{source}` left out: its command words are those of `{seen[words]}`, "
                    "and each tool is one line with words of its own",
                    path=path,
                    line=line,
                )
            )
            continue
        seen[words] = source
        declarations.append(
            Declaration(
                dialect="python",
                description=f"{description} (`{source}`)".strip() if description else f"`{source}`",
                parameters=reading.parameters,
                python_entry="docopt",
                warnings=reading.warnings,
                input_schema=tool_schema(reading.parameters, reading.conditions),
                command=" ".join(template) if words else None,
            )
        )
    if not declarations:
        reasons = "; ".join(f"line {warning.line}: {warning.reason}" for warning in warnings)
        raise DiscoveryError(
            f"none of its docopt usage lines can be served ({reasons or 'it has only --help and --version'})",
            path=path,
            line=text_line,
        )
    return with_file_warnings(declarations, warnings)


def _leaves(node: Node) -> Any:
    if node.kind in ("command", "argument", "option"):
        yield node
    for child in node.children:
        yield from _leaves(child)


def _read_line(pattern: Node, reading: _Reading, options: list[Option]) -> list[str]:
    """The line's parameters into `reading`; its words, each `<>` an argument's place."""
    named = {leaf.name for leaf in _leaves(pattern) if leaf.kind == "option"}
    shortcut = [option for option in options if option.key not in named and option.key not in _SKIPPED]
    template: list[str] = []
    _read_node(pattern, reading, template, shortcut, optional=False, repeated=False)
    return template


def _read_node(
    node: Node,
    reading: _Reading,
    template: list[str],
    shortcut: list[Option],
    *,
    optional: bool,
    repeated: bool,
) -> list[str]:
    """Read `node`; the names of the parameters it added."""
    names: list[str] = []
    if node.kind in ("required", "optional"):
        for child in node.children:
            names += _read_node(
                child,
                reading,
                template,
                shortcut,
                optional=optional or node.kind == "optional",
                repeated=repeated,
            )
    elif node.kind == "repeat":
        if sum(1 for leaf in _leaves(node) if leaf.kind != "option") > 1:
            raise _LineError("a repeated group of several arguments or words cannot be passed")
        for child in node.children:
            names += _read_node(child, reading, template, shortcut, optional=optional, repeated=True)
    elif node.kind == "options":
        for option in shortcut:
            if option.key not in {param.option for param in reading.parameters}:
                names += _add_option(option, reading, optional=True, repeated=False)
    elif node.kind == "either":
        names += _read_either(node, reading, template, shortcut, optional=optional, repeated=repeated)
    elif node.kind == "command" and node.name == "--":
        pass  # `[--]`: a call never needs it (an argument that starts with `-` is refused)
    elif node.kind == "command":
        if repeated or optional:
            raise _LineError(f"its command word {node.name!r} is optional or repeated")
        if "{" in node.name or node.name == SLOT:
            raise _LineError(f"its command word {node.name!r} cannot be written")
        template.append(node.name)
    elif node.kind == "argument":
        if reading.repeated_argument is not None:
            raise _LineError(
                f"docopt never gives {node.name} a value: the repeated {reading.repeated_argument} before it "
                "takes every argument (put it first)"
            )
        if repeated:
            reading.repeated_argument = f"{node.name}..."
        template.append(SLOT)
        many = {"type": "array", "items": "string", "min": 1} if repeated else {}
        names.append(
            _add(reading, name=node.name.strip("<>").lower(), option="", required=not optional, **many)
        )
    elif node.option is not None and node.name not in _SKIPPED:
        if node.name in {param.option for param in reading.parameters}:
            raise _LineError(f"it names {node.name} twice")
        names += _add_option(node.option, reading, optional=optional, repeated=repeated)
    return names


def _read_either(
    node: Node,
    reading: _Reading,
    template: list[str],
    shortcut: list[Option],
    *,
    optional: bool,
    repeated: bool,
) -> list[str]:
    """`(set | remove)`: one enum argument; `[--moored | --drifting]`, `(<file> | --all)`:
    each one optional, at most one given (at least one when the group is required)."""
    branches = node.children
    if all(branch.kind == "command" for branch in branches):
        if repeated:
            raise _LineError("a repeated choice of words cannot be passed")
        template.append(SLOT)
        name = "_or_".join(branch.name for branch in branches)
        words = [branch.name for branch in branches]
        return [_add(reading, name=name if len(name) <= 40 else "command", option="", enum=words,
                     required=not optional, description=f"One of: {', '.join(words)}")]  # fmt: skip
    if any(branch.kind not in ("argument", "option") for branch in branches):
        raise _LineError(
            "a choice between several words or arguments cannot be passed (write each as a usage line)"
        )
    names = []
    for branch in branches:
        names += _read_node(branch, reading, template, shortcut, optional=True, repeated=repeated)
    given = {name: _given(reading, name) for name in names}
    if len(given) > 1:
        pairs = [
            {"required": [a, b], "properties": {**given[a], **given[b]}}
            for a, b in itertools.combinations(given, 2)
        ]
        reading.conditions.append({"not": {"anyOf": pairs}})
    if not optional and given:
        reading.conditions.append(
            {"anyOf": [{"required": [name], "properties": given[name]} for name in given]}
        )
    return names


def _given(reading: _Reading, name: str) -> dict[str, Any]:
    """The `properties` that say a parameter is given: a flag is given when true."""
    param = next(param for param in reading.parameters if param.name == name)
    return {name: {"const": True}} if param.option_form == "flag" else {name: {}}


def _add_option(option: Option, reading: _Reading, *, optional: bool, repeated: bool) -> list[str]:
    fields: dict[str, Any] = {"name": option.key.lstrip("-").replace("-", "_"), "option": option.key}
    fields["description"] = option.description
    if not option.takes_value:
        if repeated:
            fields.update(type="integer", option_form="count", min=0)
        else:
            fields.update(type="boolean", option_form="flag", default=False)
        return [_add(reading, required=False, **fields)]
    if repeated:
        fields.update(type="array", items="string", option_form="repeat")
        if option.default is not None:
            fields["default"] = option.default.split()
    elif option.default is not None:
        fields["default"] = option.default
    return [_add(reading, required=not optional, **fields)]


def _add(reading: _Reading, **fields: Any) -> str:
    if fields["required"]:
        fields.pop("default", None)
    taken = {param.name for param in reading.parameters}
    name = usable_name(str(fields["name"]), taken)
    number = 2
    while name in taken:
        name, number = f"{usable_name(str(fields['name']), taken)}_{number}", number + 1
    fields["name"] = name
    reading.add(reading.line, **fields)
    return name
