"""A new user's walk, from the wheel, in a fresh virtual environment with HOME in a
temporary folder: every command README.md prints for the package path and for the
folder path is run as printed (through bash, so `~` and quotes are the shell's), and
every hint a command prints (`Try it:`, a failure's fix) is run as printed too.

Only what cannot run here is replaced, and said: `pipx install toolkiln` is the wheel
already installed, `uvx toolkiln` is that installed `toolkiln` (uvx would fetch from
PyPI), and `toolkiln serve ...` is started by the SDK's client, as MCP clients start it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from tests.package.conftest import REPO, Install

pytestmark = pytest.mark.timeout(600)
README = (REPO / "README.md").read_text()
# A command a hint prints on a line of its own, or after `fix:`/`run:`, in backquotes or not.
HINT = re.compile(
    r"(?:^\s*|`|: )([^\s`]*toolkiln (?:call|build|discover|doctor|where|enable|list) [^`\n;&()]*)",
    re.MULTILINE,
)


def block_after(marker: str, language: str = "sh") -> str:
    """The first fenced block of `language` after `marker` in README.md."""
    start = README.index(marker)
    match = re.compile(rf"```{language}\n(.*?)```", re.DOTALL).search(README, start)
    assert match, f"no ```{language} block after {marker!r}"
    return match.group(1)


def commands(block: str) -> list[str]:
    """The block's command lines, without their trailing `# comments`."""
    lines = [re.sub(r"\s+#\s.*$", "", line).strip() for line in block.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


class Walker:
    def __init__(self, install: Install, home: Path) -> None:
        self.install, self.home, self.cwd = install, home, home
        env = install.env()
        env.pop("XDG_CONFIG_HOME", None)  # the README's paths: ~/.config/toolkiln
        self.env = {**env, "HOME": str(home)}

    def run(self, line: str, *, ok: bool = True) -> subprocess.CompletedProcess[str]:
        line = re.sub(r"^uvx toolkiln\b", "toolkiln", line)
        result = subprocess.run(
            ["bash", "-c", line], cwd=self.cwd, env=self.env, capture_output=True, text=True, timeout=120
        )
        if ok:
            assert result.returncode == 0, f"$ {line}\n{result.stdout}\n{result.stderr}"
        return result

    def walk(self, line: str) -> subprocess.CompletedProcess[str] | None:
        words = shlex.split(line)
        if words[0] == "pipx" and words[1] == "install":
            return None  # the wheel is installed
        if words[0] == "cd":
            self.cwd = self.cwd / words[1]
            return None
        if re.sub(r"^uvx ", "", line).startswith("toolkiln serve"):
            expanded = [os.path.expanduser(word).replace("~", str(self.home)) for word in words]
            served = anyio_run(self.serve, expanded[expanded.index("serve") + 1 :])
            assert served, f"$ {line}: no tools"
            return None
        return self.run(line)

    async def serve(self, arguments: list[str]) -> list[str]:
        arguments = [word.replace(str(Path.home()), str(self.home)) for word in arguments]
        params = StdioServerParameters(
            command=str(self.install.bin / "toolkiln"),
            args=["serve", *(str(self.home / w[2:]) if w.startswith("~/") else w for w in arguments)],
            env=self.env,
            cwd=str(self.cwd),
        )
        async with Client(params) as client:
            return [tool.name for tool in (await client.list_tools()).tools]

    def follow_hints(self, output: str) -> list[str]:
        """Run every command `output` prints as a hint; the commands run."""
        ran, here = [], self.cwd
        cd = re.search(r"^\s+cd (\S+)$", output, re.MULTILINE)  # `init`'s next steps begin so
        self.cwd = self.cwd / shlex.split(cd.group(1))[0] if cd else self.cwd
        try:
            for match in HINT.finditer(output):
                hint = re.sub(r"\s+#\s.*$", "", match.group(1)).strip()
                if "NAME" in hint or "KEY=VALUE" in hint:
                    continue  # a pattern, not a command
                self.run(hint)
                ran.append(hint)
        finally:
            self.cwd = here
        return ran


def anyio_run(function, *args):  # type: ignore[no-untyped-def]
    import anyio

    return anyio.run(function, *args)


def test_the_package_path(install: Install, tmp_path: Path) -> None:
    walker = Walker(install, tmp_path / "home-package")
    walker.home.mkdir()
    followed = []
    for line in commands(block_after("### As a package")):
        result = walker.walk(line)
        if result is not None:
            followed += walker.follow_hints(result.stdout + result.stderr)
    assert any(" call weather " in hint for hint in followed), followed  # `new` built: its call works
    claude = walker.home / ".config" / "Claude" / "claude_desktop_config.json"
    assert "toolkiln" in json.loads(claude.read_text())["mcpServers"]


def test_the_folder_path(install: Install, tmp_path: Path) -> None:
    walker = Walker(install, tmp_path / "home-folder")
    scripts = walker.home / "scripts"
    scripts.mkdir(parents=True)
    (scripts / "slug.sh").write_text(block_after("With\n`~/scripts/slug.sh`", "bash"))
    (scripts / "slug.sh").chmod(0o755)
    for line in commands(block_after("With\n`~/scripts/slug.sh`")):
        result = walker.walk(line)
        if result is not None:
            walker.follow_hints(result.stdout + result.stderr)
        if line.startswith("toolkiln call slug"):
            assert result is not None and result.stdout.strip() == "hello-world"
    # The client entry `install` wrote starts a server that serves the folder.
    claude = walker.home / ".config" / "Claude" / "claude_desktop_config.json"
    entry = json.loads(claude.read_text())["mcpServers"]["toolkiln"]
    assert entry["args"] == ["serve", str(scripts)]

    # A failure's hints, followed as printed: the disabled tool (the README disabled it) ...
    refused = walker.run("toolkiln call slug ~/scripts text=x", ok=False)
    assert refused.returncode == 1
    assert walker.follow_hints(refused.stderr) == [f"toolkiln enable slug {scripts}"]
    assert walker.run("toolkiln call slug ~/scripts text=x").stdout.strip() == "x"
    # ... a call without DIR inside the folder ...
    walker.cwd = scripts
    lost = walker.run("toolkiln call slug text=x", ok=False)
    assert lost.returncode == 1
    assert walker.follow_hints(lost.stderr) == ["toolkiln call slug . text=x"]
    # ... and a folder not served yet: the fixes name it, and work.
    more = walker.home / "more"
    more.mkdir()
    (more / "slug.sh").write_text((scripts / "slug.sh").read_text())
    (more / "slug.sh").chmod(0o755)
    first = walker.run("toolkiln call slug ~/more text=y", ok=False)
    assert first.returncode == 1
    assert walker.follow_hints(first.stderr) == [f"toolkiln discover {more}", f"toolkiln build {more}"]
    assert walker.run("toolkiln call slug ~/more text=y").stdout.strip() == "y"
    assert not (more / "config").exists() and not (more / "tools").exists()
