"""discover.python_argparse / python_click / python_typer: command-line scripts read with
`ast` (never imported), in the shapes people write them."""

from __future__ import annotations

import asyncio
import textwrap
from pathlib import Path
from typing import Any

import pytest

from toolkiln.conventions.base import Candidate, Declaration, NotATool, Probe
from toolkiln.conventions.python import execute as python_module
from toolkiln.errors import DiscoveryError

NEVER_RUN = 'raise SystemExit("discovery must never import me")\n'


def declare(tmp_path: Path, body: str, name: str = "tool.py") -> Declaration:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    candidate = Candidate(path, name, path.stat())
    assert python_module.claims(candidate)
    [declaration] = asyncio.run(python_module.declare(candidate, Probe(timeout=1)))
    return declaration


def declare_all(tmp_path: Path, body: str, name: str = "tool.py") -> list[Declaration]:
    """The tools of a script with subcommands: one per subcommand (and the script's own)."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    candidate = Candidate(path, name, path.stat())
    assert python_module.claims(candidate)
    return asyncio.run(python_module.declare(candidate, Probe(timeout=1)))


def by_command(declarations: list[Declaration]) -> dict[str | None, Declaration]:
    return {declaration.command: declaration for declaration in declarations}


def params(declaration: Declaration) -> dict[str, dict[str, Any]]:
    return {p.name: p.model_dump() for p in declaration.parameters}


def shape(declaration: Declaration) -> list[tuple[Any, ...]]:
    """(name, type, required, option, option_form) of each parameter."""
    return [(p.name, p.type, p.required, p.option, p.option_form) for p in declaration.parameters]


def test_argparse_at_module_level_with_every_common_argument(tmp_path: Path) -> None:
    declaration = declare(
        tmp_path,
        '''\
        #!/usr/bin/env python3
        """Resize images in a folder.

        Longer text that is not the description.
        """
        import argparse
        from pathlib import Path

        FORMATS = ["png", "jpeg", "webp"]
        parser = argparse.ArgumentParser()
        parser.add_argument("source", type=Path, help="Folder to read")
        parser.add_argument("dest", nargs="?", default="out", help="Where to write (default: %(default)s)")
        parser.add_argument("-w", "--width", type=int, required=True, help="Width in pixels")
        parser.add_argument("--scale", type=float, default=1.0)
        parser.add_argument("--format", choices=FORMATS, default="png")
        parser.add_argument("--quality", type=int, choices=range(1, 4), default=2)
        parser.add_argument("--dry-run", action="store_true", help="Only print")
        parser.add_argument("--no-cache", dest="cache", action="store_false")
        parser.add_argument("-v", "--verbose", action="count", default=0)
        parser.add_argument("--tag", action="append", help="Repeatable")
        parser.add_argument("--only", nargs="+", type=int)
        parser.add_argument("--size", nargs=2, type=int, metavar=("W", "H"))
        parser.add_argument("--color", action=argparse.BooleanOptionalAction, default=True)
        parser.add_argument("--secret-debug", help=argparse.SUPPRESS)
        parser.add_argument("--version", action="version", version="1.0")
        args = parser.parse_args()
        '''
        + NEVER_RUN,
    )
    assert declaration.python_entry == "script"
    assert declaration.description == "Resize images in a folder."
    assert shape(declaration) == [
        ("source", "string", True, "", None),
        ("dest", "string", False, "", None),
        ("width", "integer", True, "--width", None),
        ("scale", "number", False, "--scale", None),
        ("format", "string", False, "--format", None),
        ("quality", "integer", False, "--quality", None),
        ("dry_run", "boolean", False, "--dry-run", "flag"),
        ("cache", "boolean", False, "--no-cache", "flag"),
        ("verbose", "integer", False, "--verbose", "count"),
        ("tag", "array", False, "--tag", "repeat"),
        ("only", "array", False, "--only", "list"),
        ("size", "array", False, "--size", "list"),
        ("color", "boolean", False, "--color/--no-color", "flag"),
    ]
    found = params(declaration)
    assert found["dest"]["default"] == "out"
    assert found["dest"]["description"] == "Where to write (default: out)"
    assert found["format"]["enum"] == FORMATS and found["format"]["default"] == "png"
    assert found["quality"]["enum"] == [1, 2, 3]
    assert found["cache"]["default"] is True
    assert found["only"]["items"] == "integer" and found["only"]["min"] == 1
    assert (found["size"]["min"], found["size"]["max"]) == (2, 2)
    assert found["color"]["default"] is True
    assert not declaration.warnings


FORMATS = ["png", "jpeg", "webp"]


def test_argparse_in_main_called_from_the_guard_with_a_helper_parser(tmp_path: Path) -> None:
    declaration = declare(
        tmp_path,
        '''\
        """Fetch a URL."""
        import argparse
        import asyncio

        def build_parser() -> argparse.ArgumentParser:
            parser = argparse.ArgumentParser(description="Fetch one URL and print it")
            parser.add_argument("url")
            group = parser.add_argument_group("network")
            group.add_argument("--timeout", type=float, default=10.0, help="Seconds (%(default)s)")
            return parser

        async def main() -> None:
            args = build_parser().parse_args()

        if __name__ == "__main__":
            asyncio.run(main())
        ''',
    )
    assert declaration.description == "Fetch one URL and print it"
    assert shape(declaration) == [
        ("url", "string", True, "", None),
        ("timeout", "number", False, "--timeout", None),
    ]
    assert params(declaration)["timeout"]["description"] == "Seconds (10.0)"


def test_argparse_parents_and_a_helper_that_adds_common_options(tmp_path: Path) -> None:
    declaration = declare(
        tmp_path,
        """\
        import argparse

        def add_common(p):
            p.add_argument("--token", required=True)

        def get_args():
            base = argparse.ArgumentParser(add_help=False)
            base.add_argument("--region", default="eu")
            parser = argparse.ArgumentParser(parents=[base])
            add_common(parser)
            parser.add_argument("name")
            return parser.parse_args()

        if __name__ == "__main__":
            print(get_args())
        """,
    )
    assert shape(declaration) == [
        ("region", "string", False, "--region", None),
        ("token", "string", True, "--token", None),
        ("name", "string", True, "", None),
    ]


def test_argparse_subcommands_are_each_a_tool_with_the_scripts_options_and_their_own(tmp_path: Path) -> None:
    declarations = declare_all(
        tmp_path,
        """\
        import argparse

        def main():
            parser = argparse.ArgumentParser(description="Manage notes")
            parser.add_argument("--db", default="notes.db")
            sub = parser.add_subparsers(dest="command", required=True)
            add = sub.add_parser("add", help="Add a note")
            add.add_argument("text")
            add.add_argument("--tag", action="append")
            rm = sub.add_parser("rm", help="Remove a note")
            rm.add_argument("id", type=int)
            rm.add_argument("--force", action="store_true")
            ls = sub.add_parser("ls")
            ls.add_argument("--db", dest="db")
            args = parser.parse_args()

        if __name__ == "__main__":
            main()
        """,
    )
    assert [d.command for d in declarations] == ["add", "rm", "ls"]  # no tool without a command
    add, rm, ls = declarations
    assert shape(add) == [
        ("db", "string", False, "--db", None),
        ("text", "string", True, "", None),
        ("tag", "array", False, "--tag", "repeat"),
    ]
    assert shape(rm) == [
        ("db", "string", False, "--db", None),
        ("id", "integer", True, "", None),
        ("force", "boolean", False, "--force", "flag"),
    ]
    # The subcommand's own `--db` is another option than the script's: named after the subcommand.
    assert shape(ls) == [("db", "string", False, "--db", None), ("ls_db", "string", False, "--db", None)]
    assert [p.before_command for p in rm.parameters] == [True, False, False]
    assert "before_command" not in rm.parameters[1].model_dump()  # written only when true
    assert (add.description, rm.description, ls.description) == (
        "Add a note",
        "Remove a note",
        "Manage notes (ls)",
    )
    assert all(d.input_schema is None and d.python_entry == "script" for d in declarations)


def test_required_mutually_exclusive_group_is_optional_members_and_one_of(tmp_path: Path) -> None:
    declaration = declare(
        tmp_path,
        """\
        import argparse
        parser = argparse.ArgumentParser()
        mode = parser.add_mutually_exclusive_group(required=True)
        mode.add_argument("--file")
        mode.add_argument("--stdin", action="store_true")
        loose = parser.add_mutually_exclusive_group()
        loose.add_argument("--quiet", action="store_true")
        loose.add_argument("--loud", action="store_true")
        parser.parse_args()
        """,
    )
    assert [(p.name, p.required) for p in declaration.parameters] == [
        ("file", False), ("stdin", False), ("quiet", False), ("loud", False),
    ]  # fmt: skip
    assert declaration.input_schema is not None
    assert declaration.input_schema["allOf"] == [
        {"anyOf": [{"required": ["file"]}, {"required": ["stdin"], "properties": {"stdin": {"const": True}}}]}
    ]


@pytest.mark.parametrize(
    ("argument", "reason"),
    [
        ('"--item", action="append", nargs=2, required=True', "list of lists"),
        ('"--mode", action=MyAction, required=True', "the script's own"),
        ("*FLAGS, required=True", "not literal"),
        ('"name", **OPTIONS', "not literal"),
    ],
)
def test_a_required_argument_that_cannot_be_passed_refuses_the_tool(
    tmp_path: Path, argument: str, reason: str
) -> None:
    with pytest.raises(DiscoveryError) as error:
        declare(
            tmp_path,
            f"""\
            import argparse
            parser = argparse.ArgumentParser()
            parser.add_argument("--ok")
            parser.add_argument({argument})
            parser.parse_args()
            """,
        )
    assert error.value.path == "tool.py" and error.value.line == 4
    assert reason in str(error.value)


def test_an_optional_argument_that_cannot_be_passed_is_left_out_with_a_warning(tmp_path: Path) -> None:
    declaration = declare(
        tmp_path,
        """\
        import argparse
        parser = argparse.ArgumentParser()
        parser.add_argument("--point", action="append", nargs=2)
        parser.add_argument("--name", type=lambda s: s.upper())
        parser.parse_args()
        """,
    )
    assert [p.name for p in declaration.parameters] == ["name"]
    assert "read by the script's" in declaration.parameters[0].description
    assert [w.line for w in declaration.warnings] == [3]


def test_required_append_is_an_array_given_once_per_item(tmp_path: Path) -> None:
    """The issue's example: `action='append', required=True` was published and every call failed."""
    declaration = declare(
        tmp_path,
        """\
        import argparse
        parser = argparse.ArgumentParser()
        parser.add_argument("--host", action="append", required=True)
        parser.parse_args()
        """,
    )
    assert shape(declaration) == [("host", "array", True, "--host", "repeat")]


