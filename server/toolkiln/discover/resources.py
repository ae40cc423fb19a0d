"""Resources: the files under `resources/`, served as they are.

A file whose path holds `{placeholders}` (`users/{id}.json`) is a resource template:
reading `.../users/42.json` renders the file with `id` set to `42` (jinja2 sandbox).
The MIME type comes from the file's name; a file that is not UTF-8 text is binary.
"""

from __future__ import annotations

import mimetypes
from pathlib import Path

TEXT_DEFAULT = "text/plain"
BINARY_DEFAULT = "application/octet-stream"
_SAMPLE = 64 * 1024


def detect_content(path: Path) -> tuple[str, bool]:
    """(MIME type, binary?) of a file."""
    with path.open("rb") as handle:
        sample = handle.read(_SAMPLE)
    binary = b"\0" in sample
    if not binary:
        try:
            sample.decode("utf-8")
        except UnicodeDecodeError as error:
            # A character cut at the end of a full sample is not a sign of binary data.
            binary = len(sample) < _SAMPLE or error.start < len(sample) - 4
    guessed, _ = mimetypes.guess_type(path.name)
    return guessed or (BINARY_DEFAULT if binary else TEXT_DEFAULT), binary
