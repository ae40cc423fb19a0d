"""The house rules of the whole package (docs/architecture.md, "Layout"): no import circle
anywhere, only the command line imports the server, and a module past 300 lines says at
its top why it is one module."""

from __future__ import annotations

import ast

from tests.import_graph import PACKAGE, graph, inside, module_name, modules

LONG = 300


def circle_through(edges: dict[str, set[str]]) -> list[str]:
    """One import circle of `edges` (a package and the modules inside it aside), or []."""
    done: set[str] = set()
    for start in sorted(edges):
        path: list[str] = []
        on_path: set[str] = set()
        stack = [(start, iter(sorted(edges[start])))]
        path.append(start)
        on_path.add(start)
        while stack:
            node, outs = stack[-1]
            following = next(outs, None)
            if following is None:
                stack.pop()
                done.add(path.pop())
                on_path.discard(node)
                continue
            if inside(following, node) or inside(node, following) or following in done:
                continue
            if following in on_path:
                return [*path[path.index(following) :], following]
            stack.append((following, iter(sorted(edges[following]))))
            path.append(following)
            on_path.add(following)
    return []


def test_no_import_circle_in_the_package() -> None:
    assert circle_through(graph()) == []


def test_the_circle_finder_finds_a_circle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circle_through(edges) == ["a", "b", "c", "a"]


def test_only_the_command_line_imports_the_server() -> None:
    """serve/ is the one package that imports the SDK; the stages and tools below it never
    reach up into it (the fast commands stay fast and the stages meet only in files)."""
    reaching = sorted(
        f"{name} imports {imported}"
        for name, imported_names in graph().items()
        if not inside(name, "toolkiln.serve", "toolkiln.cli")
        for imported in imported_names
        if inside(imported, "toolkiln.serve")
    )
    assert not reaching


def test_a_module_past_300_lines_says_why_it_is_one_module() -> None:
    """Split by job; where one job reads best whole, the module's docstring says so
    ("One module past 300 lines: ...")."""
    unexplained = sorted(
        f"{module_name(path)}: {lines} lines"
        for path in modules()
        if (lines := len(path.read_text().splitlines())) > LONG
        and "past 300 lines" not in (ast.get_docstring(ast.parse(path.read_text())) or "")
    )
    assert not unexplained, f"split these by job, or say at the top why not: {unexplained}"
    assert PACKAGE.is_dir()