def test_a_module_level_call_to_an_unknown_parser_refuses_when_required(tmp_path: Path) -> None:
    with pytest.raises(DiscoveryError, match="could not be traced to a parser"):
        declare(
            tmp_path,
            """\
            import argparse
            from mylib import make_parser
            parser = make_parser()
            parser.add_argument("target")
            parser.parse_args()
            """,
        )


@pytest.mark.parametrize(
    "body",
    [
        "import argparse\n\ndef build_parser():\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('x')\n    return p\n",
        "import click\n\n@click.command()\n@click.argument('x')\ndef cli(x):\n    pass\n",
        "from .core import run\nimport argparse\nif __name__ == '__main__':\n"
        "    argparse.ArgumentParser().parse_args()\n",
        "import click\n\ndef helper():\n    return click.style('x')\n",
    ],
)
def test_a_library_that_only_declares_a_command_line_is_not_a_tool(tmp_path: Path, body: str) -> None:
    with pytest.raises(NotATool) as reason:
        declare(tmp_path, body)
    assert reason.value.kind == "library"


def test_empty_init_and_plain_module_are_not_claimed(tmp_path: Path) -> None:
    for name, body in (("__init__.py", ""), ("util.py", "def add(a, b):\n    return a + b\n")):
        path = tmp_path / name
        path.write_text(body)
        assert not python_module.claims(Candidate(path, name, path.stat()))


