"""The fallback: an executable no other reader declares, served as a tool that takes one
`args` array (its command line) and has its `--help` text as its description.

Never by default. The user opts files in from `config/server.json`, which is theirs
(the tools folder may not be):

    {"discovery": {"fallback": ["bin/", "legacy/convert.sh", "scripts/*.sh"]}}

It comes last: help-json claims every executable first, probes its `--help` (confined,
`probe.py`), and hands the answer here when it is plain text and the file is opted in
(`declare_from_help`), so that the program runs once. A script without the run bit
that an interpreter runs by its extension (`.sh`, `.py`, ...) is claimed here directly.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from toolkiln.conventions.base import Candidate, Declaration, NotATool, Probe, make_parameter
from toolkiln.conventions.fallback.text import describe, help_of
from toolkiln.conventions.start_failure import start_failure
from toolkiln.discover.probe import run_probe
from toolkiln.errors import DiscoveryError, ProcessStartError
from toolkiln.fallback_globs import is_opted_in, read_fallback_patterns
from toolkiln.interpreters import INTERPRETERS, find_interpreter, interpreter_names, runs_by_itself

if TYPE_CHECKING:
    from toolkiln.process import ProcessResult

CLAIM_IS_CERTAIN = False  # a folder's run.sh opted in does not make the folder one tool
ARGS_PARAMETER = "args"
HELP_OUTPUT_LIMIT = 256 * 1024
DESCRIPTION_LIMIT = 4000
_DATA_SUFFIXES = {".json", ".md", ".txt", ".toml", ".yaml", ".yml", ".cfg", ".ini", ".lock", ".csv", ".pyc"}
# Terminal escapes (colours, titles), man-style overstrike, and what else a terminal
# acts on: a description is text for a client to read, not a terminal's input.
_ESCAPES = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_OVERSTRIKE = re.compile(r"[^\x08\n]\x08")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")

# Per tools folder (resolved, as discovery scans it): the patterns of its config's
# `discovery.fallback`, recorded by `discover_tools` before it scans.
_OPT_INS: dict[str, tuple[str, ...]] = {}


def record_opt_in(tools_dir: Path, config_dir: Path) -> tuple[str, ...]:
    """Read which files of `tools_dir` are opted in (`config_dir/server.json`, as plain
    JSON), for the `claims` of this run, and return them; `ConfigError` when malformed."""
    patterns = _OPT_INS[str(tools_dir)] = read_fallback_patterns(config_dir)
    return patterns


def opted_in(candidate: Candidate) -> bool:
    """Whether the user opted this file in to the fallback."""
    root = str(candidate.path)[: -len(candidate.relative_path) - 1]
    return is_opted_in(candidate.relative_path, _OPT_INS.get(root, ()))


def claims(candidate: Candidate) -> bool:
    """An opted-in file that can run: executable, or a script an interpreter runs by its
    extension; never a data file (a README in an opted-in folder)."""
    suffix = candidate.path.suffix.lower()
    if suffix in _DATA_SUFFIXES or not (candidate.executable or suffix in INTERPRETERS):
        return False
    return opted_in(candidate)


async def declare(candidate: Candidate, probe: Probe) -> list[Declaration]:
    interpreter = _interpreter(candidate)
    try:
        result = await run_probe(candidate, ["--help"], probe, HELP_OUTPUT_LIMIT, interpreter)
    except ProcessStartError as error:
        raise start_failure(candidate, error) from None
    return [declare_from_help(candidate, result, probe.timeout)]


def declare_from_help(candidate: Candidate, result: ProcessResult, timeout: float) -> Declaration:
    """The fallback tool of an opted-in file, from what its `--help` printed."""
    path = candidate.relative_path
    warnings = []
    printed = "" if result.timed_out else help_text(result)
    own, refusal = help_of(candidate, printed, result.returncode) if printed else ("", None)
    text = "" if result.timed_out else describe(candidate, own)
    if refusal:
        warnings.append(
            DiscoveryError(
                f"`--help` printed {refusal}: kept out of its description (declare its parameters, "
                "or give it a header comment, to describe it)",
                path=path,
            )
        )
    if result.timed_out:
        warnings.append(
            DiscoveryError(
                f"`--help` did not finish within {timeout:g} s; served with a generic description",
                path=path,
            )
        )
    description = text or (
        f"Runs the program {path} with the command-line arguments given in `args` "
        "(it printed no `--help` text of its own)."
    )
    args = make_parameter(
        path,
        None,
        name=ARGS_PARAMETER,
        type="array",
        items="string",
        default=[],
        description=(
            f"The command line of {path}, one item per argument, passed exactly as given "
            "(no shell: quotes, globs, $ and ; are not interpreted). See the tool's description "
            "for the options it takes."
        ),
    )
    return Declaration(dialect="fallback", description=description, parameters=[args], warnings=warnings)


def help_text(result: ProcessResult) -> str:
    """What `--help` printed: stdout (or stderr when stdout is blank), as plain text,
    capped; `fallback_text.help_refusal` then tells whether it is help."""
    text = result.stdout_text if result.stdout_text.strip() else result.stderr_text
    return clean_text(text)


def clean_text(text: str, limit: int = DESCRIPTION_LIMIT) -> str:
    """Plain text: no terminal escapes nor control characters, at most `limit` characters."""
    text = text.replace("\r\n", "\n").replace("\t", "    ")
    text = _CONTROLS.sub("", _OVERSTRIKE.sub("", _ESCAPES.sub("", text)))
    lines = [line.rstrip() for line in text.split("\n")]
    text = "\n".join(lines).strip("\n")
    if len(text) > limit:
        cut = text.rfind("\n", 0, limit)
        text = (
            text[: cut if cut > limit // 2 else limit].rstrip() + f"\n[help text cut at {limit} characters]"
        )
    return text


def _interpreter(candidate: Candidate) -> list[str]:
    """What runs the file: nothing (a `#!` script or a binary), or the interpreter for its
    extension; `NotATool` when none is installed."""
    if runs_by_itself(candidate.path) or (candidate.executable and not candidate.head):
        return []
    command = find_interpreter(candidate.path)
    if command is None:
        wanted = " or ".join(interpreter_names(candidate.path)) or "an interpreter"
        raise NotATool(
            f"opted in to the fallback, but has no #! line and {wanted} (which runs it) is not installed",
            kind="runtime-missing",
        )
    return command
