"""The modules beside a script that it imports by name (`import users` for `users.py` in
the same folder), read with `ast` (never imported), for a command line assembled across
files (typer's `app.add_typer(users.app, name="users")`).

Only a plain `.py` file beside the script, inside the tools folder (no link out of it),
of at most `MAX_BYTES`, is read; anything else reads as no module, and the caller says
that the commands it would hold are left out.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

MAX_BYTES = 1024 * 1024
MAX_MODULES = 16  # a command line assembled from more files is not read further


@dataclass
class Siblings:
    """Loads the modules beside `script` (`relative`: its path in the tools folder)."""

    script: Path
    relative: str
    read: dict[str, str] = field(default_factory=dict)  # module name -> its relative path

    def module(self, name: str) -> tuple[ast.Module, str] | None:
        """The module `name` beside the script and its path in the tools folder, or None."""
        if not name.isidentifier() or len(self.read) >= MAX_MODULES:
            return None
        path = self.script.parent / f"{name}.py"
        root = self.script.parents[len(Path(self.relative).parts) - 1]
        try:
            resolved = path.resolve(strict=True)
            if path.is_symlink() or not resolved.is_relative_to(root.resolve()) or not resolved.is_file():
                return None
            if resolved.stat().st_size > MAX_BYTES:
                return None
            module = ast.parse(resolved.read_text(encoding="utf-8", errors="replace"), filename=name)
        except (OSError, SyntaxError, ValueError, RecursionError):
            return None
        relative = str(Path(self.relative).parent / f"{name}.py")
        self.read[name] = relative
        return module, relative