def test_click_command_with_options_arguments_and_flags(tmp_path: Path) -> None:
    declaration = declare(
        tmp_path,
        '''\
        import click

        LEVELS = ("low", "high")

        @click.command()
        @click.option("--name", "-n", required=True, help="Who to greet")
        @click.option("--times", default=1, show_default=True)
        @click.option("--level", type=click.Choice(LEVELS), default="low")
        @click.option("--ratio", type=click.FloatRange(0, 1))
        @click.option("--shout/--no-shout", default=False)
        @click.option("--dry-run", is_flag=True)
        @click.option("-v", "--verbose", count=True)
        @click.option("--tag", "tags", multiple=True)
        @click.option("--password", prompt=True, hide_input=True)
        @click.argument("files", nargs=-1, type=click.Path(exists=True))
        @click.version_option("1.0")
        @click.pass_context
        def greet(ctx, name, times, level, ratio, shout, dry_run, verbose, tags, password, files):
            """Greet someone.

            More words.
            """

        if __name__ == "__main__":
            greet()
        ''',
    )
    assert declaration.description == "Greet someone."
    assert shape(declaration) == [
        ("name", "string", True, "--name", None),
        ("times", "integer", False, "--times", None),
        ("level", "string", False, "--level", None),
        ("ratio", "number", False, "--ratio", None),
        ("shout", "boolean", False, "--shout/--no-shout", "flag"),
        ("dry_run", "boolean", False, "--dry-run", "flag"),
        ("verbose", "integer", False, "--verbose", "count"),
        ("tags", "array", False, "--tag", "repeat"),
        ("password", "string", True, "--password", None),
        ("files", "array", False, "", None),
    ]
    found = params(declaration)
    assert found["times"]["default"] == 1
    assert found["level"]["enum"] == ["low", "high"]
    assert (found["ratio"]["min"], found["ratio"]["max"]) == (0, 1)
    assert found["name"]["description"] == "Who to greet"


