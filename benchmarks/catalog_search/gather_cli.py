"""Write `cli_tools.json`: real command-line programs as tools, from the manual pages
installed on the machine that ran it (Debian 13: `whatis` for each program's one-line
description, its OPTIONS section for its parameters). Run once by hand; the JSON is
the fixture (`python benchmarks/catalog_search/gather_cli.py`).

The programs: the ones the queries in queries.json name, then a seeded random sample of
the other section-1 and section-8 pages, up to 396 (500 tools with the 104 MCP tools).
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
from pathlib import Path

HERE = Path(__file__).parent
TARGETS = [
    "tar",
    "gzip",
    "curl",
    "wget",
    "grep",
    "find",
    "sed",
    "awk",
    "sort",
    "uniq",
    "wc",
    "du",
    "df",
    "ps",
    "kill",
    "chmod",
    "chown",
    "ln",
    "diff",
    "patch",
    "ssh",
    "scp",
    "jq",
    "zip",
    "unzip",
    "base64",
    "sha256sum",
    "md5sum",
    "date",
    "timeout",
    "xargs",
    "tee",
    "head",
    "tail",
    "cut",
    "tr",
    "split",
    "file",
    "stat",
    "hostname",
    "uptime",
    "free",
    "lsof",
    "openssl",
    "git",
    "make",
    "less",
    "watch",
    "shuf",
    "iconv",
    "ip",
    "ss",
    "useradd",
    "passwd",
    "mount",
    "lsblk",
    "journalctl",
    "systemctl",
    "zstd",
    "xz",
    "bzip2",
    "nproc",
    "lscpu",
    "realpath",
    "mktemp",
    "rename",
    "sqlite3",
    "psql",
    "redis-cli",
    "nginx",
    "bwrap",
    "python3",
    "strace",
    "ldd",
    "objdump",
    "bc",
    "factor",
    "seq",
    "comm",
    "join",
    "paste",
    "column",
    "fold",
    "nl",
    "od",
    "xxd",
    "strings",
]
TOTAL = 396
_OPTION = re.compile(r"^ {4,8}(--?[A-Za-z0-9][\w-]*)")


def whatis_all() -> dict[str, str]:
    listing = subprocess.run(["apropos", "-s", "1:8", "-l", "."], capture_output=True, text=True).stdout
    found: dict[str, str] = {}
    for line in listing.splitlines():
        head, _, description = line.partition(" - ")
        name = head.split(" (")[0].strip()
        if name and description and re.fullmatch(r"[A-Za-z0-9][\w.+-]*", name) and name not in found:
            found[name] = description.strip()
    return found


def options_of(name: str, limit: int = 8) -> dict[str, str]:
    page = subprocess.run(
        ["man", "-P", "cat", name], capture_output=True, text=True, env={**os.environ, "MANWIDTH": "200"}
    ).stdout
    page = re.sub(".\b", "", page)
    lines = page.splitlines()
    options: dict[str, str] = {}
    for index, line in enumerate(lines):
        match = _OPTION.match(line)
        if not match or index + 1 >= len(lines):
            continue
        longs = re.findall(r"--([A-Za-z][\w-]+)", line)
        param = (longs[0] if longs else match.group(1).lstrip("-")).replace("-", "_")
        rest = line[match.end() :].strip()
        text = lines[index + 1].strip() if not re.search(r"\s{2,}\S", line[match.end() :]) else rest
        text = re.split(r"(?<=\.)\s", text)[0]
        if param not in options and text and not text.startswith("-"):
            options[param] = text[:200]
        if len(options) >= limit:
            break
    return options


def main() -> None:
    described = whatis_all()
    chosen = [name for name in TARGETS if name in described]
    others = sorted(set(described) - set(chosen))
    random.Random(28).shuffle(others)
    chosen += others[: TOTAL - len(chosen)]
    tools = [
        {"source": f"man {name}", "name": name, "description": described[name], "params": options_of(name)}
        for name in sorted(chosen)
    ]
    (HERE / "cli_tools.json").write_text(json.dumps(tools, indent=1, sort_keys=True) + "\n")
    print(len(tools), "tools")


if __name__ == "__main__":
    main()
