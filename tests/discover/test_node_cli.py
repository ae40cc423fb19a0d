"""The node-cli dialect: Node.js scripts that parse their command line with commander,
yargs or `node:util` parseArgs, read as text (never run).

Fixtures written from each library's documentation (commander's README: options,
requiredOption, variadic, negatable, `new Option().choices()`, `.argument()`; yargs'
API docs: `.option()` objects, `.options({})`, `$0` default command with `.positional()`,
the older `.demandOption([...]).alias().describe()` chain; Node's `util.parseArgs`) in
the shapes people write them: chained calls over many lines, comments, both quotes,
CommonJS and ESM, TypeScript."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeTool
from toolkiln.discover import DiscoveryReport, discover_tools
from toolkiln.files import load_tool_config, tool_config_path
from toolkiln.model import ScriptConfig

COMMANDER = """\
#!/usr/bin/env node
// Resize images for the web, keeping their aspect ratio.
'use strict';
const { program, Option } = require('commander');
const SIZES = ['small', 'medium', 'large'];

program
  .name('resize')
  .description('Resize an image (png, jpeg or webp), in place or to a new file')
  .version('1.4.0')
  .requiredOption('-w, --width <number>', 'target width, in pixels', parseInt)
  .option("-q, --quality <q>", "JPEG quality (1-100)", parseFloat, 85)
  .option('-o, --out [file]', 'where to write, default: beside the input')
  .option('--tags <tags...>', 'labels to embed, e.g. "web, thumb"')
  .option('-v, --verbose', 'say what happens')    // a flag
  .option('--no-strip', 'keep the metadata')
  .option('--retries <count>', 'how many times to retry', 3)
  .addOption(new Option('-s, --size <size>', 'a preset size').choices(SIZES).default('medium'))
  .addOption(
    new Option('--format <fmt>', 'output format')
      .choices(['png', 'jpeg', 'webp'])
      .makeOptionMandatory()
  )
  .argument('<input>', 'the image to resize')
  .argument('[extra...]', 'more images')
  .action((input, extra, options) => {
    console.log(JSON.stringify({ input, extra, options }));
  });

program.parse(process.argv);
"""


def _discover(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, name: str, body: str, **kw: Any
) -> DiscoveryReport:
    make_tool(name, body, **kw)
    return discover_tools(tools_dir, config_dir)


def _script(config_dir: Path, name: str) -> ScriptConfig:
    return load_tool_config(tool_config_path(config_dir, name)).script_config


def _params(config_dir: Path, name: str) -> dict[str, dict[str, Any]]:
    return {param.name: param.model_dump() for param in _script(config_dir, name).parameters}


def test_commander_options_arguments_types_required_defaults_enums(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    report = _discover(make_tool, tools_dir, config_dir, "resize.js", COMMANDER)
    assert not report.errors and [tool.name for tool in report.tools] == ["resize"]
    script = _script(config_dir, "resize")
    assert script.dialect == "node-cli"
    assert script.description == "Resize an image (png, jpeg or webp), in place or to a new file"
    params = _params(config_dir, "resize")
    assert list(params) == [
        "width", "quality", "out", "tags", "verbose", "strip", "retries", "size", "format", "input", "extra",
    ]  # fmt: skip
    assert params["width"] == {
        "name": "width", "type": "integer", "description": "target width, in pixels", "required": True,
        "option": "--width",
    }  # fmt: skip
    assert (params["quality"]["type"], params["quality"]["default"]) == ("number", 85)
    assert (params["out"]["type"], params["out"]["required"]) == ("string", False)
    assert (params["tags"]["type"], params["tags"]["items"]) == ("array", "string")
    assert params["tags"]["description"] == 'labels to embed, e.g. "web, thumb"'
    assert (params["verbose"]["type"], params["verbose"].get("default")) == ("boolean", None)
    assert params["strip"] | {} == {
        "name": "strip", "type": "boolean", "description": "keep the metadata", "required": False,
        "default": True, "option": "--no-strip",
    }  # fmt: skip
    assert (params["retries"]["type"], params["retries"]["default"]) == ("integer", 3)
    assert (params["size"]["enum"], params["size"]["default"], params["size"]["required"]) == (
        ["small", "medium", "large"], "medium", False,
    )  # fmt: skip
    assert (params["format"]["enum"], params["format"]["required"]) == (["png", "jpeg", "webp"], True)
    assert (params["input"]["required"], params["input"]["option"]) == (True, "--")
    assert (params["extra"]["type"], params["extra"]["required"], params["extra"]["option"]) == (
        "array", False, "--",
    )  # fmt: skip


ESM_COMMANDER = """\
#!/usr/bin/env node
/**
 * Count the words of files.
 * @author someone
 */
