"""argparse objects traced by name through a module, with `ast` (never imported): which
`ArgumentParser`, argument group, subparsers action and subcommand parser each name
refers to where it is used, and which `add_argument` calls belong to which parser.

`parser = argparse.ArgumentParser()`, `group = parser.add_argument_group()`,
`sub = parser.add_subparsers()`, `p = sub.add_parser("add")`, `parents=[common]`, a helper
`def add_common(p)` called with a parser, a `for p in (a, b):` loop, a helper that returns
its parser. A parser handed to a function from elsewhere is marked (`escaped`): its
arguments cannot all be read. Following a name to what it was bound to is
`python_names`' job; this module says what each argparse call makes or adds to.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from toolkiln.conventions.python_cli.argument import read_argument
from toolkiln.conventions.python_cli.names import NameTrace
from toolkiln.conventions.python_cli.read import Reading, first_paragraph, module_constants
from toolkiln.errors import DiscoveryError


@dataclass(eq=False)
class Parser:
    call: ast.Call
    name: str = ""  # a subcommand's name
    description: str = ""
    arguments: list[tuple[ast.Call, Group | None]] = field(default_factory=list)
    parents: list[ast.expr] = field(default_factory=list)
    subparsers: Subparsers | None = None
    is_parent: bool = False
    parsed: bool = False
    escaped: str | None = None  # a function from elsewhere it is handed to
    defaults: set[str] = field(default_factory=set)  # the names its `set_defaults(...)` sets


@dataclass(eq=False)
class Group:
    parser: Parser
    exclusive: bool
    required: bool


@dataclass(eq=False)
class Subparsers:
    parser: Parser
    dest: str | None
    commands: list[Parser] = field(default_factory=list)
    required: bool = False


ParserObject = Parser | Group | Subparsers
_PARSE = ("parse_args", "parse_known_args", "parse_intermixed_args")
# Functions from elsewhere that take a parser and add no argument a call would need.
_HARMLESS = (
    "print", "vars", "len", "isinstance", "id", "repr", "str", "type", "getattr", "hasattr",
    "argcomplete.autocomplete", "autocomplete", "shtab.add_argument_to",
)  # fmt: skip
_PARSER_METHODS = (
    "add_argument", "add_argument_group", "add_mutually_exclusive_group", "add_subparsers", "add_parser",
    "set_defaults", "print_help", "print_usage", "format_help", "error", "exit", *_PARSE,
)  # fmt: skip


class ParserTrace:
    """The argparse objects of one module, and the names that refer to them."""

    def __init__(self, module: ast.Module, path: str) -> None:
        self.module, self.path = module, path
        self.constants = module_constants(module)
        self.made: dict[int, ParserObject] = {}  # id(call) -> what it made
        self.names = NameTrace(module, self.made)
        self.bindings, self.functions = self.names.bindings, self.names.functions
        self.parsers: list[Parser] = []
        self.warnings: list[DiscoveryError] = []
        self.nameless: set[int] = set()
        calls = sorted(
            (node for node in ast.walk(module) if isinstance(node, ast.Call)),
            key=lambda node: (node.lineno, node.col_offset),
        )
        for _ in range(6):  # objects first, until none is new (a helper may come before its caller)
            before = len(self.made)
            for call in calls:
                self._visit(call, attach=False)
            if len(self.made) == before:
                break
        for call in calls:
            self._visit(call, attach=True)
        self._note_required()
        for parser in self.parsers:
            if parser.subparsers is not None:
                parser.subparsers.commands.sort(key=lambda command: command.call.lineno)

    def _strings(self) -> dict[str, Any]:
        """The module's constants, and names bound once, to a string (a `main()`'s
        `text = "What it does"` handed to `ArgumentParser(description=text)`)."""
        once = {
            name: entries[0][1].value
            for name, entries in self.bindings.items()
            if len(entries) == 1
            and isinstance(entries[0][1], ast.Constant)
            and isinstance(entries[0][1].value, str)
        }
        return {**once, **self.constants}

    def _visit(self, call: ast.Call, *, attach: bool) -> None:
        """Make what `call` makes (a parser, group, subparsers action), or with `attach`
        tie an `add_argument` or `parse_args` call to its parser."""
        function = call.func
        method = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
        if attach:
            self._note_escape(call)
        if id(call) in self.made or attach != (method in ("add_argument", "set_defaults", *_PARSE)):
            return
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        if method == "ArgumentParser":
            parser = Parser(call, description=_text(keywords.get("description"), self._strings()))
            parser.parents = _elements(keywords.get("parents"))
            self._check_parser(call, keywords)
            self.made[id(call)] = parser
            self.parsers.append(parser)
            return
        if not isinstance(function, ast.Attribute):
            return
        owners = self.resolve(function.value, call.lineno)
        if method == "add_argument":
            targets = [o for o in owners if isinstance(o, Parser | Group)]
            if not targets:
                self._unattached(call)
            for target in targets:
                into = target.parser if isinstance(target, Group) else target
                into.arguments.append((call, target if isinstance(target, Group) else None))
        elif method in ("add_argument_group", "add_mutually_exclusive_group") and owners:
            first = owners[0]
            owner_parser = first.parser if isinstance(first, Group) else first
            if isinstance(owner_parser, Parser):
                required = keywords.get("required")
                self.made[id(call)] = Group(
                    owner_parser,
                    exclusive=method == "add_mutually_exclusive_group",
                    required=isinstance(required, ast.Constant) and required.value is True,
                )
        elif method == "add_subparsers" and owners and isinstance(owners[0], Parser):
            dest = keywords.get("dest")
            dest_name = dest.value if isinstance(dest, ast.Constant) and isinstance(dest.value, str) else None
            required = keywords.get("required")
            action = Subparsers(owners[0], dest_name, required=_is_true(required))
            owners[0].subparsers = action
            self.made[id(call)] = action
        elif method == "add_parser":
            actions = [o for o in owners if isinstance(o, Subparsers)]
            if not actions:
                known = [p.subparsers for p in self.parsers if p.subparsers is not None]
                actions = known[-1:]  # `def add_commands(subparsers)`: the one there is
            name = call.args[0] if call.args else keywords.get("name")
            if actions and isinstance(name, ast.Constant) and isinstance(name.value, str):
                description = _text(keywords.get("help") or keywords.get("description"), self.constants)
                command = Parser(call, name=name.value, description=description)
                command.parents = _elements(keywords.get("parents"))
                actions[0].commands.append(command)
                self.made[id(call)] = command
            elif actions and id(call) not in self.nameless:
                self.nameless.add(id(call))
                self.warnings.append(
                    DiscoveryError(
                        "a subcommand whose name is not a literal string is left out",
                        path=self.path,
                        line=call.lineno,
                    )
                )
        elif method == "set_defaults":
            for owner in owners:
                if isinstance(owner, Parser):
                    owner.defaults.update(k.arg for k in call.keywords if k.arg)
        elif method in _PARSE:
            for owner in owners:
                if isinstance(owner, Parser):
                    owner.parsed = True

    def _note_required(self) -> None:
        """`subparsers.required = True`, the spelling of Pythons before 3.7."""
        for node in ast.walk(self.module):
            if isinstance(node, ast.Assign) and _is_true(node.value):
                for target in node.targets:
                    if isinstance(target, ast.Attribute) and target.attr == "required":
                        for found in self.resolve(target.value, node.lineno):
                            if isinstance(found, Subparsers):
                                found.required = True

    def _note_escape(self, call: ast.Call) -> None:
        """A parser handed to a function defined elsewhere (`commands.add_arguments(parser)`)
        may get arguments there; one defined here is followed through its parameters."""
        callee = ast.unparse(call.func)
        if callee in self.functions or callee in _HARMLESS or callee.rsplit(".", 1)[-1] in _PARSER_METHODS:
            return
        given = [*call.args, *(k.value for k in call.keywords if k.arg != "parents")]
        for node in given:
            if isinstance(node, ast.Name | ast.Attribute):
                for found in self.resolve(node, call.lineno):
                    parser = found.parser if isinstance(found, Group) else found
                    if isinstance(parser, Parser) and parser.escaped is None:
                        parser.escaped = f"{callee}()"

    def _check_parser(self, call: ast.Call, keywords: dict[str, ast.expr]) -> None:
        prefix = keywords.get("prefix_chars")
        if prefix is not None and ast.unparse(prefix) not in ("'-'", '"-"'):
            raise DiscoveryError(
                "an ArgumentParser with prefix_chars other than '-' is not supported",
                path=self.path,
                line=call.lineno,
            )
        from_file = keywords.get("fromfile_prefix_chars")
        if from_file is not None and ast.unparse(from_file) != "None":
            raise DiscoveryError(
                "an ArgumentParser with fromfile_prefix_chars is not served: a value starting with "
                f"{ast.unparse(from_file)} would make argparse read options from a file",
                path=self.path,
                line=call.lineno,
            )

    def _unattached(self, call: ast.Call) -> None:
        """An `add_argument` on something not known to be a parser: a required one refuses
        the tool; an optional one is left out."""
        reading = Reading(self.path, self.constants)
        read_argument(call, reading, in_required_group=False)
        owner = ast.unparse(call.func.value) if isinstance(call.func, ast.Attribute) else "?"
        reading.cannot_represent(
            f"add_argument({', '.join(ast.unparse(arg) for arg in call.args)})",
            f"it is added to {owner}, which could not be traced to a parser",
            call.lineno,
            required=any(param.required for param in reading.parameters),
        )
        self.warnings += reading.warnings

    def resolve(self, node: ast.expr, line: int) -> list[ParserObject]:
        """The parsers, groups and subparsers actions `node`, at `line`, may refer to."""
        return self.names.resolve(node, line)

    def root_parser(self) -> Parser:
        used_as_parent: set[int] = set()
        for parser in self.parsers:
            for parent_expr in parser.parents:
                used_as_parent.update(id(p) for p in self.resolve(parent_expr, parser.call.lineno))
        for action_parser in (p for p in self.parsers if p.subparsers is not None):
            for command in action_parser.subparsers.commands if action_parser.subparsers else []:
                for parent_expr in command.parents:
                    used_as_parent.update(id(p) for p in self.resolve(parent_expr, command.call.lineno))
        roots = [p for p in self.parsers if id(p) not in used_as_parent]
        if not roots:
            raise DiscoveryError("no argparse.ArgumentParser(...) found", path=self.path)
        parsed = [p for p in roots if p.parsed]
        chosen = (parsed or roots)[0]
        others = [p for p in (parsed or roots) if p is not chosen]
        if others:
            raise DiscoveryError(
                f"builds {len(others) + 1} argparse parsers (lines "
                f"{', '.join(str(p.call.lineno) for p in [chosen, *others])}) and which one the script "
                "runs cannot be told without running it",
                path=self.path,
                line=chosen.call.lineno,
            )
        return chosen


def _is_true(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _elements(node: ast.expr | None) -> list[ast.expr]:
    return list(node.elts) if isinstance(node, ast.List | ast.Tuple) else []


def _text(node: ast.expr | None, constants: dict[str, Any]) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return first_paragraph(node.value)
    if isinstance(node, ast.Name) and node.id == "__doc__":
        return ""
    if isinstance(node, ast.Name) and isinstance(constants.get(node.id), str):
        return first_paragraph(constants[node.id])
    return ""
