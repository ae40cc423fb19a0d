"""Why an executable could not be started for its `--help` probe: its `#!` line names an
interpreter that is not installed here (a dotfiles `bin/` keeps scripts for machines
this one is not), which makes it no tool here; else a discovery error that suggests a
shebang line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkiln.conventions.base import NotATool
from toolkiln.errors import DiscoveryError

if TYPE_CHECKING:
    from toolkiln.conventions.base import Candidate
    from toolkiln.errors import ProcessStartError


def start_failure(candidate: Candidate, error: ProcessStartError) -> NotATool | DiscoveryError:
    """What to raise when `candidate` could not be started."""
    from toolkiln.conventions.raycast.read import runtime_problem

    if candidate.head.startswith("#!"):
        problem = runtime_problem(candidate)
        if problem is not None:
            return NotATool(problem, kind="runtime-missing")
    return DiscoveryError(
        f"{error} (does it start with a shebang line such as #!/bin/bash?)", path=candidate.relative_path
    )
