"""The fallback's description of a plain script, in the shapes of real `bin/` folders and
"useful scripts" collections: most never handle `--help`, so what `--help` prints is often
another program's text (the `grep` or `ls` they hand their arguments to), an error, or
what the script does when run; the comment at their top is what their author wrote to
describe them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.discover.test_fallback import opt_in, tool_names
from toolkiln.conventions.base import Candidate
from toolkiln.conventions.fallback.read import clean_text
from toolkiln.conventions.fallback.text import help_refusal
from toolkiln.discover import discover_tools
from toolkiln.files import load_tool_config, tool_config_path


def description(tools_dir: Path, config_dir: Path, name: str) -> str:
    tool_names(tools_dir, config_dir)
    return load_tool_config(tool_config_path(config_dir, name)).script_config.description


def test_the_header_comment_describes_a_script_that_hands_help_to_another_program(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    # `--help` reaches `ls`, whose help is not this script's.
    make_tool("bin/ll", '#!/bin/sh\n#\n# List a folder, newest first.\n#\n#   ll ~/src\n\nls -lt "$@"\n')
    opt_in(config_dir, "bin/")
    assert description(tools_dir, config_dir, "bin__ll") == "List a folder, newest first.\n\n  ll ~/src"


def test_output_of_a_script_run_with_help_as_its_argument_is_not_its_description(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    # No header, no help handling: `--help` is taken as the word to shout.
    make_tool("bin/shout", '#!/bin/sh\necho "$1" | tr a-z A-Z\n')
    opt_in(config_dir, "bin/")
    assert description(tools_dir, config_dir, "bin__shout").startswith(
        "Runs the program bin/shout with the command-line arguments"
    )


def test_a_usage_line_that_names_the_script_is_kept_below_its_header(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    body = """\
#!/usr/bin/env bash

# Script Name: count_words.sh
# Description: Counts the words of a file.

if [[ ! -f $1 ]]; then
    echo "Usage: count_words.sh FILE" >&2
    exit 1
