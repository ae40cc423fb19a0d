"""The one place that starts processes: discovery's `--help` probe and every tool call.

Rules kept here and nowhere else: argv lists only, never a shell; each child leads
its own process group; stdin is closed unless input is given; stdout and stderr are
read concurrently and what is kept in memory is capped; on timeout, cancellation or
shutdown the whole group gets SIGTERM, a short grace period, then SIGKILL. When the
main process exits, whatever it left running is killed: no process outlives its call,
nor the server. On Linux x86-64 every process is started by the spawner, a small
long-lived process that makes each main process a child subreaper and kills what it
left when it exits, and everything when the server dies (even by SIGKILL); elsewhere,
by Popen here, with the server as the subreaper that sweeps up what escaped. A tool's
resource limits (`Limits`) are set before exec, as rlimits that it and its children
inherit; its confinement (`Confinement`) runs it inside bubblewrap: started by the
long-lived runner of its confinement profile, in namespaces of its own made ahead.

One module a job: `spawn` starts a process, `spawner` asks the spawner for it
(`spawner_link` is the channel to it, pipelined, read by whichever event loop or thread
waits, `spawner_pending` what is awaited on it; `spawner_wire` frames what goes on it both
ways; `spawned` is what is held of each process, from before the spawner has answered its
start: a call reads its pipes meanwhile and takes the answer while it runs;
`spawner_main` is the spawner and its one loop, `spawner_reap` what it does to
processes besides starting them, `spawner_helper` the program each process starts as),
`confine` wraps it in bubblewrap, `runners` keeps one bubblewrap per confinement profile
(`runner_main` is its resident, `cell` makes each call's namespaces), `pipes` feeds and
reads it, `groups` stops its group
and sweeps up what escaped, `run` runs one to its end, `live` keeps a worker answering
line by line; `version` asks a program its version and `parse_check` an interpreter to
parse a script (`bash -n`, `node --check`), each a short run with no input.
"""

from toolkiln.process.confine import Confinement, confinement_problem, hide_from_every_process, secret_paths
from toolkiln.process.groups import RUN_MARKER, kill_all_groups
from toolkiln.process.live import LineTooLong, LiveProcess
from toolkiln.process.pipes import StderrLineHandler, decode
from toolkiln.process.run import ProcessResult, run_process
from toolkiln.process.spawn import rlimit_preexec

__all__ = [
    "RUN_MARKER",
    "Confinement",
    "LineTooLong",
    "LiveProcess",
    "ProcessResult",
    "StderrLineHandler",
    "confinement_problem",
    "decode",
    "hide_from_every_process",
    "kill_all_groups",
    "rlimit_preexec",
    "run_process",
    "secret_paths",
]
