"""node-cli: shapes seen in real folders of Node.js scripts (monorepo `scripts/`,
`tools/`, single-file CLIs) that the first fixtures did not cover. Each fixture is
written here in the same shape, never copied."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import MakeTool
from toolkiln.discover import discover_tools
from toolkiln.files import load_tool_config, tool_config_path
from toolkiln.model import ScriptConfig


def _script(config_dir: Path, name: str) -> ScriptConfig:
    return load_tool_config(tool_config_path(config_dir, name)).script_config


def _params(config_dir: Path, name: str) -> dict[str, dict[str, Any]]:
    return {param.name: param.model_dump() for param in _script(config_dir, name).parameters}


# yargs' module-object default command, its builder an arrow function with a block body
# (how a monorepo's build and release scripts are often written).
YARGS_MODULE_DEFAULT = """\
import yargs from 'yargs';

const TARGETS = ['esm', 'cjs'];

async function compile(argv) {
  console.log(JSON.stringify(argv));
}

yargs(process.argv.slice(2))
  .command({
    command: '$0 <target>',
    description: 'compile one package',
    builder: (cmd) => {
      return cmd
        .positional('target', {
          description: `one of ${TARGETS.join(', ')}`,
          type: 'string',
        })
        .option('minify', { type: 'boolean', default: false, describe: 'shrink the output' })
        .option('out-dir', { default: './dist', type: 'string' });
    },
    handler: compile,
  })
  .strict(true)
  .version(false)
  .parse();
"""


def test_yargs_module_object_default_command_with_an_arrow_builder(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("compile.mjs", YARGS_MODULE_DEFAULT, executable=False)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors and not report.warnings
    assert [tool.name for tool in report.tools] == ["compile"]
    assert _script(config_dir, "compile").description == "compile one package"
    params = _params(config_dir, "compile")
    assert list(params) == ["target", "minify", "out-dir"]
    # `<target>` is a positional the script cannot run without: required, given first.
    assert (params["target"]["required"], params["target"]["option"]) == (True, "")
    assert (params["minify"]["type"], params["minify"]["default"]) == ("boolean", False)
    assert params["out-dir"]["default"] == "./dist"


def test_an_arrow_function_argument_does_not_end_the_call_early(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    body = """\
const yargs = require('yargs');
yargs
  .command('$0 <file>', 'count the lines of a file', (y) => y.positional('file', { describe: 'the file' }),
    (argv) => console.log(argv.file))
  .option('blank', { type: 'boolean', describe: 'count blank lines too' })
  .parse();
"""
    make_tool("lines.js", body, executable=False)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors
    assert _script(config_dir, "lines").description == "count the lines of a file"
    params = _params(config_dir, "lines")
    assert list(params) == ["file", "blank"]
    assert (params["file"]["required"], params["file"]["description"]) == (True, "the file")


def test_yargs_module_object_default_command_with_an_object_builder(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    body = """\
const yargs = require('yargs');
yargs.command({
  command: '$0 [dir]',
  describe: 'list a folder',
  builder: { all: { type: 'boolean', alias: 'a', describe: 'hidden files too' } },
  handler: (argv) => console.log(argv),
}).argv;
"""
    make_tool("ls.js", body, executable=False)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors and not report.warnings
    assert _script(config_dir, "ls").description == "list a folder"
    params = _params(config_dir, "ls")
    assert list(params) == ["dir", "all"]
    assert (params["dir"]["required"], params["all"]["type"]) == (False, "boolean")


def test_parse_args_help_and_version_flags_are_not_parameters(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    body = """\
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: {
    port: { type: 'string', short: 'p' },
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean', short: 'v' },
  },
  allowPositionals: true,
});
if (values.help) { console.log('usage: serve [dir...] [-p port]'); process.exit(0); }
"""
    make_tool("serve.mjs", body, executable=False)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors
    assert list(_params(config_dir, "serve")) == ["port", "positionals"]


def test_the_description_skips_a_license_header_for_the_comment_that_says_what_it_does(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    body = """\
/**
 * @license
 * Copyright 2021 Example Corp
 * SPDX-License-Identifier: MIT
 */

// Compare two result folders and print the metrics that moved.
//     node compare.js --base a --head b

import yargs from 'yargs';
const argv = yargs(process.argv.slice(2)).option('base', { type: 'string' }).argv;
"""
    make_tool("compare.js", body, executable=False)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors
    assert _script(config_dir, "compare").description == (
        "Compare two result folders and print the metrics that moved. node compare.js --base a --head b"
    )
