"""The kit dialect: `// Name:` and `// Description:` comments and a `schema = {...}` block,
read as text and never run."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from tests.conftest import MakeTool
from toolkiln.conventions.base import Candidate, Declaration
from toolkiln.conventions.kit import read as kit_dialect
from toolkiln.conventions.kit.read import parse_script, slug_name
from toolkiln.discover import DiscoveryReport, discover_tools
from toolkiln.errors import DiscoveryError
from toolkiln.files import load_tool_config, tool_config_path
from toolkiln.model import Parameter

PATH = "kit/create-note.js"

CREATE_NOTE = """\
#!/usr/bin/env node
// Name: Create Note
// Description: Format a note
const schema = {
  input: {
    title: { type: 'string', required: true, description: 'The title' },
    stars: { type: 'integer', min: 0, max: 5, default: 0 },
  },
}
console.log(process.env.title)
"""


def script(body: str) -> str:
    return textwrap.dedent(body).lstrip("\n")


def declare(body: str) -> Declaration:
    declaration = parse_script(script(body), PATH)
    assert declaration is not None
    return declaration


def js_input(inputs: str) -> str:
    """A JavaScript kit script whose `schema.input` holds `inputs` (from line 4 on)."""
    return f"// Name: Test\n// Description: A test\nschema = {{\n  input: {{\n{inputs}\n  }},\n}}\n"


def one_param(spec: str) -> Parameter:
    [param] = declare(js_input(f"    x: {spec},")).parameters
    return param


def schema_error(body: str) -> DiscoveryError:
    with pytest.raises(DiscoveryError) as caught:
        parse_script(script(body), PATH)
    assert caught.value.path == PATH
    return caught.value


def discover(tools_dir: Path, config_dir: Path) -> DiscoveryReport:
    return discover_tools(tools_dir, config_dir, probe_timeout=5.0)


def changes(report: DiscoveryReport) -> dict[str, str]:
    return {tool.name: tool.change for tool in report.tools}


# --- the three ways to write the schema ------------------------------------------------------


def test_javascript_literal() -> None:
    declaration = declare(CREATE_NOTE)
    assert (declaration.dialect, declaration.description, declaration.title) == (
        "kit",
        "Format a note",
        "Create Note",
    )
    assert declaration.parameters == [
        Parameter(name="title", type="string", required=True, description="The title"),
        Parameter(name="stars", type="integer", min=0, max=5, default=0),
    ]
    assert declaration.warnings == []


def test_json() -> None:
    declaration = declare(
        """
        // Name: Json
        // Description: JSON schema
        schema = {"input": {"a": {"type": "number", "required": false, "default": 1.5}}}
        """
    )
    assert declaration.parameters == [Parameter(name="a", type="number", default=1.5)]


def test_python_dict_with_comments_and_python_constants() -> None:
    declaration = declare(
        """
        #!/usr/bin/env python3
        # Name: Word Count
        # Description: Count words
        import json

        schema = {
            "input": {
                "text": {"type": "string", "required": True},  # a Python comment
                "ignore_case": {"type": "boolean", "default": True},
            },
        }
        """
    )
    assert declaration.parameters == [
        Parameter(name="text", type="string", required=True),
        Parameter(name="ignore_case", type="boolean", default=True),
    ]


@pytest.mark.parametrize("marker", ["#", "//"])
def test_a_schema_in_comments(marker: str) -> None:
    declaration = declare(
        f"""
        #!/bin/bash
        {marker} Name: Shell Note
        {marker} Description: A shell script keeps its schema in comments
        {marker} schema = {{
        {marker}   input: {{
        {marker}     title: {{ type: "string", required: true }},  // a comment inside the block
        {marker}     tag: {{ type: "string" }},
        {marker}   }},
        {marker} }}
        echo "$title"
        """
    )
    assert [(p.name, p.required) for p in declaration.parameters] == [("title", True), ("tag", False)]


def test_a_schema_in_comments_must_close_before_the_comments_end() -> None:
    failure = schema_error(
        """
        # Name: Shell Note
        # Description: d
        # schema = {
        #   input: {
        #     title: { type: "string" },
        echo "$title"
        """
    )
    assert failure.line == 5
    assert "schema (in comments): expected a key or `}`, found the end of the text" in str(failure)


@pytest.mark.parametrize(
    "declaration",
    [
        "export const schema = {",
        "let schema = {",
        "var schema={",
        "schema: Schema = {",
        "export const schema: { input: Record<string, unknown> } = {",
    ],
)
def test_typescript_and_javascript_declarations(declaration: str) -> None:
    text = f"// Name: T\n// Description: d\n{declaration}\n  input: {{ a: {{ type: 'string' }} }},\n}}\n"
    parsed = parse_script(text, PATH)
    assert parsed is not None and [p.name for p in parsed.parameters] == ["a"]


def test_code_after_the_schema_is_never_read() -> None:
    declaration = declare(
        """
        // Name: T
        // Description: d
        schema = { input: { a: { type: 'string' } } }; const b = `${a}` + /[/ + {
        """
    )
    assert [p.name for p in declaration.parameters] == ["a"]


# --- not a tool --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "schema", ["schema = { input: {} }", "schema = {}", "schema = { output: { a: { type: 'string' } } }"]
)
def test_an_empty_or_missing_input_is_not_a_tool(schema: str) -> None:
    assert parse_script(f"// Name: T\n{schema}\n", PATH) is None


# --- each field ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("string", "string"),
        ("number", "number"),
        ("integer", "integer"),
        ("boolean", "boolean"),
        ("array", "array"),
        ("object", "object"),
        ("any", "any"),
        ("String", "string"),
    ],
)
def test_every_type(written: str, expected: str) -> None:
    assert one_param(f"{{ type: '{written}' }}").type == expected


def test_type_defaults_to_string() -> None:
    assert one_param("{ description: 'plain' }") == Parameter(name="x", description="plain")


def test_enum_of_strings_with_a_default() -> None:
    assert one_param("{ type: 'enum', enum: ['a', 'b'], default: 'b' }") == Parameter(
        name="x", type="string", enum=["a", "b"], default="b"
    )


@pytest.mark.parametrize(
    ("spec", "expected_type"),
    [
        ("{ enum: ['a', 'b'] }", "string"),
        ("{ enum: [1, 2, 3] }", "integer"),
        ("{ enum: [0.5, 1] }", "number"),
        ("{ type: 'enum', enum: [1, 2] }", "integer"),
        ("{ type: 'number', enum: [1, 2] }", "number"),
        ("{ type: 'string', enum: ['x'] }", "string"),
    ],
)
def test_enum_types(spec: str, expected_type: str) -> None:
    assert one_param(spec).type == expected_type


@pytest.mark.parametrize("items", ["'string'", "{ type: 'string' }", "'STRING'"])
def test_array_items(items: str) -> None:
    assert one_param(f"{{ type: 'array', items: {items}, default: [], max: 3 }}") == Parameter(
        name="x", type="array", items="string", default=[], max=3
    )


def test_min_and_max() -> None:
    assert (one_param("{ type: 'number', min: -1.5, max: 1e3 }").min, one_param("{ max: 10 }").max) == (
        -1.5,
        10,
    )
    assert one_param("{ type: 'string', min: 1, max: 5 }") == Parameter(name="x", min=1, max=5)


def test_required_ignores_a_default_and_secret_and_path() -> None:
    assert one_param("{ required: true, default: 'ignored' }") == Parameter(name="x", required=True)
    assert one_param("{ secret: true }") == Parameter(name="x", secret=True)
    assert one_param("{ type: 'path' }") == Parameter(name="x", kind="path")


def test_null_bounds_and_default_mean_none() -> None:
    assert one_param("{ type: 'integer', min: null, default: null }") == Parameter(name="x", type="integer")


def test_parameters_keep_their_order() -> None:
    declaration = declare(js_input("    b: {},\n    a: {},\n    c: {},"))
    assert [p.name for p in declaration.parameters] == ["b", "a", "c"]


def test_an_unknown_key_is_a_warning_with_its_line() -> None:
    declaration = declare(
        js_input("    x: {\n      type: 'string',\n      placeholder: 'Type here',\n    },")
    )
    [warning] = declaration.warnings
    assert str(warning) == (
        f"{PATH}:7: input 'x': ignoring unknown key 'placeholder' "
        "(known: type, description, required, default, enum, min, max, items, secret, example, multiline)"
    )
    assert declaration.parameters == [Parameter(name="x")]


# --- errors name the file and the line -------------------------------------------------------


@pytest.mark.parametrize(
    ("inputs", "line", "message"),
    [
        ("    x: { type: 'float' },", 5, "input 'x': unknown type 'float' (known: string, integer, number"),
        ("    x: { type: 3 },", 5, "input 'x': 'type' must be a string such as 'string', not 3"),
        (
            "    x: 'string',",
            5,
            "input 'x': must be an object such as { type: 'string', description: '...' }",
        ),
        (
            "    x: {\n      required: 'yes',\n    },",
            6,
            "input 'x': 'required' must be true or false, not 'yes'",
        ),
        ("    x: { secret: 1 },", 5, "input 'x': 'secret' must be true or false, not 1"),
        ("    x: { description: 42 },", 5, "input 'x': 'description' must be a string"),
        ("    x: { type: 'integer', min: '0' },", 5, "input 'x': 'min' must be a number, not '0'"),
        ("    x: { type: 'array', items: 'thing' },", 5, "input 'x': 'items' must be a type name"),
        ("    x: { type: 'enum' },", 5, "input 'x': type 'enum' needs its values: enum: ['a', 'b']"),
        ("    x: { enum: [] },", 5, "input 'x': 'enum' must be a non-empty list of values"),
        ("    x: { enum: ['a', 1] },", 5, "input 'x': enum values must all be strings or all numbers"),
        (
            "    x: { type: 'integer', default: 'many' },",
            5,
            "input 'x': default 'many': is not of type integer",
        ),
        ("    x: { type: 'integer', min: 5, max: 1 },", 5, "input 'x': 'min' (5) is greater than 'max' (1)"),
        ("    x: { type: 'boolean', min: 1 },", 5, "input 'x': 'min'/'max' do not apply to type boolean"),
        ("    x: { type: 'string', items: 'string' },", 5, "input 'x': 'items' applies only to type array"),
        ("    x: { enum: ['a'], default: 'b' },", 5, "input 'x': default 'b': is not one of ['a']"),
        ("    'bad name': {},", 5, "input 'bad name': parameter name 'bad name' must start with a letter"),
        ("    PATH: {},", 5, "would overwrite the environment variable PATH"),
        ("    x: { type: 'string' }\n    y: {},", 6, "schema: expected `,` or `}`, found `y`"),
        ("    x: { type: string },", 5, "schema: `string` is a name, not a value"),
        ("    x: {},\n    x: {},", 6, "schema: key 'x' is given twice (first on line 5)"),
    ],
)
def test_bad_schemas_report_file_and_line(inputs: str, line: int, message: str) -> None:
    failure = schema_error(js_input(inputs))
    assert failure.line == line
    assert str(failure).startswith(f"{PATH}:{line}: ")
    assert message in str(failure)


def test_an_unknown_key_of_the_schema_is_an_error() -> None:
    failure = schema_error("// Name: T\n// Description: d\nschema = {\n  inputs: { a: {} },\n}\n")
    assert str(failure) == f"{PATH}:4: unknown key 'inputs' in the schema (a schema has input and output)"


def test_input_must_be_an_object() -> None:
    failure = schema_error("// Name: T\n// Description: d\nschema = {\n  input: ['a'],\n}\n")
    assert str(failure) == f"{PATH}:4: schema.input must be an object: {{ name: {{ type: ... }}, ... }}"


def test_a_description_is_required() -> None:
    failure = schema_error("// Name: T\nschema = { input: { a: {} } }\n")
    assert failure.line == 1
    assert "needs a `// Description:` (or `# Description:`) comment before its schema" in str(failure)
    assert schema_error("// Name: T\n// Description:\nschema = { input: { a: {} } }\n").line == 2


def test_metadata_after_the_schema_does_not_count() -> None:
    failure = schema_error("// Name: T\nschema = { input: { a: {} } }\n// Description: too late\n")
    assert "needs a `// Description:`" in str(failure)


# --- names --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Create Note", "create-note"),
        ("Git Commit", "git-commit"),
        ("  Git: Commit!!  ", "git-commit"),
        ("Café Menü", "cafe-menu"),
        ("snake_case and CamelCase", "snake-case-and-camelcase"),
        ("v1.2 Release", "v1-2-release"),
        ("a" * 70, "a" * 64),
        ("word " * 20, ("word-" * 13).rstrip("-")),
    ],
)
def test_names_are_slugs(name: str, slug: str) -> None:
    assert slug_name(name) == slug


@pytest.mark.parametrize("name", ["メモ", "!!!", ""])
def test_a_name_without_letters_or_digits_is_an_error(name: str) -> None:
    assert slug_name(name) == ""
    failure = schema_error(f"// Name: {name}\n// Description: d\nschema = {{ input: {{ a: {{}} }} }}\n")
    assert str(failure).startswith(f"{PATH}:1: the Name {name!r} has no letters or digits")
    assert parse_script(f"// Name: {name}\nschema = {{ input: {{}} }}\n", PATH) is None  # not a tool


# --- claims -------------------------------------------------------------------------------------


def candidate(path: Path) -> Candidate:
    return Candidate(path=path, relative_path=path.name, stat=path.stat())


@pytest.mark.parametrize(
    ("file_name", "body", "executable", "claimed"),
    [
        ("note.js", CREATE_NOTE, False, True),  # node runs a .js without the exec bit
        ("note.ts", CREATE_NOTE, False, True),
        ("note", CREATE_NOTE, True, True),  # any executable
        ("note", CREATE_NOTE, False, False),  # nothing could run it
        ("note.md", CREATE_NOTE, False, False),
        ("note.js", CREATE_NOTE.replace("// Name: Create Note\n", ""), True, False),
        ("note.js", CREATE_NOTE.replace("const schema = {", "const other = {"), True, False),
        ("note.js", "const schema = { input: { a: {} } }\n// Name: Too late\n", True, False),
        ("note.py", "# Name: N\n# Description: d\nschema = {'input': {'a': {}}}\n", False, True),
    ],
)
def test_claims(tmp_path: Path, file_name: str, body: str, executable: bool, claimed: bool) -> None:
    path = tmp_path / file_name
    path.write_text(body)
    if executable:
        path.chmod(0o755)
    assert kit_dialect.claims(candidate(path)) is claimed


# --- discovery ---------------------------------------------------------------------------------


def test_discovered_under_the_slug_of_its_name(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    marker = tools_dir.parent / "ran"
    make_tool(
        "notes/new.js", CREATE_NOTE.replace("console.log", f"require('fs').writeFileSync('{marker}', '');")
    )
    report = discover(tools_dir, config_dir)
    assert (changes(report), report.errors, report.warnings) == ({"create-note": "created"}, [], [])
    assert not marker.exists()  # read, never run
    config = load_tool_config(tool_config_path(config_dir, "create-note")).script_config
    assert (config.name, config.dialect, config.script_path, config.script_type, config.declared_title) == (
        "create-note",
        "kit",
        "notes/new.js",
        "node",
        "Create Note",
    )
    assert changes(discover(tools_dir, config_dir)) == {"create-note": "unchanged"}


def test_an_empty_input_is_quietly_not_a_tool_and_not_probed(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    marker = tools_dir.parent / "ran"
    make_tool("plain.sh", f"#!/bin/sh\n# Name: Plain\n# schema = {{ input: {{}} }}\ntouch '{marker}'\n")
    report = discover(tools_dir, config_dir)
    assert (report.tools, report.errors, report.warnings) == ([], [], [])
    assert not marker.exists()


def test_a_bad_schema_is_reported_and_the_others_are_discovered(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("good.js", CREATE_NOTE)
    make_tool(
        "bad.js", CREATE_NOTE.replace("// Name: Create Note", "// Name: Bad").replace("min: 0,", "min: zero,")
    )
    report = discover(tools_dir, config_dir)
    assert [str(error) for error in report.errors] == [
        "bad.js:7: schema: `zero` is a name, not a value: the schema is read as text, never run, "
        "so values must be literals (strings, numbers, true, false, null, arrays, objects)"
    ]
    assert changes(report) == {"create-note": "created"}


def test_a_kit_name_and_a_path_name_that_collide(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("a-note.js", CREATE_NOTE)
    make_tool("create-note.sh", "#!/bin/sh\n# Tool: t\n# Description: annotated\n")
    report = discover(tools_dir, config_dir)
    [error] = report.errors
    assert str(error) == (
        "create-note.sh: both a-note.js and create-note.sh would be the tool 'create-note'; rename one"
    )
    assert changes(report) == {"create-note": "created"}


def test_two_kit_scripts_with_one_name(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool("one.js", CREATE_NOTE)
    make_tool("two/note.py", "# Name: Create  note!\n# Description: d\nschema = {'input': {'a': {}}}\n")
    [error] = discover(tools_dir, config_dir).errors
    assert "one.js" in str(error) and "two/note.py" in str(error) and "'create-note'" in str(error)


def test_a_name_without_letters_is_reported_and_the_others_are_discovered(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("good.js", CREATE_NOTE)
    make_tool("bad.js", CREATE_NOTE.replace("Create Note", "!!!"))
    report = discover(tools_dir, config_dir)
    assert [str(error) for error in report.errors] == [
        "bad.js:2: the Name '!!!' has no letters or digits to make a tool name of "
        "(a kit tool's name is its Name's ASCII letters and digits joined by `-`)"
    ]
    assert changes(report) == {"create-note": "created"}


def test_a_new_name_is_a_new_tool_and_the_old_config_is_reported(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("note.js", CREATE_NOTE)
    discover(tools_dir, config_dir)
    make_tool("note.js", CREATE_NOTE.replace("Create Note", "Make Note"))
    report = discover(tools_dir, config_dir)
    assert changes(report) == {"create-note": "missing", "make-note": "created"}
    assert [str(warning) for warning in report.warnings] == [
        "note.js: is now the tool 'make-note'; its old config create-note.json is kept: "
        "delete it, after copying any settings of yours to the new one"
    ]


def test_user_settings_survive_rediscovery(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> None:
    make_tool("note.js", CREATE_NOTE)
    discover(tools_dir, config_dir)
    path = tool_config_path(config_dir, "create-note")
    path.write_text(path.read_text().replace('"name": "create-note"', '"name": "note"'))
    make_tool("note.js", CREATE_NOTE.replace("Format a note", "Format a note nicely"))
    assert changes(discover(tools_dir, config_dir)) == {"note": "updated"}
    config = load_tool_config(path).script_config
    assert (config.name, config.description) == ("note", "Format a note nicely")


# --- what runs the script ------------------------------------------------------------------


def write_ts(make_tool: MakeTool) -> None:
    make_tool("note.ts", CREATE_NOTE.replace("#!/usr/bin/env node\n", ""), executable=False)


def test_typescript_without_a_runner_is_reported_and_the_others_are_discovered(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    write_ts(make_tool)
    make_tool(
        "other.py", "#!/usr/bin/env python3\n# Name: Other\n# Description: d\nschema = {'input': {'a': {}}}\n"
    )
    report = discover(tools_dir, config_dir)
    assert [str(error) for error in report.errors] == [
        "note.ts: cannot be run: it has no shebang line (or is not executable), and no interpreter for "
        ".ts files (tsx, ts-node, bun, deno or node 22.6 or later) is installed on the PATH; install "
        "one, or add a shebang "
        f"line and run: chmod +x {tools_dir / 'note.ts'}"
    ]
    assert changes(report) == {"other": "created"}  # run by its shebang: no interpreter needed


def test_typescript_with_a_runner_on_the_path(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "bun").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "bun").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    write_ts(make_tool)
    report = discover(tools_dir, config_dir)
    assert (changes(report), report.errors) == ({"create-note": "created"}, [])
    assert (
        load_tool_config(tool_config_path(config_dir, "create-note")).script_config.script_type
        == "typescript"
    )


def test_an_executable_without_a_shebang_or_a_known_extension(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool("note.rb", "# Name: Note\n# Description: d\n# schema = { input: { a: {} } }\nputs 1\n")
    [error] = discover(tools_dir, config_dir).errors
    assert str(error) == (
        "note.rb: cannot be run: it has no shebang line (or is not executable) and toolkiln knows no "
        f"interpreter for .rb; add a shebang line such as #!/usr/bin/env ruby and run: "
        f"chmod +x {tools_dir / 'note.rb'}"
    )


# --- Script Kit's defineSchema({...}) call and its metadata object ------------------------------


@pytest.mark.parametrize(
    "opening",
    [
        "const { input, output } = defineSchema({",
        "export const schema = defineSchema({",
        "const schema: Schema = defineSchema ({",
        "defineSchema({",
        "const { input } = defineSchema<Input>(\n{",
    ],
)
def test_define_schema_call_forms(opening: str) -> None:
    declaration = declare(
        f"""
        import "@johnlindquist/kit"
        // Name: Greet
        // Description: Say hello
        {opening}
          input: {{
            greeting: {{ type: "string", required: true, description: "What to say" }},
            times: {{ type: "number", default: 1, example: 3 }},
            langs: {{ type: "array", items: {{ type: "string", enum: ["en", "fr"] }} }},
          }},
          output: {{ message: {{ type: "string" }} }},
        }} as const)

        const {{ greeting }} = await input()
        """
    )
    assert (declaration.title, declaration.description) == ("Greet", "Say hello")
    assert [(p.name, p.type, p.required) for p in declaration.parameters] == [
        ("greeting", "string", True),
        ("times", "number", False),
        ("langs", "array", False),
    ]
    assert declaration.parameters[1].examples == [3]
    assert declaration.parameters[2].items == "string"
    assert declaration.warnings == []


def test_the_metadata_object_names_and_describes_the_tool() -> None:
    declaration = declare(
        """
        export const metadata = {
          name: "Create Note",
          description: 'Format a note',  // a comment
          shortcut: "cmd shift n",
        }
        const { input } = defineSchema({ input: { title: { type: "string", required: true } } })
        """
    )
    assert (declaration.title, declaration.description) == ("Create Note", "Format a note")


def test_comments_win_over_the_metadata_object_and_fill_what_it_lacks() -> None:
    declaration = declare(
        """
        // Description: From the comment
        metadata = { name: "From Object", description: "not this one" }
        schema = { input: { a: { type: "string" } } }
        """
    )
    assert (declaration.title, declaration.description) == ("From Object", "From the comment")


def test_a_define_schema_script_needs_a_description_but_no_name() -> None:
    declaration = declare("// Description: d\ndefineSchema({ input: { a: {} } })\n")
    assert declaration.title is None
    assert parse_script("const schema = defineSchema({ users: { name: 'x' } })\n", PATH) is None
    failure = schema_error('metadata = { name: "N" }\ndefineSchema({ input: { a: {} } })\n')
    assert "needs a `// Description:`" in str(failure)


@pytest.mark.parametrize(
    ("body", "claimed"),
    [
        ("const { input } = defineSchema({ input: { a: {} } })\n", True),
        ('metadata = { name: "N", description: "d" }\nschema = { input: { a: {} } }\n', True),
        ('metadata = { description: "d" }\nschema = { input: { a: {} } }\n', False),
        ("const x = defineSchemaLater({ input: {} })\n", False),
        ("db.defineSchema({ users: {} })\n", False),
        ('import { defineSchema } from "convex/server"\nconst schema = defineSchema({ users: {} })\n', False),
        ('import { defineSchema } from "@johnlindquist/kit"\ndefineSchema({ input: { a: {} } })\n', True),
    ],
)
def test_claims_of_the_call_form_and_the_metadata_object(tmp_path: Path, body: str, claimed: bool) -> None:
    path = tmp_path / "tool.js"
    path.write_text(body)
    assert kit_dialect.claims(candidate(path)) is claimed


def test_a_define_schema_script_without_a_name_is_named_after_its_path(
    make_tool: MakeTool, tools_dir: Path, config_dir: Path
) -> None:
    make_tool(
        "kit/word-count.js",
        'export const metadata = { description: "Count words" }\n'
        'const { input } = defineSchema({ input: { text: { type: "string", required: true } } })\n',
        executable=False,
    )
    report = discover(tools_dir, config_dir)
    assert not report.errors, [str(error) for error in report.errors]
    assert [tool.name for tool in report.tools] == ["kit__word-count"]
