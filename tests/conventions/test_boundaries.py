"""The conventions' house rules: a convention package imports neither discovery's scan
nor the runner's call path nor the SDK; every module imports first in a fresh
interpreter; every dialect a tools.json may carry has a launcher. (No import circle:
tests/test_house.py, for the whole package.)"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import typing

from tests.import_graph import PACKAGE, imports_of, module_name
from toolkiln.conventions.launchers import LAUNCHERS
from toolkiln.vocabulary import SCRIPT_ENTRIES, DialectName

CONVENTIONS = PACKAGE / "conventions"
# What a convention may import from the other stages' packages: the probe that runs a
# script confined (every reader of a convention now lives in its package: no module of
# discover/ or runner/ is named after a convention).
ALLOWED = {"toolkiln.discover.probe"}
FORBIDDEN_ROOTS = ("toolkiln.discover", "toolkiln.runner", "toolkiln.serve", "toolkiln.cli", "mcp", "click")


def test_conventions_import_neither_discovery_nor_the_call_path_nor_the_sdk() -> None:
    crossing = {
        f"{module_name(path)} imports {name}"
        for path in CONVENTIONS.rglob("*.py")
        for name in imports_of(path)
        if name.startswith(FORBIDDEN_ROOTS) and name not in ALLOWED
    }
    assert not crossing, sorted(crossing)


def test_each_door_imports_first_in_a_fresh_interpreter() -> None:
    """A module whose import only works after another's (a circle through a package's
    `__init__`: `discover/__init__` imports the readers through `order`, `runner/__init__`
    the launchers through `call`) fails here: each door between the packages (a reader, an
    argv builder, the two tables, discovery's and the runner's entries) is imported first,
    in a forked child of an interpreter that imported only what the three packages share."""
    names = sorted(
        {module_name(path) for path in CONVENTIONS.rglob("*.py") if path.name in ("read.py", "argv.py")}
        | {f"toolkiln.conventions.{name}" for name in ("order", "launchers", "launch", "base", "words")}
        | {
            "toolkiln.discover.core",
            "toolkiln.discover.probe",
            "toolkiln.runner.call",
            "toolkiln.runner.environment",
        }
    )
    code = textwrap.dedent(
        """
        import importlib, os, sys, traceback
        # What the three packages share from outside them, imported once before the forks.
        import toolkiln.errors, toolkiln.interpreters, toolkiln.model, toolkiln.process, toolkiln.schema
        failed = []
        for name in sys.argv[1:]:
            pid = os.fork()
            if pid == 0:
                try:
                    importlib.import_module(name)
                except BaseException:
                    traceback.print_exc()
                    os._exit(1)
                os._exit(0)
            _, status = os.waitpid(pid, 0)
            if status:
                failed.append(name)
        print("\\n".join(failed))
        """
    )
    env = {**os.environ, "PYTHONPATH": str(PACKAGE.parent)}
    done = subprocess.run(
        [sys.executable, "-c", code, *names], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.strip() == "", done.stdout + done.stderr[-3000:]


def test_every_dialect_but_run_command_has_a_launcher() -> None:
    dialects = set(typing.get_args(DialectName)) - {"command"}
    python_scripts = {f"python-{entry}" for entry in SCRIPT_ENTRIES}
    assert set(LAUNCHERS) == dialects | python_scripts


def test_every_launcher_is_made_from_its_module() -> None:
    """Each convention's module loads on its first start: an import a maker names wrongly
    would fail only there, on a user's first call of that convention."""
    for convention, launch in LAUNCHERS.items():
        assert callable(launch.argv), convention


def test_discovery_and_the_runner_meet_only_in_files_and_conventions() -> None:
    crossing = {
        f"{module_name(path)} imports {name}"
        for stage, other in (("discover", "toolkiln.runner"), ("runner", "toolkiln.discover"))
        for path in (PACKAGE / stage).rglob("*.py")
        for name in imports_of(path)
        if name == other or name.startswith(other + ".")
    }
    assert not crossing, sorted(crossing)


# The modules a convention's reader or argv builder once had in discover/ and runner/.
_CONVENTION_MODULES = (
    "shell_", "python_argv", "docopt", "fallback_text", "node_cli", "node_argv", "js_", "argc", "kit",
    "scriptkit", "sidecar", "raycast", "help_json", "annotations", "python_cli", "python_fire",
)  # fmt: skip


def test_no_convention_lives_in_discover_or_the_runner() -> None:
    """A convention is one package under conventions/: its reader and how its arguments
    reach the script, nothing of it left in the stages that call it."""
    stray = sorted(
        f"{folder}/{path.name}"
        for folder in ("discover", "runner")
        for path in (PACKAGE / folder).glob("*.py")
        if path.stem.startswith(_CONVENTION_MODULES)
    )
    assert not stray


def test_every_reader_is_a_module_of_its_convention() -> None:
    from toolkiln.conventions.order import READER_MODULES

    assert all(name.startswith("toolkiln.conventions.") for name in READER_MODULES)
