"""Faulty tools, each one way a script can misbehave, and what a client must get back.

Every script is a real file run for real. Runtime faults are in the annotations dialect
(their header is read as text: discovery never runs them); `HELP_FAULTS` misbehave when
discovery runs their `--help`. `PY_FAULTS` are Python `execute()` modules on warm workers.
"""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

SHORT_TIMEOUT = 1  # seconds, for the tools that never end by themselves
MAX_OUTPUT = 262144  # the server's default cap on the stdout kept
TIMED_OUT = f"timed out after {SHORT_TIMEOUT} s"
# Over a few seconds each: run by `make test-faults`, not by every `make test`.
SLOW_FAULTS = {"stdout_1gb", "stderr_1gb", "py_prints_1gb"}


@dataclass(frozen=True)
class Fault:
    body: str
    expect_error: bool
    says: tuple[str, ...]  # what the result's text must contain
    timeout: int | None = None
    check: Callable[[str], None] | None = None


def _header(name: str, shebang: str = "#!/bin/bash") -> str:
    return f"{shebang}\n# Tool: {name}\n# Description: the fault {name}\n"


# The interpreter running the tests, without site (a pyenv shim in #! costs ~100 ms a start).
PY = f"#!{sys.executable} -S"

ECHO = """\
#!/bin/bash
# Tool: echo
# Description: Print a message back
# @param message: What to print (type: string, required: true)
printf '%s\\n' "$message"
"""

DETACH = """
import os, sys, time
def detach(close_fds):
    # The classic double fork: the daemon leaves the session and its parent exits.
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            if close_fds:
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
                os.closerange(3, 1024)
            time.sleep(300)
        os._exit(0)
    os.wait()
"""