import { Command } from "commander";

const program = new Command();
program
  .option(`--min <n>`, `ignore words shorter than n`, Number)
  .option('--color', 'colour the output')
  .option('--no-color', 'plain output')
  .arguments('<first> [rest...]')
  .parse();
"""


def test_commander_esm_leading_comment_and_merged_negatable_flag(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    report = _discover(make_tool, tools_dir, config_dir, "count.mjs", ESM_COMMANDER, executable=False)
    assert not report.errors
    assert _script(config_dir, "count").description == "Count the words of files."
    params = _params(config_dir, "count")
    assert list(params) == ["min", "color", "first", "rest"]
    assert params["min"]["type"] == "number"
    assert (params["color"]["option"], params["color"]["description"]) == ("--color", "colour the output")
    assert params["first"]["required"] and not params["rest"]["required"]


COMMANDER_COMMANDS = """\
#!/usr/bin/env node
// Keep a todo list.
const { program, Command } = require('commander');
program.option('--db <file>', 'the list', 'todo.json').option('-v, --verbose', 'say more');

program
  .command('add <text> [more...]')
  .description('Add an item')
  .option('--tag <tags...>', 'labels')
  .requiredOption('-p, --priority <n>', 'how urgent', parseInt)
  .action(() => {});

const rm = program.command('rm');
rm.description('Remove an item');
rm.argument('<id>', 'which', parseInt).option('--force');
rm.action(() => {});

