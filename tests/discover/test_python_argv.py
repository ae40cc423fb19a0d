"""Python scripts that read `sys.argv` by hand, stdin, or nothing: what each declares, read
with `ast` (never imported), in the shapes people write them; and those left out, with why."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from typing import Any

import pytest

from toolkiln.conventions.base import Candidate, Declaration, NotATool, Probe
from toolkiln.conventions.by_hand import python_argv
from toolkiln.errors import DiscoveryError

NEVER_RUN = 'raise SystemExit("discovery must never import me")\n'


def declare(tmp_path: Path, body: str, name: str = "tool.py", mode: int = 0o644) -> Declaration:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    path.chmod(mode)
    candidate = Candidate(path, name, path.stat())
    assert python_argv.claims(candidate)
    [declaration] = asyncio.run(python_argv.declare(candidate, Probe(timeout=1)))
    return declaration


def shape(declaration: Declaration) -> list[tuple[Any, ...]]:
    return [(p.name, p.type, p.required, p.default, p.option) for p in declaration.parameters]


CONVERT_PDF = """\
import os
import sys

from pdf2image import convert_from_path


def convert(pdf_path, output_dir, max_dim=1000):
    images = convert_from_path(pdf_path, dpi=200)
    for i, image in enumerate(images):
        image.save(os.path.join(output_dir, f"page_{i+1}.png"))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("Usage: convert_pdf_to_images.py [input pdf] [output directory]")
        sys.exit(1)
    pdf_path = sys.argv[1]
    output_directory = sys.argv[2]
    convert(pdf_path, output_directory)
