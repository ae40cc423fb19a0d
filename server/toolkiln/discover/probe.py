"""Running a script to learn what it declares (help-json's `--help`), confined.

A folder being discovered may not have been reviewed yet: its scripts are not trusted.
A probe runs inside bubblewrap (`process/confine.py`) with no network, a filesystem
it cannot change, a private /tmp and an empty home (but for the tools folder, the
PATH entries that hold only programs and the interpreter that runs the script with its
installation, so that it still starts; never their neighbours, such as
`~/.cargo/credentials.toml` beside `~/.cargo/bin`: `probe_view.py`), toolkiln's state
folder hidden after every bind (`process/confine.py`), a minimal environment, and a PID
namespace that ends with it. Where bubblewrap cannot run, no script is probed unless the
user asks for unconfined probes; discovery says so.
`discover --list` and `doctor` probe nothing at all (`mode="none"`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from toolkiln.conventions.base import Candidate, Probe
from toolkiln.errors import DiscoveryError

if TYPE_CHECKING:
    from toolkiln.process import Confinement, ProcessResult

PROBE_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME")
# Where other users' homes and root's are: hidden from a probe as its own home is.
HOMES = ("/home", "/root")
_profiles: set[Confinement] = set()  # the confinements probes ran in, until `end_probes`
# The confinement of probes, by what decides it (`_probe_confinement`): the scripts of one
# folder share it, and working it out costs ~5 realpaths and a PATH search. A probe can
# change none of it (it writes nothing); kept until `end_probes`.
_confinements: dict[tuple[object, ...], Confinement] = {}


class NotProbed(DiscoveryError):
    """A script that would have to run to be understood, and was not; the message says why."""


async def run_probe(
    candidate: Candidate,
    args: Sequence[str],
    probe: Probe,
    output_limit: int,
    interpreter: Sequence[str] = (),
) -> ProcessResult:
    """`candidate` run with `args` as `probe` allows (by `interpreter`, when it cannot run
    by itself); `NotProbed` when it may not run, and `ProcessStartError` when it cannot start."""
    from toolkiln.interpreters import script_command
    from toolkiln.process import run_process  # (and anyio) only when a script is probed

    interpreter = tuple(interpreter or script_command(candidate.path)[:-1])
    confinement = _probe_confinement(candidate, probe, interpreter)
    if confinement is not None:
        _profiles.add(confinement)
    env = {key: os.environ[key] for key in PROBE_ENV if key in os.environ}
    return await run_process(
        [*interpreter, str(candidate.path), *args],
        timeout=probe.timeout,
        cwd=candidate.path.parent,
        env={**env, "HOME": os.environ.get("HOME", "/")},
        stdout_limit=output_limit,
        stderr_limit=output_limit,
        confinement=confinement,
    )


def end_probes() -> None:
    """End the long-lived bubblewraps that ran this discovery's probes (one per confinement
    profile, `process/runners.py`: probes pay one bubblewrap start per profile, not one each)."""
    from toolkiln.process.runners import stop_runners

    _confinements.clear()
    if _profiles:
        stop_runners(*_profiles)
        _profiles.clear()


def _probe_confinement(candidate: Candidate, probe: Probe, interpreter: Sequence[str]) -> Confinement | None:
    from toolkiln.process import Confinement, confinement_problem

    path = candidate.relative_path
    if probe.mode == "none":
        raise NotProbed(
            "not probed: this command runs no script (`toolkiln discover` probes it, confined)", path=path
        )
    if probe.mode == "unconfined":
        return None
    problem = confinement_problem()
    if problem is not None and probe.mode == "trusted":
        return None
    if problem is not None:
        raise NotProbed(
            f"not probed, as scripts are only run confined and cannot be here: {problem}; "
            "`toolkiln discover --unconfined-probes` runs it as you, if you trust this folder",
            path=path,
        )
    # The scripts of a folder mostly share one `#!` line, so one confinement: worked out once
    # (~30 us a probe: realpaths, a PATH search) for what decides it, kept until `end_probes`.
    key = (
        _tools_root(candidate),
        tuple(interpreter),
        _first_line_of(candidate),
        os.environ.get("HOME"),
        os.environ.get("PATH"),
    )
    confinement = _confinements.get(key)
    if confinement is None:
        home = os.path.realpath(os.environ.get("HOME", "/root"))
        hidden = [folder for folder in (*HOMES, home) if folder != "/"]
        visible = _needed_folders(candidate, interpreter, hidden)
        confinement = Confinement(network=False, hidden=tuple(hidden), visible=tuple(visible))
        _confinements[key] = confinement
    return confinement


def _needed_folders(candidate: Candidate, interpreter: Sequence[str], hidden: Sequence[str]) -> list[str]:
    """What a probe must still see inside the hidden folders (`probe_view.py`): the tools
    folder, the PATH entries that hold only programs, and the program that runs the
    script with what it needs, never a file beside them."""
    from toolkiln.discover.probe_view import probe_view
    from toolkiln.interpreters import named_python

    root = candidate.path.parents[len(Path(candidate.relative_path).parts) - 1]
    named = named_python(candidate.path)
    python = named[0] if named and named[0].startswith("/") else None
    return probe_view(root, _program(candidate.path, interpreter), python, hidden)


def _tools_root(candidate: Candidate) -> str:
    """The tools folder `candidate` was found in, as a string."""
    path, relative = str(candidate.path), candidate.relative_path
    if path.endswith("/" + relative):
        return path[: -len(relative) - 1]
    return str(candidate.path.parents[len(Path(relative).parts) - 1])


def _first_line_of(candidate: Candidate) -> str | bytes:
    """The script's first line (the `#!` line `named_python` and `_program` read): as the
    scan read it (`Candidate.head`) when it did and the line is text, else read now."""
    head = candidate.__dict__.get("head")  # a cached_property: read already, or not
    if isinstance(head, str) and head:
        line = head.split("\n", 1)[0]
        if "\ufffd" not in line:
            return line
    return _first_line(candidate.path)


def _first_line(script: Path) -> bytes:
    """The script's first line as bytes (the `#!` line `named_python` and `_program` read)."""
    try:
        with script.open("rb") as handle:
            return handle.readline(512)
    except OSError:
        return b""


def _program(script: Path, interpreter: Sequence[str]) -> str | None:
    """The program that runs `script`: `interpreter`'s first word, else its shebang's
    (the one after `env`)."""
    words = list(interpreter)
    if not words:
        try:
            with script.open("rb") as handle:
                line = handle.readline(256)
        except OSError:
            return None
        words = os.fsdecode(line[2:]).split() if line.startswith(b"#!") else []
    if words and os.path.basename(words[0]) == "env":
        words = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
    return words[0] if words else None
