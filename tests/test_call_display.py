"""What `toolkiln call` shows while a tool runs, on a real terminal (a pty) and piped;
and that no error is shown twice."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import MakeTool, child_env
from tests.terminal import TOOLKILN, run_on_terminal, run_piped
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

STEPS = """\
#!/bin/bash
# Tool: steps
# Description: Two steps, a log line each, and a failure when asked
# @param fail: fail at the end (type: boolean, default: false)
echo "PROGRESS 1/2 first step" >&2
echo "INFO halfway there" >&2
echo "PROGRESS 2/2 second step" >&2
if [ "$fail" = true ]; then echo "ERROR the disk broke" >&2; echo "plain words" >&2; exit 1; fi
echo done
"""
SGR = re.compile("\x1b\\[[0-9;]*m")


@pytest.fixture
def project(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("steps.sh", STEPS)
    make_tool("waits.sh", WAITS)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    return tools_dir.parent


def test_on_a_terminal_progress_is_a_bar_redrawn_in_place_and_logs_come_above_it(project: Path) -> None:
    seen = run_on_terminal(["call", "steps"], cwd=project, stdout_piped=True)
    assert seen.returncode == 0
    assert seen.stdout == "done\n"
    assert "\r\x1b[2Ksteps [############............]  50% 1/2 first step" in seen.terminal
    assert "\r\x1b[2Ksteps [########################] 100% 2/2 second step" in seen.terminal
    text = SGR.sub("", seen.terminal)
    # the log line replaces the bar, and the bar is drawn again under it
    assert "\r\x1b[2Ksteps: info: halfway there\nsteps [" in text
    assert text.endswith("\r\x1b[2K"), "the bar is taken off when the call ends"
    assert "\x1b[36m" in seen.terminal, "the level in colour on a terminal"


def test_the_bar_fits_a_narrow_terminal(project: Path) -> None:
    seen = run_on_terminal(["call", "steps"], cwd=project, columns=30, stdout_piped=True)
    bars = [part for part in seen.terminal.split("\r\x1b[2K") if part.startswith("steps [")]
    assert bars
    assert all(len(bar) <= 29 and bar.endswith("…") for bar in bars), bars


def test_no_color_leaves_the_colours_out(project: Path) -> None:
    seen = run_on_terminal(["call", "steps"], cwd=project, stdout_piped=True, env={"NO_COLOR": "1"})
    assert "steps: info: halfway there" in seen.terminal
    assert not SGR.search(seen.terminal)


def test_piped_progress_and_logs_are_plain_lines(project: Path) -> None:
    result = run_piped(["call", "steps"], cwd=project)
    assert result.returncode == 0
    assert result.stdout == "done\n"
    assert result.stderr == (
        "steps: progress 1/2 first step\nsteps: info: halfway there\nsteps: progress 2/2 second step\n"
    )


WAITS = """\
#!/bin/bash
# Tool: waits
# Description: Logs, then waits for the file the test writes when it has seen the log
# @param flag: the file to wait for (type: string, required: true)
echo "INFO waiting for $flag" >&2
for _ in $(seq 300); do [ -e "$flag" ] && break; sleep 0.1; done
[ -e "$flag" ] && echo "saw it" || { echo "ERROR never saw it" >&2; exit 1; }
"""


def test_log_lines_show_while_the_tool_still_runs(project: Path, tmp_path: Path) -> None:
    flag = tmp_path / "flag"
    process = subprocess.Popen(
        [*TOOLKILN, "call", "waits", f"flag={flag}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=child_env(),
        cwd=project,
    )
    assert process.stderr is not None
    line = process.stderr.readline()  # the tool cannot end before the flag exists
    assert line == f"waits: info: waiting for {flag}\n"
    flag.touch()
    stdout, _ = process.communicate(timeout=60)
    assert (process.returncode, stdout) == (0, "saw it\n")


def _all_output(result: subprocess.CompletedProcess[str]) -> str:
    return result.stdout + result.stderr


def test_a_failing_tool_shows_its_error_once(project: Path) -> None:
    result = run_piped(["call", "steps", "fail=true"], cwd=project)
    assert result.returncode == 1
    everything = _all_output(result)
    assert everything.count("the disk broke") == 1, everything
    assert "steps: error: the disk broke" in result.stderr
    # the result keeps what the display did not show: plain stderr lines
    assert result.stdout == "Tool 'steps' failed with exit code 1 (internal error).\nstderr:\nplain words\n"


def test_a_bad_argument_and_an_unknown_tool_are_said_once(project: Path) -> None:
    bad = run_piped(["call", "steps", "fail=maybe"], cwd=project)
    assert bad.returncode == 1
    assert _all_output(bad).count("must be of type boolean") == 1, _all_output(bad)
    unknown = run_piped(["call", "nosuch"], cwd=project)
    assert unknown.returncode == 1
    assert _all_output(unknown).count("nosuch") == 1, _all_output(unknown)


def test_a_timeout_is_said_once(project: Path, tmp_path: Path) -> None:
    result = run_piped(["call", "--timeout", "1", "waits", f"flag={tmp_path / 'never'}"], cwd=project)
    assert result.returncode == 1
    everything = _all_output(result)
    assert everything.count("timed out") == 1, everything
    assert everything.count("waiting for") == 1, everything


def test_a_disabled_tool_says_how_to_enable_it(project: Path, tools_dir: Path, config_dir: Path) -> None:
    config = config_dir / "tools" / "steps.json"
    config.write_text(config.read_text().replace('"enabled": true', '"enabled": false'))
    build_catalog(config_dir, tools_dir)
    result = run_piped(["call", "steps"], cwd=project)
    assert result.returncode == 1
    assert result.stderr == (
        "toolkiln: error: tool 'steps' is disabled (in config/tools/steps.json): "
        "`toolkiln enable steps` serves it again\n"
    )


def test_a_tool_discovered_but_not_built_says_to_build(project: Path, make_tool: MakeTool) -> None:
    make_tool("later.sh", "#!/bin/bash\n# Tool: later\n# Description: Later\necho later\n")
    assert run_piped(["discover"], cwd=project).returncode == 0
    result = run_piped(["call", "later"], cwd=project)
    assert "tool 'later' is not in config/tools.json" in result.stderr
    assert "run `toolkiln build`" in result.stderr


def test_an_unknown_name_suggests_close_ones(project: Path) -> None:
    result = run_piped(["call", "step"], cwd=project)
    assert result.stderr == "toolkiln: error: unknown tool 'step'; did you mean 'steps'?\n"


def test_a_file_that_is_not_a_tool_says_why(project: Path, make_tool: MakeTool) -> None:
    make_tool("notes.sh", "#!/bin/bash\necho no header here\n")
    assert run_piped(["discover"], cwd=project).returncode == 0
    result = run_piped(["call", "notes"], cwd=project)
    assert result.returncode == 1
    assert result.stderr.startswith("toolkiln: error: tools/notes.sh is not a tool: answers `--help`"), (
        result.stderr
    )


HOSTILE = r"""#!/bin/bash
# Tool: hostile
# Description: A script whose words try to command the terminal
printf 'PROGRESS 1/2 \033]0;owned title\007\033[2J wiped\n' >&2
printf 'INFO \033]52;c;ZWNobyBvd25lZA==\007 copied \033[31m red\n' >&2
printf 'WARNING \r\033[2K\033[1A over the line above\n' >&2
echo done
"""


def test_a_scripts_log_and_progress_cannot_command_the_terminal(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    """Title, clipboard (OSC 52), clear-screen, cursor moves and colours written by a
    script reach the terminal as harmless text; only toolkiln's own sequences remain."""
    make_tool("hostile.sh", HOSTILE)
    assert not discover_tools(tools_dir, config_dir).errors
    build_catalog(config_dir, tools_dir)
    seen = run_on_terminal(["call", "hostile"], cwd=tools_dir.parent, stdout_piped=True)
    assert seen.returncode == 0 and seen.stdout == "done\n"
    ours = re.compile("\r\x1b\\[2K|\x1b\\[[0-9;]*m")  # the bar's redraw and the level's colour
    assert "\x1b" not in ours.sub("", seen.terminal), repr(seen.terminal)
    assert "\x07" not in seen.terminal
    assert "owned title" in seen.terminal and "over the line above" in seen.terminal  # said, not obeyed
