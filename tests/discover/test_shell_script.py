"""The shell dialect: plain shell scripts read from their own text, never run."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.conftest import MakeTool
from toolkiln.conventions.base import Candidate, Declaration, NotATool, Probe
from toolkiln.conventions.shell import read as shell_script
from toolkiln.discover import discover_tools
from toolkiln.errors import DiscoveryError
from toolkiln.files import load_tool_config, tool_config_path

# A `usage()` function, getopts with comments in its arms, `${1:?}` and `${2:-800}`.
RESIZE = """\
    #!/bin/bash
    # Resize an image for the web.
    set -euo pipefail
    usage() {
      cat <<USAGE
    Usage: $(basename "$0") [-q] [-o DIR] <image> [width]
      -o DIR    Folder to write the resized image to
    USAGE
    }
    while getopts "qo:h" opt; do
      case $opt in
        q) quiet=1 ;;          # print nothing but errors
        o) out="$OPTARG" ;;
        h) usage; exit 0 ;;
        *) usage >&2; exit 1 ;;
      esac
    done
    shift $((OPTIND - 1))
    image="${1:?an image to resize}"
    width="${2:-800}"
    echo "quiet=${quiet:-0} out=${out:-.} image=$image width=$width"
"""
# A `while case "$1"` loop: `--name=value` and `-n value`, a flag, a `--` arm, and the
# other words kept in an array.
DEPLOY = """\
    #!/usr/bin/env bash
    # Deploy the site to a host.
    die() { echo "$1" >&2; exit 1; }
    edit=0 name="" host=""
    args=()
    while [ $# -gt 0 ]; do
      case "$1" in
        -e|--edit) edit=1; shift ;;   # open the editor first
        -n|--name) name="$2"; shift 2 ;;
        --name=*) name="${1#*=}"; shift ;;
        -h|--host) shift; host="$1"; shift ;;
        --help) echo "usage: deploy [-e] [--name=NAME] [--host HOST] FILE..."; exit 0 ;;
        -v|--verbose) set -x; shift ;;
        -*) die "unknown option $1" ;;
        *) args+=("$1"); shift ;;
      esac
    done
    printf '%s\\n' "edit=$edit name=$name host=$host" "${args[@]}"
"""
# holman's dotfiles' style: TomDoc header lines, `$1` used directly, `main "$@"`.
CHECKOUT = """\
    #!/bin/sh
    #
    # Check out a branch, creating it from the remote when needed.
    #
    # $1 - The branch name.
    # $2 - The remote (origin when left out).
    main() {
      echo "branch=$1 remote=${2:-origin}"
    }
    main "$@"
"""
NOW = """\
    #!/bin/sh
    # Print the date and time in UTC.
    date -u +%Y
"""
SHOUT = """\
    #!/bin/bash
    # Upper-case the text it is given.
    while IFS= read -r line; do
      printf '%s!\\n' "${line^^}"
    done