def test_click_group_with_subcommands(tmp_path: Path) -> None:
    declarations = declare_all(
        tmp_path,
        '''\
        import click

        @click.group()
        @click.option("--debug/--no-debug", default=False)
        def cli(debug):
            """Manage the cache."""

        @cli.command()
        @click.argument("key")
        @click.option("--ttl", type=int, default=60)
        def put_value(key, ttl):
            """Store a value."""

        @cli.command(name="drop")
        @click.option("--all", "everything", is_flag=True)
        def drop_command(everything):
            pass

        @click.command()
        def stats_cmd():
            """Show statistics."""

        @cli.group()
        def remote():
            pass

        cli.add_command(stats_cmd)

        if __name__ == "__main__":
            cli(obj={})
        ''',
    )
    tools = by_command(declarations)
    assert list(tools) == ["put-value", "drop", "stats"]
    debug = ("debug", "boolean", False, "--debug/--no-debug", "flag")
    assert shape(tools["put-value"]) == [
        debug, ("key", "string", True, "", None), ("ttl", "integer", False, "--ttl", None),
    ]  # fmt: skip
    assert shape(tools["drop"]) == [debug, ("everything", "boolean", False, "--all", "flag")]
    assert shape(tools["stats"]) == [debug]
    assert (tools["put-value"].description, tools["drop"].description) == (
        "Store a value.",
        "Manage the cache. (drop)",
    )
    # The nested group is left out, said once (with the first tool).
    assert [(w.line, "'remote' left out" in str(w)) for w in declarations[0].warnings] == [(24, True)]
    assert not declarations[1].warnings


