"""Python Fire scripts: what the script hands `fire.Fire(...)`, read with `ast` (never
imported or run).

    import fire

    def greet(name: str, times: int = 1):
        \"\"\"Say hello.\"\"\"
        return " ".join([f"Hello {name}!"] * times)

    if __name__ == "__main__":
        fire.Fire(greet)

`fire.Fire(fn)` is one tool with the function's parameters (their hints, defaults and
Google-style `Args:` descriptions, as for a function tool); `fire.Fire()` makes a tool of
each public function of the module, `fire.Fire({"name": fn})` one per key, and
`fire.Fire(Class)` (or `fire.Fire(Class())`) one per public method, the class's `__init__`
parameters with each method's (Fire takes them as flags too). Each parameter is passed as
`--name=<value>`, the value written as a Python literal (conventions/python/fire_argv.py).
"""

from __future__ import annotations

import ast
import dataclasses

from toolkiln.conventions.base import Declaration, NotATool
from toolkiln.conventions.python.run_function import keyword_function
from toolkiln.conventions.python_cli.read import check_runnable, first_paragraph
from toolkiln.conventions.subcommands import with_file_warnings
from toolkiln.errors import DiscoveryError

_Function = ast.FunctionDef | ast.AsyncFunctionDef


def fire_call(module: ast.Module) -> ast.Call | None:
    """The module's one `fire.Fire(...)` (or `Fire(...)`) call, when what it is handed can
    be read: nothing, a function or class of the module (or an instance of one), or a
    dict literal of functions; None otherwise."""
    calls = [
        node
        for node in ast.walk(module)
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Attribute) and node.func.attr == "Fire")
            or (isinstance(node.func, ast.Name) and node.func.id == "Fire")
        )
    ]
    if len(calls) != 1:
        return None
    component = _component(calls[0])
    if component is None or isinstance(component, ast.Dict):
        return calls[0]
    if isinstance(component, ast.Call) and not component.args and not component.keywords:
        component = component.func  # `fire.Fire(Calculator())`
    return calls[0] if isinstance(component, ast.Name) and component.id in _definitions(module) else None


def read_fire(module: ast.Module, path: str) -> list[Declaration]:
    check_runnable(module, "Python Fire")
    call = fire_call(module)
    if call is None:
        raise NotATool(
            "what it hands Python Fire is made when it runs, so it cannot be read", kind="argv-by-hand"
        )
    definitions = _definitions(module)
    component = _component(call)
    if component is None:  # `fire.Fire()`: the module's functions
        functions = {name: node for name, node in definitions.items() if isinstance(node, _Function)}
        return _commands(module, path, call, {n: f for n, f in functions.items() if not n.startswith("_")})
    if isinstance(component, ast.Dict):
        chosen: dict[str, _Function] = {}
        warnings = []
        for key, value in zip(component.keys, component.values, strict=True):
            target = definitions.get(value.id) if isinstance(value, ast.Name) else None
            if isinstance(key, ast.Constant) and isinstance(key.value, str) and isinstance(target, _Function):
                chosen[key.value] = target
            else:
                what = ast.unparse(key) if key is not None else "**"
                warnings.append(
                    DiscoveryError(
                        f"Fire command {what} left out: not a function of this file",
                        path=path,
                        line=value.lineno,
                    )
                )
        return with_file_warnings(_commands(module, path, call, chosen), warnings)
    instance = isinstance(component, ast.Call)
    named = component.func if isinstance(component, ast.Call) else component
    assert isinstance(named, ast.Name)  # fire_call read it
    target = definitions[named.id]
    if isinstance(target, ast.ClassDef):
        return _class_commands(module, path, call, target, with_init=not instance)
    declaration = keyword_function(target, module, path)
    return [_as_fire(declaration, command=None)]


def _component(call: ast.Call) -> ast.expr | None:
    keywords = {keyword.arg: keyword.value for keyword in call.keywords}
    return call.args[0] if call.args else keywords.get("component")


def _definitions(module: ast.Module) -> dict[str, _Function | ast.ClassDef]:
    return {
        node.name: node
        for node in module.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }


def _commands(
    module: ast.Module, path: str, call: ast.Call, functions: dict[str, _Function]
) -> list[Declaration]:
    if not functions:
        raise DiscoveryError("it hands Python Fire no function to call", path=path, line=call.lineno)
    return [
        _as_fire(keyword_function(function, module, path), command=name)
        for name, function in functions.items()
    ]


def _class_commands(
    module: ast.Module, path: str, call: ast.Call, cls: ast.ClassDef, *, with_init: bool
) -> list[Declaration]:
    methods = {
        node.name: node for node in cls.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    init = methods.get("__init__")
    common = _without_self(keyword_function(init, module, path)).parameters if init and with_init else []
    described = first_paragraph(ast.get_docstring(cls))
    declarations: list[Declaration] = []
    warnings: list[DiscoveryError] = []
    for name, method in methods.items():
        if name.startswith("_") or any(ast.unparse(d) == "property" for d in method.decorator_list):
            continue
        declaration = _without_self(keyword_function(method, module, path), static=_is_static(method))
        clash = {param.name for param in common} & {param.name for param in declaration.parameters}
        if clash:
            warnings.append(
                DiscoveryError(
                    f"Fire command {name!r} left out: its parameter {sorted(clash)[0]!r} has the name of "
                    f"one of {cls.name}.__init__'s, and Fire cannot tell them apart",
                    path=path,
                    line=method.lineno,
                )
            )
            continue
        declaration = dataclasses.replace(
            declaration,
            parameters=[*common, *declaration.parameters],
            description=declaration.description or (f"{described} ({name})" if described else name),
        )
        declarations.append(_as_fire(declaration, command=name))
    if not declarations:
        raise DiscoveryError(
            f"{cls.name} has no public method Python Fire can call", path=path, line=call.lineno
        )
    return with_file_warnings(declarations, warnings)


def _is_static(method: _Function) -> bool:
    return any(ast.unparse(d) == "staticmethod" for d in method.decorator_list)


def _without_self(declaration: Declaration, *, static: bool = False) -> Declaration:
    """A method's tool without its first parameter (`self`, `cls`)."""
    if static or not declaration.parameters:
        return declaration
    return dataclasses.replace(declaration, parameters=declaration.parameters[1:])


def _as_fire(declaration: Declaration, command: str | None) -> Declaration:
    """Each parameter an option `--name` (Fire reads `--name=value` for any parameter)."""
    parameters = [param.model_copy(update={"option": f"--{param.name}"}) for param in declaration.parameters]
    return dataclasses.replace(declaration, parameters=parameters, python_entry="fire", command=command)