fi
wc -w < "$1"
"""
    make_tool("collection/count_words.sh", body)
    opt_in(config_dir, "collection/")
    assert description(tools_dir, config_dir, "collection__count_words") == (
        "Script Name: count_words.sh\nDescription: Counts the words of a file.\n\nUsage: count_words.sh FILE"
    )


@pytest.mark.parametrize(
    "body",
    [
        # handles --help itself
        '#!/bin/sh\n# Rotate logs.\ncase "$1" in --help) echo "rotate [-n N] DIR"; exit 0;; esac\n',
        # a usage() of its own, on -h
        '#!/bin/bash\n# Rotate logs.\nusage() { echo "rotate [-n N] DIR"; }\n'
        'while getopts "n:h" o; do case $o in h) usage; exit 0;; esac; done\nusage\n',
    ],
)
def test_a_script_that_answers_help_itself_keeps_its_help_text(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, body: str
) -> None:
    make_tool("bin/rotate", body)
    opt_in(config_dir, "bin/")
    assert description(tools_dir, config_dir, "bin__rotate") == "Rotate logs.\n\nrotate [-n N] DIR"


def test_decoration_and_editor_lines_are_left_out_of_the_header(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    body = """\
#!/usr/bin/env bash
# shellcheck disable=SC2086
#______________________________________
# Mirror a folder to a backup disk.
#--------------------------------------
# vim: set ft=sh:
rsync -a "$1" /backup/
"""
    make_tool("bin/mirror", body)
    opt_in(config_dir, "bin/")
    assert description(tools_dir, config_dir, "bin__mirror") == "Mirror a folder to a backup disk."


@pytest.mark.parametrize("opted_in", [False, True])
def test_a_script_whose_interpreter_is_not_installed_says_so_and_is_no_error(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, opted_in: bool
) -> None:
    # a dotfiles `bin/` keeps scripts for interpreters this machine may not have
    make_tool("bin/churn", "#!/usr/local/bin/no-such-ruby\n# Show churn.\nputs 1\n")
    if opted_in:
        opt_in(config_dir, "bin/")
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors and not report.tools
    [verdict] = report.not_tools
    assert verdict.kind == "runtime-missing"
    assert "no-such-ruby" in verdict.reason and "/usr/local/bin/no-such-ruby" in verdict.reason


# --- what a probe prints is text, not truth ----------------------------------------------
# A description is sent to every client: what `--help` printed becomes one only when it is
# recognisably help, never the machine's data (its disks, its files, its environment) nor
# an error.

NOT_HELP = {
    # mentions `-h` (of df), prints the disk table of the machine
    "bin/disks": "#!/bin/sh\n# shows disk usage, then cleans caches\ndf -h\n",
    # BSD getopts: `--help` is an illegal option, the script exits 1
    "bin/rot": (
        '#!/bin/bash\nwhile getopts "ab" o; do\n  case $o in\n    a) A=1;;\n    b) B=1;;\n'
        "    *) exit 1;;\n  esac\ndone\necho rotated\n"
    ),
    # a listing of the machine's root folder, like `ls /` with `-h` for sizes
    "bin/roots": '#!/bin/sh\nls -h / "$@" 2>/dev/null || ls /\n',
    # an environment dump
    "bin/envdump": "#!/bin/sh\n# prints what help you need\nenv\n",
}


@pytest.mark.parametrize("path", sorted(NOT_HELP))
def test_what_help_printed_that_is_not_help_is_kept_out_and_the_file_says_why(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, path: str
) -> None:
    make_tool(path, NOT_HELP[path])
    opt_in(config_dir, "bin/")
    report = discover_tools(tools_dir, config_dir)
    [tool] = report.tools
    text = load_tool_config(tool_config_path(config_dir, tool.name)).script_config.description
    for leak in ("Filesystem", "illegal option", "PATH=", "HOME=", "proc", "usr"):
        assert leak not in text, text
    [warning] = [w for w in report.warnings if w.path == path]
    assert "kept out of its description" in warning.reason


GENUINE_HELP = {
    "bin/gnu-copy": (
        '#!/bin/bash\ncase "$1" in --help)\n  echo "Usage: gnu-copy [OPTION]... SOURCE DEST"\n'
        '  echo "Copy SOURCE to DEST."\n  echo\n'
        '  echo "  -f, --force          overwrite without asking"\n'
        '  echo "  -o, --output=FILE    write to FILE"\n  exit 0;;\nesac\n',
        "Usage: gnu-copy [OPTION]... SOURCE DEST",
    ),
    "bin/bsdcut": (
        '#!/bin/sh\nusage() { echo "usage: bsdcut [-ab] file" >&2; exit 1; }\n'
        'case "$1" in -*) usage;; esac\ncut "$@"\n',
        "usage: bsdcut [-ab] file",
    ),
}


@pytest.mark.parametrize("path", sorted(GENUINE_HELP))
def test_genuine_help_of_a_script_becomes_its_description(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, path: str
) -> None:
    body, expected = GENUINE_HELP[path]
    make_tool(path, body)
    opt_in(config_dir, "bin/")
    report = discover_tools(tools_dir, config_dir)
    [tool] = report.tools
    assert not report.warnings
    text = load_tool_config(tool_config_path(config_dir, tool.name)).script_config.description
    assert text.startswith(expected)


ARGPARSE = """\
import argparse
parser = argparse.ArgumentParser(prog="resize.py", description="Resize an image.")
parser.add_argument("image", help="the image to resize")
parser.add_argument("-w", "--width", type=int, default=640, help="the width in pixels")
parser.parse_args()
"""
CLICK = """\
import click

@click.command()
@click.option("--count", default=1, help="How many greetings.")
@click.argument("name")
def hello(count, name):
    '''Greet NAME COUNT times.'''

hello(prog_name="hello.py")
"""


@pytest.mark.parametrize("source", [ARGPARSE, CLICK], ids=["argparse", "click"])
def test_the_help_real_python_frameworks_print_is_help(tmp_path: Path, source: str) -> None:
    script = tmp_path / ("resize.py" if source is ARGPARSE else "hello.py")
    script.write_text(source)
    printed = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, check=True
    ).stdout
    candidate = Candidate(script, script.name, script.stat())
    assert help_refusal(candidate, clean_text(printed), 0) is None


def test_a_table_of_the_machine_printed_by_real_df_is_not_help(tmp_path: Path) -> None:
    script = tmp_path / "disks"
    script.write_text("#!/bin/sh\n# Show help for your disks: df -h\ndf -h\n")
    printed = subprocess.run(["df", "-h"], capture_output=True, text=True, check=False).stdout
    candidate = Candidate(script, script.name, script.stat())
    assert help_refusal(candidate, clean_text(printed), 0) is not None