"""


def test_the_convert_pdf_to_images_shape_names_both_words_from_its_variables(tmp_path: Path) -> None:
    declaration = declare(tmp_path, CONVERT_PDF, "convert_pdf_to_images.py")
    assert declaration.python_entry == "argv"
    assert shape(declaration) == [
        ("pdf_path", "string", True, None, ""),
        ("output_directory", "string", True, None, ""),
    ]
    assert [p.description for p in declaration.parameters] == ["input pdf", "output directory"]
    assert declaration.description.startswith("Usage: convert_pdf_to_images.py")
    assert not declaration.warnings


def test_a_usage_check_names_words_the_code_reads_without_a_name(tmp_path: Path) -> None:
    body = f'''\
        """Count the words of a file."""
        import sys

        USAGE = "usage: wc.py <input> [output]"
        if len(sys.argv) < 2:
            print(USAGE)
            sys.exit(1)
        text = open(sys.argv[1]).read()
        out = sys.argv[2] if len(sys.argv) > 2 else "-"
        print(len(text.split()), file=open(out, "w") if out != "-" else sys.stdout)
        {NEVER_RUN}'''
    declaration = declare(tmp_path, body)
    assert declaration.description == "Count the words of a file."
    assert shape(declaration) == [("input", "string", True, None, ""), ("out", "string", False, "-", "")]
    assert [str(w) for w in declaration.warnings] and "'input' is named from the usage text" in str(
        declaration.warnings[0]
    )


def test_tuple_unpacking_conversions_and_an_optional_with_a_default(tmp_path: Path) -> None:
    body = f"""\
        #!/usr/bin/env python3
        # Resize an image to a width and a scale.
        import sys

        src, dst = sys.argv[1], sys.argv[2]
        width = int(sys.argv[3])
        scale = float(sys.argv[4]) if len(sys.argv) > 4 else None
        mode = sys.argv[5] if len(sys.argv) > 5 else "fit"
        {NEVER_RUN}"""
    declaration = declare(tmp_path, body)
    assert declaration.description == "Resize an image to a width and a scale."
    assert shape(declaration) == [
        ("src", "string", True, None, ""),
        ("dst", "string", True, None, ""),
        ("width", "integer", True, None, ""),
        ("scale", "number", False, None, ""),
        ("mode", "string", False, "fit", ""),
    ]


@pytest.mark.parametrize(
    "binding",
    ["a_file, b_file = sys.argv[1:3]", "_, a_file, b_file = sys.argv", "a_file, b_file = sys.argv[1:]"],
)
def test_slices_and_the_whole_argv_unpacked(tmp_path: Path, binding: str) -> None:
    declaration = declare(tmp_path, f"import sys\n{binding}\nprint(a_file, b_file)\n")
    assert shape(declaration) == [("a_file", "string", True, None, ""), ("b_file", "string", True, None, "")]


def test_a_loop_over_the_rest_is_an_array(tmp_path: Path) -> None:
    body = '''\
        """Print the line count of each file."""
        import sys

        if len(sys.argv) < 2:
            sys.exit("usage: lines.py FILE...")
        for path in sys.argv[1:]:
            print(path, sum(1 for _ in open(path)))
        '''
    declaration = declare(tmp_path, body)
    (param,) = declaration.parameters
    assert (param.name, param.type, param.items, param.required, param.min) == (
        "paths",
        "array",
        "string",
        True,
        1,
    )


def test_the_words_handed_to_a_function_are_named_by_its_parameters(tmp_path: Path) -> None:
    body = '''\
        """Copy a file."""
        import sys

        def main(src, dst, times: int = 1):
            print(src, dst, times)

        if __name__ == "__main__":
            main(*sys.argv[1:])
        '''
    assert shape(declare(tmp_path, body)) == [
        ("src", "string", True, None, ""),
        ("dst", "string", True, None, ""),
        ("times", "integer", False, 1, ""),
    ]


def test_a_script_that_takes_nothing_is_a_tool_with_its_header_comment(tmp_path: Path) -> None:
    body = f"""\
        #!/usr/bin/env python3
        # Print the free space of every mounted disk.
        import shutil
        print(shutil.disk_usage("/"))
        {NEVER_RUN}"""
    declaration = declare(tmp_path, body, "df.py", 0o755)
    assert (declaration.description, declaration.parameters, declaration.python_entry) == (
        "Print the free space of every mounted disk.",
        [],
        "argv",
    )


def test_a_stdin_filter_gets_a_stdin_parameter(tmp_path: Path) -> None:
    body = '''\
        #!/usr/bin/env python3
        """Pretty-print the JSON on stdin."""
        import json, sys
        print(json.dumps(json.load(sys.stdin), indent=2))
        '''
    (param,) = declare(tmp_path, body, "pp.py").parameters
    assert (param.name, param.type, param.required, param.option, param.multiline) == (
        "stdin",
        "string",
        True,
        None,
        True,
    )


def test_fileinput_reads_the_files_named_or_stdin(tmp_path: Path) -> None:
    body = '"""Number lines."""\nimport fileinput\nfor line in fileinput.input():\n    print(line)\n'
    declaration = declare(tmp_path, "#!/usr/bin/env python3\n" + body)
    assert [(p.name, p.type, p.required, p.option) for p in declaration.parameters] == [
        ("files", "array", False, ""),
        ("stdin", "string", False, None),
    ]


@pytest.mark.parametrize(
    ("body", "kind", "words"),
    [
        ('import sys\nname = input("Your name? ")\nprint(sys.argv[1], name)\n', "asks-input", "input()"),
        ("#!/usr/bin/env python3\nimport getpass\nprint(getpass.getpass())\n", "asks-input", "getpass"),
        ('import sys\nif "-v" in sys.argv:\n    print(1)\n', "argv-by-hand", "line 2"),
        ("import sys\ndef main(argv):\n    print(argv)\nmain(sys.argv)\n", "argv-by-hand", "line 4"),
        ("import sys\nfor i in range(1, 3):\n    print(sys.argv[i])\n", "argv-by-hand", "line 3"),
        ("import getopt, sys\nopts, args = getopt.getopt(sys.argv[1:], 'v')\n", "argv-by-hand", "getopt"),
        (
            "import sys\nx = sys.argv[1]\nfor f in sys.argv[1:]:\n    print(f)\n",
            "argv-by-hand",
            "sys.argv[1:]",
        ),
    ],
)
def test_what_cannot_be_named_or_given_is_left_out_with_its_reason(
    tmp_path: Path, body: str, kind: str, words: str
) -> None:
    with pytest.raises(NotATool) as raised:
        declare(tmp_path, body)
    assert raised.value.kind == kind and words in raised.value.reason, raised.value.reason


def test_a_word_known_only_from_a_length_check_is_never_dropped(tmp_path: Path) -> None:
    body = (
        'import sys\nif len(sys.argv) != 3:\n    sys.exit("Usage: tag.py <repo> <tag>")\nprint(sys.argv[1])\n'
    )
    declaration = declare(tmp_path, body)
    assert shape(declaration) == [("repo", "string", True, None, ""), ("tag", "string", True, None, "")]
    assert len(declaration.warnings) == 2


def test_a_help_json_executable_and_a_library_are_not_claimed(tmp_path: Path) -> None:
    help_json = tmp_path / "h.py"
    help_json.write_text('import json, sys\nif sys.argv[1:] == ["--help"]:\n    print(json.dumps({}))\n')
    help_json.chmod(0o755)
    library = tmp_path / "lib.py"
    library.write_text("import sys\n\ndef first():\n    return sys.argv[1]\n")
    for path in (help_json, library):
        assert not python_argv.claims(Candidate(path, path.name, path.stat()))


@pytest.mark.parametrize("mode", [0o644, 0o755])
def test_a_script_written_to_break_the_reader_is_said_so_or_refused(tmp_path: Path, mode: int) -> None:
    nested = "import sys\nx = sys.argv[1]\ny = " + "+".join(["1"] * 900) + "\n"
    path = tmp_path / "nested.py"
    path.write_text(nested)
    path.chmod(mode)
    candidate = Candidate(path, path.name, path.stat())
    if mode == 0o755:  # an executable the reader cannot read goes on to the `--help` probe
        assert not python_argv.claims(candidate)
        return
    with pytest.raises(NotATool, match="nested too deep"):
        declare(tmp_path, nested, "nested.py")
    huge = tmp_path / "huge.py"
    huge.write_text("import sys\nif len(sys.argv) != 1000000000:\n    sys.exit(1)\n")
    with pytest.raises(DiscoveryError, match="toolkiln reads at most 100"):
        asyncio.run(python_argv.declare(Candidate(huge, huge.name, huge.stat()), Probe(timeout=1)))


def test_reading_is_linear_in_the_size_of_the_script(tmp_path: Path) -> None:
    """A hundred words and twenty thousand statements: read whole, in one pass."""
    lines = ["import sys"] + [f"v{i} = sys.argv[{i}]" for i in range(1, 101)]
    lines += [f"w{i} = len(sys.argv) + {i}" for i in range(20_000)]
    declaration = declare(tmp_path, "\n".join(lines) + "\n")
    assert len(declaration.parameters) == 100


def test_words_handed_straight_to_a_function_are_named_by_its_parameters(tmp_path: Path) -> None:
    body = """\
        import sys

        def convert(pdf_path, output_dir, max_dim=1000):
            print(pdf_path, output_dir, max_dim)

        if __name__ == "__main__":
            if len(sys.argv) < 3:
                print("Usage: convert_pdf_to_images.py <input.pdf> <output_dir> [max_dim]")
                sys.exit(1)
            _max = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
            convert(sys.argv[1], sys.argv[2], _max)
        """
    declaration = declare(tmp_path, body)
    assert shape(declaration) == [
        ("pdf_path", "string", True, None, ""),
        ("output_dir", "string", True, None, ""),
        ("max_dim", "integer", False, 1000, ""),  # `_max` says less than the usage's word
    ]
    assert [p.description for p in declaration.parameters] == ["input.pdf", "output_dir", "max_dim"]


def test_a_count_check_that_goes_on_guards_the_other_branch(tmp_path: Path) -> None:
    body = '''\
        """Upper-case a file, or stdin when none is named."""
        import sys

        if len(sys.argv) == 1:
            text = sys.stdin.read()
        else:
            text = open(sys.argv[1]).read()
        print(text.upper())
        '''
    declaration = declare(tmp_path, body)
    assert [(p.name, p.required, p.option) for p in declaration.parameters] == [
        ("arg1", False, ""),
        ("stdin", False, None),
    ]


def test_joined_words_and_a_name_an_environment_variable_holds(tmp_path: Path) -> None:
    body = (
        '"""Search."""\nimport sys\nPATH = sys.argv[1]\nquery = " ".join(sys.argv[2:])\nprint(PATH, query)\n'
    )
    declaration = declare(tmp_path, body)
    assert [(p.name, p.type, p.option) for p in declaration.parameters] == [
        ("arg1", "string", ""),  # `PATH` would replace the script's PATH: not a parameter's name
        ("query", "array", ""),
    ]
