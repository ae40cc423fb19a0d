"""Faulty scripts, called over stdio and over HTTP through one long-lived server each:
every fault is a clear tool error (or a correct result), the server goes on answering,
and no process of the call is left, grandchildren and daemons included."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.helpers import (
    Served,
    leftovers,
    reset_peak_rss,
    serve_http,
    serve_stdio,
    status_kib,
    text_of,
)
from tests.faults.scripts import FAULTS, PY_FAULTS, SLOW_FAULTS, Fault, build_fault_tools
from tests.faults.tally import FAULTS as FAULTS_SURVIVED
from tests.faults.tally import count

# A flood goes through the server; what it keeps of it is 256 KiB. Its peak RSS during
# the call may grow by buffers, never by the size of the flood.
FLOOD_GROWTH_KIB = 50 * 1024
FLOODS = {"stdout_1gb", "stderr_1gb", "stdout_line_100mb", "stderr_line_100mb", "py_prints_1gb"}


@pytest.fixture(scope="module")
def scripts_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("scripts")
    build_fault_tools(root / "tools", root / "config", FAULTS)
    return root / "config"


@pytest.fixture(scope="module")
def python_config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("python")
    build_fault_tools(root / "tools", root / "config", PY_FAULTS, python=True)
    return root / "config"


def _served(config_dir: Path, transport: str, state: Path) -> Iterator[Served]:
    if transport == "stdio":
        with serve_stdio(config_dir) as served:
            yield served
    else:
        with serve_http(config_dir, state) as served:
            yield served


@pytest.fixture(scope="module", params=["stdio", "http"])
def scripts_server(
    request: pytest.FixtureRequest, scripts_config: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    yield from _served(scripts_config, request.param, tmp_path_factory.mktemp("state"))


@pytest.fixture(scope="module", params=["stdio", "http"])
def python_server(
    request: pytest.FixtureRequest, python_config: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    yield from _served(python_config, request.param, tmp_path_factory.mktemp("state"))


def _survive(served: Served, name: str, fault: Fault) -> None:
    if name in FLOODS:
        reset_peak_rss(served.server_pid)
        before = status_kib(served.server_pid, "VmRSS")
    result = served.call(name)
    text = text_of(result)
    assert result.is_error is fault.expect_error, text[:2000]
    for words in fault.says:
        assert words in text, f"{words!r} not in {text[:2000]!r}"
    if fault.check is not None:
        fault.check(text)
    if name in FLOODS:
        growth = status_kib(served.server_pid, "VmHWM") - before
        assert growth < FLOOD_GROWTH_KIB, f"the server's peak RSS grew by {growth} KiB"
    served.still_answers()
    served.assert_no_leftovers()
    count(FAULTS_SURVIVED)


def _params(names: dict[str, Fault]) -> list[object]:
    return [pytest.param(name, marks=[pytest.mark.slow] if name in SLOW_FAULTS else []) for name in names]


@pytest.mark.parametrize("name", _params(FAULTS))
def test_a_faulty_script(scripts_server: Served, name: str) -> None:
    _survive(scripts_server, name, FAULTS[name])


@pytest.mark.parametrize("name", _params(PY_FAULTS))
def test_a_faulty_python_tool(python_server: Served, name: str) -> None:
    _survive(python_server, name, PY_FAULTS[name])
    # A worker that failed was replaced: the same tool answers the same way again, and
    # the worker it left is stopped.
    if PY_FAULTS[name].expect_error:
        again = python_server.call(name)
        assert again.is_error
        workers = leftovers(python_server.mark, keep_workers=False, grace=0)
        assert not [command for command in workers.values() if f"/{name}.py" in command]
