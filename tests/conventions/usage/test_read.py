"""The usage-text reader, on fixtures written from each format's own documentation:
docopt (docopt.org's naval_fate), argparse (the Python docs' `prog` examples), click
(its `hello` and `--shout / --no-shout` examples), GNU `--help` (coreutils' `ls`, `cp`),
BSD usage lines (man pages' SYNOPSIS), and real-looking scripts' printed usage."""

from __future__ import annotations

from toolkiln.conventions.usage.model import UsageText
from toolkiln.conventions.usage.read import guessed_names, read_usage_text


def _read(text: str, **kwargs: frozenset[str]) -> UsageText:
    usage = read_usage_text(text, **kwargs)
    assert usage is not None
    return usage


def _positionals(usage: UsageText) -> list[tuple[str, bool, bool]]:
    return [(p.name, p.optional, p.repeated) for p in usage.positionals]


def test_docopt_style_line_with_options_and_repeated_argument() -> None:
    usage = _read("Usage: prog [-v] [-o FILE] <input> [<more>...]")
    assert usage.program == "prog"
    assert _positionals(usage) == [("input", False, False), ("more", True, True)]
    v, o = usage.options
    assert (v.names, v.takes_value) == (["-v"], False)
    assert (o.names, o.value, o.required) == (["-o"], "FILE", False)
    assert usage.marked and not guessed_names(usage)


def test_naval_fate_alternatives_are_subcommands_and_options_keep_their_defaults() -> None:
    usage = _read(
        "Naval Fate.\n\nUsage:\n  naval_fate.py ship new <name>...\n"
        "  naval_fate.py ship <name> move <x> <y> [--speed=<kn>]\n"
        "  naval_fate.py mine (set|remove) <x> <y> [--moored | --drifting]\n"
        "  naval_fate.py (-h | --help)\n\nOptions:\n  -h --help     Show this screen.\n"
        "  --speed=<kn>  Speed in knots [default: 10].\n"
    )
    assert usage.program == "naval_fate.py" and len(usage.patterns) == 4
    assert usage.commands == ["ship", "mine"]
    assert _positionals(usage) == [("name", False, True)]
    speed = usage.option("--speed")
    assert speed is not None and speed.value == "<kn>" and speed.default == "10" and speed.attached
    assert usage.option("--moored") is not None and usage.option("--drifting") is not None


def test_a_choice_of_words_is_one_positional_with_choices() -> None:
    usage = _read("usage: svc (start|stop|restart) <name>")
    assert [(p.name, p.choices) for p in usage.positionals] == [
        ("command", ("start", "stop", "restart")),
        ("name", ()),
    ]


def test_prose_in_brackets_names_one_argument_each_and_is_a_guess() -> None:
    usage = _read('print("Usage: convert_pdf_to_images.py [input pdf] [output directory]")')
    assert _positionals(usage) == [("input_pdf", True, False), ("output_directory", True, False)]
    assert guessed_names(usage) == {"input_pdf", "output_directory"}


def test_bsd_usage_with_bundled_flags_and_lowercase_arguments() -> None:
    usage = _read(
        "usage: cp [-fip] [-R] source_file target_file\n       cp [-fip] source_file ... target_directory"
    )
    assert _positionals(usage) == [("source_file", False, False), ("target_file", False, False)]
    assert [o.key for o in usage.options] == ["-f", "-i", "-p", "-R"]
    assert not any(o.takes_value for o in usage.options)


def test_bsd_man_style_option_lines() -> None:
    usage = _read(
        "usage: grab [-v] [-f file] url\n\n     -f file\tRead the list from file.\n     -v\tVerbose.\n"
    )
    f = usage.option("-f")
    assert f is not None and f.value == "file" and f.description == "Read the list from file."


def test_gnu_help_with_or_lines_optional_values_and_attached_values() -> None:
    usage = _read(
        "Usage: ls [OPTION]... [FILE]...\nList information about the FILEs.\n\n"
        "  -a, --all                  do not ignore entries starting with .\n"
        "      --color[=WHEN]         colorize the output; WHEN can be 'always' (default\n"
        "                               if omitted), 'auto', or 'never'\n"
        "  -w, --width=COLS           set output width to COLS.  0 means no limit\n"
    )
    assert _positionals(usage) == [("file", True, True)]
    all_, color, width = usage.options
    assert all_.names == ["-a", "--all"] and not all_.takes_value
    assert color.optional_value and color.attached and "never" in color.description
    assert width.names == ["-w", "--width"] and width.value == "COLS" and width.attached


