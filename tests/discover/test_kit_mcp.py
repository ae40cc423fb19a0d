"""Script Kit's MCP scripts (`// mcp: tool-name`): their parameters from `arg()` calls or a
`params({...})` schema, read as text and never run; and which kit scripts need toolkiln's
Script Kit runtime (the `scriptkit` dialect). The fixtures follow the shapes of Script Kit's
own docs (docs/mcp-integration.md, docs/mcp-metadata-feature.md, test-scripts/mcp-*.ts)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.conftest import MakeTool
from toolkiln.conventions.kit.read import parse_script
from toolkiln.conventions.scriptkit.args import arg_parameters, code_mask, params_call, params_parameters
from toolkiln.conventions.scriptkit.read import mcp_name, uses_scriptkit
from toolkiln.discover import DiscoveryReport, discover_tools
from toolkiln.errors import DiscoveryError
from toolkiln.files import load_tool_config, tool_config_path
from toolkiln.model import Parameter

PATH = "kit/tool.js"


def script(body: str) -> str:
    return textwrap.dedent(body).lstrip("\n")


def arg_params(body: str) -> list[Parameter]:
    return arg_parameters(script(body), PATH)


def schema_params(body: str) -> list[Parameter]:
    text = script(body)
    call = params_call(text)
    assert call is not None
    return params_parameters(text, call, PATH)


def shapes(parameters: list[Parameter]) -> list[tuple[str, str, bool, list[object] | None]]:
    return [(p.name, p.description, p.required, p.enum) for p in parameters]


def arg_error(body: str) -> DiscoveryError:
    with pytest.raises(DiscoveryError) as caught:
        arg_params(body)
    return caught.value


# --- arg() calls ---------------------------------------------------------------------------


def test_each_arg_call_in_order_is_a_required_string_named_after_its_variable() -> None:
    parameters = arg_params(
        """
        // mcp: example-tool
        import "@johnlindquist/kit"

        // Script Kit will prompt for these if not provided via MCP: arg("not this one")
        const name = await arg("What's your name?")
        let age: string = await arg('What\\'s your age?')
        const favoriteColor = await arg({
          placeholder: "What's your favorite color?",
          choices: ["red", "blue", "green"],
        })
        const s = "arg(in a string)"
        """
    )
    assert shapes(parameters) == [
        ("name", "What's your name?", True, None),
        ("age", "What's your age?", True, None),
        ("favoriteColor", "What's your favorite color?", True, ["red", "blue", "green"]),
    ]
    assert {(p.type, p.option) for p in parameters} == {("string", "")}


def test_choices_as_a_second_argument_and_as_name_value_objects() -> None:
    parameters = arg_params(
        """
        const op = await arg("Operation", ["add", "subtract", "multiply"])
        const size = await arg("Size", [{ name: "Small", value: "s" }, { name: "Large", value: "l" }])
        const dynamic = await arg("Pick one", makeChoices())
        """
    )
    assert [p.enum for p in parameters] == [["add", "subtract", "multiply"], ["s", "l"], None]


def test_a_call_without_a_variable_is_named_after_its_placeholder_else_by_its_place() -> None:
    parameters = arg_params(
        """
        async function main() {
          await arg("Target URL!")
          console.log(await arg())
          const [a] = [await arg({ hint: "no placeholder" })]
        }
        await main()
        """
    )
    assert [p.name for p in parameters] == ["target_url", "arg2", "arg3"]


def test_names_stay_unique_and_valid() -> None:
    parameters = arg_params(
        """
        let $x = await arg("first")
        $x = await arg("second")
        const value =
          await arg("on the next line")
        """
    )
    assert [p.name for p in parameters] == ["_x", "_x_2", "value"]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("for (const i of [1, 2]) {\n  items.push(await arg(`Item ${i}`))\n}\n", "is called in a loop"),
        ("while (more) {\n  x = await arg('again?')\n}\n", "is called in a loop"),
        ("const all = await Promise.all(names.map(async (n) => {\n  return await arg(n)\n}))\n", "callback"),
        ("if (flag) {\n  const x = await arg('maybe')\n}\n", "only on some paths"),
        ("if (a) {} else {\n  await arg('other')\n}\n", "only on some paths"),
        ("const x = flag ? await arg('a') : 'b'\n", "only on some paths"),
    ],
)
def test_an_arg_that_may_run_other_than_once_is_an_error_with_its_line(body: str, reason: str) -> None:
    error = arg_error("const first = await arg('ok')\n" + body)
    assert reason in error.reason
    assert "cannot be known without running the script" in error.reason
    assert error.path == PATH and error.line is not None and error.line > 1


def test_the_code_mask_hides_comments_and_strings_but_keeps_lines() -> None:
    text = "a('x{') // arg(\nb(`y\n}`) /* arg( */ c"
    mask = code_mask(text)
    assert len(mask) == len(text) and mask.count("\n") == text.count("\n")
    assert "arg" not in mask and "{" not in mask and "}" not in mask


# --- params({...}) and tool({...}) -----------------------------------------------------------


def test_params_short_form() -> None:
    parameters = schema_params(
        """
        const { city, days, metric, tags, unit } = await params({
          city: "The city to look up",
          days: 3,
          metric: true,
          tags: ["a"],
          unit: { type: "string", enum: ["c", "f"], description: "Unit" },
        })
        """
    )
    got = [(p.name, p.type, p.required, p.default, p.enum) for p in parameters]
    assert got == [
        ("city", "string", True, None, None),
        ("days", "number", False, 3, None),
        ("metric", "boolean", False, True, None),
        ("tags", "array", False, ["a"], None),
        ("unit", "string", True, None, ["c", "f"]),
    ]


def test_params_json_schema_and_tool_input_schema() -> None:
    json_schema = """
        const input = await params<{ q: string }>({
          type: "object",
          properties: {
            q: { type: "string", description: "Query", minLength: 1 },
            limit: { type: "integer", minimum: 1, maximum: 50, default: 10 },
            ids: { type: "array", items: { type: "number" } },
          },
          required: ["q"],
        } as const)
        const ignored = await arg("not a parameter: params() declares the input")
    """
    parameters = schema_params(json_schema)
    got = [(p.name, p.type, p.required, p.default, p.min, p.max, p.items) for p in parameters]
    assert got == [
        ("q", "string", True, None, 1, None, None),
        ("limit", "integer", False, 10, 1, 50, None),
        ("ids", "array", False, None, None, None, "number"),
    ]
    tool = schema_params(
        """
        const { text } = await tool({
          name: "shout",
          inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
        })
        """
    )
    assert [(p.name, p.required) for p in tool] == [("text", True)]


def test_a_computed_params_schema_is_an_error() -> None:
    with pytest.raises(DiscoveryError) as caught:
        schema_params("const schema = {a: 'b'}\n\nconst x = await params(schema)\n")
    assert "not a plain object literal" in caught.value.reason and caught.value.line == 3


# --- which scripts need the runtime -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "suffix", "expected"),
    [
        ('import "@johnlindquist/kit"\n', ".ts", True),
        ("import { arg } from '@johnlindquist/kit'\n", ".js", True),
        ("const { input } = defineSchema({ input: {} })\n", ".js", True),
        ("const x = await arg('x')\n", ".mjs", True),
        ("await sendResult('done')\n", ".js", True),
        ("schema = { input: { a: {} } }\nconsole.log(process.env.a)\n", ".js", False),
        ("function defineSchema(s) { return s }\ndefineSchema({ input: {} })\n", ".js", False),
        ('import "@johnlindquist/kit"\n', ".py", False),
    ],
)
def test_uses_scriptkit(text: str, suffix: str, expected: bool) -> None:
    assert uses_scriptkit(text, suffix) is expected


def test_kit_scripts_of_both_kinds_keep_their_parameters() -> None:
    seed = "// Name: A\n// Description: d\nschema = { input: { a: { type: 'string' } } }\n"
    define = (
        'import "@johnlindquist/kit"\n'
        + seed.replace("schema = {", "const { input } = defineSchema({")
        + ")\n"
    )
    for text, dialect in ((seed, "kit"), (define, "scriptkit")):
        declaration = parse_script(text, "kit/a.js")
        assert declaration is not None
        assert (declaration.dialect, [p.name for p in declaration.parameters]) == (dialect, ["a"])


@pytest.mark.parametrize(
    ("line", "name"),
    [("// mcp: send-email", "send-email"), ("//mcp:true", ""), ("// MCP: 'My Tool'", "my-tool"), ("", None)],
)
def test_mcp_name(line: str, name: str | None) -> None:
    assert mcp_name(f"// Name: X\n{line}\nconst a = 1\n") == name


# --- through discovery ----------------------------------------------------------------------------


def discover(tools_dir: Path, config_dir: Path) -> DiscoveryReport:
    return discover_tools(tools_dir, config_dir)


def test_discovery_names_describes_and_reasons(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool(
        "mail.js",
        """
        // Name: Send Email
        // Description: Send an email
        // mcp: send-email
        import "@johnlindquist/kit"
        const to = await arg("Recipient email")
        const body = await arg({ placeholder: "Email body", hint: "Markdown supported" })
        export default { to, body }
        """,
        executable=False,
    )
    make_tool(
        "greet.js", "// mcp: true\nconst who = await arg('Who?')\nexport default who\n", executable=False
    )
    make_tool("ui.js", 'import "@johnlindquist/kit"\nawait div(md("# Hi"))\n', executable=False)
    make_tool("off.js", "// Name: Off\n// mcp: false\nconst a = await arg('a')\n", executable=False)
    make_tool(
        "loop.js",
        "// mcp: looped\nfor (const i of [1, 2]) {\n  await arg('x')\n}\n",
        executable=False,
    )
    report = discover(tools_dir, config_dir)
    assert sorted(tool.name for tool in report.tools) == ["greet", "send-email"]
    assert [f"{e.path}:{e.line}" for e in report.errors] == ["loop.js:3"]
    assert sorted((n.path, n.kind) for n in report.not_tools) == [
        ("off.js", "scriptkit-no-mcp"),
        ("ui.js", "scriptkit-no-mcp"),
    ]
    config = load_tool_config(tool_config_path(config_dir, "send-email")).script_config
    assert (config.dialect, config.description, config.declared_title) == (
        "scriptkit",
        "Send an email",
        "Send Email",
    )
    assert [(p.name, p.description) for p in config.parameters] == [
        ("to", "Recipient email"),
        ("body", "Email body"),
    ]
    greet = load_tool_config(tool_config_path(config_dir, "greet")).script_config
    assert greet.description == "Run the Script Kit script greet.js"


def test_a_typescript_script_without_a_new_enough_node_says_what_to_install(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    make_tool("t.ts", "// mcp: typed\nconst a: string = await arg('a')\n", executable=False)
    [error] = discover(tools_dir, config_dir).errors
    assert error.path == "t.ts"
    assert "node (Node.js) 22.6 or later (which runs TypeScript itself)" in error.reason
