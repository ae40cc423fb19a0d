"""discover.python_docopt / docopt_usage: docopt scripts read from their usage text and
`ast` (never imported), in the shapes of docopt's own documentation (docopt.org)."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.discover.test_python_cli import NEVER_RUN, by_command, declare, declare_all, shape
from toolkiln.conventions.base import Candidate, NotATool, Probe
from toolkiln.conventions.by_hand import python_argv
from toolkiln.conventions.python import execute as python_module
from toolkiln.conventions.usage.docopt_usage import UsageError, read_usage
from toolkiln.errors import DiscoveryError

NAVAL_FATE = '''\
"""Naval Fate.

Usage:
  naval_fate.py ship new <name>...
  naval_fate.py ship <name> move <x> <y> [--speed=<kn>]
  naval_fate.py ship shoot <x> <y>
  naval_fate.py mine (set|remove) <x> <y> [--moored | --drifting]
  naval_fate.py (-h | --help)
  naval_fate.py --version

Options:
  -h --help     Show this screen.
  --version     Show version.
  --speed=<kn>  Speed in knots [default: 10].
  --moored      Moored (anchored) mine.
  --drifting    Drifting mine.

"""
from docopt import docopt

if __name__ == "__main__":
    arguments = docopt(__doc__, version="Naval Fate 2.0")
    print(arguments)
'''


def test_naval_fate_is_a_tool_per_usage_line_named_by_its_words(tmp_path: Path) -> None:
    tools = by_command(
        declare_all(tmp_path, NAVAL_FATE.replace("from docopt", NEVER_RUN + "from docopt"), "naval_fate.py")
    )
    assert list(tools) == ["ship new <>", "ship <> move <> <>", "ship shoot <> <>", "mine <> <> <>"]
    assert shape(tools["ship new <>"]) == [("name", "array", True, "", None)]
    move = tools["ship <> move <> <>"]
    assert shape(move) == [
        ("name", "string", True, "", None),
        ("x", "string", True, "", None),
        ("y", "string", True, "", None),
        ("speed", "string", False, "--speed", None),
    ]
    speed = move.parameters[3]
    assert (speed.default, speed.description) == ("10", "Speed in knots [default: 10].")
    assert move.description == ("Naval Fate. (`naval_fate.py ship <name> move <x> <y> [--speed=<kn>]`)")
    assert move.python_entry == "docopt" and move.warnings == []
    mine = tools["mine <> <> <>"]
    assert shape(mine) == [
        ("set_or_remove", "string", True, "", None),
        ("x", "string", True, "", None),
        ("y", "string", True, "", None),
        ("moored", "boolean", False, "--moored", "flag"),
        ("drifting", "boolean", False, "--drifting", "flag"),
    ]
    assert mine.parameters[0].enum == ["set", "remove"]
    assert mine.input_schema is not None  # at most one of --moored, --drifting
    assert mine.input_schema["allOf"] == [
        {
            "not": {
                "anyOf": [
                    {
                        "required": ["moored", "drifting"],
                        "properties": {"moored": {"const": True}, "drifting": {"const": True}},
                    }
                ]
            }
        }
    ]


def test_options_shortcut_with_two_column_descriptions_defaults_and_repeats(tmp_path: Path) -> None:
    declaration = declare(
        tmp_path,
        '''\
        """Copy files to a host.

        More text that is not the description.

        Usage:
          copy.py [options] <host> <source>...
          copy.py -h | --help

        Options:
          -h, --help              Show this screen.
          -p PORT, --port=PORT    Port to connect to [default: 22].
          -v, --verbose           Say more.
          -q                      Quiet.
          --timeout SECONDS       Seconds to wait
                                  before giving up.
        """
        import docopt

        def main():
            args = docopt.docopt(__doc__)

        main()
        ''',
    )
    assert declaration.command is None
    assert declaration.description == "Copy files to a host. (`copy.py [options] <host> <source>...`)"
    assert shape(declaration) == [
        ("port", "string", False, "--port", None),
        ("verbose", "boolean", False, "--verbose", "flag"),
        ("q", "boolean", False, "-q", "flag"),
        ("timeout", "string", False, "--timeout", None),
        ("host", "string", True, "", None),
        ("source", "array", True, "", None),
    ]
    port, timeout = declaration.parameters[0], declaration.parameters[3]
    assert (port.default, port.description) == ("22", "Port to connect to [default: 22].")
    assert timeout.description == "Seconds to wait before giving up."


def test_a_usage_text_in_a_constant_with_counts_repeated_options_and_capital_arguments(
    tmp_path: Path,
) -> None:
    declaration = declare(
        tmp_path,
        '''\
        from docopt import docopt

        USAGE = """Fetch pages.

        Usage: fetch.py [-v...] [--header=<h>...] URL [OUT]

        Options:
          --header=<h>  Extra headers [default: Accept:*/* X-A:1]
        """

        if __name__ == "__main__":
            print(docopt(USAGE, options_first=True))
        ''',
    )
    assert shape(declaration) == [
        ("v", "integer", False, "-v", "count"),
        ("header", "array", False, "--header", "repeat"),
        ("url", "string", True, "", None),
        ("out", "string", False, "", None),
    ]
    assert declaration.parameters[1].default == ["Accept:*/*", "X-A:1"]
    assert declaration.description == "Fetch pages. (`fetch.py [-v...] [--header=<h>...] URL [OUT]`)"


def test_a_required_choice_of_options_and_a_required_option(tmp_path: Path) -> None:
    declaration = declare(
        tmp_path,
        '''\
        """Usage: pick.py (--all | <name>) --out=<file>"""
        from docopt import docopt
        docopt(__doc__)
        ''',
    )
    assert shape(declaration) == [
        ("all", "boolean", False, "--all", "flag"),
        ("name", "string", False, "", None),
        ("out", "string", True, "--out", None),
    ]
    assert declaration.input_schema is not None
    one_of = [
        {"required": ["all"], "properties": {"all": {"const": True}}},
        {"required": ["name"], "properties": {"name": {}}},
    ]
    assert {"anyOf": one_of} in declaration.input_schema["allOf"]


def test_lines_that_cannot_be_passed_are_left_out_with_a_warning(tmp_path: Path) -> None:
    tools = declare_all(
        tmp_path,
        '''\
        """Key-value store.

        Usage:
          kv.py get <key>
          kv.py get <key> <default>
          kv.py set (<key> <value>)...
          kv.py (add <a> | rm <b>)
          kv.py del <key>... [<force>]
          kv.py list
        """
        from docopt import docopt
        if __name__ == "__main__":
            docopt(__doc__)
        ''',
        "kv.py",
    )
    assert [tool.command for tool in tools] == ["get <>", "list"]
    warnings = [str(warning) for warning in tools[0].warnings]
    assert len(warnings) == 4, warnings
    assert (
        "`kv.py get <key> <default>` left out: its command words are those of `kv.py get <key>`"
        in warnings[0]
    )
    assert "`kv.py set (<key> <value>)...` left out: a repeated group" in warnings[1]
    assert "`kv.py (add <a> | rm <b>)` left out: a choice between several words" in warnings[2]
    assert "`kv.py del <key>... [<force>]` left out: docopt never gives <force> a value" in warnings[3]
    assert [w.split(": ")[0] for w in warnings] == ["kv.py:5", "kv.py:6", "kv.py:7", "kv.py:8"]  # each line's


def test_a_usage_text_docopt_refuses_is_an_error_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.py"
    path.write_text('"""Usage: bad.py [<x>"""\nfrom docopt import docopt\ndocopt(__doc__)\n')
    candidate = Candidate(path, "bad.py", path.stat())
    assert python_module.claims(candidate)
    with pytest.raises(DiscoveryError, match=r"unmatched '\['") as raised:
        asyncio.run(python_module.declare(candidate, Probe(timeout=1)))
    assert raised.value.line == 1


@pytest.mark.parametrize(
    "body",
    [
        "from docopt import docopt\nif __name__ == '__main__':\n    docopt(__doc__.format(prog='x'))\n",
        "from docopt import docopt\nif __name__ == '__main__':\n    docopt(__doc__)\n",  # no docstring
        "from docopt import docopt\ndef a():\n    docopt(A)\ndef b():\n    docopt(B)\nA = B = ''\na()\n",
    ],
)
def test_a_usage_text_made_at_run_time_is_not_claimed_and_says_why(tmp_path: Path, body: str) -> None:
    path = tmp_path / "dyn.py"
    path.write_text(body)
    candidate = Candidate(path, "dyn.py", path.stat())
    assert not python_module.claims(candidate)
    assert python_argv.claims(candidate)
    with pytest.raises(NotATool, match="docopt usage text toolkiln cannot read without running it"):
        asyncio.run(python_argv.declare(candidate, Probe(timeout=1)))


def test_a_docopt_library_module_is_not_a_tool(tmp_path: Path) -> None:
    path = tmp_path / "lib.py"
    path.write_text('"""Usage: lib.py <x>"""\nfrom docopt import docopt\ndef main():\n    docopt(__doc__)\n')
    candidate = Candidate(path, "lib.py", path.stat())
    with pytest.raises(NotATool, match="declares a docopt command line"):
        asyncio.run(python_module.declare(candidate, Probe(timeout=1)))


@pytest.mark.parametrize(
    ("doc", "problem"),
    [
        ("Usage: p <x>\n  Options: -a", "inside the"),
        ("no usage here", 'no "usage:" section'),
        ("Usage:\n\nOptions:\n  -a  A", "empty"),
        ("Usage: p (<x>", r"unmatched '\('"),
        ("Usage: p --out=<f>\n\nOptions:\n  --out  A flag.", "must not have an argument"),
    ],
)
def test_usage_texts_docopt_would_refuse(doc: str, problem: str) -> None:
    with pytest.raises(UsageError, match=problem):
        read_usage(doc)


def test_short_options_stacked_and_with_values_as_docopt_reads_them() -> None:
    usage = read_usage("Usage: p -vo FILE -x\n\nOptions:\n  -o FILE  Output.\n")
    leaves: list[Any] = [(child.kind, child.name) for child in usage.patterns[0].node.children]
    assert leaves == [("option", "-v"), ("option", "-o"), ("option", "-x")]
    assert [option.takes_value for option in usage.options] == [True, False, False]


def test_usage_lines_are_split_on_the_program_name_like_docopt(tmp_path: Path) -> None:
    text = textwrap.dedent("""\
        Usage: prog.py add <x>
                       [--force]
               prog.py rm <x>
        """)
    usage = read_usage(text)
    assert [(p.source, p.line) for p in usage.patterns] == [
        ("prog.py add <x> [--force]", 0),
        ("prog.py rm <x>", 2),
    ]
