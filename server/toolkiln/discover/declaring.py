"""Reading the scripts a discovery run found new or changed, several at once: each by
its reader's `declare`, the outcome (a declaration, a verdict, an error) left on its
`Pending`, and the fallback tried for a file it opts in that its reader turned down.

Each outcome is handed on (`on_declared`: settled, its config written) as soon as it and
every one before it are known, in the order of `pending`, while later scripts are still
probed: the settling (~0.8 ms a tool) keeps this process busy while the probes' processes
use the other cores, where it used to follow the last probe with them idle.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from toolkiln.conventions.base import Declaration, NotATool, Probe
from toolkiln.conventions.fallback import read as fallback
from toolkiln.conventions.subcommands import with_file_warnings
from toolkiln.discover.python_imports import import_warning
from toolkiln.discover.settle import Pending
from toolkiln.errors import DiscoveryError
from toolkiln.interpreters import interpreter_problem
from toolkiln.vocabulary import SCRIPT_ENTRIES

ProgressCallback = Callable[[int, int], None]
DeclaredCallback = Callable[[Pending], None]
logger = logging.getLogger(__name__)


async def declare_all(
    pending: Sequence[Pending],
    probe: Probe,
    jobs: int,
    on_progress: ProgressCallback | None,
    on_declared: DeclaredCallback | None = None,
) -> None:
    """Each pending script read by its reader, `jobs` at once; a reader's "not a tool"
    gives the fallback its turn where config/server.json opts the file in. `on_declared`
    gets each item once its outcome and those of all the items before it are known."""
    import anyio

    limiter = anyio.CapacityLimiter(jobs)
    done = 0
    known = [False] * len(pending)
    handed_on = 0  # the items given to `on_declared`: pending[:handed_on]

    async def declare(number: int, item: Pending) -> None:
        nonlocal done, handed_on
        async with limiter:
            try:
                item.outcome = await item.reader.declare(item.candidate, probe)
            except NotATool as verdict:
                item.outcome = verdict
                if item.reader is not fallback and fallback.claims(item.candidate):
                    try:  # opted in
                        item.outcome = await fallback.declare(item.candidate, probe)
                    except NotATool as fallback_verdict:
                        item.outcome = fallback_verdict
                    except DiscoveryError:
                        pass  # the first verdict stands
            except DiscoveryError as error:
                item.outcome = error
            except Exception as crash:
                # A reader that fails on a file (a Python file nested past what `ast`
                # can hold, a shape nobody foresaw) is that file's error, not the run's.
                logger.debug("reading %s failed", item.candidate.relative_path, exc_info=True)
                detail = f": {str(crash)[:200]}" if str(crash) else ""
                item.outcome = DiscoveryError(
                    f"toolkiln could not read it ({type(crash).__name__}{detail})",
                    path=item.candidate.relative_path,
                )
        item.outcome = await _runnable(item, probe)
        done += 1
        if on_progress:
            on_progress(done, len(pending))
        known[number] = True
        while on_declared and handed_on < len(pending) and known[handed_on]:
            handed_on += 1
            on_declared(pending[handed_on - 1])

    async with anyio.create_task_group() as group:
        for number, item in enumerate(pending):
            group.start_soon(declare, number, item)


async def _runnable(
    item: Pending, probe: Probe
) -> Declaration | list[Declaration] | DiscoveryError | NotATool | None:
    """The outcome, or why the file is no tool here: a Node command-line script whose
    interpreter (`#!/usr/bin/env node`, `bun`) is not installed; a Python script run as a
    command whose `#!` line names a Python (a virtual environment's) that is not installed; with a
    warning when that Python cannot import what the script imports at its top."""
    outcome = item.outcome
    if not isinstance(outcome, list):
        return outcome
    declarations = outcome
    if any(d.dialect == "node-cli" for d in declarations):
        from toolkiln.conventions.raycast.read import runtime_problem  # `#!/usr/bin/env node` and no node

        missing = runtime_problem(item.candidate)
        return NotATool(missing, kind="runtime-missing") if missing else outcome
    if not any(d.python_entry in SCRIPT_ENTRIES for d in declarations):
        return outcome
    problem = interpreter_problem(item.candidate.path)
    if problem:
        return NotATool(problem, kind="runtime-missing")
    warning = await import_warning(item.candidate, probe)
    return with_file_warnings(declarations, [warning] if warning else [], after=True)
