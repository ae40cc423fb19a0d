"""argc tools through `toolkiln serve` and the SDK's real client: the script's own
`eval "$(argc --argc-eval "$0" "$@")"` answered by toolkiln's shim, confined or not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeTool
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools
from toolkiln.process import confinement_problem

pytestmark = pytest.mark.anyio

EVAL = 'eval "$(argc --argc-eval "$0" "$@")"\n'

# llm-functions' shape: the result goes to "$LLM_OUTPUT"; each variable printed as JSON-ish lines.
ECHO = (
    """\
#!/usr/bin/env bash
set -e
# @describe Print back what argc gave the script.
# @option --text! <TEXT>       Any text
# @option --count=2 <INT>      A number
# @option --tags* <TAG>        Several
# @option --mode[=fast|slow]   A choice
# @flag   --loud               A flag
# @arg    files*               Positionals
# @env LLM_OUTPUT=/dev/stdout The output path

main() {
    {
        printf 'text=[%s]\\n' "$argc_text"
        printf 'count=[%s] mode=[%s] loud=[%s]\\n' "$argc_count" "$argc_mode" "${argc_loud:-}"
        printf 'tag=[%s]\\n' "${argc_tags[@]}"
        printf 'file=[%s]\\n' "${argc_files[@]}"
        printf 'positional=[%s]\\n' "$@"
    } >> "$LLM_OUTPUT"
}

"""
    + EVAL
)

TODO = (
    """\
#!/usr/bin/env bash
set -e

# @cmd Add a new todo item
# @option --desc! The task description
add_todo() {
    echo "added: $argc_desc" >> "$LLM_OUTPUT"
}

# @cmd Delete a todo item
# @option --id! <INT> The task id
del_todo() {
    echo "deleted: $argc_id" >> "$LLM_OUTPUT"
}

_argc_before() {
    echo "INFO starting $argc__fn" >&2
}

"""
    + EVAL
)

HOSTILE = "it's $(touch pwned) `touch pwned2` ; touch pwned3\nEOF\n'\"; exit 7 # ünïcode"


@pytest.fixture(params=["unconfined", "confined"])
def served(request: pytest.FixtureRequest, make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    if request.param == "confined":
        if confinement_problem() is not None:
            pytest.skip(f"{confinement_problem()}")
        config_dir.mkdir(parents=True, exist_ok=True)
        (config_dir / "server.json").write_text(json.dumps({"confinement": {"mode": "required"}}))
    make_tool("echo.sh", ECHO, executable=False)  # run by bash, as llm-functions does
    make_tool("todo.sh", TODO)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors
    build_catalog(config_dir, tools_dir)
    return config_dir


async def call(config_dir: Path, name: str, arguments: dict[str, Any]) -> Any:
    async with connect(config_dir, "auto") as client:
        return await client.call_tool(name, arguments)


async def test_arguments_reach_the_script_as_argc_gives_them(served: Path, tools_dir: Path) -> None:
    result = await call(
        served,
        "echo",
        {"text": HOSTILE, "tags": ["-x", "a b", "--loud"], "loud": True, "files": ["-f", "two words"]},
    )
    assert not result.is_error, text_of(result)
    assert text_of(result).splitlines() == [
        *f"text=[{HOSTILE}]".splitlines(),
        "count=[2] mode=[fast] loud=[1]",
        "tag=[-x]",
        "tag=[a b]",
        "tag=[--loud]",
        "file=[-f]",
        "file=[two words]",
        "positional=[-f]",
        "positional=[two words]",
    ]
    assert not list(tools_dir.glob("pwned*"))


async def test_left_out_options_take_the_scripts_defaults_and_flags_stay_unset(served: Path) -> None:
    result = await call(served, "echo", {"text": "-n", "count": 7, "mode": "slow"})
    assert text_of(result).splitlines() == [
        "text=[-n]",
        "count=[7] mode=[slow] loud=[]",
        "tag=[]",
        "file=[]",
        "positional=[]",
    ]


async def test_each_subcommand_is_a_tool_that_runs_its_function_with_its_hook(served: Path) -> None:
    async with connect(served, "auto") as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        added = await client.call_tool("todo_add_todo", {"desc": HOSTILE})
        deleted = await client.call_tool("todo_del_todo", {"id": 3})
        wrong = await client.call_tool("todo_del_todo", {"desc": "x"})
    assert {"todo_add_todo", "todo_del_todo"} <= names and "todo" not in names
    assert text_of(added) == f"added: {HOSTILE}"
    assert text_of(deleted) == "deleted: 3"
    assert (
        wrong.is_error
        and "unknown argument 'desc'" in text_of(wrong)
        and "'id' is required" in text_of(wrong)
    )


async def test_the_shim_refuses_what_argc_refuses(tmp_path: Path) -> None:
    """A call the schema lets through can still break argc's own rules: the shim says so
    on stderr and exits 1, as argc does (here run by hand, outside the schema)."""
    import os
    import subprocess
    import sys

    from toolkiln.runtimes.argc import SHIM_BIN

    script = tmp_path / "echo.sh"
    script.write_text(ECHO)
    env = {**os.environ, "PATH": f"{SHIM_BIN}:{os.environ['PATH']}", "TOOLKILN_ARGC_PYTHON": sys.executable}
    run = subprocess.run(
        ["bash", str(script), "--mode=medium", "--text=x"], env=env, capture_output=True, text=True
    )
    assert run.returncode == 1 and "invalid value `medium`" in run.stderr and run.stdout == ""
    run = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True)
    assert run.returncode == 1 and "--text <TEXT>" in run.stderr


@pytest.fixture
def termux_served(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    """Scripts written on Termux (Android) start `#!/data/data/com.termux/files/usr/bin/env
    bash`, a path no other machine has."""
    make_tool(
        "ping.sh",
        "#!/data/data/com.termux/files/usr/bin/env bash\n"
        "set -euo pipefail\n"
        "# @describe Ping a host\n"
        "# @option --host! The host\n"
        "# @option --count=4 How many\n"
        "main() {\n"
        '    printf \'host=[%s] count=[%s]\\n\' "$argc_host" "$argc_count" >> "$LLM_OUTPUT"\n'
        "}\n" + EVAL,
    )
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors
    build_catalog(config_dir, tools_dir)
    return config_dir


async def test_a_script_whose_shebang_names_a_missing_program_runs_with_bash(termux_served: Path) -> None:
    """An argc script is bash whatever its shebang says: toolkiln runs it with bash when
    the shebang's program is not there."""
    result = await call(termux_served, "ping", {"host": "-c 9 example.org"})
    assert not result.is_error, text_of(result)
    assert text_of(result) == "host=[-c 9 example.org] count=[4]"