FAULTS: dict[str, Fault] = {
    "segv": Fault(
        _header("segv", PY) + "import ctypes\nprint('about to crash', flush=True)\nctypes.string_at(0)\n",
        True,
        ("killed by SIGSEGV", "about to crash"),
    ),
    "sigkill_self": Fault(
        _header("sigkill_self") + "echo partial\nkill -KILL $$\n", True, ("killed by SIGKILL", "partial")
    ),
    "exit_mid_write": Fault(
        _header("exit_mid_write", PY)
        + "import os, sys\nsys.stdout.write('{\"rows\": [' + '1, ' * 30000)\n"
        + "sys.stdout.flush()\nos._exit(1)\n",
        True,
        ("exit code 1", '{"rows": [1, 1,'),
    ),
    "hang": Fault(_header("hang") + "sleep 300\n", True, (TIMED_OUT,), SHORT_TIMEOUT),
    "ignores_sigterm": Fault(
        _header("ignores_sigterm") + "trap '' TERM\nwhile true; do sleep 0.1; done\n",
        True,
        (TIMED_OUT,),
        SHORT_TIMEOUT,
    ),
    "grandchild_holds_stdout": Fault(
        _header("grandchild_holds_stdout") + "(sleep 300; echo never) &\nbash -c 'sleep 300' &\necho done\n",
        False,
        ("done",),
    ),
    "double_fork_daemon": Fault(
        _header("double_fork_daemon", PY) + DETACH + "detach(close_fds=False)\nprint('detached')\n",
        False,
        ("detached",),
    ),
    "true_daemon": Fault(
        _header("true_daemon", PY) + DETACH + "detach(close_fds=True)\nprint('detached')\n",
        False,
        ("detached",),
    ),
    "daemon_then_hang": Fault(
        _header("daemon_then_hang", PY) + DETACH + "detach(close_fds=True)\ntime.sleep(300)\n",
        True,
        (TIMED_OUT,),
        SHORT_TIMEOUT,
    ),
    "changes_process_group": Fault(
        _header("changes_process_group", PY)
        + "import os, time\n"
        + "if os.fork() == 0:\n    os.setpgid(0, 0)\n    time.sleep(300)\n    os._exit(0)\n"
        + "time.sleep(0.2)\nprint('left a child in a group of its own')\n",
        False,
        ("left a child",),
    ),
    "changes_group_then_hangs": Fault(
        _header("changes_group_then_hangs", PY)
        + "import os, time\n"
        + "if os.fork() == 0:\n    os.setpgid(0, 0)\n    time.sleep(300)\n    os._exit(0)\n"
        + "time.sleep(300)\n",
        True,
        (TIMED_OUT,),
        SHORT_TIMEOUT,
    ),
    "stdout_1gb": Fault(
        _header("stdout_1gb") + "head -c 1000000000 /dev/zero | tr '\\0' 'x'\n",
        False,
        (f"[output truncated: showing the first {MAX_OUTPUT} of 1000000000 bytes]",),
    ),
    "stderr_1gb": Fault(
        _header("stderr_1gb") + "head -c 1000000000 /dev/zero | tr '\\0' 'e' >&2\necho survived\n",
        False,
        ("survived",),
    ),
    "invalid_utf8": Fault(
        _header("invalid_utf8")
        + "printf 'a\\xff\\xfeb\\x00c\\xc3\\n'\nprintf 'e\\xff\\x00\\n' >&2\nexit 5\n",
        True,
        ("exit code 5", "a\ufffd\ufffdb\x00c\ufffd", "e\ufffd\x00"),
    ),
    "stdout_line_100mb": Fault(
        _header("stdout_line_100mb") + "head -c 100000000 /dev/zero | tr '\\0' 'y'\n",
        False,
        (f"[output truncated: showing the first {MAX_OUTPUT} of 100000000 bytes]",),
    ),
    "stderr_line_100mb": Fault(
        _header("stderr_line_100mb") + "head -c 100000000 /dev/zero | tr '\\0' 'z' >&2\nexit 3\n",
        True,
        ("exit code 3",),
        check=lambda text: _assert_short(text, 200_000),
    ),
    "closes_stdout": Fault(
        _header("closes_stdout") + "exec 1>&-\nsleep 0.1\necho 'still writing to stderr' >&2\n", False, ()
    ),
    "closes_all_output_then_hangs": Fault(
        _header("closes_all_output_then_hangs") + "exec 1>&- 2>&-\nsleep 300\n",
        True,
        (TIMED_OUT,),
        SHORT_TIMEOUT,
    ),
    "reads_stdin_forever": Fault(
        _header("reads_stdin_forever", PY)
        + "import sys, time\nwhile True:\n    if not sys.stdin.buffer.read(1):\n        time.sleep(0.05)\n",
        True,
        (TIMED_OUT,),
        SHORT_TIMEOUT,
    ),
    "shebang_nowhere": Fault(
        "#!/nonexistent/interpreter\n# Tool: shebang_nowhere\n# Description: no interpreter\n",
        True,
        ("could not start", "No such file or directory"),
    ),
    "deleted_after_build": Fault(
        _header("deleted_after_build") + "echo hi\n", True, ("could not start", "The script is gone")
    ),
    "not_executable_after_build": Fault(
        _header("not_executable_after_build") + "echo hi\n", True, ("could not start", "chmod +x")
    ),
}


def _assert_short(text: str, limit: int) -> None:
    assert len(text) < limit, f"a result of {len(text)} characters"


# Python `execute()` tools on warm workers: crash, hang and huge output, at import or per call.
PY_FAULTS: dict[str, Fault] = {
    "py_segv": Fault(
        '"""Crash."""\nimport ctypes\n\ndef execute(params):\n    ctypes.string_at(0)\n',
        True,
        ("crashed", "SIGSEGV"),
    ),
    "py_exit": Fault(
        '"""Exit."""\nimport os\n\ndef execute(params):\n    os._exit(7)\n', True, ("crashed", "7")
    ),
    "py_hang": Fault(
        '"""Hang."""\nimport time\n\ndef execute(params):\n    time.sleep(300)\n',
        True,
        (TIMED_OUT,),
        SHORT_TIMEOUT,
    ),
    "py_huge_return": Fault(
        '"""Return 100 MB."""\n\ndef execute(params):\n    return "x" * 100_000_000\n', True, ("crashed",)
    ),
    "py_prints_1gb": Fault(
        '"""Print 1 GB."""\nimport sys\n\ndef execute(params):\n'
        "    chunk = 'p' * 1_000_000\n    for _ in range(1000):\n        print(chunk)\n"
        "    return 'printed'\n",
        False,
        ("printed",),
    ),
    "py_crash_at_import": Fault(
        '"""Crash at import."""\nimport os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n\n'
        "def execute(params):\n    return 1\n",
        True,
        ("crashed", "SIGKILL"),
    ),
    "py_hang_at_import": Fault(
        '"""Hang at import."""\nimport time\ntime.sleep(300)\n\ndef execute(params):\n    return 1\n',
        True,
        (TIMED_OUT,),
        SHORT_TIMEOUT,
    ),
}


