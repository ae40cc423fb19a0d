"""Throwaway tools folders for the benchmarks, compiled with the toolkiln command itself."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent
TOOLKILN = str(BIN / "toolkiln")

ROOT = Path(__file__).resolve().parent.parent
ECHO = (ROOT / "tools" / "echo.sh").read_text()  # the sample tool, kept minimal for this
HELP_JSON = """#!/bin/bash
if [ "$1" = "--help" ]; then
  echo '{"description": "Help-json tool number NUMBER"}'
  echo '{"text": {"description": "Some text", "required": true, "value_type": "string"},
  "count": {"description": "Times", "required": false, "value_type": "integer", "default_value": 1}}' >&2
  exit 0
fi
echo "$text"
"""
ANNOTATED = """#!/bin/bash
# Tool: annotated-NUMBER
# Description: Annotated tool number NUMBER
# @param text: Some text (type: string, required: true)
# @param mode: How to say it (type: string, enum: plain|loud, default: plain)
echo "$text"
"""
# Prints its parent's pid: the server's, whose memory the flood benchmark reads.
SERVER_PID = """#!/bin/bash
if [ "$1" = "--help" ]; then echo '{"description": "The pid of the server"}'; echo '{}' >&2; exit 0; fi
echo "$PPID"
"""
FLOOD = """#!/bin/bash
if [ "$1" = "--help" ]; then echo '{"description": "Write 1 GB to stdout"}'; echo '{}' >&2; exit 0; fi
yes xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx | head -c 1000000000
"""


# The echo of the python dialect, and the same code as a help-json script run per call.
PY_WARM = '''"""Print a message back.

@param message: What to print (type: string, required: true)
"""


def execute(params):
    return params["message"]
'''
PY_FRESH = f"""#!{sys.executable}
import json, os, sys


def execute(params):
    return params["message"]


if sys.argv[1:] == ["--help"]:
    print(json.dumps({{"description": "Print a message back"}}))
    option = {{"description": "What to print", "required": True, "value_type": "string"}}
    print(json.dumps({{"message": option}}), file=sys.stderr)
else:
    print(execute({{"message": os.environ["message"]}}))
"""


def measured_env(**extra: str) -> dict[str, str]:
    """The environment of every measured process: users' machines write .pyc files, so
    PYTHONDONTWRITEBYTECODE (set on the benchmark machine) is left out."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    return {**env, **extra}


def toolkiln(*args: str | Path) -> str:
    """Run one toolkiln command as a whole process; its stdout."""
    done = subprocess.run([TOOLKILN, *map(str, args)], capture_output=True, text=True, env=measured_env())
    if done.returncode != 0:
        raise RuntimeError(f"toolkiln {' '.join(map(str, args))} failed:\n{done.stderr}")
    return done.stdout


def write_script(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def write_generated(tools: Path, annotated: int, help_json: int) -> None:
    """`annotated` run.sh folders and `help_json` self-describing scripts."""
    for number in range(annotated):
        write_script(tools / f"annotated-{number:04d}" / "run.sh", ANNOTATED.replace("NUMBER", str(number)))
    for number in range(help_json):
        write_script(tools / "help-json" / f"tool-{number:04d}.sh", HELP_JSON.replace("NUMBER", str(number)))


def served_project(root: Path, tool_count: int) -> Path:
    """A compiled config of `tool_count` tools: echo, server-pid, flood and annotated fillers."""
    tools, config = root / "tools", root / "config"
    write_script(tools / "echo.sh", ECHO)
    write_script(tools / "server-pid.sh", SERVER_PID)
    write_script(tools / "flood.sh", FLOOD)
    write_generated(tools, annotated=tool_count - 3, help_json=0)
    toolkiln("discover", "--tools-dir", tools, "--config-dir", config)
    toolkiln("build", "--tools-dir", tools, "--config-dir", config)
    return config


def python_project(root: Path) -> Path:
    """echo.sh, the python-dialect echo (py-warm) and the same code as a fresh process (py-fresh)."""
    tools, config = root / "tools", root / "config"
    write_script(tools / "echo.sh", ECHO)
    write_script(tools / "py-warm.py", PY_WARM)
    write_script(tools / "py-fresh.py", PY_FRESH)
    toolkiln("discover", "--tools-dir", tools, "--config-dir", config)
    toolkiln("build", "--tools-dir", tools, "--config-dir", config)
    return config
