"""A shell script's parameters, from what its option loops, positional reads, header and
usage text say: the option loop's options first, then the positionals in order, then
the rest (`"$@"`), then `stdin`.

Where the name is toolkiln's reading rather than the script's own (a word of the usage
line, or `argN` for an argument nothing names), its description says so: the per-tool
config has no field for a guess, and the user corrects it there.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from toolkiln.conventions.base import make_parameter
from toolkiln.conventions.shell.options import OptionLoop, ShellOption
from toolkiln.conventions.shell.positionals import Positionals
from toolkiln.conventions.shell.usage import (
    UsageArgument,
    option_help,
    tomdoc_arguments,
    usage_arguments,
    usage_line,
    usage_lines,
)
from toolkiln.conventions.usage.model import unique_name
from toolkiln.env_names import sensitive_env_reason

if TYPE_CHECKING:
    from toolkiln.conventions.shell.lines import ShellText
    from toolkiln.model import Parameter

STDIN = "stdin"
_ORDINALS = {1: "first", 2: "second", 3: "third"}
_ARTICLES = ("the", "a", "an", "optional", "optional:")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def parameters_of(
    text: ShellText,
    header: list[tuple[int, str]],
    loops: list[OptionLoop],
    positionals: Positionals,
    dispatch: dict[str, list[str]],
    stdin_at: int | None,
    path: str,
) -> list[Parameter]:
    prose = usage_lines(text, header)
    helps = option_help(prose)
    options = [option for loop in loops for option in loop.options]
    value_options = frozenset(option.option.rstrip("=") for option in options if option.takes_value)
    usage = usage_line(prose)
    usage_args = usage_arguments(usage[1], value_options) if usage else []
    taken: set[str] = set()
    parameters = [_option_parameter(option, helps, taken, path) for option in options]
    parameters += [_flag_parameter(flag, line, helps, taken, path) for flag, line in positionals.flags]
    # `--` before the positionals only where the script reads them after its loop: words a
    # catch-all arm keeps (`*) args+=("$1")`) are lost after a `--) shift; break`.
    separator = any(loop.separator for loop in loops) and not any(
        loop.collects or loop.named for loop in loops
    )
    parameters += _positional_parameters(
        positionals, loops, usage_args, tomdoc_arguments(header), dispatch, separator, taken, path
    )
    taken = {param.name for param in parameters}
    if stdin_at is not None:
        name = STDIN if STDIN not in taken else "stdin_text"
        parameters.append(
            make_parameter(
                path, stdin_at, name=name, type="string", multiline=True, default="",
                description=f"Text given to the script on its standard input (read at line {stdin_at}).",
            )
        )  # fmt: skip
    return parameters


def _option_parameter(option: ShellOption, helps: dict[str, str], taken: set[str], path: str) -> Parameter:
    word = option.option.rstrip("=")
    text = helps.get(word) or option.comment
    if not text:
        sets = f" (sets `{option.variable}`)" if option.variable else ""
        text = f"The script's `{word}` option{sets}."
    name = unique_name(_safe(option.name), taken)
    if option.takes_value:
        return make_parameter(path, option.line, name=name, description=text, option=option.option)
    return make_parameter(
        path, option.line, name=name, type="boolean", default=False, description=text,
        option=option.option, option_form="flag",
    )  # fmt: skip


def _flag_parameter(flag: str, line: int, helps: dict[str, str], taken: set[str], path: str) -> Parameter:
    text = helps.get(flag) or f"The script's `{flag}` option (tested as its first argument)."
    return make_parameter(
        path, line, name=unique_name(_safe(flag.lstrip("-")), taken), type="boolean", default=False,
        description=text, option=flag, option_form="flag",
    )  # fmt: skip


def _positional_parameters(
    positionals: Positionals,
    loops: list[OptionLoop],
    usage: list[UsageArgument],
    tomdoc: dict[int, str],
    dispatch: dict[str, list[str]],
    separator: bool,
    taken: set[str],
    path: str,
) -> list[Parameter]:
    fixed = [argument for argument in usage if not argument.variadic]
    variadic = next((argument for argument in usage if argument.variadic), None)
    named = [name for loop in loops for name, _ in loop.named]
    rest = positionals.rest
    if rest is None and not positionals.by_position and not named and any(loop.collects for loop in loops):
        rest = 1  # `*) args+=("$1")` and nothing read by number: the words as a list
    last = max([*positionals.by_position, len(named), 0])
    if rest is not None:
        last = min(last, rest - 1)
    last = max(last, min(positionals.required_count, rest - 1 if rest is not None else 99))
    required_from = 0
    entries = []
    for position in range(1, last + 1):
        entry = positionals.by_position.get(position)
        usage_arg = fixed[position - 1] if position <= len(fixed) else None
        name, guess = _positional_name(position, entry.name if entry else None, named, usage_arg, tomdoc)
        required = entry.required if entry and entry.required is not None else None
        if required is None:
            optional = usage_arg.optional if usage_arg else bool(entry and entry.tested)
            required = position <= positionals.required_count or not optional
        if required:
            required_from = position
        words = dispatch.get(str(position)) or dispatch.get(entry.name or "" if entry else "")
        if not words and usage_arg and usage_arg.choices:
            words = list(usage_arg.choices)
        if words and guess and not usage_arg:
            name, guess = "command", "the words its `case` handles"
        description = (
            tomdoc.get(position)
            or (entry.message if entry else "")
            or f"The script's {_ordinal(position)} argument (`${position}`)."
        )
        if guess:
            description += (
                f" [Name guessed by toolkiln from {guess}; rename it in this config if it reads wrong.]"
            )
        default = entry.default if entry and entry.default else None
        entries.append((name, description, default, words, entry.line if entry else None))
    parameters = []
    option = "--" if separator else ""
    for position, (name, description, default, words, line) in enumerate(entries, 1):
        name = unique_name(_safe(name), taken)
        fields: dict[str, object] = {"name": name, "description": description, "option": option}
        if words:
            fields["enum"] = words
        if position <= required_from:
            fields["required"] = True
        elif default is not None:
            fields["default"] = default
        parameters.append(make_parameter(path, line, **fields))
    if rest is not None:
        parameters.append(_rest_parameter(positionals, rest, variadic, option, taken, path))
    return parameters


def _rest_parameter(
    positionals: Positionals,
    rest: int,
    variadic: UsageArgument | None,
    option: str,
    taken: set[str],
    path: str,
) -> Parameter:
    absorbed = [entry for position, entry in positionals.by_position.items() if position >= rest]
    required = positionals.required_count >= rest or any(entry.required for entry in absorbed)
    name = unique_name(_safe(positionals.rest_name or (variadic.name if variadic else "args")), taken)
    where = f"at line {positionals.rest_line}" if positionals.rest_line else "kept by its option loop"
    if positionals.joined:
        return make_parameter(
            path, positionals.rest_line, name=name, required=required, option=option,
            description=f"The rest of the script's command line, as one text (`\"$*\"` {where}).",
        )  # fmt: skip
    fields: dict[str, object] = {"min": 1} if required else {"default": []}
    return make_parameter(
        path, positionals.rest_line, name=name, type="array", items="string", required=required,
        option=option, **fields,
        description=f"The script's arguments from the {_ordinal(rest)} on, one item each (`\"$@\"` {where}).",
    )  # fmt: skip


def _positional_name(
    position: int, bound: str | None, named: list[str], usage: UsageArgument | None, tomdoc: dict[int, str]
) -> tuple[str, str | None]:
    if bound:
        return bound, None
    if position <= len(named):
        return named[position - 1], None
    if usage:
        return usage.name, "the usage line"
    from_prose = _name_from_prose(tomdoc.get(position, ""))
    if from_prose:
        return from_prose, f"its `# ${position} -` comment"
    return f"arg{position}", "its position alone: nothing in the script names it"


def _name_from_prose(text: str) -> str | None:
    """`The branch name.` -> `branch_name`; `The remote (origin ...)` -> `remote`."""
    words: list[str] = []
    for word in text[:200].split():
        if word.lower() in _ARTICLES and not words:
            continue
        cut = min((word.find(mark) for mark in ".,;:(" if mark in word), default=-1)
        clean = _UNSAFE.sub("", word[:cut] if cut >= 0 else word).lower()
        if clean:
            words.append(clean)
        if cut >= 0 or len(words) == 3:
            break
    name = "_".join(words)
    return name if name and name[0].isalpha() else None


def _ordinal(position: int) -> str:
    return _ORDINALS.get(position, f"{position}th")


def _safe(name: str) -> str:
    """A parameter name clients accept, and that cannot pose as an environment variable
    the script's run depends on (`PATH="$1"` is the parameter `path`)."""
    name = _UNSAFE.sub("_", name).strip("_-")[:64] or "arg"
    name = name if name[0].isalpha() or name[0] == "_" else f"arg_{name}"[:64]
    if sensitive_env_reason(name):
        name = name.lower()
    return name if not sensitive_env_reason(name) else f"{name[:60]}_arg"