program.command('install [name]', 'install a plugin');   // an executable: another file
const remote = program.command('remote');
remote.command('add <url>');                              // two levels deep
const ls = new Command('ls').option('--all', 'done ones too');
program.addCommand(ls);
program.addCommand(new Command('done').argument('<id>').option('--db <x>', 'another db'));
program.addCommand(makeCommand());
program.command('bad').requiredOption(flagsFromElsewhere, 'x').action(() => {});
program.parse();
"""


def test_commander_subcommands_are_each_a_tool_with_the_programs_options(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    report = _discover(make_tool, tools_dir, config_dir, "todo.js", COMMANDER_COMMANDS)
    assert not report.errors, [str(error) for error in report.errors]
    assert [tool.name for tool in report.tools] == ["todo_add", "todo_done", "todo_ls", "todo_rm"]
    assert sorted((w.line, w.reason.split(" is left out: ")[1][:30]) for w in report.warnings) == [
        (18, "an executable subcommand (a se"),
        (20, "it has commands of its own"),
        (24, "it is built where it cannot be"),
        (25, "cannot read the `.requiredOpti"),
    ]
    add = _script(config_dir, "todo_add")
    assert (add.command, add.description, add.dialect) == ("add", "Add an item", "node-cli")
    shape = [(p.name, p.type, p.required, p.option, p.before_command) for p in add.parameters]
    assert shape == [
        ("db", "string", False, "--db", True),
        ("verbose", "boolean", False, "--verbose", True),
        ("tag", "array", False, "--tag", False),
        ("priority", "integer", True, "--priority", False),
        ("text", "string", True, "--", False),
        ("more", "array", False, "--", False),
    ]
    rm = _script(config_dir, "todo_rm")
    assert (rm.command, rm.description) == ("rm", "Remove an item")
    assert [(p.name, p.type, p.required) for p in rm.parameters][2:] == [
        ("force", "boolean", False), ("id", "integer", True),
    ]  # fmt: skip
    assert [p.name for p in _script(config_dir, "todo_ls").parameters] == ["db", "verbose", "all"]
    done = _script(config_dir, "todo_done")
    assert [(p.name, p.option) for p in done.parameters] == [
        ("db", "--db"), ("verbose", "--verbose"), ("done_db", "--db"), ("id", "--"),
    ]  # fmt: skip
    assert done.description == "Keep a todo list. (done)"


def test_commander_program_with_an_action_of_its_own_is_a_tool_too(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    body = """\
    const { program } = require('commander');
    program.argument('[path]').option('--json').action(() => {});
    program.command('clone <source>').option('--depth <n>', 'how deep', parseInt).action(() => {});
    program.parse();
    """
    report = _discover(make_tool, tools_dir, config_dir, "git.js", body)
    assert [tool.name for tool in report.tools] == ["git", "git_clone"]
    assert _script(config_dir, "git").command is None
    assert [p.name for p in _script(config_dir, "git").parameters] == ["json", "path"]
    # The program's own positional is its action's, not the command's.
    assert [p.name for p in _script(config_dir, "git_clone").parameters] == ["json", "depth", "source"]


def test_commander_commands_none_of_which_can_be_served_are_no_tool_and_say_why(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    body = """\
    const { program } = require('commander');
    program.command('install [name]', 'install one or more packages');
    program.command('search [query]', 'search with optional query');
    program.parse();
    """
    report = _discover(make_tool, tools_dir, config_dir, "pm.js", body)
    assert not report.tools and not report.errors
    [not_tool] = [item for item in report.not_tools if item.path == "pm.js"]
    assert not_tool.kind == "subcommands" and "executable subcommand" in not_tool.reason


def test_a_required_option_that_cannot_be_read_is_an_error_with_its_line(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    body = """\
    #!/usr/bin/env node
    const { program } = require('commander');
    const FLAG = '--token';
    program
      .option('--dry-run', 'only say what would happen')
      .requiredOption(`${FLAG} <value>`, 'the API token')
      .parse();
    """
    report = _discover(make_tool, tools_dir, config_dir, "deploy.js", body)
    assert not report.tools
    [error] = report.errors
    assert (error.path, error.line) == ("deploy.js", 6) and "required" in str(error)


def test_an_optional_option_that_cannot_be_read_is_left_out_with_a_warning(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    body = """\
    const { program } = require('commander');
    const name = 'level';
    program.option(`--${name} <n>`, 'how loud').option('--quiet').parse();
    """
    report = _discover(make_tool, tools_dir, config_dir, "loud.js", body)
    assert not report.errors and [w.line for w in report.warnings] == [3]
    assert list(_params(config_dir, "loud")) == ["quiet"]


YARGS = """\
#!/usr/bin/env node
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';

const argv = yargs(hideBin(process.argv))
  .scriptName('greet')
  .usage('Greet someone, politely or not.\\n\\nUsage: $0 <name> [titles..] [options]')
  .command('$0 <name> [titles..]', 'greet someone', (y) =>
    y
      .positional('name', { describe: 'who to greet', type: 'string' })
      .positional('titles', { describe: 'their titles' })
  )
  .option('loud', { alias: 'l', type: 'boolean', describe: 'shout it' })
  .option('t', { alias: 'times', type: 'number', default: 1, choices: [1, 2, 3] })
  .options({
    lang: { type: 'string', demandOption: true, description: 'language (en, fr)' },
    'sign-off': { type: 'string', default: 'Bye' },
    cc: { type: 'array', describe: 'copy to' },
    polite: { type: 'boolean', default: true },
  })
  .strict()
  .help()
  .parse();
