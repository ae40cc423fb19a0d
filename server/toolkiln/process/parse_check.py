"""Asking an interpreter to parse a script without running it (`bash -n`, `node --check`):
a short run, argv only, no input, a timeout, output capped, and an environment of PATH
alone, so that nothing a variable names (BASH_ENV, NODE_OPTIONS) is loaded or run."""

from __future__ import annotations

import logging
import os
import subprocess

logger = logging.getLogger(__name__)

PARSE_TIMEOUT_SECONDS = 10.0
OUTPUT_LIMIT = 16 * 1024


def parse_errors(argv: list[str]) -> str | None:
    """What the parser printed when it found the script wrong (exit status not 0); None
    when it parsed, or could not be run or finished (nothing is known then)."""
    env = {"PATH": os.environ.get("PATH", os.defpath), "LC_ALL": "C.UTF-8"}
    try:
        done = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=PARSE_TIMEOUT_SECONDS,
            check=False,
            start_new_session=True,
            env=env,
        )
    except (OSError, subprocess.SubprocessError) as error:
        logger.debug("%s: %s", argv, error)
        return None
    logger.debug("%s: exit status %s", argv, done.returncode)
    if done.returncode == 0:
        return None
    output = (done.stderr or done.stdout)[:OUTPUT_LIMIT]
    return output.decode("utf-8", errors="replace")
