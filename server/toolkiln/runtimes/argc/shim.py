"""toolkiln's `argc --argc-eval`: what sigoden/argc prints for a script's `eval`, for
scripts written for argc, on machines without it.

    eval "$(argc --argc-eval "$0" "$@")"

reads the script's tags (`tags.py`), matches the arguments against them and prints
bash that sets `argc_<name>` (arrays as bash arrays, flags as 1), `argc__args`,
`argc__fn` and `argc__positionals`, exports the `@env` defaults, then runs
`_argc_before`, the chosen function (`main` or the `@cmd` one) with the positionals,
and `_argc_after`. Every value is printed single-quoted, so nothing a caller sends can
become shell code; a mistake prints `error: ...` on stderr and exits 1, as argc does.

Run as `bin/argc` (`python -I -S shim.py ...`): the standard library and `tags.py` only.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable

if __name__ == "__main__":  # run as a file: the folder that holds the toolkiln package
    sys.path.insert(
        0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))
    )

from toolkiln.runtimes.argc.tags import Command, Param, Script, parse_script

VERSION = "argc 1.22.0 (toolkiln's --argc-eval)"
_FUNCTION_NAME = re.compile(r"^[A-Za-z_][\w:.@-]*$")


class ArgcError(Exception):
    pass


def quote(text: str) -> str:
    """`text` as one bash word, taken literally."""
    return "'" + text.replace("'", "'\"'\"'") + "'"


def eval_code(script: Script, script_path: str, args: list[str]) -> str:
    """The bash that `eval` runs: the variables, then the chosen function."""
    try:
        return _eval_code(script, script_path, args)
    except ArgcError as error:
        return f"printf '%s\\n' {quote(f'error: {error}')} >&2\nexit 1"


def _eval_code(script: Script, script_path: str, args: list[str]) -> str:
    command, rest = _select_command(script, args)
    scopes = [script.root, *([command] if command else [])]
    params = [param for scope in scopes for param in scope.params]
    options = [param for param in params if param.kind in ("option", "flag")]
    positional = [param for param in params if param.kind == "arg"]
    if any(token in ("-h", "--help") for token in rest[: rest.index("--") if "--" in rest else None]):
        return f"printf '%s\\n' {quote(_usage(script, command))}\nexit 0"
    given, values = _read_tokens(rest, options, positional)
    lines = _dotenv(script, scopes, script_path)
    lines += _env_lines({env.name: env for scope in scopes for env in scope.find("env")}.values())
    for param in options:
        lines += _option_lines(param, given.get(param.name))
    matched = _match_positionals(positional, values)
    for param in positional:
        lines += _option_lines(param, matched.get(param.name))
    name = os.path.basename(script_path)
    lines.append(f"argc__args=( {' '.join(quote(word) for word in [name, *args])} )")
    function = command.name if command else ("main" if "main" in script.functions else "")
    if function:
        lines.append(f"argc__fn={function}")
    lines.append(f"argc__positionals=( {' '.join(quote(value) for value in values)} )")
    lines += _require_tools(scopes)
    if "_argc_before" in script.functions:
        lines.append("_argc_before")
    if function:
        lines.append(" ".join([function, *(quote(value) for value in values)]))
        if "_argc_after" in script.functions:
            lines.append("_argc_after")
    return "\n".join(lines)


def _select_command(script: Script, args: list[str]) -> tuple[Command | None, list[str]]:
    if not script.commands:
        return None, args
    if args and (command := script.command(args[0])) is not None:
        return command, args[1:]
    default = next((c for c in script.commands if "default-subcommand" in c.metas), None)
    if default is not None or "main" in script.functions:
        return default, args
    if args and not args[0].startswith("-"):
        raise ArgcError(f"unrecognized subcommand `{args[0]}`")
    names = ", ".join(c.name for c in script.commands if not c.name.startswith("_"))
    raise ArgcError(
        f"`{os.path.basename(sys.argv[0])}` requires a subcommand but one was not provided\n"
        f"  [subcommands: {names}]"
    )


def _read_tokens(
    tokens: list[str], options: list[Param], positional: list[Param]
) -> tuple[dict[str, list[str]], list[str]]:
    """The options' values by name (a flag's as "1" per use) and the positional values."""
    by_string = {text: param for param in options for text in param.option_strings}
    given: dict[str, list[str]] = {}
    values: list[str] = []
    terminated_at = next((i for i, p in enumerate(positional) if p.terminated), None)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if token == "--" or (terminated_at is not None and len(values) >= terminated_at and values):
            values += tokens[index:] if token == "--" else tokens[index - 1 :]
            break
        if not (len(token) > 1 and token[0] in "-+"):
            values.append(token)
            continue
        key, equals, value = token.partition("=")
        param = by_string.get(key)
        if param is None:
            raise ArgcError(f"unexpected argument `{key}` found")
        if param.name in given and not param.multiple:
            raise ArgcError(f"the argument `{key}` cannot be used multiple times")
        if param.kind == "flag":
            if equals:
                raise ArgcError(f"flag `{key}` don't accept any value")
            given.setdefault(param.name, []).append("1")
            continue
        if not equals:
            if index >= len(tokens) or (tokens[index][:1] == "-" and len(tokens[index]) > 1):
                raise ArgcError(f"a value is required for `{key}` but none was supplied")
            value, index = tokens[index], index + 1
        given.setdefault(param.name, []).extend(value.split(param.delimiter) if param.delimiter else [value])
    return given, values


def _match_positionals(params: list[Param], values: list[str]) -> dict[str, list[str]]:
    matched: dict[str, list[str]] = {}
    at = 0
    for index, param in enumerate(params):
        if at >= len(values):
            break
        after = len(params) - index - 1
        take = max(1, len(values) - at - after) if (param.multiple or param.terminated) else 1
        matched[param.name] = values[at : at + take]
        at += take
    if params and at < len(values):
        raise ArgcError(f"unexpected argument `{values[at]}` found")
    return matched


def _option_lines(param: Param, values: list[str] | None) -> list[str]:
    variable = param.variable
    if values is None and param.bind_env and param.bind_env != "$" and param.bind_env in os.environ:
        values = [os.environ[param.bind_env]]
    if values is None:
        if param.default is not None:
            values = [param.default]
        elif param.default_fn and _FUNCTION_NAME.match(param.default_fn):
            return [f'{variable}="$({param.default_fn})"']
        elif param.required:
            raise ArgcError(f"the following required arguments were not provided:\n  {_shown(param)}")
        else:
            return []
    if param.choices is not None:
        for value in values:
            if value not in param.choices:
                raise ArgcError(
                    f"invalid value `{value}` for `{_shown(param)}`\n"
                    f"  [possible values: {', '.join(param.choices)}]"
                )
    if param.kind == "flag":
        return [f"{variable}={len(values) if param.multiple else 1}"]
    if param.multiple or param.terminated:
        return [f"{variable}=( {' '.join(quote(value) for value in values)} )"]
    return [f"{variable}={quote(values[0])}"]


def _env_lines(envs: Iterable[Param]) -> list[str]:
    lines = []
    for env in envs:
        unset = f'[ -z "${{{env.name}+x}}" ]'
        if env.default is not None:
            lines.append(f"if {unset}; then export {env.name}={quote(env.default)}; fi")
        elif env.default_fn and _FUNCTION_NAME.match(env.default_fn):
            lines.append(f'if {unset}; then export {env.name}="$({env.default_fn})"; fi')
        elif env.required:
            message = quote(f"error: the required environments `{env.name}` were not provided")
            lines.append(f"if {unset}; then printf '%s\\n' {message} >&2; exit 1; fi")
        if env.choices is not None:
            pattern = " | ".join(quote(choice) for choice in env.choices)
            message = quote(
                f"error: invalid value of `{env.name}`; possible values: {', '.join(env.choices)}"
            )
            lines.append(
                f'if [ -n "${{{env.name}+x}}" ]; then case "${env.name}" in {pattern}) ;; '
                f"*) printf '%s\\n' {message} >&2; exit 1;; esac; fi"
            )
    return lines


def _dotenv(script: Script, scopes: list[Command], script_path: str) -> list[str]:
    if "dotenv" not in script.root.metas:
        return []
    name = script.root.metas["dotenv"] or ".env"
    path = quote(os.path.join(os.path.dirname(os.path.abspath(script_path)), name))
    return [f"if [ -f {path} ]; then set -a; . {path}; set +a; fi"]


def _require_tools(scopes: list[Command]) -> list[str]:
    tools = [
        tool for scope in scopes for tool in re.split(r"[,\s]+", scope.metas.get("require-tools", "")) if tool
    ]
    if not tools:
        return []
    words = " ".join(quote(tool) for tool in tools)
    return [
        f'for _argc_tool in {words}; do command -v "$_argc_tool" >/dev/null 2>&1 || '
        "{ printf 'error: missing tools: %s\\n' \"$_argc_tool\" >&2; exit 1; }; done"
    ]


def _shown(param: Param) -> str:
    if param.kind == "arg":
        return f"<{param.name.upper()}>"
    notation = param.notations[0] if param.notations else param.name.upper()
    return f"{param.long or param.short} <{notation}>"


def _usage(script: Script, command: Command | None) -> str:
    scope = command or script.root
    lines = [
        scope.describe.strip(),
        "",
        "USAGE: " + " ".join(filter(None, [os.path.basename(sys.argv[0]), scope.name])),
    ]
    for param in scope.params:
        lines.append(f"  {_shown(param) if param.kind != 'flag' else param.long}  {param.description}")
    if command is None and script.commands:
        lines += ["", "COMMANDS:", *(f"  {c.name}  {c.describe.strip()}" for c in script.commands)]
    return "\n".join(lines).strip()


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("--argc-version", "--version", "-V"):
        print(VERSION)
        return 0
    if argv[0] in ("--argc-eval", "-e") and len(argv) >= 2:
        script_path, args = argv[1], argv[2:]
    elif os.path.isfile(argv[0]):  # the oldest form: `argc "$0" "$@"`
        script_path, args = argv[0], argv[1:]
    else:
        print("error: toolkiln's argc only answers `argc --argc-eval SCRIPT ARGS...`", file=sys.stderr)
        return 2
    try:
        with open(script_path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError as error:
        print(f"error: cannot read {script_path}: {error.strerror}", file=sys.stderr)
        return 2
    script = parse_script(text)
    if script.problems:
        line, message = script.problems[0]
        print(f"printf '%s\\n' {quote(f'error: {script_path}:{line}: {message}')} >&2\nexit 1")
        return 0
    sys.argv[0] = script_path
    print(eval_code(script, script_path, args))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
