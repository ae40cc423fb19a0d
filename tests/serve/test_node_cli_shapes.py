"""node-cli shapes seen in real `scripts/` folders, called through the SDK's real client
with the REAL yargs (tests/node_cli): the module-object default command of a monorepo's
build script, and the older chain whose booleans are known only by their default."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.serve import test_node_cli_tools
from tests.serve.test_node_cli_tools import _calls
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

pytestmark = pytest.mark.anyio
installed = pytest.fixture(scope="session", name="installed")(test_node_cli_tools.node_modules.__wrapped__)

MODULE_DEFAULT = """\
const yargs = require('yargs');
yargs(process.argv.slice(2))
  .command({
    command: '$0 <target>',
    description: 'build one target',
    builder: (cmd) => {
      return cmd
        .positional('target', { type: 'string' })
        .option('minify', { type: 'boolean', default: false })
        .option('out-dir', { default: './dist', type: 'string' });
    },
    handler: (argv) => {
      const { _, $0, ...rest } = argv;
      console.log(JSON.stringify(rest));
    },
  })
  .strict(true)
  .parse();
"""

DEFAULTS_ONLY = """\
const yargs = require('yargs');
const argv = yargs(process.argv.slice(2))
  .describe({ desc: 'sort descending', name: 'the run' })
  .default('desc', false)
  .default('keep', true)
  .string('name')
  .argv;
console.log(JSON.stringify({ desc: argv.desc, keep: argv.keep, name: argv.name }));
"""


@pytest.fixture
def served(make_tool: MakeTool, tools_dir: Path, config_dir: Path, installed: Path) -> Path:
    (tools_dir.parent / "node_modules").symlink_to(installed)
    make_tool("build.js", MODULE_DEFAULT, executable=False)
    make_tool("compare.js", DEFAULTS_ONLY, executable=False)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors and sorted(tool.name for tool in report.tools) == ["build", "compare"]
    build_catalog(config_dir, tools_dir)
    return config_dir


async def test_the_module_object_default_command_gets_its_positional_first(served: Path) -> None:
    results = await _calls(
        served,
        [
            ("build", {"target": "esm", "minify": True, "out-dir": "a b"}),
            ("build", {"target": "cjs"}),
            ("build", {"minify": True}),
        ],
    )
    assert results[0] == {"target": "esm", "minify": True, "out-dir": "a b", "outDir": "a b"}
    assert results[1] == {"target": "cjs", "minify": False, "out-dir": "./dist", "outDir": "./dist"}
    kind, message = results[2]
    assert kind == "error" and "target" in message  # required: refused before the script runs


async def test_a_boolean_known_only_by_its_default_gets_its_value(served: Path) -> None:
    results = await _calls(
        served,
        [
            ("compare", {"desc": True, "keep": False, "name": "-x"}),
            ("compare", {"desc": False}),
            ("compare", {}),
        ],
    )
    # yargs gives an option it does not know as a boolean the string "true" (truthy, as
    # scripts read it: `if (argv.desc)`); `--desc` alone would be its default, false.
    assert results[0] == {"desc": "true", "keep": False, "name": "-x"}
    assert results[1] == {"desc": False, "keep": True}
    assert results[2] == {"desc": False, "keep": True}
