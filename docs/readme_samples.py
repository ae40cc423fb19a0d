"""Write the README's sample outputs from real runs, so they never drift from what toolkiln prints.

A sample is a fenced block right after a marker line, `<!-- sample: NAME -->`. Each
NAME below is a short session run as real `toolkiln` processes in a fresh project in a
temporary folder; the block becomes its commands (`$ ...`) and what they printed
(stdout and stderr, as a terminal shows them, without colour), with the folder's path
shown as `~/project` and the interpreter's as `/path/to/python`.

.venv/bin/python docs/readme_samples.py          # rewrite the samples in README.md
.venv/bin/python docs/readme_samples.py --check  # exit 1 if one is stale (tests/test_docs.py)
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
_MARKER = re.compile(r"(<!-- sample: (?P<name>[a-z-]+) -->\n```[a-z]*\n)(?P<body>.*?)(^```$)", re.M | re.S)

WEATHER = """\
#!/bin/bash
# Tool: weather
# Description: Today's weather for a city, as the forecast service tells it, with the temperature in Celsius
# @param city: The city (type: string, required: true)
# @param days: How many days ahead (type: integer, default: 1, min: 1, max: 7)
echo "PROGRESS 1/2 asking the forecast service" >&2
echo "INFO $city: sunny" >&2
echo "PROGRESS 2/2 done" >&2
echo "Sunny in $city, 21 °C"
"""
FORECAST = """\
#!/bin/bash
# Tool: forecast
# Description: The week's forecast
# @param city: The city (type: string, required: true)
# @param days: How many days (type: integr)
echo "rain in $city"
"""
NOT_A_TOOL = "#!/bin/bash\necho a helper, not a tool\n"


def _write(project: Path, relative: str, text: str, mode: int = 0o755) -> None:
    path = project / "tools" / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)


def _weather(project: Path) -> None:
    _write(project, "weather.sh", WEATHER)


def _weather_built(project: Path) -> None:
    _weather(project)
    _run(project, "toolkiln discover")
    _run(project, "toolkiln build")


def _forecast_broken(project: Path) -> None:
    _weather_built(project)
    _write(project, "forecast.sh", FORECAST, 0o644)  # new, and not executable yet


# NAME: (what the project holds first, the commands shown)
SESSIONS: dict[str, tuple[Callable[[Path], None], list[str]]] = {
    "discover-build": (_weather, ["toolkiln discover", "toolkiln build"]),
    "list": (_weather_built, ["toolkiln list"]),
    "call": (
        _weather_built,
        [
            "toolkiln call weather city=Paris",
            "toolkiln call weather city=Paris days=9",
            "toolkiln call wether",
        ],
    ),
    "doctor": (_forecast_broken, ["toolkiln doctor", "toolkiln doctor --fix"]),
    "stdio-banner": (_weather_built, ["toolkiln serve"]),
    "http-banner": (_weather_built, ["toolkiln serve --http"]),
}
_HTTP_BANNER_END = "install CLIENT --http"  # the banner's last line
_SAMPLE_PORT = "8765"  # shown in place of the free port the sample ran on


def _run(project: Path, command: str) -> str:
    """What `command` prints, stdout and stderr interleaved (stdin closed: `serve` stops at once)."""
    argv = shlex.split(command)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLKILN_")}
    home = project.parent / "home"
    env.update(
        {"NO_COLOR": "1", "COLUMNS": "100", "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    )
    if argv[:3] == ["toolkiln", "serve", "--http"]:
        return _http_banner(project, argv[1:], env)
    if argv[:2] == ["toolkiln", "serve"]:  # the banner a person sees: on a terminal
        return _run_on_terminal(project, argv[1:], env)
    done = subprocess.run(
        [sys.executable, "-m", "toolkiln", *argv[1:]],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
    )
    return done.stdout


def _run_on_terminal(project: Path, args: list[str], env: dict[str, str], until: str | None = None) -> str:
    """What a terminal shows of `toolkiln ARGS` (stderr): all of it, or, for a server
    that goes on serving, up to the line holding `until`, then the server is stopped."""
    import pty

    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "toolkiln", *args],
        cwd=project,
        env={**env, "TERM": "xterm"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=terminal,
    )
    os.close(terminal)
    received = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:
            break
        if not chunk:
            break
        received += chunk
        if until is not None and until.encode() in received and received.endswith(b"\n"):
            process.terminate()
            until = None
    os.close(controller)
    process.wait(timeout=60)
    text = received.decode().replace("\r\n", "\n")
    # the server's own log lines (timestamped) are not the banner
    return "".join(line for line in text.splitlines(keepends=True) if not re.match(r"\d{4}-\d\d-\d\d ", line))


def _http_banner(project: Path, args: list[str], env: dict[str, str]) -> str:
    """The banner of `serve --http` on a free port, shown as 8765, cut after its first
    client snippet (the others are alike); the server is stopped once it has printed it."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = str(probe.getsockname()[1])
    text = _run_on_terminal(project, [*args, "--port", port], env, until=_HTTP_BANNER_END)
    lines = text.replace(f"127.0.0.1:{port}", f"127.0.0.1:{_SAMPLE_PORT}").splitlines(keepends=True)
    first_snippet = next(i for i, line in enumerate(lines) if line.startswith("VS Code"))
    return "".join(lines[: first_snippet + 1]) + "  ...\n"


def render_session(name: str) -> str:
    prepare, commands = SESSIONS[name]
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder).resolve() / "project"
        (project / "tools").mkdir(parents=True)
        prepare(project)
        shown = [f"$ {command}\n{_run(project, command)}" for command in commands]
        text = "".join(shown)
        text = text.replace(str(project.parent / "home"), "~")
        text = text.replace(str(project), "~/project").replace(sys.executable, "/path/to/python")
        text = text.replace(str(Path(sys.executable).parent), "/path/to/toolkiln/.venv/bin")
    text = re.sub(r"on Python \d+\.\d+\.\d+", "on Python 3.11.x", text)
    text = re.sub(r'"/path/to/toolkiln/.venv/bin/python",\n\s*"-m",\n\s*"toolkiln"', '"toolkiln"', text)
    return text


def render(readme: str) -> str:
    """`readme` with every marked sample written again from a real run."""
    return _MARKER.sub(lambda match: match.group(1) + render_session(match["name"]) + match.group(4), readme)


def main() -> None:
    text = render(README.read_text())
    if "--check" in sys.argv:
        if README.read_text() != text:
            sys.exit("README.md's samples are out of date: run `make docs`")
        return
    README.write_text(text)


if __name__ == "__main__":
    main()
