"""Whether this toolkiln runs from a throwaway environment (`uvx`, `pipx run`), and where
it was installed from, so that a client's entry can start it the same way again.

`uvx toolkiln` runs from an environment in uv's cache (`.../uv/archive-v0/<id>`), and
`pipx run toolkiln` from one in pipx's cache (`.../pipx/.cache/<hash>`, or
`~/.cache/pipx/<hash>`; a venv of pipx's own that is not under `venvs/`). Both are
removed by a cache clean (pipx: after 14 days unused), so a client entry that names the
path of their `toolkiln` would stop working one day without a word. Installed tools
(`uv tool install`, `pipx install`, a virtual environment) live elsewhere and stay.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlsplit

Runner = Literal["uvx", "pipx"]

# uv's cache buckets that hold the environments of `uvx` / `uv tool run` (and `uv run --with`).
_UV_CACHE_BUCKET = re.compile(r"(archive|environments)-v\d+")


def ephemeral_runner(prefix: Path | None = None) -> Runner | None:
    """ "uvx" or "pipx" when the environment at `prefix` (this one's by default) is theirs."""
    prefix = Path(sys.prefix) if prefix is None else prefix
    if _UV_CACHE_BUCKET.fullmatch(prefix.parent.name) and (prefix / "pyvenv.cfg").is_file():
        return "uvx"
    if (prefix / "pipx_metadata.json").is_file() and prefix.parent.name != "venvs":
        return "pipx"
    return None


def package_spec() -> str | None:
    """Where this toolkiln came from when not from the package index: a folder or file, or a
    VCS URL (its PEP 610 `direct_url.json`), in the form `uvx --from`/`pipx run --spec` take."""
    from importlib import metadata  # 30 ms with email's parser: only when a client is configured

    try:
        text = metadata.distribution("toolkiln").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return None
    if not text:
        return None
    try:
        origin = json.loads(text)
        url = str(origin["url"])
    except (ValueError, KeyError, TypeError):
        return None
    vcs = origin.get("vcs_info")
    if isinstance(vcs, dict) and vcs.get("vcs"):
        revision = vcs.get("requested_revision")
        return f"{vcs['vcs']}+{url}" + (f"@{revision}" if revision else "")
    parts = urlsplit(url)
    return unquote(parts.path) if parts.scheme == "file" else url
