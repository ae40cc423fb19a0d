"""Secrets for tools from the folder's `.env` (toolkiln/dotenv_file.py), through a real
`toolkiln serve DIR` and the SDK's client: a value reaches only the tools that name it
(what discovery found them reading, or their pass_env), never another tool, never a
listing or the audit log; a confined tool cannot read the file itself; a file others
may read is refused."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from tests.conftest import child_env
from tests.serve.stdio_server import text_of
from toolkiln.cli import cli
from toolkiln.dotenv_file import env_names_read, load_env_file
from toolkiln.errors import ConfigError
from toolkiln.process import confinement_problem
from toolkiln.served_folder import owned_config_dir

SECRET = "s3cr3t-value-4242"
WEATHER = """#!/bin/bash
# Tool: weather
# Description: Say the key's length
echo "key=$WEATHER_API_KEY"
"""
# Names no variable: it prints the whole environment it was given.
OTHER = """#!/bin/bash
# Tool: other
# Description: Print the environment
env
"""
# Reads the .env beside it (its working folder is the scripts folder).
PEEK = """#!/bin/bash
# Tool: peek
# Description: Read the folder's .env
cat .env 2>&1 || echo unreadable
"""


def write_script(folder: Path, name: str, body: str) -> None:
    (folder / name).write_text(body)
    (folder / name).chmod(0o755)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("WEATHER_API_KEY", raising=False)
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    write_script(scripts, "weather.sh", WEATHER)
    write_script(scripts, "other.sh", OTHER)
    write_script(scripts, "peek.sh", PEEK)
    env_file = scripts / ".env"
    env_file.write_text(f"# the weather service\nWEATHER_API_KEY={SECRET}\nUNUSED_TOKEN='also-secret'\n")
    env_file.chmod(0o600)
    return scripts


async def serve_and_call(folder: Path, home: Path, calls: list[str]) -> tuple[dict[str, str], str]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolkiln", "serve", str(folder)],
        env={**child_env(), "XDG_CONFIG_HOME": str(home)},
    )
    async with Client(params, mode="legacy") as client:
        listed = await client.list_tools()
        results = {name: text_of(await client.call_tool(name, {})) for name in calls}
    return results, json.dumps([tool.model_dump(mode="json") for tool in listed.tools])


def test_env_names_read_finds_what_scripts_read() -> None:
    text = """
    curl -H "key: $WEATHER_API_KEY" "${BASE_URL:-x}" $lower $1 $PATH
    token = os.environ["GH_TOKEN"]; os.environ.get('A_B'); os.getenv("SLACK_HOOK")
    const k = process.env.OPENAI_KEY; process.env["DB_URL"]; ENV["RUBY_VAR"]
    """
    assert env_names_read(text) == [
        "A_B", "BASE_URL", "DB_URL", "GH_TOKEN", "OPENAI_KEY", "RUBY_VAR", "SLACK_HOOK", "WEATHER_API_KEY"
    ]  # fmt: skip


@pytest.mark.parametrize(
    "text",
    [
        "echo $A_B",
        'os.environ["A_B"]',
        "getenv('A_B')",
        "process.env.A_B",
        'process.env [ "A_B" ]',
        "ENV['A_B']",
    ],
)
def test_each_way_of_reading_is_found_alone(text: str) -> None:
    """Each pattern is tried where its word is in the text (`dotenv_file._READS`)."""
    assert env_names_read(text) == ["A_B"]
    assert env_names_read(text.replace("A_B", "1X")) == []


def test_discovery_records_what_a_script_reads(folder: Path) -> None:
    assert CliRunner().invoke(cli, ["discover", str(folder)]).exit_code == 0
    configs = owned_config_dir(folder) / "tools"
    weather = json.loads((configs / "weather.json").read_text())
    assert weather["script_config"]["env_reads"] == ["WEATHER_API_KEY"]
    assert json.loads((configs / "other.json").read_text())["script_config"]["env_reads"] is None


@pytest.mark.anyio
async def test_a_value_reaches_only_the_tool_that_reads_it(folder: Path, tmp_path: Path) -> None:
    results, listing = await serve_and_call(folder, tmp_path / "xdg", ["weather", "other"])
    assert results["weather"].strip() == f"key={SECRET}"
    assert SECRET not in results["other"] and "also-secret" not in results["other"]
    assert "WEATHER_API_KEY" not in results["other"]
    assert SECRET not in listing
    audit = owned_config_dir(folder) / "logs" / "audit.jsonl"
    assert audit.exists() and SECRET not in audit.read_text()
    listed = CliRunner().invoke(cli, ["discover", str(folder), "--list"])
    assert SECRET not in listed.output


@pytest.mark.anyio
@pytest.mark.skipif(confinement_problem() is not None, reason=f"{confinement_problem()}")
async def test_a_confined_tool_gets_only_named_values_and_never_the_file(
    folder: Path, tmp_path: Path
) -> None:
    config = owned_config_dir(folder)
    config.mkdir(parents=True, exist_ok=True)
    (config / "server.json").write_text(json.dumps({"confinement": {"mode": "required"}}))
    results, _ = await serve_and_call(folder, tmp_path / "xdg", ["weather", "other", "peek"])
    assert results["weather"].strip() == f"key={SECRET}"
    assert SECRET not in results["other"]
    assert SECRET not in results["peek"] and "also-secret" not in results["peek"]


def test_a_file_others_may_read_is_refused_with_the_fix(folder: Path, tmp_path: Path) -> None:
    env_file = folder / ".env"
    env_file.chmod(0o644)
    with pytest.raises(ConfigError, match="chmod 600"):
        load_env_file(env_file)
    assert CliRunner().invoke(cli, ["build", str(folder)]).exit_code in (0, 1)
    CliRunner().invoke(cli, ["discover", str(folder)])
    CliRunner().invoke(cli, ["build", str(folder)])
    called = CliRunner().invoke(cli, ["call", "weather", str(folder)])
    assert called.exit_code == 1 and f"chmod 600 {env_file}" in called.output
    assert SECRET not in called.output
    env_file.chmod(0o600)
    called = CliRunner().invoke(cli, ["call", "weather", str(folder)])
    assert called.output.strip() == f"key={SECRET}"


@pytest.mark.anyio
@pytest.mark.parametrize("confined", [False, True])
async def test_a_file_made_or_changed_while_serving_is_read_hidden_and_checked_again(
    folder: Path, tmp_path: Path, confined: bool
) -> None:
    """No restart: a `.env` that appears after the start reaches the next call and is
    hidden from a confined tool at once; a change is read; a file made readable by others
    since gives no value (its values may not be the user's)."""
    if confined and confinement_problem() is not None:
        pytest.skip(f"{confinement_problem()}")
    env_file = folder / ".env"
    env_file.unlink()
    if confined:
        config = owned_config_dir(folder)
        config.mkdir(parents=True, exist_ok=True)
        (config / "server.json").write_text(json.dumps({"confinement": {"mode": "required"}}))
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolkiln", "serve", str(folder)],
        env={**child_env(), "XDG_CONFIG_HOME": str(tmp_path / "xdg")},
    )

    async def call(client: Client, name: str) -> str:
        return text_of(await client.call_tool(name, {})).strip()

    async with Client(params, mode="legacy") as client:
        assert await call(client, "weather") == "key="
        env_file.write_text(f"WEATHER_API_KEY={SECRET}\n")
        env_file.chmod(0o600)
        assert await call(client, "weather") == f"key={SECRET}"
        if confined:
            assert SECRET not in await call(client, "peek")
        env_file.write_text("WEATHER_API_KEY=changed\n")
        assert await call(client, "weather") == "key=changed"
        env_file.chmod(0o644)
        assert await call(client, "weather") == "key="


def test_a_symlinked_env_is_refused_and_its_target_never_read(folder: Path, tmp_path: Path) -> None:
    """A folder of scripts may come from anyone's repository, and git keeps symlinks: a
    `.env` leading to another private file of the user's (credentials in KEY=value
    lines) would hand those values to the tools that name them, confined ones too."""
    credentials = tmp_path / "credentials"
    credentials.write_text("aws_secret_access_key=from-another-file\n")
    credentials.chmod(0o600)
    env_file = folder / ".env"
    env_file.unlink()
    env_file.symlink_to(credentials)
    with pytest.raises(ConfigError, match="symlink"):
        load_env_file(env_file)
    CliRunner().invoke(cli, ["discover", str(folder)])
    CliRunner().invoke(cli, ["build", str(folder)])
    called = CliRunner().invoke(cli, ["call", "weather", str(folder)])
    assert called.exit_code == 1 and "symlink" in called.output
    assert "from-another-file" not in called.output
