"""What the readers of Python command-line scripts (argparse, click, typer) share: the
module's literal constants, whether anything runs the module as a script, the one
rule for a parameter that cannot be represented. The tools a reading makes (one per
subcommand) are `tools.py`'s.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolkiln.conventions.base import NotATool, make_parameter
from toolkiln.errors import DiscoveryError

if TYPE_CHECKING:
    from toolkiln.model import Parameter

_UNSET: Any = object()


@dataclass
class Reading:
    """What a reader gathers from one script: its parameters, and its warnings (each an
    optional parameter that could not be represented and was left out)."""

    path: str
    constants: dict[str, Any]
    parameters: list[Parameter] = field(default_factory=list)
    warnings: list[DiscoveryError] = field(default_factory=list)
    # Where each parameter was declared (line, column), in the order of `parameters`.
    origins: list[tuple[int, int]] = field(default_factory=list)
    # JSON Schema conditions on these parameters (a required mutually exclusive group).
    conditions: list[dict[str, Any]] = field(default_factory=list)

    def add(self, line: int, origin: tuple[int, int] | None = None, **fields: Any) -> None:
        fields["name"] = usable_name(str(fields["name"]), {param.name for param in self.parameters})
        self.parameters.append(make_parameter(self.path, line, **fields))
        self.origins.append(origin or (line, 0))

    def cannot_represent(self, what: str, reason: str, line: int, *, required: bool) -> None:
        """A parameter the script declares that toolkiln cannot pass: when it is required,
        the tool cannot be served (`DiscoveryError`); else it is left out, with a warning."""
        if required:
            raise DiscoveryError(
                f"{what} is required and cannot be passed to the script: {reason}; the tool is "
                "not published (make it optional, or declare the tool another way)",
                path=self.path,
                line=line,
            )
        self.warnings.append(
            DiscoveryError(
                f"{what} left out: {reason} (the script gets its default)", path=self.path, line=line
            )
        )

    def literal(self, node: ast.expr | None, default: Any = None) -> Any:
        """`node` as a Python value: a literal, a module-level constant, `range(a, b)` as a
        list, `X.keys()`/`list(X)`/`sorted(X)` of one; `default` when it is none of these."""
        if node is None:
            return default
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            pass
        if isinstance(node, ast.Name) and node.id in self.constants:
            return self.constants[node.id]
        if isinstance(node, ast.Call):
            inner = [self.literal(arg, _UNSET) for arg in node.args]
            function = node.func
            if isinstance(function, ast.Name) and not node.keywords and _UNSET not in inner:
                if function.id in ("list", "tuple", "sorted") and len(inner) == 1:
                    try:
                        return sorted(inner[0]) if function.id == "sorted" else list(inner[0])
                    except TypeError:
                        return default
                if function.id == "range" and 1 <= len(inner) <= 2 and all(isinstance(i, int) for i in inner):
                    return list(range(*inner)) if len(range(*inner)) <= 1000 else default
            if isinstance(function, ast.Attribute) and function.attr in ("keys", "values") and not node.args:
                owner = self.literal(function.value, _UNSET)
                if isinstance(owner, dict):
                    return list(owner) if function.attr == "keys" else list(owner.values())
        return default


def usable_name(name: str, taken: set[str]) -> str:
    """A parameter name for what the script calls `name`: the script never sees it (its
    option or position says where the value goes), so `FILE` or `PATH`, which would
    replace an environment variable the script's programs rely on, become `file`,
    `path_arg`; characters a name cannot hold become `_`."""
    from toolkiln.vocabulary import PARAM_NAME_PATTERN, sensitive_env_reason

    cleaned = re.sub(r"[^A-Za-z0-9_-]", "_", name) or "value"
    if not cleaned[0].isalpha() and cleaned[0] != "_":
        cleaned = f"arg_{cleaned}"
    for candidate in (cleaned, cleaned.lower(), f"{cleaned.lower()}_arg"):
        if (
            PARAM_NAME_PATTERN.match(candidate)
            and sensitive_env_reason(candidate) is None
            and (candidate == name or candidate not in taken)
        ):
            return candidate
    return free_name(f"{cleaned.lower()[:56]}_arg", taken)


def module_constants(module: ast.Module) -> dict[str, Any]:
    """Module-level `NAME = <literal>` assignments (`FORMATS = ["json", "csv"]`)."""
    constants: dict[str, Any] = {}
    for node in module.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        try:
            constants[target.id] = ast.literal_eval(value)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            constants.pop(target.id, None)
    return constants


def runs_as_script(module: ast.Module) -> bool:
    """Whether running the file does something: an `if __name__ == "__main__":` block, or
    a module-level statement that calls something (`main()`, `app()`, `parser.parse_args()`)."""
    for node in module.body:
        if is_main_guard(node):
            return True
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call | ast.Await):
            return True
        if isinstance(node, ast.Assign | ast.AnnAssign) and _calls_parse(node.value):
            return True
    return False


def is_main_guard(node: ast.stmt) -> bool:
    """`if __name__ == "__main__":` (either way round)."""
    if not (
        isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and len(node.test.comparators) == 1
    ):
        return False
    sides = {ast.unparse(node.test.left), ast.unparse(node.test.comparators[0])}
    return "__name__" in sides and bool(sides & {"'__main__'", '"__main__"'})


def _calls_parse(node: ast.expr | None) -> bool:
    """`args = parser.parse_args()` at module level (an assignment that runs the parser)."""
    return node is not None and any(
        isinstance(inner, ast.Call)
        and isinstance(inner.func, ast.Attribute)
        and inner.func.attr in ("parse_args", "parse_known_args", "parse_intermixed_args")
        for inner in ast.walk(node)
    )


def check_runnable(module: ast.Module, framework: str) -> None:
    """`NotATool` for a module that declares a command line but that nothing runs as a
    script (a package's `cli.py`, run through its entry point), or that cannot run alone."""
    if not runs_as_script(module):
        raise NotATool(
            f"a Python library: it declares a {framework} command line, but nothing runs it when the "
            'file is run (no `if __name__ == "__main__":`)',
            kind="library",
        )


def check_standalone(module: ast.Module) -> None:
    """`NotATool` for a module of a package (relative imports): it cannot run as a script."""
    for node in module.body:
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            raise NotATool(
                f"part of a Python package (`from {'.' * node.level}{node.module or ''} import ...` "
                f"at line {node.lineno}): it runs as `python -m`, not as a script",
                kind="library",
            )


def first_paragraph(text: str | None) -> str:
    """The first paragraph of a docstring or a description."""
    paragraph: list[str] = []
    for line in (text or "").strip().splitlines():
        if not line.strip():
            break
        paragraph.append(line.strip())
    return " ".join(paragraph)


def free_name(name: str, taken: set[str]) -> str:
    """`name`, or `name2`, `name3`, ... when `taken` has it."""
    candidate, number = name, 2
    while candidate in taken:
        candidate, number = f"{name}{number}", number + 1
    return candidate