"""


def test_yargs_default_command_positionals_options_and_the_options_object(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    report = _discover(make_tool, tools_dir, config_dir, "greet.ts", YARGS, executable=False)
    assert not report.errors and [tool.name for tool in report.tools] == ["greet"]
    assert _script(config_dir, "greet").description == "greet someone"
    params = _params(config_dir, "greet")
    assert list(params) == ["name", "titles", "loud", "times", "lang", "sign-off", "cc", "polite"]
    assert params["name"] | {} == {
        "name": "name", "type": "string", "description": "who to greet", "required": True, "option": "",
    }  # fmt: skip
    assert (params["titles"]["type"], params["titles"]["required"]) == ("array", False)
    assert (params["loud"]["type"], params["loud"]["option"]) == ("boolean", "--loud")
    assert params["times"] | {} == {
        "name": "times", "type": "number", "description": "", "required": False, "default": 1,
        "enum": [1, 2, 3], "option": "--t",
    }  # fmt: skip
    assert (params["lang"]["required"], params["lang"]["description"]) == (True, "language (en, fr)")
    assert params["sign-off"]["default"] == "Bye"
    assert (params["cc"]["type"], params["cc"]["items"]) == ("array", "string")
    assert params["polite"]["default"] is True


def test_yargs_older_chained_style_and_demand_command(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    body = """\
    #!/usr/bin/env node
    // Tag files.
    var argv = require('yargs')
        .usage('Usage: $0 -n [name] file...')
        .demandOption(['n'])
        .alias('n', 'name')
        .describe('n', 'the tag to add')
        .boolean('dry')
        .default({ dry: false })
        .count('verbose').alias('v', 'verbose')
        .choices('mode', ['add', 'remove'])
        .demandCommand(1)
        .argv;
    """
    report = _discover(make_tool, tools_dir, config_dir, "tag.js", body)
    assert not report.errors
    assert _script(config_dir, "tag").description == "Tag files."
    params = _params(config_dir, "tag")
    assert list(params) == ["args", "name", "dry", "verbose", "mode"]
    assert (params["args"]["required"], params["args"]["min"], params["args"]["option"]) == (True, 1, "--")
    assert (params["name"]["required"], params["name"]["option"], params["name"]["description"]) == (
        True, "--n", "the tag to add",
    )  # fmt: skip
    assert (params["dry"]["type"], params["dry"]["default"]) == ("boolean", False)
    assert params["verbose"]["type"] == "boolean"
    assert params["mode"]["enum"] == ["add", "remove"]


YARGS_COMMANDS = """\
#!/usr/bin/env node
const yargs = require('yargs');
const { hideBin } = require('yargs/helpers');

yargs(hideBin(process.argv))
  .scriptName('kv')
  .usage('A key-value store')
  .option('store', { alias: 's', type: 'string', default: 'kv.json', describe: 'the file' })
  .command('get <key>', 'Read a value', (y) => {
    return y
      .positional('key', { type: 'string', describe: 'which one' })
      .option('json', { type: 'boolean', describe: 'as JSON' });
  }, (argv) => {})
  .command(['set <key> <value..>', 'put'], 'Write a value', {
    ttl: { type: 'number', describe: 'seconds to keep it' },
    store: { type: 'string', describe: 'another store' },
  })
  .command({ command: 'rm <key>', describe: 'Remove a value',
             builder: { force: { type: 'boolean', demandOption: true } } })
  .command('sync', 'Sync it', syncBuilder)
  .command('remote', 'Remotes', (y) => y.command('add <url>', 'add one'))
  .commandDir('more')
  .demandCommand(1)
  .strict()
  .parse();
