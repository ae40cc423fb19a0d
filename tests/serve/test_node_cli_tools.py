"""Node.js command-line scripts through `toolkiln serve` and the SDK's real client, run
with the REAL commander and yargs (installed by npm from tests/node_cli/package-lock.json
when missing) and Node's own parseArgs: each script prints what its library parsed, so
the test sees the arguments exactly as the script does."""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeTool
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = pytest.mark.anyio

PACKAGES = Path(__file__).resolve().parents[1] / "node_cli"

COMMANDER = """\
#!/usr/bin/env node
const { program, Option } = require('commander');
program
  .description('Echo what commander parsed')
  .requiredOption('-n, --name <name>', 'who')
  .option('--count <n>', 'how many', parseInt)
  .option('--tags <tags...>', 'labels')
  .option('-v, --verbose', 'more')
  .option('--no-color', 'plain')
  .addOption(new Option('--size <size>').choices(['s', 'm', 'l']))
  .argument('<file>', 'input')
  .argument('[more...]', 'more input')
  .action((file, more, options) => {
    console.log(JSON.stringify({ file, more, options }));
  })
  .parse();
"""

YARGS = """\
#!/usr/bin/env node
const yargs = require('yargs/yargs');
const { hideBin } = require('yargs/helpers');
const argv = yargs(hideBin(process.argv))
  .command('$0 <file> [more..]', 'Echo what yargs parsed', (y) =>
    y.positional('file', { type: 'string' }).positional('more', { type: 'string' }))
  .option('name', { alias: 'n', type: 'string', demandOption: true })
  .option('count', { type: 'number', default: 1 })
  .option('tags', { type: 'array', string: true })
  .option('verbose', { type: 'boolean' })
  .option('color', { type: 'boolean', default: true })
  .option('size', { choices: ['s', 'm', 'l'] })
  .strict()
  .parse();
const { _, $0, n, ...rest } = argv;
console.log(JSON.stringify(rest));
"""

PARSE_ARGS = """\
// Echo what parseArgs parsed.
import { parseArgs } from 'node:util';
const { values, positionals } = parseArgs({
  options: {
    name: { type: 'string', short: 'n' },
    tag: { type: 'string', multiple: true },
    verbose: { type: 'boolean', default: false },
  },
  allowPositionals: true,
});
console.log(JSON.stringify({ values, positionals }));
"""


@pytest.fixture(scope="session")
def node_modules() -> Path:
    """commander and yargs, installed once from the lock file (`npm ci`)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("these tests need Node.js and npm (Debian: apt-get install nodejs npm)")
    modules = PACKAGES / "node_modules"
    stamp = modules / ".installed"
    lock = PACKAGES / "package-lock.json"
    with (PACKAGES / "package.json").open() as guard:
        fcntl.flock(guard, fcntl.LOCK_EX)  # one install, whatever runs the tests in parallel
        if not stamp.is_file() or stamp.stat().st_mtime < lock.stat().st_mtime:
            subprocess.run(
                ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=PACKAGES,
                check=True,
                timeout=300,
            )
            stamp.touch()
    return modules


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path, node_modules: Path) -> Path:
    (tools_dir.parent / "node_modules").symlink_to(node_modules)  # found as node finds a project's
    make_tool("com.js", COMMANDER)
    make_tool("yar.js", YARGS, executable=False)
    make_tool("pa.mjs", PARSE_ARGS, executable=False)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors and sorted(tool.name for tool in report.tools) == ["com", "pa", "yar"]
    build_catalog(config_dir, tools_dir)
    return config_dir


async def _calls(config_dir: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async with connect(config_dir, "auto") as client:
        results = [await client.call_tool(name, arguments) for name, arguments in calls]
    return [
        json.loads(text_of(result)) if not result.is_error else ("error", text_of(result))
        for result in results
    ]


TRICKY = 'it\'s "quoted", spaced and ünïcödé ☃'


async def test_commander_receives_every_kind_of_argument(served: Path) -> None:
    results = await _calls(
        served,
        [
            ("com", {"name": TRICKY, "file": "-rf", "more": ["--name=x", "b c"], "tags": ["-a", "b"],
                     "count": 3, "verbose": True, "color": False, "size": "m"}),
            ("com", {"name": "--verbose", "file": "f"}),
            ("com", {"name": "x", "file": "f", "verbose": False, "color": True}),
        ],
    )  # fmt: skip
    assert results[0] == {
        "file": "-rf",
        "more": ["--name=x", "b c"],
        "options": {
            "name": TRICKY,
            "count": 3,
            "tags": ["-a", "b"],
            "verbose": True,
            "color": False,
            "size": "m",
        },
    }
    assert results[1] == {"file": "f", "more": [], "options": {"name": "--verbose", "color": True}}
    assert results[2] == {"file": "f", "more": [], "options": {"name": "x", "color": True}}


async def test_yargs_receives_every_kind_of_argument(served: Path) -> None:
    results = await _calls(
        served,
        [
            ("yar", {"name": TRICKY, "file": "a b", "more": ["007", "true"], "tags": ["-x", "--y=1"],
                     "count": 2.5, "verbose": True, "color": False, "size": "l"}),
            ("yar", {"name": "-n", "file": "f"}),
            ("yar", {"name": "x", "file": "-rf"}),
        ],
    )  # fmt: skip
    assert results[0] == {
        "file": "a b", "more": ["007", "true"], "name": TRICKY, "count": 2.5, "tags": ["-x", "--y=1"],
        "verbose": True, "color": False, "size": "l",
    }  # fmt: skip
    assert results[1] == {"file": "f", "more": [], "name": "-n", "count": 1, "color": True}
    kind, message = results[2]
    assert kind == "error" and "'file'" in message and "starts with '-'" in message


async def test_parse_args_receives_every_kind_of_argument(served: Path) -> None:
    results = await _calls(
        served,
        [
            (
                "pa",
                {"name": TRICKY, "tag": ["-a", "b=c"], "verbose": True, "positionals": ["-x", "--", "y z"]},
            ),
            ("pa", {}),
        ],
    )
    assert results[0] == {
        "values": {"name": TRICKY, "tag": ["-a", "b=c"], "verbose": True},
        "positionals": ["-x", "--", "y z"],
    }
    assert results[1] == {"values": {"verbose": False}, "positionals": []}


async def test_missing_required_arguments_are_refused_before_the_script_runs(served: Path) -> None:
    results = await _calls(served, [("com", {"file": "f"}), ("yar", {"name": "x"})])
    assert [result[0] for result in results] == ["error", "error"]
    assert "name" in results[0][1] and "file" in results[1][1]


COMMANDER_COMMANDS = """\
#!/usr/bin/env node
const { program, Command } = require('commander');
program.option('--db <file>', 'the list', 'todo.json').option('-v, --verbose', 'say more');
const show = (name) => (...args) => {
  const command = args[args.length - 1];
  console.log(JSON.stringify({ command: name, args: args.slice(0, -2), options: command.opts(),
                               globals: program.opts() }));
};
program
  .command('add <text> [more...]')
  .option('--tag <tags...>', 'labels')
  .requiredOption('-p, --priority <n>', 'how urgent', parseInt)
  .action(show('add'));
