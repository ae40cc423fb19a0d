"""runner/command.py: the built-in run_command tool, on real programs in a real project folder."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import Result

from tests.conftest import pids_alive
from toolkiln.build.merge import build_catalog
from toolkiln.files import catalog_path
from toolkiln.runner import (
    LogLine,
    ProgressLine,
    Registry,
    RunSettings,
    ToolResult,
    ToolRunner,
    UnknownToolError,
)

pytestmark = pytest.mark.anyio

REPO = Path(__file__).resolve().parent.parent.parent
Call = Callable[..., ToolResult]


def program(name: str) -> str:
    path = shutil.which(name)
    assert path is not None, f"the tests need {name} on PATH"
    return path


def make_project(tmp_path: Path, settings: dict[str, Any] | None, **run: Any) -> ToolRunner:
    """A project at `tmp_path` (tools/, config/, work/) whose config/server.json has
    `settings` as its run_command (none: no server.json), built and loaded. Unconfined
    unless `settings` say otherwise: these tests hold each fence to its own work
    (tests/security/test_run_command.py tests confinement on top)."""
    config_dir, tools_dir = tmp_path / "config", tmp_path / "tools"
    (config_dir / "tools").mkdir(parents=True, exist_ok=True)
    tools_dir.mkdir(exist_ok=True)
    (tmp_path / "work").mkdir(exist_ok=True)
    if settings is not None:
        server = {
            "run_command": {"enabled": True, "roots": ["work"], "confinement": {"mode": "off"}, **settings}
        }
        (config_dir / "server.json").write_text(json.dumps(server, indent=2))
    build_catalog(config_dir, tools_dir)
    return ToolRunner(Registry.load(catalog_path(config_dir)), RunSettings(**run))


@pytest.fixture
def work(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture
def commands(tmp_path: Path) -> Callable[..., Call]:
    """`commands(allow=[...], ...)` -> `call(command, **arguments)` on a fresh project."""

    def configure(**settings: Any) -> Call:
        runner = make_project(tmp_path, settings)

        def call(command: str, **arguments: Any) -> ToolResult:
            return anyio.run(runner.call, "run_command", {"command": command, **arguments})

        return call

    return configure


def stdout(result: ToolResult) -> str:
    assert result.structured is not None, result.text
    return str(result.structured["stdout"])


def refusal(result: ToolResult) -> str:
    assert result.is_error
    assert result.exit_code is None, "a refused command must not run"
    assert result.text.startswith("Refused: ")
    return result.text


# --- off unless turned on -------------------------------------------------------------------


@pytest.mark.parametrize("settings", [None, {"enabled": False, "allow": ["ls"]}])
def test_no_such_tool_unless_enabled(tmp_path: Path, settings: dict[str, Any] | None) -> None:
    runner = make_project(tmp_path, settings)
    assert "run_command" not in runner.registry.tools
    assert runner.registry.catalog.run_command is None
    with pytest.raises(UnknownToolError):
        anyio.run(runner.call, "run_command", {"command": "ls"})


def test_an_empty_allowlist_refuses_everything_and_says_how_to_allow(commands: Callable[..., Call]) -> None:
    text = refusal(commands(allow=[])("ls"))
    assert "allows no program yet" in text
    assert "run_command.allow" in text and "config/server.json" in text


# --- what runs, and how the result reads ------------------------------------------------------


def test_an_allowed_command_runs_in_the_first_root(commands: Callable[..., Call], work: Path) -> None:
    (work / "notes.txt").write_text("hello\n")
    result = commands(allow=["ls", "cat"])("ls -a")
    assert not result.is_error
    assert result.exit_code == 0
    assert result.structured == {
        "exit_code": 0,
        "stdout": ".\n..\nnotes.txt\n",
        "stderr": "",
        "timed_out": False,
        "truncated": False,
    }
    lines = result.text.splitlines()
    assert lines[0] == "Command exited with code 0: ls -a"
    assert lines[1] == f"workdir: {os.path.realpath(work)}"
    assert lines[2:] == ["--- stdout ---", ".", "..", "notes.txt", "--- stderr (empty) ---"]


def test_a_failing_command_is_an_error_with_both_streams(commands: Callable[..., Call]) -> None:
    result = commands(allow=["ls"])("ls . no-such-file")
    assert result.is_error
    assert result.exit_code == 2
    assert result.text.startswith("Command failed with exit code 2: ls . no-such-file\n")
    assert "--- stdout ---\n.:\n" in result.text
    assert "--- stderr ---\n" in result.text and "no-such-file" in result.text
    assert result.structured is not None and "no-such-file" in result.structured["stderr"]


def test_stdin_is_passed(commands: Callable[..., Call]) -> None:
    assert stdout(commands(allow=["cat"])("cat", stdin="line one\nline two\n")) == "line one\nline two\n"


def test_the_command_gets_the_servers_environment(commands: Callable[..., Call]) -> None:
    result = commands(allow=["printenv"], deny=[])("printenv TEST_MARK_OF_THE_SERVER")
    assert result.exit_code == 1  # not set in the server, so not in the command
    os.environ["TEST_MARK_OF_THE_SERVER"] = "seen"
    os.environ["TOOLKILN_TEST_MARK"] = "a server setting"
    try:
        result = commands(allow=["printenv"], deny=[])("printenv TEST_MARK_OF_THE_SERVER")
        setting = commands(allow=["printenv"], deny=[])("printenv TOOLKILN_TEST_MARK")
    finally:
        del os.environ["TEST_MARK_OF_THE_SERVER"], os.environ["TOOLKILN_TEST_MARK"]
    assert stdout(result) == "seen\n"
    assert setting.exit_code == 1  # but none of the server's own settings (docs/security.md)


def test_output_is_capped_and_says_so(tmp_path: Path) -> None:
    runner = make_project(tmp_path, {"allow": ["seq"], "limits": {"max_output_bytes": 100}})
    result = anyio.run(runner.call, "run_command", {"command": "seq 1 10000"})
    assert not result.is_error  # a cut output is labelled, the exit code decides
    assert result.truncated
    assert result.structured is not None
    assert result.structured["truncated"] is True
    assert len(result.structured["stdout"]) == 100
    assert "[stdout truncated: showing the first 100 of 48894 bytes]" in result.text


def test_the_servers_output_cap_applies_without_a_limit_of_its_own(tmp_path: Path) -> None:
    runner = make_project(tmp_path, {"allow": ["seq"]}, max_output_bytes=10)
    result = anyio.run(runner.call, "run_command", {"command": "seq 1 100"})
    assert stdout(result) == "1\n2\n3\n4\n5\n"
    assert result.truncated


def test_a_timeout_stops_the_whole_process_group(tmp_path: Path, work: Path) -> None:
    runner = make_project(tmp_path, {"allow": ["sh"], "timeout_seconds": 1})
    script = "sleep 300 & echo $! > pids; echo $$ >> pids; wait"
    result = anyio.run(runner.call, "run_command", {"command": f"sh -c '{script}'"})
    assert result.is_error
    assert result.text.startswith("Command timed out after 1 s; its processes were stopped: sh -c")
    assert result.structured is not None and result.structured["timed_out"] is True
    pids = [int(pid) for pid in (work / "pids").read_text().split()]
    assert len(pids) == 2
    assert pids_alive(pids) == []


def test_progress_and_log_lines_reach_the_observer(commands: Callable[..., Call], tmp_path: Path) -> None:
    class Recorder:
        def __init__(self) -> None:
            self.seen: list[Any] = []

        def on_log(self, tool: str, line: LogLine) -> None:
            self.seen.append((tool, line))

        def on_progress(self, tool: str, line: ProgressLine) -> None:
            self.seen.append((tool, line))

    runner = make_project(tmp_path, {"allow": ["sh"]})
    recorder = Recorder()
    script = "echo 'PROGRESS 1/2 half way' >&2; echo 'INFO hello' >&2; echo plain >&2"
    result = anyio.run(runner.call, "run_command", {"command": f'sh -c "{script}"'}, recorder)
    assert not result.is_error
    assert recorder.seen == [
        ("run_command", ProgressLine(1, 2, "half way")),
        ("run_command", LogLine("info", "hello")),
    ]
    assert result.structured is not None
    assert result.structured["stderr"] == "PROGRESS 1/2 half way\nINFO hello\nplain\n"


# --- the allowlist and the deny list -----------------------------------------------------------


def test_a_program_not_in_the_allowlist_is_refused(commands: Callable[..., Call], work: Path) -> None:
    (work / "victim").write_text("keep me")
    text = refusal(commands(allow=["ls", "cat"])("rm victim"))
    assert "'rm' is not in run_command.allow (allowed: ls, cat)" in text
    assert (work / "victim").exists()


def test_the_deny_list_wins_over_the_allowlist(commands: Callable[..., Call]) -> None:
    text = refusal(commands(allow=["ls", "cat"], deny=["cat"])("cat /etc/hostname"))
    assert "'cat' is denied by run_command.deny" in text


def test_the_default_deny_list_refuses_env(commands: Callable[..., Call]) -> None:
    assert "denied" in refusal(commands(allow=["env", "ls"])("env rm -rf x"))


def test_an_allowed_program_by_another_spelling_of_its_path_runs(commands: Callable[..., Call]) -> None:
    ls = Path(program("ls"))
    result = commands(allow=["ls"])(f"{ls.parent}/../{ls.parent.name}/ls")
    assert result.exit_code == 0


def test_dot_dot_paths_to_other_programs_are_refused(commands: Callable[..., Call], work: Path) -> None:
    (work / "victim").write_text("keep me")
    rm = Path(program("rm"))
    call = commands(allow=["ls"], deny=["rm"])
    text = refusal(call(f"{rm.parent}/../{rm.parent.name}/rm victim"))
    assert "denied" in text
    text = refusal(commands(allow=["ls"])(f"{rm.parent}/../{rm.parent.name}/rm victim"))
    assert "is not in run_command.allow" in text
    assert (work / "victim").exists()


def test_a_symlink_named_like_an_allowed_program_is_refused(
    commands: Callable[..., Call], work: Path
) -> None:
    (work / "victim").write_text("keep me")
    (work / "ls").symlink_to(program("rm"))
    text = refusal(commands(allow=["ls"])("./ls victim"))
    assert f"is the file {os.path.realpath(program('rm'))}, not the 'ls'" in text
    assert (work / "victim").exists()


def test_an_allowed_symlink_to_a_denied_program_is_refused(
    commands: Callable[..., Call], tmp_path: Path
) -> None:
    alias = tmp_path / "bin" / "show"
    alias.parent.mkdir()
    alias.symlink_to(program("cat"))
    text = refusal(commands(allow=[str(alias)], deny=["cat"])(f"{alias} /etc/hostname"))
    assert "denied by run_command.deny ('cat')" in text


def test_a_relative_path_entry_cannot_find_programs_in_the_workdir(tmp_path: Path, work: Path) -> None:
    (work / "cat").write_text("#!/bin/sh\necho impostor\n")
    (work / "cat").chmod(0o755)
    path = f".:{os.environ['PATH']}"
    runner = make_project(tmp_path, {"allow": ["cat"]}, env={"PATH": path})
    result = anyio.run(runner.call, "run_command", {"command": "cat", "stdin": "the real cat"})
    assert stdout(result) == "the real cat"


def test_arguments_must_match_allow_args(commands: Callable[..., Call]) -> None:
    call = commands(allow=["echo", "ls"], allow_args={"echo": ["hello( [a-z]+)*", "bye"]})
    assert call("echo hello big world").structured == {
        "exit_code": 0,
        "stdout": "hello big world\n",
        "stderr": "",
        "timed_out": False,
        "truncated": False,
    }
    assert call("echo bye").exit_code == 0
    text = refusal(call("echo hello World"))
    assert "the arguments of echo ('hello World') match none of run_command.allow_args['echo']" in text
    refusal(call("echo bye bye"))  # in full, not a prefix
    assert call("ls -a").exit_code == 0  # no entry: any arguments


# --- no shell by default --------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "echo a; rm -rf victim",
        "echo a | rm victim",
        "echo $(rm victim) `rm victim`",
        "echo a && rm victim > out",
        "echo * $HOME {a,b}",
    ],
)
def test_without_a_shell_operators_are_plain_words(
    commands: Callable[..., Call], work: Path, command: str
) -> None:
    (work / "victim").write_text("keep me")
    assert stdout(commands(allow=["echo"])(command)) == command.removeprefix("echo ") + "\n"
    assert (work / "victim").exists()
    assert not (work / "out").exists()


def test_an_unclosed_quote_is_refused(commands: Callable[..., Call]) -> None:
    assert "No closing quotation" in refusal(commands(allow=["echo"])("echo 'open"))


# --- shell: true ------------------------------------------------------------------------------


def test_a_shell_runs_pipes_and_redirections(commands: Callable[..., Call], work: Path) -> None:
    call = commands(allow=["echo", "tr", "cat"], shell=True)
    assert stdout(call("echo hello | tr a-z A-Z; echo saved > out.txt && cat out.txt")) == "HELLO\nsaved\n"
    assert (work / "out.txt").read_text() == "saved\n"


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("echo hi; rm victim", "'rm' is not in run_command.allow"),
        ("echo hi && rm victim", "'rm' is not in run_command.allow"),
        ("echo hi | rm victim", "'rm' is not in run_command.allow"),
        ("echo hi\nrm victim", "control character"),
        ("(rm victim)", "a group or subshell is not admitted"),
        ("X=1 rm victim", "an assignment (NAME=value) is not admitted"),
        ('echo "$(rm victim)"', "command substitution"),
        ("echo `rm victim`", "command substitution"),
    ],
)
def test_a_shell_checks_every_command_it_can_see(
    commands: Callable[..., Call], work: Path, command: str, why: str
) -> None:
    (work / "victim").write_text("keep me")
    assert why in refusal(commands(allow=["echo"], shell=True)(command))
    assert (work / "victim").exists()


# --- the working directory -------------------------------------------------------------------


def test_workdir_inside_a_root(commands: Callable[..., Call], work: Path, tmp_path: Path) -> None:
    (work / "sub").mkdir()
    (tmp_path / "other").mkdir()
    call = commands(allow=["pwd"], roots=["work", "other"])
    assert stdout(call("pwd", workdir="sub")) == f"{os.path.realpath(work / 'sub')}\n"
    other = os.path.realpath(tmp_path / "other")
    assert stdout(call("pwd", workdir=other)) == f"{other}\n"


@pytest.mark.parametrize("workdir", ["..", "sub/../..", "/", "/etc"])
def test_workdir_outside_the_roots_is_refused(
    commands: Callable[..., Call], work: Path, workdir: str
) -> None:
    (work / "sub").mkdir()
    text = refusal(commands(allow=["pwd"])("pwd", workdir=workdir))
    assert f"workdir {workdir!r} leads to" in text and "outside the allowed roots" in text


def test_a_workdir_symlink_out_of_the_roots_is_refused(
    commands: Callable[..., Call], work: Path, tmp_path: Path
) -> None:
    (tmp_path / "secret").mkdir()
    (work / "escape").symlink_to(tmp_path / "secret")
    (work / "inside").symlink_to(work)
    call = commands(allow=["pwd"])
    assert "outside the allowed roots" in refusal(call("pwd", workdir="escape"))
    assert call("pwd", workdir="inside").exit_code == 0  # a link that stays inside is fine


def test_a_workdir_that_is_not_a_folder_is_refused(commands: Callable[..., Call], work: Path) -> None:
    (work / "file").write_text("")
    assert "is not a folder" in refusal(commands(allow=["pwd"])("pwd", workdir="file"))


def test_the_catalog_can_move(tmp_path: Path) -> None:
    make_project(tmp_path / "old", {"allow": ["pwd"]})
    shutil.move(tmp_path / "old", tmp_path / "new")
    runner = ToolRunner(Registry.load(catalog_path(tmp_path / "new" / "config")), RunSettings())
    result = anyio.run(runner.call, "run_command", {"command": "pwd"})
    assert stdout(result) == f"{os.path.realpath(tmp_path / 'new' / 'work')}\n"


# --- from the command line, and the committed example ---------------------------------------------


def test_toolkiln_call_runs_it(tmp_path: Path, run_cli: Callable[..., Result]) -> None:
    make_project(tmp_path, {"allow": ["echo"]})
    result = run_cli("call", "run_command", "command=echo from the cli")
    assert result.exit_code == 0
    assert "--- stdout ---\nfrom the cli\n" in result.output
    refused = run_cli("call", "run_command", "command=rm -rf x")
    assert refused.exit_code == 1
    assert refused.output.startswith("Refused: 'rm' is not in run_command.allow")


def test_the_committed_server_config_is_off_and_its_example_is_sound() -> None:
    settings = json.loads((REPO / "config" / "server.json").read_text())["run_command"]
    assert settings["enabled"] is False
    assert {"ls", "cat", "head", "wc", "git"} <= set(settings["allow"])

    def admits(program: str, arguments: str) -> bool:
        return any(re.fullmatch(pattern, arguments) for pattern in settings["allow_args"][program])

    for arguments in [
        "status",
        "status --short",
        "log --oneline -n 5",
        "diff HEAD~1 -- README.md",
        "show HEAD",
    ]:
        assert admits("git", arguments), arguments
    for arguments in ["push", "commit -m x", "log --output=/tmp/x", "diff --no-index /etc/passwd x",
                      "-c core.pager=sh status", "branch -D main", "grep -Osh x",
                      "diff /etc/shadow /dev/null", "diff -- ../x", "show ~/x", "diff --ext-diff",
                      "log --textconv", "-C / status", "--git-dir=x status",
                      "status --exec-path=x"]:  # fmt: skip
        assert not admits("git", arguments), arguments
    for arguments in ["", "-la", "-n 5 README.md", "src/app.py"]:
        assert admits("head", arguments), arguments
    for arguments in ["/etc/passwd", "../secret", "a/../../b", "~/.ssh/id_rsa", "--files0-from=/etc/x"]:
        assert not admits("head", arguments), arguments
