"""`serve DIR` and the commands that take DIR: a plain folder's configs in a private
folder of toolkiln's own, one per real path; a project's in its own config/."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from toolkiln.cli import cli
from toolkiln.served_folder import owned_config_dir, resolve_served_folder

HELLO = """#!/bin/bash
# Tool: hello
# Description: Say hello
# @param name: Who (type: string, default: world)
echo "Hello, $name"
"""


@pytest.fixture(autouse=True)
def config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    for key in ("TOOLKILN_TOOLS_DIR", "TOOLKILN_CONFIG_DIR"):
        monkeypatch.delenv(key, raising=False)
    return home


def scripts(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "hello.sh").write_text(HELLO)
    (folder / "hello.sh").chmod(0o755)
    return folder


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def snapshot(folder: Path) -> dict[str, float]:
    return {str(path): path.stat().st_mtime for path in [folder, *folder.rglob("*")]}


def test_a_plain_folder_is_discovered_built_and_listed_without_a_write_into_it(
    tmp_path: Path, config_home: Path
) -> None:
    folder = scripts(tmp_path / "scripts")
    before = snapshot(folder)
    for command in ("discover", "build"):
        result = run(command, str(folder))
        assert result.exit_code == 0, result.output
    listed = run("list", "--json", str(folder))
    assert [tool["name"] for tool in json.loads(listed.output)] == ["hello"]
    assert snapshot(folder) == before
    owned = owned_config_dir(folder)
    assert owned.parent == config_home / "toolkiln" / "folders"
    assert owned.name.startswith("scripts-")
    assert (owned / "tools" / "hello.json").is_file()


def test_every_folder_toolkiln_makes_for_the_configs_is_private(tmp_path: Path, config_home: Path) -> None:
    folder = scripts(tmp_path / "scripts")
    umask = os.umask(0o022)
    try:
        served = resolve_served_folder(folder)
    finally:
        os.umask(umask)
    for path in (config_home / "toolkiln", config_home / "toolkiln" / "folders", served.config):
        assert stat.S_IMODE(path.stat().st_mode) == 0o700, path


def test_an_owned_folder_others_could_write_is_made_private(tmp_path: Path) -> None:
    folder = scripts(tmp_path / "scripts")
    owned = owned_config_dir(folder)
    owned.mkdir(parents=True, mode=0o777)
    owned.chmod(0o777)
    resolve_served_folder(folder)
    assert stat.S_IMODE(owned.stat().st_mode) == 0o700


def test_a_symlink_where_the_owned_folder_goes_is_refused(tmp_path: Path) -> None:
    folder = scripts(tmp_path / "scripts")
    owned = owned_config_dir(folder)
    owned.parent.mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    owned.symlink_to(tmp_path / "elsewhere")
    result = run("list", str(folder))
    assert result.exit_code == 1
    assert "found a symlink or a file" in result.output


def test_two_folders_of_one_name_have_two_config_folders_and_a_symlink_shares_its_target(
    tmp_path: Path,
) -> None:
    first, second = scripts(tmp_path / "a" / "scripts"), scripts(tmp_path / "b" / "scripts")
    (tmp_path / "link").symlink_to(first)
    assert resolve_served_folder(first).config != resolve_served_folder(second).config
    linked = resolve_served_folder(tmp_path / "link")
    assert (linked.tools, linked.config) == (first, resolve_served_folder(first).config)


def test_a_project_is_served_from_its_own_folders(tmp_path: Path, config_home: Path) -> None:
    assert run("init", str(tmp_path / "proj")).exit_code == 0
    served = resolve_served_folder(tmp_path / "proj")
    assert (served.tools, served.config, served.owned) == (
        tmp_path / "proj" / "tools",
        tmp_path / "proj" / "config",
        False,
    )
    assert [tool["name"] for tool in json.loads(run("list", "--json", str(tmp_path / "proj")).output)] == [
        "now"
    ]
    assert not (config_home / "toolkiln" / "folders").exists()


def test_dir_and_folder_options(tmp_path: Path) -> None:
    folder = scripts(tmp_path / "scripts")
    both = run("discover", str(folder), "--tools-dir", str(folder))
    assert both.exit_code == 2 and "give DIR or --tools-dir, not both" in both.output
    asked = tmp_path / "my-config"  # --config-dir: the user asked for configs there
    assert run("discover", str(folder), "--config-dir", str(asked)).exit_code == 0
    assert (asked / "tools" / "hello.json").is_file()
    # DIR wins over the environment's folders (start_server.sh sets them)
    env = {"TOOLKILN_TOOLS_DIR": str(tmp_path / "t"), "TOOLKILN_CONFIG_DIR": str(tmp_path / "c")}
    listed = CliRunner().invoke(cli, ["discover", str(folder)], env=env, catch_exceptions=False)
    assert listed.exit_code == 0, listed.output
    assert not (tmp_path / "c").exists()
    assert (owned_config_dir(folder) / "tools" / "hello.json").is_file()
    missing = run("list", str(tmp_path / "nowhere"))
    assert missing.exit_code == 1 and "cannot open the folder" in missing.output
