"""Faults at discovery time: `--help` probes that crash, hang, flood, detach or lie, and a
tools folder with symlink loops, FIFOs and 10,000 files. Discovery survives each: an
error or a warning that names the file (or the file is simply not a tool), the other
tools discovered, and no probe process left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import MakeTool, child_env
from tests.faults.helpers import MARK_VAR, assert_no_leftovers, new_mark
from tests.faults.scripts import ECHO, HELP_FAULTS, write_script
from tests.faults.tally import BAD_INPUTS, FAULTS, count
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.files import load_catalog

HELP_ECHO = """\
#!/bin/bash
if [ "$1" = "--help" ]; then
  echo '{"description": "A help-json tool that behaves"}'
  echo '{"message": {"required": true, "value_type": "string"}}' >&2
  exit 0
fi
printf '%s\\n' "$message"
"""
PROBE_TIMEOUT = 2
# These can only end by the probe's timeout: not tools, and discovery says why.
TIMED_OUT = {"help_hang", "help_ignores_sigterm"}
# This one spins on the CPU until it is stopped: by the wall-clock timeout, or by a CPU
# limit where the machine or a probe sets one, whichever fires first (issue 31). Either
# way it printed nothing, is not a tool, and is no error.
STOPPED_SPINNING = {"help_reads_stdin": {"help-timeout", "help-failed"}}
# These start to speak help-json and fail: each must be an error.
MUST_FAIL = {"help_json_flood"}
# What each of the others becomes: a tool (it answered `--help` before misbehaving), an
# error naming it (it began a JSON answer, then flooded, or printed JSON that does not parse), or no
# tool at all (it never printed the metadata, as any program that is not a help-json
# tool does not).
OUTCOMES = {
    "help_grandchild": "tool",
    "help_daemon": "tool",
    "help_changes_group": "tool",
    "help_stdout_1gb": "none",  # a flood of plain text: not a tool, and said so
    "help_stderr_1gb": "none",
    "help_segv": "none",
    "help_sigkill": "none",
    "help_exit_mid_write": "error",  # `{"description": "` and no more: invalid JSON, said so
    "help_invalid_utf8": "error",
    "help_line_100mb": "none",
    "help_closes_stdout": "none",
}


def _discover(tools_dir: Path, config_dir: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], str]:
    """`toolkiln discover --json` as a real process, its probes marked; returns it and the mark."""
    mark = new_mark()
    result = subprocess.run(
        [sys.executable, "-m", "toolkiln", "discover", "--tools-dir", str(tools_dir),
         "--config-dir", str(config_dir), "--json", *args],
        capture_output=True, text=True, timeout=120, env={**child_env(), MARK_VAR: mark},
    )  # fmt: skip
    return result, mark


def test_help_probes_that_misbehave_break_only_their_own_file(tools_dir: Path, config_dir: Path) -> None:
    write_script(tools_dir / "echo.sh", ECHO)
    write_script(tools_dir / "help_echo", HELP_ECHO)
    for name, body in HELP_FAULTS.items():
        write_script(tools_dir / name, body)
    started = time.monotonic()
    result, mark = _discover(tools_dir, config_dir, "--probe-timeout", str(PROBE_TIMEOUT))
    elapsed = time.monotonic() - started
    assert_no_leftovers(mark)
    report = json.loads(result.stdout)
    errors = result.stderr  # each error is a line that starts with its file
    discovered = {tool["script_path"] for tool in report["tools"]}
    # The good tools are discovered, whatever the others did.
    assert {"echo.sh", "help_echo"} <= discovered
    assert set(HELP_FAULTS) == TIMED_OUT | STOPPED_SPINNING.keys() | MUST_FAIL | OUTCOMES.keys() | {
        "help_shebang_nowhere"
    }
    for name in MUST_FAIL:
        assert name in errors, f"{name}: no error in\n{errors}"
    verdicts = {verdict["path"]: verdict["kind"] for verdict in report["not_tools"]}
    assert {name: verdicts.get(name) for name in TIMED_OUT} == dict.fromkeys(TIMED_OUT, "help-timeout")
    for name, kinds in STOPPED_SPINNING.items():
        assert verdicts.get(name) in kinds and name not in discovered and name not in errors, verdicts
    assert verdicts["help_stdout_1gb"] == verdicts["help_stderr_1gb"] == "plain-help"
    assert verdicts["help_shebang_nowhere"] == "runtime-missing"  # its #! names no program here
    outcomes = {
        name: "tool" if name in discovered else "error" if name in errors else "none" for name in OUTCOMES
    }
    assert outcomes == OUTCOMES, errors
    # The probes run in parallel: the hung ones cost one timeout, not one each.
    assert elapsed < 60
    count(FAULTS, len(HELP_FAULTS))


def test_symlink_loops_fifos_and_dangling_links_are_named_and_skipped(
    tools_dir: Path, config_dir: Path
) -> None:
    write_script(tools_dir / "echo.sh", ECHO)
    (tools_dir / "loop_a").symlink_to("loop_b")
    (tools_dir / "loop_b").symlink_to("loop_a")
    (tools_dir / "self").symlink_to("self")
    (tools_dir / "folder_loop").symlink_to(".")  # a folder that contains itself
    (tools_dir / "dangling.sh").symlink_to(tools_dir / "nowhere")
    os.mkfifo(tools_dir / "fifo.sh")  # reading it would wait forever
    sub = tools_dir / "sub"
    sub.mkdir()
    os.mkfifo(sub / "run.sh")
    report = discover_tools(tools_dir, config_dir)
    assert [tool.name for tool in report.tools] == ["echo"]
    assert not report.errors
    warned = {warning.path: str(warning) for warning in report.warnings}
    assert set(warned) == {"loop_a", "loop_b", "self", "dangling.sh", "fifo.sh", "sub/run.sh"}
    assert "symbolic links" in warned["self"]
    assert "symlink to nothing" in warned["dangling.sh"]
    assert "not a regular file" in warned["fifo.sh"]
    count(BAD_INPUTS, len(warned) + 1)


# Scripts whose text is built to break a reader: nested past what Python's parser can
# hold, or a docopt usage nested, long or wide enough to exhaust the stack or the clock.


def _docopt_script(usage: str) -> str:
    main = 'if __name__ == "__main__":\n    docopt(__doc__)\n'
    return f'"""A tool.\n\n{usage}\n"""\nfrom docopt import docopt\n{main}'


HOSTILE_TEXTS = {
    "nested.py": '"""Nested."""\nimport argparse\nx = '
    + "-" * 200_000
    + "1\nargparse.ArgumentParser().parse_args()\n",
    "deep_usage.py": _docopt_script("Usage:\n  deep_usage.py " + "[" * 50_000 + "<x>" + "]" * 50_000),
    "wide_usage.py": _docopt_script(
        "Usage:\n  wide_usage.py " + " ".join(f"[--o{i}]" for i in range(20_000))
    ),
    "many_options.py": _docopt_script(
        "Usage:\n  many_options.py [options]\n\nOptions:\n"
        + "".join(f"  --o{i}=<v>  Option {i}.\n" for i in range(30_000))  # under 1 MiB: read
    ),
}


def test_a_script_built_to_break_a_reader_is_its_own_error(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("echo.sh", ECHO)
    for name, text in HOSTILE_TEXTS.items():
        make_tool(name, text)
    report = discover_tools(tools_dir, config_dir)
    assert [tool.name for tool in report.tools] == ["echo"]
    errors = {error.path: error.reason for error in report.errors}
    assert set(errors) == set(HOSTILE_TEXTS)
    assert errors["nested.py"] == "toolkiln could not read it (MemoryError)"
    assert "nested more than 32 deep" in errors["deep_usage.py"]
    assert "has 20001 words; toolkiln reads at most 2000" in errors["wide_usage.py"]
    assert "describes 30000 options; toolkiln reads at most 500" in errors["many_options.py"]
    count(BAD_INPUTS, len(HOSTILE_TEXTS))


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file of mode 000 all the same")
def test_an_unreadable_script_is_an_error_naming_it(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("echo.sh", ECHO)
    make_tool("secret.sh", HELP_ECHO).chmod(0o111)  # executable, not readable
    report = discover_tools(tools_dir, config_dir)
    assert [tool.name for tool in report.tools] == ["echo"]
    assert any("secret.sh" in str(problem) for problem in [*report.errors, *report.warnings])
    count(BAD_INPUTS)


@pytest.mark.slow
def test_ten_thousand_files(tools_dir: Path, config_dir: Path) -> None:
    """10,000 files in 100 folders: 5,000 annotated tools and 5,000 data files beside them."""
    for folder in range(100):
        here = tools_dir / f"group{folder:03}"
        here.mkdir()
        for index in range(50):
            name = f"t{folder:03}_{index:02}"
            script = here / f"{name}.sh"
            script.write_text(f"#!/bin/bash\n# Tool: {name}\n# Description: tool {name}\necho {name}\n")
            script.chmod(0o755)
            (here / f"{name}.txt").write_text("data, not a tool\n")
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors
    assert report.count("created") == 5000
    build_catalog(config_dir, tools_dir)
    catalog = load_catalog(config_dir / "tools.json")
    assert len(catalog.tools) == 5000
    again = discover_tools(tools_dir, config_dir)
    assert again.count("unchanged") == 5000
    count(BAD_INPUTS)