# `--help` probes that misbehave at discovery. Each is an executable that the help-json
# dialect runs; none may break discovery of the others or leave a process behind.
HELP_FAULTS: dict[str, str] = {
    "help_segv": PY + "\nimport ctypes\nctypes.string_at(0)\n",
    "help_sigkill": "#!/bin/bash\nkill -KILL $$\n",
    "help_exit_mid_write": PY
    + '\nimport os, sys\nsys.stdout.write(\'{"description": "cut\')\nsys.stdout.flush()\nos._exit(0)\n',
    "help_hang": "#!/bin/bash\nsleep 300\n",
    "help_ignores_sigterm": "#!/bin/bash\ntrap '' TERM\nwhile true; do sleep 0.1; done\n",
    "help_grandchild": "#!/bin/bash\n(sleep 300) &\n"
    "echo '{\"description\": \"left a child\"}'\necho '{}' >&2\n",
    "help_daemon": PY
    + DETACH
    + "detach(close_fds=True)\nprint('{\"description\": \"left a daemon\"}')\nprint('{}', file=sys.stderr)\n",
    "help_changes_group": PY
    + "\nimport os, time\nif os.fork() == 0:\n    os.setpgid(0, 0)\n    time.sleep(300)\n    os._exit(0)\n"
    + 'print(\'{"description": "left a group"}\')\n',
    "help_stdout_1gb": "#!/bin/bash\nhead -c 1000000000 /dev/zero | tr '\\0' 'x'\n",
    "help_json_flood": '#!/bin/bash\nprintf \'{"description": "\'\n'
    "head -c 1000000000 /dev/zero | tr '\\0' 'x'\n",
    "help_stderr_1gb": "#!/bin/bash\nhead -c 1000000000 /dev/zero | tr '\\0' 'e' >&2\n",
    "help_invalid_utf8": "#!/bin/bash\nprintf '{\"description\": \"a\\xff\\x00\"}'\nprintf '{\\xff}' >&2\n",
    "help_line_100mb": "#!/bin/bash\nhead -c 100000000 /dev/zero | tr '\\0' 'y'\n",
    "help_closes_stdout": "#!/bin/bash\nexec 1>&-\necho '{}' >&2\n",
    "help_reads_stdin": PY + "\nimport sys\nwhile True:\n    sys.stdin.read()\n",
    "help_shebang_nowhere": "#!/nonexistent/interpreter\n",
}


def write_script(path: Path, body: str, *, executable: bool = True) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(body))
    path.chmod(0o755 if executable else 0o644)
    return path


def build_fault_tools(
    tools_dir: Path, config_dir: Path, faults: dict[str, Fault], *, python: bool = False
) -> None:
    """Write `faults` (and `echo`) into `tools_dir`, discover and build them, then break
    the scripts that break after the build."""
    write_script(tools_dir / "echo.sh", ECHO)
    for name, fault in faults.items():
        if python:
            write_script(tools_dir / f"{name}.py", fault.body + "\n\nINPUTS = {}\n", executable=False)
        else:
            write_script(tools_dir / name, fault.body)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, report.errors
    for name, fault in faults.items():
        if fault.timeout is not None:
            config_file = config_dir / "tools" / f"{name}.json"
            config = json.loads(config_file.read_text())
            config["script_config"]["timeout_seconds"] = fault.timeout
            config_file.write_text(json.dumps(config))
    build_catalog(config_dir, tools_dir)
    if "deleted_after_build" in faults:
        (tools_dir / "deleted_after_build").unlink()
    if "not_executable_after_build" in faults:
        (tools_dir / "not_executable_after_build").chmod(0o644)
