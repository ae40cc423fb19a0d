"""argc's comment tags (sigoden/argc, docs/specification.md), read from a script's text.

    # @describe Search the web
    # @option --query! <TEXT>   What to search for
    # @option --count=5 <INT>   How many results
    # @flag   --verbose         Say more
    # @arg    paths*            Files to look in
    # @env    LLM_OUTPUT=/dev/stdout
    # @cmd    Add a todo        (the function defined next is the subcommand)

Standard library only, and no toolkiln import: discovery reads a script with it, and
`shim.py` (run as `argc` on the script's PATH) reads it again when the script runs.
A tag that does not parse is a `problem` (line, message), never skipped in silence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# (`(?:.*\S)?\s*$`, not `(.*?)\s*$`: a lazy match tried the trailing blanks again at
# each character, quadratic in a long run of blanks)
TAG = re.compile(
    r"^\s*#\s*@(describe|version|author|meta|cmd|alias|option|flag|arg|env)(?=\s|$)\s*+((?:.*\S)?)\s*$"
)
COMMENT = re.compile(r"^\s*#(?!!)\s?((?:.*\S)?)\s*$")
FUNCTION = re.compile(
    r"^\s*(?:function\s+(?P<a>[A-Za-z_][\w:.@-]*)\s*(?:\(\s*\))?|(?P<b>[A-Za-z_][\w:.@-]*)\s*\(\s*\))\s*(?:\{.*)?$"
)
# How a script hands its arguments to argc: `eval "$(argc --argc-eval "$0" "$@")"`, the
# older `argc -e $0 "$@"` and `argc "$0" "$@"`, or a parser argc wrote into the script.
ARGC_CALL = re.compile(r"\bargc\s+(?:--argc-eval|-e)\b|\bargc\s+\"?\$0\b|#\s*ARGC-BUILD\b")

_NAME = r"[A-Za-z0-9_][A-Za-z0-9_.-]*?"
_VALUE = r"(?P<value>=`[^`]*`|=\"[^\"]*\"|='[^']*'|=[^\s\[]*|\[[^\]]*\])?"
_MODIFIER = r"(?P<mod>[!*+~]?)(?P<delim>(?<=[*+])[,:@|/])?"
OPTION_HEAD = re.compile(
    r"^(?:(?P<short>[-+][^\s\-+])\s+(?=[-+]))?(?P<sign>--|-|\+)(?P<name>"
    + _NAME
    + ")"
    + _MODIFIER
    + _VALUE
    + r"(?=\s|$)"
)
FLAG_HEAD = re.compile(
    r"^(?:(?P<short>[-+][^\s\-+])\s+(?=[-+]))?(?P<sign>--|-|\+)(?P<name>" + _NAME + r")(?P<mod>\*?)(?=\s|$)"
)
ARG_HEAD = re.compile(r"^(?P<name>" + _NAME + ")" + _MODIFIER + _VALUE + r"(?=\s|$)")
ENV_HEAD = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?P<mod>!?)" + _VALUE + r"(?=\s|$)")
NOTATION = re.compile(r"^<(?P<text>[^>\s]*)>(?=\s|$)")
BIND_ENV = re.compile(r"^\$(?P<name>\$|[A-Za-z_][A-Za-z0-9_]*)(?=\s|$)")


@dataclass
class Param:
    """One `@option`, `@flag`, `@arg` or `@env`."""

    kind: str  # option, flag, arg, env
    name: str  # argc's id: the long name, the short letter, or the arg/env name
    line: int
    long: str | None = None  # the option string as written: `--name`, `-name`, `+name`
    short: str | None = None  # `-n`
    required: bool = False
    multiple: bool = False  # `*` or `+`: given many times (an array)
    delimiter: str | None = None  # `*,`: each value also split at the character
    terminated: bool = False  # `~`: takes every argument after it
    default: str | None = None
    default_fn: str | None = None  # `=`fn``: the script's function prints the default
    choices: list[str] | None = None
    choice_fn: str | None = None  # `[`fn`]`: the script's function prints the choices
    notations: list[str] = field(default_factory=list)
    bind_env: str | None = None  # `$NAME`: the value from that env var when not given
    description: str = ""

    @property
    def variable(self) -> str:
        """argc's shell variable: `argc_` and the id, `-`, `.` and `:` as `_`."""
        return "argc_" + re.sub(r"[-.:]", "_", self.name)

    @property
    def option_strings(self) -> list[str]:
        return [text for text in (self.long, self.short) if text]


@dataclass
class Command:
    """The script itself (name "") or one `@cmd` and the function it names."""

    name: str
    line: int
    describe: str = ""
    params: list[Param] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    metas: dict[str, str] = field(default_factory=dict)

    def find(self, kind: str) -> list[Param]:
        return [param for param in self.params if param.kind == kind]


