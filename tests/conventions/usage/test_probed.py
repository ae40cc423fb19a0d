"""Scripts in a language toolkiln has no reader for (Perl here), served from the usage
their confined `--help` prints: read with the usage grammar, then called through the
real MCP SDK client with each argument where the script's own option parser expects it
(`-o value`, `--level=value`, a flag, positionals in order)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import MakeTool
from tests.serve.stdio_server import connect, text_of
from toolkiln.build.merge import build_catalog
from toolkiln.discover import discover_tools

SHRINK = r"""#!/usr/bin/perl
# Shrink an image.
use strict;
use Getopt::Long qw(:config bundling no_ignore_case);
use JSON::PP;
sub usage {
    print "usage: shrink.pl [-q] [-o FILE] [--level=N] <image> [<more>...]\n";
    print "\e[1mShrink\e[0m images for the web.\n\n";
    print "  -o FILE      Where to write\n";
    print "  --level=N    How hard [default: 3]\n";
    print "  -q           Say \e]0;owned\anothing\n";
    exit 0;
}
my ($quiet, $out, $level, $help) = (0, "", 3, 0);
GetOptions("q" => \$quiet, "o=s" => \$out, "level=i" => \$level, "h|help" => \$help) or exit 2;
usage() if $help;
die "usage: shrink.pl [-q] [-o FILE] [--level=N] <image> [<more>...]\n" unless @ARGV;
print encode_json([$quiet, $out, $level, [@ARGV]]);
"""
# Its usage has subcommands: not served, with the reason.
GIT_LIKE = r"""#!/usr/bin/perl
# usage: vault.pl <command>
print "usage: vault.pl add <name>\n   or: vault.pl rm <name>\n";
"""
# Its "help" is data of the machine: kept out.
DISK = r"""#!/usr/bin/perl
# usage: just run it
print "/dev/sda1 100 50 50 50% /\n/dev/sda2 200 10 190 5% /home\n";
"""


@pytest.fixture
def built(make_tool: MakeTool, tools_dir: Path, config_dir: Path) -> Path:
    make_tool("shrink.pl", SHRINK)
    make_tool("vault.pl", GIT_LIKE)
    make_tool("disk.pl", DISK)
    report = discover_tools(tools_dir, config_dir)
    assert not report.errors, report.errors
    assert [tool.name for tool in report.tools] == ["shrink"]
    reasons = {item.path: item.reason for item in report.not_tools}
    assert "subcommands" in reasons["vault.pl"]
    assert "data" in reasons["disk.pl"] and "/dev/sda1" not in reasons["disk.pl"]
    build_catalog(config_dir, tools_dir)
    return config_dir


@pytest.mark.anyio
async def test_a_perl_script_is_called_as_its_usage_says(built: Path) -> None:
    async with connect(built, "auto") as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        full = await client.call_tool(
            "shrink",
            {"image": "a.png", "more": ["b c.png", "d.png"], "o": "out dir", "level": "5", "q": True},
        )
        short = await client.call_tool("shrink", {"image": "a.png"})
        refused = await client.call_tool("shrink", {"image": "-rf"})
    schema = tools["shrink"].input_schema
    assert tools["shrink"].description == "Shrink images for the web."
    assert schema["required"] == ["image"]
    assert schema["properties"]["level"]["default"] == "3"
    assert schema["properties"]["q"]["description"] == "Say nothing"  # no terminal escapes reach a client
    assert json.loads(text_of(full)) == [1, "out dir", 5, ["a.png", "b c.png", "d.png"]]
    assert json.loads(text_of(short)) == [0, "", 3, ["a.png"]]
    assert refused.is_error  # a value that would pose as an option is refused, not passed
