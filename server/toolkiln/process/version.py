"""Asking an installed program its version (`node --version`): a short run, argv only,
no input, a timeout; cached per program file, so each is asked once (until it changes)."""

from __future__ import annotations

import functools
import logging
import os
import re
import subprocess

logger = logging.getLogger(__name__)

VERSION_TIMEOUT_SECONDS = 5.0
_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?")


def program_version(program: str) -> tuple[int, int, int] | None:
    """The version `program --version` prints (`v22.6.0` -> (22, 6, 0)); None when it
    cannot be run or prints none. `program` is a path, as `shutil.which` gives it."""
    try:
        stat = os.stat(program)
    except OSError:
        return None
    return _asked_version(program, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _asked_version(program: str, mtime_ns: int, size: int) -> tuple[int, int, int] | None:
    try:
        done = subprocess.run(
            [program, "--version"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=VERSION_TIMEOUT_SECONDS,
            check=False,
            start_new_session=True,
        )
    except (OSError, subprocess.SubprocessError) as error:
        logger.debug("%s --version: %s", program, error)
        return None
    match = _VERSION.search(done.stdout.decode("utf-8", errors="replace"))
    if done.returncode != 0 or match is None:
        return None
    major, minor, patch = match.groups()
    return int(major), int(minor), int(patch or 0)
