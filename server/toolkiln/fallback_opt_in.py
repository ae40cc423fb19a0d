"""`--fallback` (of `serve` and `discover`): serve the scripts whose arguments cannot be
read as they are, each taking the client's `args` as its command line (docs/dialects.md),
one flag away instead of a JSON edit.

It opts in exactly the files discovery found unreadable for a reason the fallback
answers (`FALLBACK_KINDS`: plain-text `--help`, `sys.argv` or shell arguments read in a
way toolkiln cannot follow), by adding each one's path to `discovery.fallback` in the
config folder's server.json, where the user sees and can remove it; every other key of
the file is kept. Scripts a reader declares stay with their reader. The config folder is
toolkiln's: a served plain folder's is toolkiln's own folder for it, never the folder of
scripts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from toolkiln.errors import ConfigError
from toolkiln.fallback_globs import SERVER_FILE, check_fallback_pattern, is_opted_in, read_fallback_patterns

# The not-a-tool kinds (discover/reasons.py) whose hint is the fallback.
FALLBACK_KINDS = ("plain-help", "argv-by-hand", "shell-unread")


def opt_in_files(config_dir: Path, paths: Iterable[str]) -> list[str]:
    """Add `paths` (relative to the tools folder) to `discovery.fallback`; the ones added.
    `ConfigError` when server.json is malformed (it is then left as it is)."""
    patterns = read_fallback_patterns(config_dir)  # a malformed key is an error, never overwritten
    added: list[str] = []
    for path in dict.fromkeys(paths):
        try:
            check_fallback_pattern(path)
        except ValueError:
            continue
        if not is_opted_in(path, patterns) and "*" not in path and "?" not in path and "[" not in path:
            added.append(path)
    if not added:
        return []
    from toolkiln.files import write_json_atomic

    file = config_dir / SERVER_FILE
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        data = {}
    if not isinstance(data, dict) or not isinstance(data.setdefault("discovery", {}), dict):
        raise ConfigError(f"{file}: must hold a JSON object whose discovery is an object")
    data["discovery"]["fallback"] = [*patterns, *added]
    config_dir.mkdir(parents=True, exist_ok=True)
    write_json_atomic(file, data)
    return added
