"""Long-lived confined runners: one bubblewrap per confinement profile, started once, that
starts each confined call of that profile (`runner_main.py`, `cell.py`), so that a call
pays an exec, not a bubblewrap start (Linux x86-64, with the spawner).

A profile is the whole bubblewrap command but for the program and its folder: two
confinements that bind the same folders the same way share a runner. At most
`MAX_RUNNERS` stay alive; the least recently used one with no call running goes first.
Each runner is started by the spawner (`spawner.py`), with `--die-with-parent`: it ends
with the spawner, so with the server however it ends, and its calls with it. One that was
killed (a hostile unconfined tool may: same user) is noticed at once by the calls it ran
(they end, killed: `groups.wait_for_exit` watches it) and at the next request, which a
new runner then starts. Where there is no spawner, or a profile's runner cannot start
(its trial cell fails), `runner_for` is None and the call runs in a bubblewrap of its
own, as before.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
import threading
from collections import OrderedDict
from pathlib import Path

from toolkiln.process.confine import BWRAP_VARIABLE, Confinement, profile_argv, secret_paths
from toolkiln.process.spawner import SpawnedProcess, Spawner, SpawnerGone, spawner

logger = logging.getLogger(__name__)

MAX_RUNNERS = 8
_MAIN = Path(__file__).with_name("runner_main.py")
_runners: OrderedDict[tuple[str, ...], Spawner] = OrderedDict()
_lock = threading.Lock()
# The profiles whose runner could not start: their calls start a bubblewrap each.
_failed: set[tuple[str, ...]] = set()
# The bubblewrap command of each profile whose processes can write nothing (a probe's),
# by what it is made from: ~26 realpaths that every probe of a discovery would repeat.
# Nothing such a process does can change what those paths resolve to; the entry goes with
# its runner (`_drop`; `stop_runners` ends each discovery's).
_commands: dict[tuple[object, ...], tuple[list[str], list[str]]] = {}


def runner_for(confinement: Confinement) -> Spawner | None:
    """The running runner of `confinement`'s profile, started on first use; None where there can be none."""
    command, private = _profile(confinement)
    key = _key(command, private)
    if key in _failed:
        return None
    with _lock:
        runner = _runners.get(key)
        if runner is not None and not runner.gone:
            _runners.move_to_end(key)
            return runner
        if runner is not None:  # killed: its profile is worked out afresh (`_drop`)
            _drop(key)
            command, private = _profile(confinement)
            key = _key(command, private)
        try:
            runner = _start(command, private, confinement.network)
        except (OSError, SpawnerGone) as error:
            _failed.add(key)
            logger.warning(
                "no confined runner for a profile (%s): each of its calls starts bubblewrap", error
            )
            return None
        if runner is None:
            return None
        _runners[key] = runner
        _evict()
    return runner


def stop_runners(*confinements: Confinement) -> None:
    """End the runners of `confinements`' profiles, or every runner (and whatever call each
    still runs); new ones start on next use."""
    with _lock:
        keys = {_key(*_profile(confinement)) for confinement in confinements} if confinements else None
        for key in list(_runners):
            if keys is None or key in keys:
                _drop(key)


def _profile(confinement: Confinement) -> tuple[list[str], list[str]]:
    """`profile_argv(confinement)`, remembered for a profile whose processes write nothing
    (read-only, no writable folder: every probe); worked out each time for any other."""
    if not confinement.read_only or confinement.writable:
        return profile_argv(confinement)
    made_of = (confinement, os.environ.get(BWRAP_VARIABLE), secret_paths())
    profile = _commands.get(made_of)
    if profile is None:
        profile = _commands[made_of] = profile_argv(confinement)
    return profile


def _key(command: list[str], private: list[str]) -> tuple[str, ...]:
    return (*command, "\0", *private)


def _drop(key: tuple[str, ...]) -> None:
    runner = _runners.pop(key)
    runner.stop()
    for made_of, profile in list(_commands.items()):  # worked out afresh for the next runner
        if _key(*profile) == key:
            del _commands[made_of]


def _evict() -> None:
    """The least recently used runners beyond `MAX_RUNNERS`, among those with no call running."""
    for key in list(_runners):
        if len(_runners) <= MAX_RUNNERS:
            return
        runner = _runners[key]
        if runner.gone or not _busy(runner):
            _drop(key)


def _busy(runner: Spawner) -> bool:
    try:
        return runner.request(("busy",)) != ("ok", False)
    except SpawnerGone:
        return False


def _start(command: list[str], private: list[str], network: bool) -> Spawner | None:
    """A runner: bubblewrap started by the spawner, its resident reached by a socket on fd 0."""
    main = spawner()
    if main is None:
        return None
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    errors_read, errors_write = os.pipe2(os.O_CLOEXEC)
    argv = [*command, "--", sys.executable, "-I", "-S", str(_MAIN), "0", "1" if network else "0", *private]
    try:
        pending = main.post(("spawn", argv, {}, None, []), [theirs.fileno(), theirs.fileno(), errors_write])
    finally:
        theirs.close()
        os.close(errors_write)
    main.wait_sync(pending)
    bwrap = SpawnedProcess(main, pending, None, None, errors_read)
    if bwrap.start_failure is not None:
        bwrap.close_pipes()
        ours.close()
        if isinstance(bwrap.start_failure, SpawnerGone):
            raise bwrap.start_failure
        raise OSError(0, f"bubblewrap does not start: {bwrap.start_failure}")
    try:
        runner = Spawner(ours, bwrap)
    except (OSError, SpawnerGone) as error:
        assert bwrap.stderr is not None
        os.set_blocking(bwrap.stderr.fileno(), False)
        said = (bwrap.stderr.read(4096) or b"").decode(errors="replace").strip()
        bwrap.stderr.close()
        raise OSError(0, f"its resident does not start ({said or error})") from None
    assert bwrap.stderr is not None
    bwrap.stderr.close()  # what the resident writes later goes nowhere
    return runner


def _forget_in_child() -> None:
    """A forked copy of this process starts runners of its own (see `spawner._forget_in_child`)."""
    global _lock
    _lock = threading.Lock()
    for runner in _runners.values():
        runner.forget()
    _runners.clear()
    _commands.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)