def test_a_click_group_that_runs_without_a_command_is_a_tool_too(tmp_path: Path) -> None:
    declarations = declare_all(
        tmp_path,
        '''\
        import click

        @click.group(invoke_without_command=True)
        @click.option("--verbose", is_flag=True)
        @click.pass_context
        def cli(ctx, verbose):
            """Show the status, or run a command."""

        @cli.command()
        @click.option("--name", required=True)
        def add(name):
            pass

        if __name__ == "__main__":
            cli()
        ''',
    )
    main, add = declarations
    assert (main.command, main.description) == (None, "Show the status, or run a command.")
    assert [(p.name, p.before_command) for p in main.parameters] == [("verbose", False)]
    assert add.command == "add"
    assert [(p.name, p.required, p.before_command) for p in add.parameters] == [
        ("verbose", False, True), ("name", True, False),
    ]  # fmt: skip


def test_typer_run_with_annotated_and_old_style_parameters(tmp_path: Path) -> None:
    declaration = declare(
        tmp_path,
        '''\
        from enum import Enum
        from pathlib import Path
        from typing import List, Optional

        import typer
        from typing_extensions import Annotated


        class Color(str, Enum):
            red = "red"
            blue = "blue"


        def main(
            name: str,
            out: Annotated[Path, typer.Argument(help="Output file")] = Path("out.txt"),
            user_name: Annotated[str, typer.Option("--user", "-u", help="Who")] = "me",
            count: int = typer.Option(3, help="How many"),
            color: Color = Color.red,
            force: bool = False,
            only: Annotated[bool, typer.Option("--only")] = False,
            tags: Optional[List[str]] = typer.Option(None, "--tag"),
            lastname: Annotated[str, typer.Option()] = ...,
            nickname: Optional[str] = None,
        ):
            """Write a greeting."""

        if __name__ == "__main__":
            typer.run(main)
        ''',
    )
    assert declaration.description == "Write a greeting."
    assert shape(declaration) == [
        ("name", "string", True, "", None),
        ("out", "string", False, "", None),
        ("user_name", "string", False, "--user", None),
        ("count", "integer", False, "--count", None),
        ("color", "string", False, "--color", None),
        ("force", "boolean", False, "--force/--no-force", "flag"),
        ("only", "boolean", False, "--only", "flag"),
        ("tags", "array", False, "--tag", "repeat"),
        ("lastname", "string", True, "--lastname", None),
        ("nickname", "string", False, "--nickname", None),
    ]
    found = params(declaration)
    assert found["color"]["enum"] == ["red", "blue"]
    assert found["count"]["default"] == 3 and found["count"]["description"] == "How many"
    assert found["user_name"]["default"] == "me"


def test_typer_app_one_command_has_no_command_word_and_many_have_one(tmp_path: Path) -> None:
    single = declare(
        tmp_path,
        """\
        import typer
        app = typer.Typer()

        @app.command()
        def hello(name: str, formal: bool = False):
            pass

        if __name__ == "__main__":
            app()
        """,
    )
    assert shape(single) == [
        ("name", "string", True, "", None),
        ("formal", "boolean", False, "--formal/--no-formal", "flag"),
    ]
    many = declare_all(
        tmp_path,
        '''\
        import typer
        app = typer.Typer(help="Users")

        @app.callback()
        def main(verbose: bool = False):
            pass

        @app.command()
        def create_user(username: str):
            """Create a user."""

        @app.command("rm")
        def delete(username: str, force: bool = typer.Option(False, "--force")):
            pass

        if __name__ == "__main__":
            app()
        ''',
        name="many.py",
    )
    assert [d.command for d in many] == ["create-user", "rm"]
    assert [(p.name, p.option, p.required, p.before_command) for p in many[1].parameters] == [
        ("verbose", "--verbose/--no-verbose", False, True),
        ("username", "", True, False),
        ("force", "--force", False, False),
    ]
    assert (many[0].description, many[1].description) == ("Create a user.", "Users (rm)")
    optional = declare_all(
        tmp_path,
        """\
        import typer
        app = typer.Typer()

        @app.callback(invoke_without_command=True)
        def main(ctx: typer.Context, limit: int = 10):
            pass

        @app.command()
        def sync(dry_run: bool = False):
            pass

        @app.command()
        def push(remote: str):
            pass

        if __name__ == "__main__":
            app()
        """,
        name="optional.py",
    )
    assert [d.command for d in optional] == [None, "sync", "push"]
    assert [p.name for p in optional[0].parameters] == ["limit"]