program.addCommand(new Command('rm').argument('<id>').option('--force').action(show('rm')));
program.parse();
"""

YARGS_COMMANDS = """\
const yargs = require('yargs');
const { hideBin } = require('yargs/helpers');
const show = (argv) => console.log(JSON.stringify(argv));
yargs(hideBin(process.argv))
  .option('store', { type: 'string', default: 'kv.json' })
  .command('set <key> [values..]', 'Write', (y) => y.option('ttl', { type: 'number' }), show)
  .command('rm <key>', 'Remove', { force: { type: 'boolean', demandOption: true } }, show)
  .demandCommand(1)
  .strict()
  .parse();
"""


@pytest.fixture
def commands(make_tool: MakeTool, tools_dir: Path, config_dir: Path, node_modules: Path) -> Path:
    (tools_dir.parent / "node_modules").symlink_to(node_modules)
    make_tool("todo.js", COMMANDER_COMMANDS)
    make_tool("kv.js", YARGS_COMMANDS, executable=False)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, [str(error) for error in report.errors]
    build_catalog(config_dir, tools_dir)
    return config_dir


async def test_commander_and_yargs_subcommands_are_tools_that_get_exactly_their_arguments(
    commands: Path,
) -> None:
    config_dir = commands
    async with connect(config_dir, "auto") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert sorted(tools) == ["kv_rm", "kv_set", "todo_add", "todo_rm"]
    assert set(tools["todo_add"].input_schema["properties"]) == {
        "db",
        "verbose",
        "tag",
        "priority",
        "text",
        "more",
    }
    assert sorted(tools["todo_add"].input_schema["required"]) == ["priority", "text"]
    assert set(tools["kv_rm"].input_schema["properties"]) == {"store", "key", "force"}
    results = await _calls(
        config_dir,
        [
            ("todo_add", {"text": "-rf", "more": ["--force", "a b"], "tag": ["-x", TRICKY], "priority": -2,
                          "db": "--verbose", "verbose": True}),
            ("todo_rm", {"id": "--db=evil"}),
            ("todo_rm", {"id": "1", "text": "not rm's"}),
            ("todo_add", {"text": "no priority"}),
            ("kv_set", {"key": TRICKY, "values": ["a b", "ü"], "ttl": -1.5, "store": "-other"}),
            ("kv_rm", {"key": "k", "force": True}),
            ("kv_rm", {"key": "-k", "force": True}),
        ],
    )  # fmt: skip
    assert results[0] == {
        "command": "add",
        "args": ["-rf", ["--force", "a b"]],
        "options": {"tag": ["-x", TRICKY], "priority": -2},
        "globals": {"db": "--verbose", "verbose": True},
    }
    assert results[1] == {
        "command": "rm",
        "args": ["--db=evil"],
        "options": {},
        "globals": {"db": "todo.json"},
    }
    assert results[2][0] == "error" and "text" in results[2][1]
    assert results[3][0] == "error" and "'priority' is required" in results[3][1]
    set_args = results[4]
    assert (set_args["_"], set_args["key"], set_args["values"]) == (["set"], TRICKY, ["a b", "ü"])
    assert (set_args["ttl"], set_args["store"]) == (-1.5, "-other")
    assert (results[5]["_"], results[5]["key"], results[5]["force"]) == (["rm"], "k", True)
    # A yargs positional comes before the options: one starting with '-' would pose as one.
    assert results[6][0] == "error" and "starts with '-'" in results[6][1]
