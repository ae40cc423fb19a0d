"""Parameters from help text: every argument the help names becomes a parameter spelled
as the program reads it, or the help is refused with the reason (never a tool that
drops a required argument)."""

from __future__ import annotations

import pytest

from toolkiln.conventions.usage.help_tool import Unservable, parameters_from_help


def _shape(text: str) -> list[tuple[object, ...]]:
    parameters, _, _ = parameters_from_help(text, "t")
    return [(p.name, p.type, p.required, p.default, p.option, p.enum) for p in parameters]


def test_gnu_help_spells_each_option_as_written() -> None:
    text = (
        "Usage: fetch [OPTION]... URL [FILE]\n\n"
        "  -o, --output=FILE     write to FILE [default: out.html]\n"
        "  -q, --quiet           say nothing\n"
        "      --retries N       how often to retry\n"
        "  -h, --help            display this help and exit\n"
    )
    assert _shape(text) == [
        ("output", "string", False, "out.html", "--output=", None),
        ("quiet", "boolean", False, False, "--quiet", None),
        ("retries", "string", False, None, "--retries", None),
        ("url", "string", True, None, "", None),
        ("file", "string", False, None, "", None),
    ]


def test_click_help_keeps_required_and_choices() -> None:
    text = (
        "Usage: deploy [OPTIONS] TARGET\n\nOptions:\n"
        "  -e, --env [dev|prod]  Where to  [required]\n  --dry-run             Only show\n"
        "  --help                Show this message and exit.\n"
    )
    assert _shape(text) == [
        ("env", "string", True, None, "--env", ["dev", "prod"]),
        ("dry_run", "boolean", False, False, "--dry-run", None),
        ("target", "string", True, None, "", None),
    ]


def test_a_repeated_positional_is_an_array_and_a_prose_name_is_a_guess() -> None:
    parameters, warnings, _ = parameters_from_help("usage: join [input files] output_file ...", "t")
    assert [(p.name, p.type, p.required) for p in parameters] == [
        ("input_files", "string", False),
        ("output_file", "array", True),
    ]
    assert len(warnings) == 2 and "guessed" in (parameters[0].description or "")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("usage: vault add <name>\n   or: vault rm <name>", "subcommands"),
        ("usage: svc (start|stop) <name>", "choice of command words"),
        ("usage: cp <src>... <dst>", "repeated argument before others"),
        ("no usage here\n  -v  verbose", "no usage line"),
    ],
)
def test_what_cannot_be_passed_correctly_is_refused(text: str, reason: str) -> None:
    with pytest.raises(Unservable, match=reason):
        parameters_from_help(text, "t")