def test_discover_reports_libraries_and_serves_the_scripts(tmp_path: Path) -> None:
    from toolkiln.discover import discover_tools

    tools = tmp_path / "tools"
    (tools / "pkg").mkdir(parents=True)
    (tools / "pkg" / "__init__.py").write_text("")
    (tools / "pkg" / "cli.py").write_text(
        "from .core import go\nimport click\n\n@click.command()\ndef main():\n    go()\n\n"
        "if __name__ == '__main__':\n    main()\n"
    )
    (tools / "helpers.py").write_text(
        "import argparse\n\ndef parser():\n    return argparse.ArgumentParser()\n"
    )
    (tools / "hello.py").write_text(
        "import argparse\np = argparse.ArgumentParser()\np.add_argument('who')\nprint(p.parse_args().who)\n"
    )
    report = discover_tools(tools, tmp_path / "config")
    assert not report.errors, [str(error) for error in report.errors]
    assert [tool.name for tool in report.tools] == ["hello"]
    kinds = {item.path: item.kind for item in report.not_tools}
    assert kinds == {"pkg/__init__.py": "empty", "pkg/cli.py": "library", "helpers.py": "library"}


def test_a_parser_handed_to_code_elsewhere_is_refused_and_such_a_subcommand_left_out(tmp_path: Path) -> None:
    with pytest.raises(DiscoveryError, match=r"handed to plugins.add_arguments\(\)"):
        declare(
            tmp_path,
            """\
            import argparse, argcomplete, plugins
            parser = argparse.ArgumentParser()
            parser.add_argument("--x")
            plugins.add_arguments(parser)
            argcomplete.autocomplete(parser)
            parser.parse_args()
            """,
        )
    declarations = declare_all(
        tmp_path,
        """\
        import argparse, plugins
        COMMANDS = {"a": 1}

        def main():
            parser = argparse.ArgumentParser()
            sub = parser.add_subparsers(dest="cmd")
            fine = sub.add_parser("fine")
            fine.add_argument("--n", type=int)
            other = sub.add_parser("other")
            plugins.configure(other)
            broken = sub.add_parser("broken")
            broken.add_argument("--item", action="append", nargs=2, required=True)
            for name in COMMANDS:
                sub.add_parser(name)
            parser.parse_args()

        if __name__ == "__main__":
            main()
        """,
        name="many.py",
    )
    assert [(d.command, [p.name for p in d.parameters]) for d in declarations] == [("fine", ["n"])]
    assert sorted(w.line or 0 for w in declarations[0].warnings) == [9, 12, 14]


def test_click_decorator_from_elsewhere_is_a_warning_and_bare_command_works(tmp_path: Path) -> None:
    declaration = declare(
        tmp_path,
        """\
        import click, sys
        from mylib import common_options

        @click.command
        @click.option("--name", prompt="Your name")
        @click.argument("src", type=click.File("r"))
        @common_options
        def hello(name, src):
            pass

        if __name__ == "__main__":
            hello(sys.argv[1:])
        """,
    )
    assert shape(declaration) == [("name", "string", True, "--name", None), ("src", "string", True, "", None)]
    assert [(w.line, "@common_options" in str(w)) for w in declaration.warnings] == [(7, True)]


@pytest.mark.parametrize(
    ("signature", "entry"),
    [
        ("main(params)", "main"),
        ("main(p: dict)", "main"),
        ("main(args)", "script"),
        ("main(argv=None)", "script"),
    ],
)
def test_main_of_a_module_that_also_uses_argparse(tmp_path: Path, signature: str, entry: str) -> None:
    declaration = declare(
        tmp_path,
        f'''\
        """@param text: The text (type: string, required: true)"""
        import argparse

        def {signature}:
            pass

        if __name__ == "__main__":
            parser = argparse.ArgumentParser()
            parser.add_argument("--text", required=True)
            main(parser.parse_args())
        ''',
    )
    assert declaration.python_entry == entry
    assert [(p.name, p.required) for p in declaration.parameters] == [("text", True)]


