"""Projects in the shape of click's own examples (github.com/pallets/click `examples/`:
a package whose pyproject.toml maps a command to `module:cli`, with no `__main__`
block), and of npm packages with `bin`, written into a tools folder."""

from __future__ import annotations

from tests.conftest import MakeTool

VALIDATION_PYPROJECT = """\
    [project]
    name = "click-example-validation"
    version = "1.0.0"
    description = "Click validation example"
    requires-python = ">=3.10"
    dependencies = ["click>=8.1"]

    [project.scripts]
    validation = "validation:cli"

    [build-system]
    requires = ["flit_core<4"]
    build-backend = "flit_core.buildapi"
"""
# Prints what it got as JSON, so a test sees the values as click parsed them.
VALIDATION = """\
    import json
    import sys

    import click


    def validate_count(ctx, param, value):
        if value < 0 or value % 2 != 0:
            raise click.BadParameter("Should be a positive, even integer.")
        return value


    @click.command()
    @click.option("--count", default=2, callback=validate_count, help="A positive even number.")
    @click.option("--foo", help="A mysterious parameter.")
    @click.version_option()
    def cli(count, foo):
        \"\"\"Validation.

        This example validates parameters in different ways.
        \"\"\"
        click.echo(json.dumps({"prog": sys.argv[0], "count": count, "foo": foo}))
"""
REPO_PYPROJECT = """\
    [project]
    name = "click-example-repo"
    version = "1.0.0"
    description = "Click repo example"
    dependencies = ["click>=8.1"]

    [project.scripts]
    repo = "repo:cli"
"""
REPO = """\
    import json
    import os

    import click


    class Repo:
        def __init__(self, home):
            self.home = home


    pass_repo = click.make_pass_decorator(Repo)


    @click.group()
    @click.option("--repo-home", envvar="REPO_HOME", default=".repo")
    @click.pass_context
    def cli(ctx, repo_home):
        \"\"\"Repo is a command line tool that showcases how to build complex
        command line interfaces with Click.
        \"\"\"
        ctx.obj = Repo(repo_home)


    @cli.command()
    @click.argument("src")
    @click.argument("dest", required=False)
    @click.option("--shallow/--deep", default=False, help="Makes a checkout shallow or deep.")
    @pass_repo
    def clone(repo, src, dest, shallow):
        \"\"\"Clones a repository.\"\"\"
        click.echo(json.dumps({"home": repo.home, "src": src, "dest": dest, "shallow": shallow}))


    @cli.command()
    @click.option("--message", "-m", required=True, multiple=True)
    @pass_repo
    def commit(repo, message):
        \"\"\"Commits outstanding changes.\"\"\"
        click.echo(json.dumps({"home": repo.home, "message": list(message)}))
"""
GREET_PACKAGE = (
    '{"name": "@me/greet", "version": "1.0.0", "description": "Greets people", "bin": "bin/greet.js"}\n'
)
GREET_JS = """\
    #!/usr/bin/env node
    const { parseArgs } = require('node:util');
    const { values, positionals } = parseArgs({
      options: { shout: { type: 'boolean' }, greeting: { type: 'string', default: 'Hello' } },
      allowPositionals: true,
    });
    console.log(JSON.stringify({ greeting: values.greeting, shout: !!values.shout, positionals }));
"""


def make_click_examples(make_tool: MakeTool) -> None:
    make_tool("validation/pyproject.toml", VALIDATION_PYPROJECT, executable=False)
    make_tool("validation/validation.py", VALIDATION, executable=False)
    make_tool("repo/pyproject.toml", REPO_PYPROJECT, executable=False)
    make_tool("repo/repo.py", REPO, executable=False)


def make_node_package(make_tool: MakeTool) -> None:
    make_tool("greet/package.json", GREET_PACKAGE, executable=False)
    make_tool("greet/bin/greet.js", GREET_JS)
