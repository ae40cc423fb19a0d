"""The wheel stands alone: built, installed into a fresh virtual environment outside the
repository, and used from a folder outside it as a user would (init, new, discover,
build, serve over stdio with the SDK's client, and serve DIR on a plain folder)."""

from __future__ import annotations

import json
import subprocess
import tarfile
import zipfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from tests.package.conftest import REPO, Install, uv
from tests.serve.stdio_server import text_of

pytestmark = pytest.mark.timeout(600)


def test_the_wheel_holds_the_package_and_its_files_and_nothing_of_the_repository(install: Install) -> None:
    names = zipfile.ZipFile(install.wheel).namelist()
    for needed in (
        "toolkiln/templates/annotations/run.sh",
        "toolkiln/templates/help-json/tool.sh",
        "toolkiln/templates/python/tool.py",
        "toolkiln/templates/kit/tool.js",
        "toolkiln/starter/tools/now/run.sh",
        "toolkiln/serve/dashboard/templates/index.html",
    ):
        assert needed in names
    top = {name.split("/")[0] for name in names}
    assert {folder for folder in top if not folder.endswith(".dist-info")} == {"toolkiln"}
    assert not [name for name in names if "__pycache__" in name or name.endswith(".pyc")]


def test_the_wheel_and_the_sdist_carry_the_license(install: Install, tmp_path: Path) -> None:
    wheel = zipfile.ZipFile(install.wheel)
    [license_file] = [name for name in wheel.namelist() if name.endswith(".dist-info/licenses/LICENSE")]
    assert wheel.read(license_file) == (REPO / "LICENSE").read_bytes()
    [metadata] = [name for name in wheel.namelist() if name.endswith(".dist-info/METADATA")]
    headers = wheel.read(metadata).decode().split("\n\n")[0].splitlines()
    assert {"License-Expression: MIT", "License-File: LICENSE"} <= set(headers)
    uv("build", "--sdist", "--out-dir", str(tmp_path), str(REPO))
    (sdist,) = tmp_path.glob("toolkiln-*.tar.gz")
    with tarfile.open(sdist) as archive:
        assert f"{sdist.name.removesuffix('.tar.gz')}/LICENSE" in archive.getnames()


def test_the_installed_toolkiln_is_the_wheels(install: Install) -> None:
    result = subprocess.run(
        [str(install.bin / "python"), "-c", "import toolkiln; print(toolkiln.__file__)"],
        cwd=install.work,
        env=install.env(),
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(result.stdout.strip()).is_relative_to(install.bin.parent)


@asynccontextmanager
async def serving(install: Install, *args: str, cwd: Path) -> AsyncIterator[Client]:
    params = StdioServerParameters(
        command=str(install.bin / "toolkiln"), args=["serve", *args], env=install.env(), cwd=str(cwd)
    )
    async with Client(params) as client:
        yield client


@pytest.mark.anyio
async def test_init_new_discover_build_serve_and_call_from_the_wheel(install: Install) -> None:
    initialised = install.run("init", "proj")
    assert initialised.returncode == 0, initialised.stderr
    project = install.work / "proj"
    assert "1 tool (now)" in initialised.stdout
    created = install.run("new", "greeter", cwd=project)
    assert created.returncode == 0, created.stderr  # failed with "cannot read the template" before
    assert (project / "tools" / "greeter" / "run.sh").is_file()
    for command in ("discover", "build"):
        result = install.run(command, cwd=project)
        assert result.returncode == 0, result.stderr
    listed = install.run("list", "--json", cwd=project)
    assert sorted(tool["name"] for tool in json.loads(listed.stdout)) == ["greeter", "now"]

    async with serving(install, cwd=project) as client:
        names = sorted(tool.name for tool in (await client.list_tools()).tools)
        greeting = await client.call_tool("greeter", {"function": "hello", "name": "Ada"})
        now = await client.call_tool("now", {"timezone": "UTC"})
    assert names == ["greeter", "now"]
    assert (greeting.is_error, text_of(greeting)) == (False, "Hello, Ada!")
    assert not now.is_error and now.structured_content is not None
    assert now.structured_content["timezone"] == "UTC"


@pytest.mark.anyio
async def test_serve_dir_serves_a_plain_folder_in_one_command(install: Install) -> None:
    scripts = install.work / "scripts"
    scripts.mkdir()
    (scripts / "shout.sh").write_text(
        "#!/bin/bash\n# Tool: shout\n# Description: Say it loudly\n"
        "# @param text: What to say (type: string, required: true)\n"
        'echo "${text^^}"\n'
    )
    (scripts / "shout.sh").chmod(0o755)
    elsewhere = install.work / "elsewhere"
    elsewhere.mkdir()
    async with serving(install, str(scripts), cwd=elsewhere) as client:
        result = await client.call_tool("shout", {"text": "kiln"})
    assert (result.is_error, text_of(result)) == (False, "KILN")
    assert sorted(path.name for path in scripts.iterdir()) == ["shout.sh"]  # nothing written into it
    assert list(elsewhere.iterdir()) == []
    (owned,) = (install.home / "toolkiln" / "folders").iterdir()
    assert owned.name.startswith("scripts-")
    assert (owned / "tools" / "shout.json").is_file()