def test_names_the_environment_needs_are_renamed_not_refused(tmp_path: Path) -> None:
    declaration = declare(
        tmp_path,
        """\
        import argparse
        parser = argparse.ArgumentParser()
        parser.add_argument("PATH")
        parser.add_argument("--http-proxy", dest="HTTP_PROXY")
        parser.add_argument("--LANG")
        parser.add_argument("FILE")
        parser.parse_args()
        """,
    )
    assert [(p.name, p.option) for p in declaration.parameters] == [
        ("path", ""), ("http_proxy_arg", "--http-proxy"), ("lang", "--LANG"), ("FILE", ""),
    ]  # fmt: skip


def test_argparse_main_parser_is_a_tool_only_when_it_runs_without_a_subcommand(tmp_path: Path) -> None:
    body = """\
        import argparse

        def show(args): ...
        def add(args): ...

        parser = argparse.ArgumentParser(description="Todo list")
        parser.add_argument("--file", default="todo.txt")
        parser.set_defaults(func=show)
        sub = parser.add_subparsers(dest="cmd")
        adding = sub.add_parser("add", help="Add an item")
        adding.set_defaults(func=add)
        group = adding.add_mutually_exclusive_group(required=True)
        group.add_argument("--text")
        group.add_argument("--from-clipboard", action="store_true")
        args = parser.parse_args()
        args.func(args)
        """
    main, adding = declare_all(tmp_path, body)
    assert (main.command, [p.name for p in main.parameters], main.input_schema) == (None, ["file"], None)
    assert (adding.command, [p.name for p in adding.parameters]) == (
        "add",
        ["file", "text", "from_clipboard"],
    )
    assert adding.input_schema is not None
    assert adding.input_schema["allOf"] == [
        {
            "anyOf": [
                {"required": ["text"]},
                {"required": ["from_clipboard"], "properties": {"from_clipboard": {"const": True}}},
            ]
        }
    ]
    assert adding.input_schema["properties"]["file"]["default"] == "todo.txt"
    # A subcommand that must be given (either spelling): no tool without one.
    required = body.replace(
        "args = parser.parse_args()", "sub.required = True\n        args = parser.parse_args()"
    )
    assert [d.command for d in declare_all(tmp_path, required, "required.py")] == ["add"]
    keyword = body.replace('dest="cmd"', 'dest="cmd", required=True')
    assert [d.command for d in declare_all(tmp_path, keyword, "keyword.py")] == ["add"]
    # Optional, but nothing set to run without one (the script prints its help): no tool either.
    plain = body.replace("parser.set_defaults(func=show)", "")
    assert [d.command for d in declare_all(tmp_path, plain, "plain.py")] == ["add"]


def test_a_subcommand_whose_required_argument_cannot_be_passed_is_not_published(tmp_path: Path) -> None:
    declarations = declare_all(
        tmp_path,
        """\
        import argparse
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers(required=True)
        good = sub.add_parser("good")
        good.add_argument("name")
        bad = sub.add_parser("bad")
        bad.add_argument("--pair", nargs=2, action="append", required=True)
        parser.parse_args()
        """,
    )
    assert [d.command for d in declarations] == ["good"]
    assert [(w.line, "subcommand 'bad' left out" in str(w)) for w in declarations[0].warnings] == [(7, True)]
    with pytest.raises(DiscoveryError, match="none of its subcommands can be served"):
        declare_all(
            tmp_path,
            """\
            import argparse
            parser = argparse.ArgumentParser()
            sub = parser.add_subparsers(required=True)
            bad = sub.add_parser("bad")
            bad.add_argument("--pair", nargs=2, action="append", required=True)
            parser.parse_args()
            """,
            name="bad.py",
        )
