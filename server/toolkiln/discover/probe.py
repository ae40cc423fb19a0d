"""Running a script to learn what it declares (help-json's `--help`), confined.

A folder being discovered may not have been reviewed yet: its scripts are not trusted.
A probe runs inside bubblewrap (`process/confine.py`) with no network, a filesystem
it cannot change, a private /tmp and an empty home (but for the tools folder and the
folders of the programs on PATH, so that interpreters still start), a minimal
environment, and a PID namespace that ends with it. Where bubblewrap cannot run, no
script is probed unless the user asks for unconfined probes; discovery says so.
`discover --list` and `doctor` probe nothing at all (`mode="none"`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from toolkiln.discover.base import Candidate
from toolkiln.errors import DiscoveryError

if TYPE_CHECKING:
    from toolkiln.process import Confinement, ProcessResult

# confined: only inside bubblewrap; trusted: inside bubblewrap where it works, else as
# the user (who said so, for a folder they trust); unconfined: as the user (a caller
# that knows the scripts, such as a test of the probe itself); none: never (commands
# that only report).
ProbeMode = Literal["confined", "trusted", "unconfined", "none"]
PROBE_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME")
# Where other users' homes and root's are: hidden from a probe as its own home is.
HOMES = ("/home", "/root")


@dataclass(frozen=True)
class Probe:
    """How discovery may run a script to learn what it declares."""

    timeout: float
    mode: ProbeMode = "confined"


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
    from toolkiln.process import run_process  # (and anyio) only when a script is probed

    confinement = _probe_confinement(candidate, probe)
    env = {key: os.environ[key] for key in PROBE_ENV if key in os.environ}
    from toolkiln.interpreters import script_command

    return await run_process(
        [*(interpreter or script_command(candidate.path)[:-1]), str(candidate.path), *args],
        timeout=probe.timeout,
        cwd=candidate.path.parent,
        env={**env, "HOME": os.environ.get("HOME", "/")},
        stdout_limit=output_limit,
        stderr_limit=output_limit,
        confinement=confinement,
    )


def _probe_confinement(candidate: Candidate, probe: Probe) -> Confinement | None:
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
    from toolkiln.token import default_state_dir

    home = os.path.realpath(os.environ.get("HOME", "/root"))
    hidden = [folder for folder in (*HOMES, home, str(default_state_dir())) if folder != "/"]
    return Confinement(network=False, hidden=tuple(hidden), visible=tuple(_needed_folders(candidate, hidden)))


def _needed_folders(candidate: Candidate, hidden: Sequence[str]) -> list[str]:
    """What a probe must still see: the tools folder, the environment of a Python its `#!`
    line names, and inside the hidden folders the interpreter running toolkiln and each
    PATH entry's top folder there (~/.local, ~/.pyenv)."""
    from toolkiln.interpreters import named_python

    depth = len(Path(candidate.relative_path).parts)
    needed = {str(candidate.path.parents[depth - 1])}
    folders = [sys.prefix, sys.base_prefix, *os.environ.get("PATH", "").split(os.pathsep)]
    named = named_python(candidate.path)
    if named and named[0].startswith("/") and os.access(named[0], os.X_OK):
        # the environment its `#!` line names (a venv under a hidden home or /tmp), and the
        # Python that environment was made from
        environment, base = Path(named[0]).parents[1], Path(os.path.realpath(named[0])).parents[1]
        needed.update(str(folder) for folder in (environment, base) if str(folder) != "/")
    for folder in filter(None, folders):
        real = os.path.realpath(folder)
        for outer in hidden:
            if real.startswith(outer.rstrip("/") + "/"):
                top = real[len(outer.rstrip("/")) + 1 :].split("/")[0]
                # A home's dot folder as a whole (an interpreter's shims need their versions).
                needed.add(os.path.join(outer, top) if top.startswith(".") else real)
    return sorted(needed)
