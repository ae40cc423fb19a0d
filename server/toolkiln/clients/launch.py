"""How to start this toolkiln, and where `serve --http` keeps its token and discovery file.

Clients that spawn a server need the absolute path of the executable; clients that
connect over HTTP need the URL and the bearer token. Both are read here the way
`toolkiln serve` writes them, without importing the server (and so the mcp SDK).
"""

from __future__ import annotations

import json
import logging
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from toolkiln.clients.ephemeral import ephemeral_runner, package_spec
from toolkiln.http_token import TOKEN_FILE, read_or_create_token
from toolkiln.liveness import still_running
from toolkiln.state_dir import SERVER_FILE, default_state_dir

logger = logging.getLogger(__name__)

DEFAULT_URL = "http://127.0.0.1:8765/mcp"


Launcher = Literal["auto", "path", "uvx", "pipx"]
LAUNCHERS: tuple[Launcher, ...] = ("auto", "path", "uvx", "pipx")


def launcher() -> list[str]:
    """The command that starts this toolkiln (the venv's script, else `python -m toolkiln`)."""
    script = Path(sys.executable).with_name("toolkiln")
    return [str(script)] if script.exists() else [sys.executable, "-m", "toolkiln"]


@dataclass(frozen=True)
class Launch:
    """How a client should start toolkiln, and why."""

    command: list[str]
    how: Literal["path", "uvx", "pipx"]
    detected: bool = False  # `auto` chose uvx/pipx: this toolkiln runs from their cache


def choose_launcher(choice: Launcher = "auto", *, bare: bool = False) -> Launch:
    """The command a client runs to start toolkiln.

    `path`: this toolkiln's own executable. `uvx`/`pipx`: `uvx toolkiln` or `pipx run
    toolkiln` (with `--from`/`--spec` when it was installed from a folder, file or VCS
    URL). `auto`: uvx or pipx when this toolkiln runs from their throwaway environment
    (its path would vanish), else the path. The uvx/pipx program is named by its absolute
    path when the PATH finds it (apps started from a desktop often have a short PATH);
    `bare` names it as typed, for a command shown to the user.
    """
    detected = ephemeral_runner() if choice == "auto" else None
    how = detected or ("path" if choice == "auto" else choice)
    if how == "path":
        return Launch(launcher(), "path")
    spec = package_spec()
    program = how if bare else shutil.which(how) or how
    if how == "uvx":
        command = [program, *(["--from", spec] if spec else []), "toolkiln"]
    else:
        command = [program, "run", *(["--spec", spec] if spec else []), "toolkiln"]
    return Launch(command, how, detected=detected is not None)


def shell_launcher() -> str:
    """What to type to run this toolkiln: `toolkiln` when the PATH finds this one, `uvx
    toolkiln` (`pipx run toolkiln`) when it runs from their throwaway environment."""
    chosen = choose_launcher(bare=True)
    if chosen.how != "path":
        return shlex.join(chosen.command)
    command = chosen.command
    on_path = shutil.which("toolkiln")
    if len(command) == 1 and on_path and Path(on_path).resolve() == Path(command[0]).resolve():
        return "toolkiln"
    return shlex.join(command)


def serve_command(tools_dir: Path, config_dir: Path, start: list[str] | None = None) -> list[str]:
    """The full stdio server command for a client to spawn, with absolute folders."""
    return [
        *(start or launcher()),
        "serve",
        "--tools-dir",
        str(tools_dir.resolve()),
        "--config-dir",
        str(config_dir.resolve()),
    ]


def serve_folder_command(folder: Path, start: list[str] | None = None) -> list[str]:
    """`toolkiln serve DIR`: the one-command form (discover, build, serve) for `folder`."""
    return [*(start or launcher()), "serve", str(folder.resolve())]


@dataclass(frozen=True)
class HttpTarget:
    """Where a client reaches the HTTP server, and the token it sends (None: no auth)."""

    url: str
    token: str | None
    token_file: Path | None
    created_token: bool = False


def locate_http_server(url: str | None = None, token_file: Path | None = None) -> HttpTarget:
    """The URL and token a client should use.

    The URL: `url`, else that of the server running now (its discovery file), else the
    default. The token: from `token_file`, else the running server's token file, else the
    default one; a token file that does not exist yet is created as `serve --http` would
    create it (a random token, mode 0600), so that the server started later uses it.
    """
    running = _running_server(default_state_dir() / SERVER_FILE)
    if token_file is None and running is not None:
        if running.get("token_file") is None:  # it runs with --no-auth
            return HttpTarget(url=url or str(running["url"]), token=None, token_file=None)
        token_file = Path(str(running["token_file"]))
    token_file = token_file or default_state_dir() / TOKEN_FILE
    token, created = read_or_create_token(token_file)
    found_url = str(running["url"]) if running and running.get("url") else DEFAULT_URL
    return HttpTarget(url=url or found_url, token=token, token_file=token_file, created_token=created)


def _running_server(path: Path) -> dict[str, object] | None:
    """The discovery file of a server that is running now, or None."""
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(entry, dict) or not still_running(entry):
        return None  # a stale file from a server that was killed
    return entry