def test_gnu_or_lines_are_alternatives() -> None:
    usage = _read("Usage: cp [OPTION]... [-T] SOURCE DEST\n  or:  cp [OPTION]... SOURCE... DIRECTORY\n")
    assert len(usage.patterns) == 2
    assert _positionals(usage) == [("source", False, False), ("dest", False, False)]


def test_argparse_help_with_wrapped_option_choices_defaults_and_nargs() -> None:
    usage = _read(
        "usage: prog [-h] [-o OUTPUT] [--mode {fast,slow}] [--tags TAGS [TAGS ...]]\n"
        "            input [extra ...]\n\npositional arguments:\n  input                 the input file\n"
        "  extra                 more files\n\noptions:\n"
        "  -h, --help            show this help message and exit\n"
        "  -o OUTPUT, --output OUTPUT\n                        where to write (default: out.txt)\n"
        "  --mode {fast,slow}    how fast\n  --tags TAGS [TAGS ...]\n"
    )
    assert _positionals(usage) == [("input", False, False), ("extra", True, True)]
    assert usage.positionals[0].description == "the input file"
    output, mode, tags = usage.option("--output"), usage.option("--mode"), usage.option("--tags")
    assert output is not None and output.names == ["-o", "--output"] and output.default == "out.txt"
    assert mode is not None and mode.choices == ("fast", "slow")
    assert tags is not None and tags.repeatable


def test_argparse_subcommands() -> None:
    usage = _read("usage: tool [-h] {add,rm} ...\n\npositional arguments:\n  {add,rm}\n    add  Add one\n")
    assert usage.positionals[0].choices == ("add", "rm")
    assert "add" in usage.commands and "rm" in usage.commands


def test_click_help_required_default_choices_and_flag_pairs() -> None:
    usage = _read(
        "Usage: hello [OPTIONS] NAME\n\n  Greets NAME.\n\nOptions:\n"
        "  --count INTEGER       Number of greetings.  [default: 1]\n"
        "  -n, --name TEXT       The person to greet.  [required]\n  --shout / --no-shout\n"
        "  --hash-type [md5|sha1]\n  --ratio FLOAT RANGE   [0<=x<=1]\n"
        "  --help                Show this message and exit.\n"
        "\nCommands:\n  init  Set it up\n  sync  Sync it\n"
    )
    assert _positionals(usage) == [("name", False, False)]
    count, name, shout, hash_type, ratio = (
        usage.option(n) for n in ("--count", "--name", "--shout", "--hash-type", "--ratio")
    )
    assert count is not None and count.default == "1" and count.type_guess == "integer"
    assert name is not None and name.required and name.names == ["-n", "--name"]
    assert shout is not None and not shout.takes_value and shout.negations == ("--no-shout",)
    assert hash_type is not None and hash_type.choices == ("md5", "sha1")
    assert ratio is not None and ratio.type_guess == "number"
    assert usage.commands == ["init", "sync"]


def test_shell_program_words_and_tabs() -> None:
    usage = _read('Usage: $(basename "$0") [-q] [-o DIR] <image> [width]\n\t-o DIR\twhere to write\n')
    assert usage.program == '$(basename "$0")'
    assert _positionals(usage) == [("image", False, False), ("width", True, False)]
    o = usage.option("-o")
    assert o is not None and o.value == "DIR" and o.description == "where to write"


def test_interpreter_and_program_are_both_the_program() -> None:
    usage = _read("usage: python3 tool.py <src> <dst>")
    assert usage.program == "python3 tool.py" and [p.name for p in usage.positionals] == ["src", "dst"]


def test_help_only_line_is_not_the_interface() -> None:
    usage = _read("usage: tool -h\n   or: tool <file>")
    assert [p.name for p in usage.positionals] == ["file"]


def test_known_value_options_from_the_code() -> None:
    usage = _read("usage: t -o OUT <in>", value_options=frozenset({"-o"}))
    assert [p.name for p in usage.positionals] == ["in"]
    o = usage.option("-o")
    assert o is not None and o.takes_value and o.required


def test_prose_that_only_mentions_usage_is_not_read() -> None:
    assert read_usage_text("The usage of this tool is simple.\nJust run it.") is None
    assert read_usage_text("- a list item\n- another") is None


def test_a_bare_word_alone_in_brackets_repeated_is_an_argument() -> None:
    usage = _read("Usage: words <first> [rest...]")
    assert _positionals(usage) == [("first", False, False), ("rest", True, True)]