@dataclass
class Script:
    root: Command
    commands: list[Command] = field(default_factory=list)
    functions: set[str] = field(default_factory=set)
    version: str | None = None
    problems: list[tuple[int, str]] = field(default_factory=list)

    def command(self, word: str) -> Command | None:
        for command in self.commands:
            if word == command.name or word in command.aliases:
                return command
        return None


def has_tags(text: str) -> bool:
    return any(TAG.match(line) for line in text.splitlines())


def calls_argc(text: str) -> bool:
    return ARGC_CALL.search(text) is not None


def parse_script(text: str) -> Script:
    """Every tag of the script, with the commands their functions make."""
    script = Script(root=Command("", 0))
    pending: Command | None = None
    described: object = None  # what a comment line below a tag adds its text to
    for number, raw in enumerate(text.splitlines(), start=1):
        target = pending or script.root
        if match := TAG.match(raw):
            tag, rest = match.group(1), match.group(2)
            described = None
            if tag == "cmd":
                pending = Command("", number, describe=rest)
                described = pending
            elif tag == "describe":
                target.describe = rest
                described = target
            elif tag == "alias":
                target.aliases += [alias.strip() for alias in rest.split(",") if alias.strip()]
            elif tag == "meta":
                key, _, value = rest.partition(" ")
                target.metas[key] = value.strip()
                if key == "version" and target is script.root:
                    script.version = value.strip() or None
            elif tag == "version":
                script.version = rest or None
            elif tag in ("option", "flag", "arg", "env"):
                param = _parse_param(tag, rest, number, script.problems)
                if param is not None:
                    target.params.append(param)
                    described = param
            continue
        if (comment := COMMENT.match(raw)) and described is not None:
            _extend_description(described, comment.group(1))
            continue
        described = None
        if function := FUNCTION.match(raw):
            name = function.group("a") or function.group("b")
            script.functions.add(name)
            if pending is not None:
                pending.name = name
                script.commands.append(pending)
                pending = None
    return script


def _extend_description(target: object, text: str) -> None:
    attribute = "describe" if isinstance(target, Command) else "description"
    current = getattr(target, attribute)
    setattr(target, attribute, f"{current}\n{text}" if current or text else "")


def _parse_param(tag: str, text: str, line: int, problems: list[tuple[int, str]]) -> Param | None:
    head = {"option": OPTION_HEAD, "flag": FLAG_HEAD, "arg": ARG_HEAD, "env": ENV_HEAD}[tag].match(text)
    if head is None:
        problems.append((line, f"cannot read `@{tag} {text}` (argc's form: {_FORMS[tag]})"))
        return None
    fields = head.groupdict()
    param = Param(kind=tag, name=fields["name"], line=line)
    if tag in ("option", "flag"):
        param.long = fields["sign"] + fields["name"]
        param.short = fields.get("short")
    modifier = fields.get("mod") or ""
    param.required = modifier in ("!", "+")
    param.multiple = modifier in ("*", "+") or (tag == "flag" and modifier == "*")
    param.terminated = modifier == "~"
    param.delimiter = fields.get("delim") or None
    value = fields.get("value") or ""
    if value.startswith("=`"):
        param.default_fn = value[2:-1]
    elif value.startswith("="):
        param.default = _unquote(value[1:])
    elif value.startswith("["):
        _read_choices(param, value[1:-1])
    rest = text[head.end() :].strip()
    while rest:
        if notation := NOTATION.match(rest):
            param.notations.append(notation.group("text"))
        elif bind := BIND_ENV.match(rest):
            param.bind_env = bind.group("name")
        else:
            break
        rest = rest[(notation or bind).end() :].strip()  # type: ignore[union-attr]
    param.description = rest
    return param


def _read_choices(param: Param, inside: str) -> None:
    if inside.startswith("?"):
        inside = inside[1:]
    elif inside.startswith("+"):  # `*[+a|b]`: older spelling of required
        param.required, inside = True, inside[1:]
    if inside.startswith("`") and inside.endswith("`"):
        param.choice_fn = inside[1:-1]
        return
    if inside.startswith("="):
        inside = inside[1:]
        param.default = inside.split("|", 1)[0]
    param.choices = inside.split("|")


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


_FORMS = {
    "option": "`@option [-s] --name[!|*|+][=default|[a|b]] [<NOTATION>] description`",
    "flag": "`@flag [-s] --name[*] description`",
    "arg": "`@arg name[!|*|+|~][=default|[a|b]] [<NOTATION>] description`",
    "env": "`@env NAME[!][=default|[a|b]] description`",
}
