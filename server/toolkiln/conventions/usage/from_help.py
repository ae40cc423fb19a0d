"""A tool from what a confined `--help` probe printed, when it is the program's own help
and its usage names every argument (help_tool.py): shared by the usage reader of the
languages toolkiln has no reader for (probed.py) and by help-json, whose executables
answer `--help` in plain text (argparse, optparse, getopt, `usage()` texts).

What a probe prints is text, not truth: help that is not help (an error, data, another
program's), or help naming what toolkiln cannot pass, is no tool, and the reason says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkiln.conventions.base import Declaration, NotATool
from toolkiln.conventions.fallback import read as fallback
from toolkiln.conventions.fallback.text import help_of

if TYPE_CHECKING:
    from toolkiln.conventions.base import Candidate
    from toolkiln.process import ProcessResult

OUTPUT_LIMIT = 256 * 1024
DESCRIPTION_LIMIT = 1000


def declare_from_help(candidate: Candidate, result: ProcessResult) -> Declaration:
    """The tool the printed help declares, or NotATool with the reason (kind plain-help)."""
    printed = result.stdout_text if result.stdout_text.strip() else result.stderr_text
    # Terminal escapes, overstrike and control characters are no client's text (as the fallback's).
    printed = fallback.clean_text(printed, OUTPUT_LIMIT)
    text, refusal = help_of(candidate, printed, result.returncode)
    if refusal:
        raise NotATool(f"`--help` printed {refusal}; toolkiln keeps it out", kind="plain-help")
    from toolkiln.conventions.usage.help_tool import Unservable, parameters_from_help  # when probed

    try:
        parameters, warnings, usage = parameters_from_help(text, candidate.relative_path)
    except Unservable as why:
        raise NotATool(
            f"answers `--help` with plain text toolkiln cannot serve: {why}", kind="plain-help"
        ) from None
    if not parameters:
        # `usage: helper`: a usage naming nothing it takes says as little when the script
        # prints it whatever it is given; a script that takes nothing is read from its text.
        raise NotATool("answers `--help` with a usage that names no argument", kind="plain-help")
    lines = text.splitlines()
    prose = [
        line.strip() for line in lines[usage.line + 1 :] if line.strip() and not line.startswith((" ", "\t"))
    ]
    description = prose[0] if prose and not prose[0].startswith("-") and not prose[0].endswith(":") else ""
    program = usage.program.rsplit("/", 1)[-1]  # `sys.argv[0]`: the probe's path, not the program's name
    description = description or f"Usage: {program} {usage.patterns[0].strip()}".strip()
    return Declaration(
        dialect="shell", description=description[:DESCRIPTION_LIMIT], parameters=parameters, warnings=warnings
    )
