"""Python scripts that read `sys.argv` by hand, stdin, or nothing, called as a client and
`toolkiln call` call them: each argument one word in the order the script reads them (a value
starting with `-` exactly as given), an optional left out not given, stdin fed its parameter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import MakeTool, child_env
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

# Each prints what it was given, as the script itself sees it.
CONVERT = """\
import json
import sys

if __name__ == "__main__":
    if len(sys.argv) != 3:
        print("Usage: convert_pdf_to_images.py [input pdf] [output directory]")
        sys.exit(1)
    pdf_path = sys.argv[1]
    output_dir = sys.argv[2]
    print(json.dumps([pdf_path, output_dir]))
"""
RESIZE = """\
#!/usr/bin/env python3
# Resize an image.
import json
import sys

if len(sys.argv) < 3:
    print("usage: resize.py <src> <width> [scale] [mode]")
    sys.exit(1)
src, width = sys.argv[1], int(sys.argv[2])
scale = float(sys.argv[3]) if len(sys.argv) > 3 else None
mode = sys.argv[4] if len(sys.argv) > 4 else "fit"
print(json.dumps([src, width, scale, mode, len(sys.argv)]))
"""
LINES = '''\
"""Count the lines of each file."""
import json
import sys

for name in sys.argv[1:]:
    print(json.dumps(name))
'''
TODAY = """\
#!/usr/bin/env python3
# Say how many words it was given.
import json, sys
print(json.dumps(len(sys.argv)))
"""
UPPER = '''\
#!/usr/bin/env python3
"""Upper-case the text on stdin."""
import sys
sys.stdout.write(sys.stdin.read().upper())
'''
ASK = '''\
#!/usr/bin/env python3
"""Greet whoever answers."""
print("hello", input("Your name? "))
'''


@pytest.fixture
def built(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("convert_pdf_to_images.py", CONVERT, executable=False)
    make_tool("resize.py", RESIZE)
    make_tool("lines.py", LINES, executable=False)
    make_tool("today.py", TODAY)
    make_tool("upper.py", UPPER)
    make_tool("ask.py", ASK)
    report = discover_tools(tools_dir, config_dir, probes="none")
    assert not report.errors, report.errors
    assert sorted(tool.name for tool in report.tools) == [
        "convert_pdf_to_images",
        "lines",
        "resize",
        "today",
        "upper",
    ]
    (asks,) = report.not_tools
    assert (asks.path, asks.kind) == ("ask.py", "asks-input") and "input()" in asks.reason
    build_catalog(config_dir, tools_dir)
    return config_dir


def call(config_dir: Path, name: str, arguments: dict[str, object]) -> subprocess.CompletedProcess[str]:
    folders = ["--config-dir", str(config_dir), "--tools-dir", "unused"]
    return subprocess.run(
        [sys.executable, "-m", "toolkiln", "call", name, "--args", json.dumps(arguments), *folders],
        env={**child_env(), "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_toolkiln_call_gives_the_words_in_order_exactly_as_given(built: Path) -> None:
    result = call(built, "convert_pdf_to_images", {"output_dir": "out dir/", "pdf_path": "-scan 1.pdf"})
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == ["-scan 1.pdf", "out dir/"]


@pytest.mark.anyio
async def test_an_mcp_client_reaches_each_shape_as_the_script_expects(built: Path) -> None:
    async with connect(built, "auto") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        resize = await client.call_tool(
            "resize", {"src": "a.png", "width": 640, "mode": "crop", "scale": 0.5}
        )
        resize_short = await client.call_tool("resize", {"src": "a.png", "width": 3})
        skipped = await client.call_tool("resize", {"src": "a.png", "width": 3, "mode": "crop"})
        lines = await client.call_tool("lines", {"names": ["a b", "--c"]})
        today = await client.call_tool("today", {})
        upper = await client.call_tool("upper", {"stdin": "one\ntwo\n"})
        big = await client.call_tool("upper", {"stdin": "x" * 300_000})  # past what an env var holds
    assert tools["resize"].input_schema["required"] == ["src", "width"]
    assert tools["resize"].input_schema["properties"]["width"]["type"] == "integer"
    assert tools["today"].description == "Say how many words it was given."
    assert json.loads(text_of(resize)) == ["a.png", 640, 0.5, "crop", 5]
    assert json.loads(text_of(resize_short)) == ["a.png", 3, None, "fit", 3]
    assert skipped.is_error and "'scale' before it is not" in text_of(skipped)
    assert [json.loads(line) for line in text_of(lines).splitlines()] == ["a b", "--c"]
    assert json.loads(text_of(today)) == 1 and not today.is_error
    assert text_of(upper).rstrip("\n") == "ONE\nTWO"  # the text given on stdin, read there
    assert not big.is_error and text_of(big).startswith("X" * 200_000)  # output past 256 KiB is cut