"""
COPY = """\
    #!/bin/sh
    # Copy a file.
    # Usage: copy <source> [target]
    if [ $# -lt 1 ]; then echo "usage: copy <source> [target]" >&2; exit 2; fi
    cp "$1" "${2:-.}"
"""

BACKUP = """\
    #!/usr/bin/env bash
    #
    # Back up a folder to the NAS.
    #
    # Usage: rsync-backup [-n] [-d DEST] SOURCE
    #
    #   -n         dry run
    #   -d DEST    where to (default: nas:/backup)

    set -euo pipefail

    dry=""
    dest="nas:/backup"
    while getopts ":nd:" flag; do
        case "$flag" in
            n) dry="--dry-run" ;;
            d) dest="$OPTARG" ;;
            *) sed -n '3,8p' "$0"; exit 2 ;;
        esac
    done
    shift $((OPTIND-1))

    if [[ $# -ne 1 ]]; then
        echo "need a SOURCE" >&2
        exit 2
    fi

    rsync -a $dry "$1" "$dest"
"""


def declare(path: Path, tools_dir: Path) -> Declaration:
    candidate = Candidate(path, str(path.relative_to(tools_dir)), path.stat())
    assert shell_script.claims(candidate)
    [declaration] = anyio.run(shell_script.declare, candidate, Probe(timeout=1))
    return declaration


def shape(declaration: Declaration) -> list[tuple[object, ...]]:
    return [(p.name, p.type, p.required, p.default, p.option) for p in declaration.parameters]


def test_getopts_with_a_usage_function_and_bound_positionals(make_tool: MakeTool, tools_dir: Path) -> None:
    declaration = declare(make_tool("resize.sh", RESIZE), tools_dir)
    assert declaration.dialect == "shell"
    assert declaration.description == "Resize an image for the web."
    assert shape(declaration) == [
        ("q", "boolean", False, False, "-q"),
        ("o", "string", False, None, "-o"),
        ("image", "string", True, None, "--"),  # getopts understands `--`
        ("width", "string", False, "800", "--"),
    ]
    q, o, image, _ = declaration.parameters
    assert q.description == "print nothing but errors"
    assert o.description == "Folder to write the resized image to"
    assert image.description == "an image to resize"


def test_a_case_loop_with_long_short_and_joined_options(make_tool: MakeTool, tools_dir: Path) -> None:
    declaration = declare(make_tool("deploy", DEPLOY), tools_dir)
    assert declaration.description == "Deploy the site to a host."
    assert shape(declaration) == [
        ("edit", "boolean", False, False, "--edit"),
        ("name", "string", False, None, "--name="),  # the script reads `--name=value`
        ("host", "string", False, None, "--host"),  # `shift; host="$1"`: the next word
        ("verbose", "boolean", False, False, "--verbose"),
        ("args", "array", False, [], ""),  # kept by `*) args+=`: no `--` would reach them
    ]
    assert declaration.parameters[0].description == "open the editor first"


def test_a_loop_on_an_unset_safe_first_argument(make_tool: MakeTool, tools_dir: Path) -> None:
    body = """\
        #!/bin/bash
        # Quiet or not.
        set -u
        while :; do
          case "${1:-}" in
            -q|--quiet) quiet=1 ;;
            -o) out=$2; shift ;;
            "") break ;;
          esac
          shift
        done
    """
    declaration = declare(make_tool("q.sh", body), tools_dir)
    assert shape(declaration) == [
        ("quiet", "boolean", False, False, "--quiet"),
        ("o", "string", False, None, "-o"),
    ]


def test_tomdoc_lines_name_and_describe_positionals_used_directly(
    make_tool: MakeTool, tools_dir: Path
) -> None:
    declaration = declare(make_tool("bin/git-co", CHECKOUT), tools_dir)
    assert declaration.description == "Check out a branch, creating it from the remote when needed."
    assert shape(declaration) == [
        ("branch_name", "string", True, None, ""),
        ("remote", "string", False, "origin", ""),
    ]
    branch = declaration.parameters[0]
    assert branch.description.startswith("The branch name. [Name guessed by toolkiln")


def test_a_header_with_usage_and_option_lines_describes_each_and_stays_out_of_the_description(
    make_tool: MakeTool, tools_dir: Path
) -> None:
    declaration = declare(make_tool("rsync-backup", BACKUP), tools_dir)
    assert declaration.description == "Back up a folder to the NAS."
    assert [(p.name, p.description, p.required, p.option) for p in declaration.parameters][:2] == [
        ("n", "dry run", False, "-n"), ("d", "where to (default: nas:/backup)", False, "-d"),
    ]  # fmt: skip
    source = declaration.parameters[2]
    assert (source.name, source.required, source.option) == ("source", True, "--")  # `[[ $# -ne 1 ]]`


def test_a_count_check_and_the_usage_line(make_tool: MakeTool, tools_dir: Path) -> None:
    declaration = declare(make_tool("copy", COPY), tools_dir)
    assert shape(declaration) == [("source", "string", True, None, ""), ("target", "string", False, ".", "")]
    assert "from the usage line" in declaration.parameters[0].description


def test_a_case_on_the_first_argument_outside_a_loop_is_an_enum(make_tool: MakeTool, tools_dir: Path) -> None:
    body = """\
        #!/bin/bash
        # Control the web service.
        case "$1" in
          start) systemctl start web ;;
          stop|halt) systemctl stop web ;;
          *) echo "usage: svc start|stop" >&2; exit 1 ;;
        esac
        [ -n "$2" ] && echo "$2"
    """
    declaration = declare(make_tool("svc", body), tools_dir)
    assert [(p.name, p.required, p.enum) for p in declaration.parameters] == [
        ("command", True, ["start", "stop", "halt"]), ("arg2", False, None),
    ]  # fmt: skip
    assert (
        "[Name guessed by toolkiln from the words its `case` handles" in declaration.parameters[0].description
    )


def test_a_script_that_takes_nothing_is_a_tool_without_parameters(
    make_tool: MakeTool, tools_dir: Path
) -> None:
    declaration = declare(make_tool("now.sh", NOW), tools_dir)
    assert (declaration.description, declaration.parameters) == ("Print the date and time in UTC.", [])


def test_a_filter_reading_stdin_gets_a_stdin_parameter(make_tool: MakeTool, tools_dir: Path) -> None:
    declaration = declare(make_tool("shout", SHOUT), tools_dir)
    [stdin] = declaration.parameters
    assert (stdin.name, stdin.type, stdin.required, stdin.option, stdin.multiline) == (
        "stdin", "string", False, None, True,
    )  # fmt: skip
    assert "standard input" in stdin.description


@pytest.mark.parametrize(
    ("body", "stdin"),
    [
        ('data=$(cat)\necho "$data"', True),
        ("cat - | wc -l", True),
        ("wc -l < /dev/stdin", True),
        ("read -r answer\necho $answer", True),
        ("cat /etc/hostname", False),
        ("ls | while read -r f; do echo $f; done", False),
        ("while read -r f; do echo $f; done < /etc/hosts", False),
        ("cat <<EOF\nhello\nEOF", False),
        ("awk '{print $1}' /etc/hosts", False),
    ],
)
def test_what_reads_stdin(make_tool: MakeTool, tools_dir: Path, body: str, stdin: bool) -> None:
    declaration = declare(make_tool("s.sh", f"#!/bin/sh\n# Does a thing.\n{body}\n"), tools_dir)
    assert [p.name for p in declaration.parameters] == (["stdin"] if stdin else [])


def test_single_quoted_text_and_helper_functions_read_no_arguments(
    make_tool: MakeTool, tools_dir: Path
) -> None:
    body = '#!/bin/sh\n# Sums.\nlog() { echo "$1" >&2; }\n'
    body += "awk '{ s += $2 } END { print s }' /etc/hosts\nlog done\n"
    assert declare(make_tool("sum.sh", body), tools_dir).parameters == []


def test_an_argument_nothing_names_is_argn_and_marked_a_guess(make_tool: MakeTool, tools_dir: Path) -> None:
    declaration = declare(make_tool("x.sh", '#!/bin/sh\n# Joins.\nfirst=$1\necho "$first-$3"\n'), tools_dir)
    assert [(p.name, p.required) for p in declaration.parameters] == [
        ("first", True), ("arg2", True), ("arg3", True),  # `$3` needs a `$2` before it
    ]  # fmt: skip
    assert "[Name guessed by toolkiln from its position alone" in declaration.parameters[2].description


def test_a_positional_bound_to_an_environment_name_is_renamed_not_refused(
    make_tool: MakeTool, tools_dir: Path
) -> None:
    body = '#!/bin/sh\n# P.\nPATH="$1" LD_PRELOAD="$2"\necho "$PATH"\n'
    declaration = declare(make_tool("p.sh", body), tools_dir)
    assert [p.name for p in declaration.parameters] == ["path", "ld_preload"]


def test_a_library_of_functions_is_not_a_tool(make_tool: MakeTool, tools_dir: Path) -> None:
    body = '#!/bin/bash\n# Helpers for the other scripts.\nset -e\nVERSION=1\nlog() {\n  echo "$1" >&2\n}\n'
    with pytest.raises(NotATool, match="library to source") as caught:
        declare(make_tool("lib.sh", body), tools_dir)
    assert caught.value.kind == "shell-library"


def test_arguments_handed_on_to_another_program_are_not_served_and_say_where(
    make_tool: MakeTool, tools_dir: Path
) -> None:
    path = make_tool("sync.sh", '#!/bin/sh\n# Sync.\nexec rsync -av "$@"\n')
    with pytest.raises(NotATool, match=r"sync\.sh:3: hands its arguments on") as caught:
        declare(path, tools_dir)
    assert caught.value.kind == "shell-unread"


def test_a_computed_shift_is_an_error_with_its_line(make_tool: MakeTool, tools_dir: Path) -> None:
    path = make_tool("s.sh", '#!/bin/sh\n# S.\nn=2\nshift "$n"\necho "$1"\n')
    with pytest.raises(DiscoveryError, match=r"shifts its arguments by \$n") as caught:
        declare(path, tools_dir)
    assert (caught.value.path, caught.value.line) == ("s.sh", 4)


def test_a_getopts_string_made_at_run_time_is_an_error(make_tool: MakeTool, tools_dir: Path) -> None:
    path = make_tool("g.sh", '#!/bin/sh\n# G.\nwhile getopts "$OPTS" o; do :; done\n')
    with pytest.raises(DiscoveryError, match="made when it runs") as caught:
        declare(path, tools_dir)
    assert caught.value.line == 3


def test_help_json_scripts_and_silent_no_argument_scripts_are_not_claimed(
    make_tool: MakeTool, tools_dir: Path
) -> None:
    help_json = '#!/bin/sh\nif [ "$1" = "--help" ]; then echo \'{"description": "d"}\'; exit 0; fi\n'
    for name, body in (("h.sh", help_json), ("quiet.sh", "#!/bin/sh\nexit 0\n")):
        path = make_tool(name, body)
        assert not shell_script.claims(Candidate(path, name, path.stat()))


def test_discovery_writes_the_argv_shape_to_the_tool_config(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("resize.sh", RESIZE)
    report = discover_tools(tools_dir, config_dir)
    assert [tool.name for tool in report.tools] == ["resize"] and not report.errors
    script = load_tool_config(tool_config_path(config_dir, "resize")).script_config
    assert (script.dialect, [p.option for p in script.parameters]) == ("shell", ["-q", "-o", "--", "--"])


# --- readers stay linear -------------------------------------------------------------


@pytest.mark.parametrize(
    "token",
    ["\n", "a", "$1", "${1:-", '"', "'", "\\", "cat ", "read ", "case \"$1\" in\n-a) x=$2;;\n", "done ",
     "while [ $# -gt 0 ]; do\n", "<<EOF ", "# Usage: a [b] ", "f() {\n", "x=$1", "local -a", "| "],
)  # fmt: skip
def test_a_mebibyte_of_one_token_is_read_or_refused_at_once(
    make_tool: MakeTool, tools_dir: Path, token: str
) -> None:
    path = make_tool("big.sh", "#!/bin/bash\n# Big.\n" + token * (1024 * 1024 // len(token)))
    candidate = Candidate(path, "big.sh", path.stat())
    try:  # a reader doing quadratic work here would take minutes (no test asserts on time)
        [declaration] = anyio.run(shell_script.declare, candidate, Probe(timeout=1))
    except NotATool as verdict:
        assert verdict.kind == "shell-unread" and "toolkiln reads" in verdict.reason
    except DiscoveryError as error:
        assert error.path == "big.sh" and error.line
    else:
        assert declaration.dialect == "shell"


def test_prose_after_a_usage_header_is_the_description(make_tool: MakeTool, tools_dir: Path) -> None:
    path = make_tool(
        "extract",
        """\
        #!/usr/bin/env bash
        # Usage: extract <file>
        # Extract any archive.
        case "$1" in *.zip) unzip "$1" ;; esac
        """,
    )
    declaration = declare(path, tools_dir)
    assert declaration.description == "Extract any archive."
    assert [p.name for p in declaration.parameters] == ["file"]


def test_a_script_reading_the_terminal_is_not_served(make_tool: MakeTool, tools_dir: Path) -> None:
    path = make_tool(
        "confirm",
        """\
        #!/bin/bash
        # Ask before wiping.
        read -r -p "Sure? " answer </dev/tty
        [ "$answer" = y ] && echo wiped
        """,
    )
    with pytest.raises(NotATool) as verdict:
        declare(path, tools_dir)
    assert verdict.value.kind == "asks-input" and "/dev/tty" in str(verdict.value)


def test_usage_option_section_names_each_option(make_tool: MakeTool, tools_dir: Path) -> None:
    path = make_tool(
        "todo",
        """\
        #!/usr/bin/env bash
        # A tiny todo list.
        usage() {
          cat <<EOF
        Usage: todo [-l] [-a TEXT] [-d N] [list name]
          -l, --list     list items
          -a TEXT        add an item
                         (one line)
        EOF
        }
        while getopts "la:d:h" opt; do
          case $opt in
            l) list=1 ;;
            a) add="$OPTARG" ;;
            d) del="$OPTARG" ;;
            h) usage; exit 0 ;;
          esac
        done
        shift $((OPTIND - 1))
        echo "$list $add $del ${1:-inbox}"
        """,
    )
    declaration = declare(path, tools_dir)
    by_name = {p.name: p for p in declaration.parameters}
    assert by_name["l"].description == "list items" and by_name["a"].description.startswith("add an item")
    assert by_name["list_name"].required is False
    assert "guessed" in (by_name["list_name"].description or "")


def test_tomdoc_examples_follow_the_description(make_tool: MakeTool, tools_dir: Path) -> None:
    path = make_tool(
        "git-delete-branch",
        """\
        #!/bin/sh
        #
        # Delete a local and remote branch.
        #
        # $1 - The branch name.
        #
        # Examples
        #
        #   git-delete-branch feature/foo
        #
        set -e
        git branch -D "$1"
        git push origin ":$1"
        """,
    )
    declaration = declare(path, tools_dir)
    assert (
        declaration.description
        == "Delete a local and remote branch.\n\nExamples:\n  git-delete-branch feature/foo"
    )
    (branch,) = declaration.parameters
    assert (branch.name, branch.required, branch.description.split(" [")[0]) == (
        "branch_name",
        True,
        "The branch name.",
    )
