"""runner/command_shell.py: `shell: true` runs only what the shell grammar shows to be
plain commands, and runs them as they were checked."""

from __future__ import annotations

import base64
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from tests.runner.test_command import make_project, refusal, stdout
from toolkiln.runner import ToolResult
from toolkiln.runner.command_shell import parse_shell_line, render_shell_line

Call = Callable[..., ToolResult]


@pytest.fixture
def shell(tmp_path: Path) -> Call:
    runner = make_project(tmp_path, {"allow": ["echo", "ls", "cat", "tr", "wc", "true"], "shell": True})

    def call(command: str, **arguments: str) -> ToolResult:
        return anyio.run(runner.call, "run_command", {"command": command, **arguments})

    return call


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "work" / "PWNED"


def test_the_issues_hidden_line_is_refused(shell: Call, marker: Path) -> None:
    payload = base64.b64encode(f"touch {marker}\n".encode()).decode()
    command = f"ls #'\n{payload} | base64 -d | sh\n#'"
    text = refusal(shell(command))
    assert "control character" in text
    assert not marker.exists()


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("ls # a comment", "a comment"),
        ("ls #'x'", "a comment"),
        ("echo $(touch PWNED)", "command substitution"),
        ("echo `touch PWNED`", "command substitution"),
        ('echo "$(touch PWNED)"', "command substitution"),
        ("echo hi\ntouch PWNED", "control character"),
        ("echo hi\rtouch PWNED", "control character"),
        ("echo hi\ttouch", "control character"),
        ("echo hi & touch PWNED", "'&' is not admitted"),
        ("echo hi |& cat", "not admitted"),
        ("echo hi > {outside}", "outside the allowed roots"),
        ("echo hi > ../PWNED", "outside the allowed roots"),
        ("echo hi > .git/config", "inside a git folder"),
        ("cat <<EOF\nx\nEOF", "control character"),
        ("cat <<<x", "only <, >, >> to a file"),
        ("echo $'\\x41'", "not admitted"),
        ("echo ${IFS}x", "a parameter"),
        ("echo$IFS'x'", "a parameter"),
        ("echo {a,b}", "not a plain word"),
        ("ls /e*c", "not a plain word"),
        ("ls ~", "~ (the home folder)"),
        ("ls ~root", "~ (the home folder)"),
        ("PATH=. ls", "an assignment"),
        ("IFS=x ls", "an assignment"),
        ("exec touch PWNED", "'exec' is not an executable program"),
        ("eval 'touch PWNED'", "'eval' is not an executable program"),
        ("alias ls=touch; ls PWNED", "'alias' is not an executable program"),
        ("f() { touch PWNED; }; f", "a function"),
        ("(touch PWNED)", "a group or subshell"),
        ("{ touch PWNED; }", "not admitted"),
        ("if true; then touch PWNED; fi", "not admitted"),
        ("echo $((1+1))", "not admit"),
        ("cat <(touch PWNED)", "process substitution"),
        ("echo hi 3>PWNED", "only stdin, stdout and stderr"),
        ("echo hi >&PWNED", ">& may only point at 0, 1 or 2"),
        ("echo \"a\"'b'", "not a plain word"),  # bashlex reads it as a'b: a misreading is refused
        ('echo "a\\"b"', "not a plain word"),
        ("echo a\\ b", "not a plain word"),
        ("! echo hi", "not admitted"),
        ("echo hi &&", "not admit"),
    ],
)
def test_smuggling_shapes_are_refused(
    shell: Call, marker: Path, tmp_path: Path, command: str, why: str
) -> None:
    outside = tmp_path / "PWNED-outside"
    text = refusal(shell(command.replace("{outside}", str(outside))))
    assert why in text, text
    assert not marker.exists()
    assert not outside.exists()


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("echo hello | tr a-z A-Z", "HELLO\n"),
        ("echo 'a b'  \"c d\" e'f'", "a b c d ef\n"),
        ("echo '$HOME' '`x`' '*'", "$HOME `x` *\n"),
        ("true && echo yes || echo no; echo end", "yes\nend\n"),
        ("echo to-stderr 1>&2 2>&1", "to-stderr\n"),
        ("echo 'fix #12'", "fix #12\n"),
        ("echo time", "time\n"),
    ],
)
def test_plain_commands_run(shell: Call, command: str, output: str) -> None:
    result = shell(command)
    assert not result.is_error, result.text
    assert stdout(result) + str(result.structured and result.structured["stderr"]) in (
        output,
        output + output,
    )


def test_redirections_to_files_inside_the_root(shell: Call, tmp_path: Path) -> None:
    assert stdout(shell("echo saved > out.txt && echo more >> out.txt && cat < out.txt")) == "saved\nmore\n"
    assert (tmp_path / "work" / "out.txt").read_text() == "saved\nmore\n"


def test_a_redirection_through_a_symlink_out_is_refused(shell: Call, tmp_path: Path) -> None:
    (tmp_path / "work" / "link").symlink_to(tmp_path / "victim")
    assert "outside the allowed roots" in refusal(shell("echo x > link"))
    assert not (tmp_path / "victim").exists()


def test_the_line_that_runs_is_rebuilt_from_the_checked_words() -> None:
    line = parse_shell_line("echo its x>out | tr a b && ls 2>&1; true")
    argvs = [["/bin/echo", "its", "x"], ["/usr/bin/tr", "a", "b"], ["/bin/ls"], ["/bin/true"]]
    assert render_shell_line(line, argvs) == (
        "'/bin/echo' 'its' 'x' 1> 'out' | '/usr/bin/tr' 'a' 'b' && '/bin/ls' 2>&1 ; '/bin/true'"
    )


def test_a_reserved_word_spelled_as_a_program_stays_a_word() -> None:
    line = parse_shell_line('echo "it\'s"')
    assert render_shell_line(line, [["echo", "it's"]]) == "'echo' 'it'\"'\"'s'"
