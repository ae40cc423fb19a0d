"""serve/'s house (docs/architecture.md, "Serving"): the single server first (its top
modules, calls/, catalog/, tasks/), the two transports and the dashboard beside it.
Replicas have their own test (replicas/test_replica_boundary.py)."""

from __future__ import annotations

from collections.abc import Callable

from tests.import_graph import PACKAGE, graph, inside

SERVE = "toolkiln.serve"
TRANSPORTS = (f"{SERVE}.stdio", f"{SERVE}.http", f"{SERVE}.dashboard")


def single_server(name: str) -> bool:
    """A module of the single server: serve/*.py, calls/, catalog/ or tasks/."""
    top_module = name.count(".") == 2 and (PACKAGE / "serve" / f"{name.rsplit('.', 1)[1]}.py").is_file()
    return (name.startswith(SERVE + ".") and top_module) or inside(
        name, f"{SERVE}.calls", f"{SERVE}.catalog", f"{SERVE}.tasks"
    )


def crossings(importer: Callable[[str], bool], imported_roots: tuple[str, ...]) -> list[str]:
    return sorted(
        f"{name} imports {imported}"
        for name, imported_names in graph().items()
        if importer(name)
        for imported in imported_names
        if inside(imported, *imported_roots)
    )


def test_the_single_server_imports_no_transport_and_no_dashboard() -> None:
    assert crossings(single_server, TRANSPORTS) == []


def test_the_transports_do_not_import_each_other() -> None:
    assert (
        crossings(lambda name: inside(name, f"{SERVE}.stdio"), (f"{SERVE}.http", f"{SERVE}.dashboard")) == []
    )
    assert crossings(lambda name: inside(name, f"{SERVE}.http"), (f"{SERVE}.stdio",)) == []


def test_the_layout_test_sees_the_server() -> None:
    assert single_server(f"{SERVE}.service") and single_server(f"{SERVE}.calls.parked")
    assert not single_server(f"{SERVE}.dashboard") and not single_server(f"{SERVE}.stdio.transport")