"""


def test_yargs_subcommands_are_each_a_tool_with_the_programs_options(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    report = _discover(make_tool, tools_dir, config_dir, "kv.js", YARGS_COMMANDS)
    assert not report.errors, [str(error) for error in report.errors]
    assert [tool.name for tool in report.tools] == ["kv_get", "kv_rm", "kv_set"]  # no tool without a command
    assert sorted((w.line, w.reason[:40]) for w in report.warnings) == [
        (20, "the command 'sync' is left out: its opti"),
        (21, "the command 'remote' is left out: it has"),
        (22, "`.commandDir()` is left out: its command"),
    ]
    get = _script(config_dir, "kv_get")
    assert (get.command, get.description) == ("get", "Read a value")
    assert [(p.name, p.type, p.required, p.option, p.before_command) for p in get.parameters] == [
        ("store", "string", False, "--store", True),
        ("key", "string", True, "", False),
        ("json", "boolean", False, "--json", False),
    ]
    put = _script(config_dir, "kv_set")
    assert [(p.name, p.type, p.required, p.option) for p in put.parameters] == [
        ("store", "string", False, "--store"),
        ("key", "string", True, ""),
        ("value", "array", True, ""),
        ("ttl", "number", False, "--ttl"),
        ("set_store", "string", False, "--store"),
    ]
    rm = _script(config_dir, "kv_rm")
    assert [(p.name, p.required) for p in rm.parameters] == [("store", False), ("key", True), ("force", True)]


def test_yargs_default_command_beside_subcommands_is_a_tool_too(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    body = """\
    require('yargs')
      .command('$0 [name]', 'greet', (y) => y.positional('name', { type: 'string' }))
      .command('serve [port]', 'start', (y) => y.positional('port', { type: 'number' }), () => {})
      .argv;
    """
    report = _discover(make_tool, tools_dir, config_dir, "cli.js", body)
    assert [tool.name for tool in report.tools] == ["cli", "cli_serve"]
    assert [p.name for p in _script(config_dir, "cli").parameters] == ["name"]
    assert [(p.name, p.type) for p in _script(config_dir, "cli_serve").parameters] == [("port", "number")]


PARSE_ARGS = """\
#!/usr/bin/env node
// Fetch a URL and print its status.
const { parseArgs } = require('node:util');

const options = {
  method: { type: 'string', short: 'm', default: 'GET' },
  header: { type: 'string', multiple: true },
  insecure: { type: 'boolean' },
};
const { values, positionals } = parseArgs({ options, allowPositionals: true });
console.log(values, positionals);
"""


def test_parse_args_with_options_bound_to_a_constant(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    report = _discover(make_tool, tools_dir, config_dir, "fetch.cjs", PARSE_ARGS, executable=False)
    assert not report.errors
    assert _script(config_dir, "fetch").description == "Fetch a URL and print its status."
    params = _params(config_dir, "fetch")
    assert list(params) == ["method", "header", "insecure", "positionals"]
    assert (params["method"]["default"], params["method"]["option"]) == ("GET", "--method")
    assert (params["header"]["type"], params["header"]["items"]) == ("array", "string")
    assert params["insecure"]["type"] == "boolean"
    assert (params["positionals"]["type"], params["positionals"]["option"]) == ("array", "--")
    assert not any(param["required"] for param in params.values())


def test_parse_args_options_that_cannot_be_read_are_an_error(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    body = """\
    import { parseArgs } from 'node:util';
    import { shared } from './shared.js';
    parseArgs({ options: { ...shared, x: { type: 'string' } } });
    """
    report = _discover(make_tool, tools_dir, config_dir, "x.mjs", body)
    [error] = report.errors
    assert (error.path, error.line) == ("x.mjs", 3)


@pytest.mark.parametrize(
    ("name", "body"),
    [
        # Script Kit: a `// Name:` comment and `arg()` prompts.
        (
            "kit.js",
            "// Name: Greet\nimport '@johnlindquist/kit'\nconst { parseArgs } = require('node:util')\n"
            "let who = await arg('Who?')\nparseArgs({})\n",
        ),
        # A function-style tool: `exports.run`, read by its own dialect.
        (
            "fn.js",
            "const { program } = require('commander');\nexports.run = function ({ a }) { return a };\n"
            "program.option('--a <a>').parse();\n",
        ),
        # A library that uses commander but never parses.
        ("lib.js", "const { Command } = require('commander');\nmodule.exports = new Command('x');\n"),
        # util without parseArgs.
        ("u.js", "const util = require('util');\nconsole.log(util.inspect(process.argv));\n"),
    ],
)
def test_files_that_are_not_node_cli_scripts(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, name: str, body: str
) -> None:
    report = _discover(make_tool, tools_dir, config_dir, name, body, executable=False)
    assert not [tool for tool in report.tools if _script(config_dir, tool.name).dialect == "node-cli"]
