"""1,000 ordinary scripts, written for no framework, as a personal `bin/` folder holds
them: shell scripts with getopts and a `usage()` heredoc, `while case "$1"` loops,
TomDoc headers, Python and Node scripts reading their words by hand, scripts reading
stdin. `write_ordinary` writes them; `python -m benchmarks.ordinary` times a cold
`toolkiln discover` of them and one with nothing changed."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

SHAPES: tuple[tuple[str, str], ...] = (
    (".sh", """#!/bin/bash
# Resize images NUMBER for the web.
usage() {
  cat <<EOF
Usage: $(basename "$0") [-q] [-o DIR] <image> [width]
  -o DIR   Where to write [default: out]
  -q       Print nothing
EOF
}
while getopts "qo:h" opt; do
  case $opt in
    q) quiet=1 ;;
    o) out="$OPTARG" ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 1 ;;
  esac
done
shift $((OPTIND - 1))
image="${1:?an image}"
width="${2:-800}"
echo "$image $width $out $quiet"
"""),
    (".sh", """#!/bin/sh
# Deploy NUMBER.
# $1 - The environment.
# $2 - The branch name.
while [ $# -gt 0 ]; do
  case "$1" in
    -e|--edit) edit=1; shift ;;
    *) break ;;
  esac
done
env="$1"
branch="${2:-main}"
echo "$env $branch $edit"
"""),
    (".py", """import sys

if __name__ == "__main__":
    if len(sys.argv) < 3:
        print("Usage: convert_NUMBER.py [input pdf] [output directory]")
        sys.exit(1)
    pdf_path = sys.argv[1]
    output_dir = sys.argv[2]
    print(pdf_path, output_dir)
"""),
    (".js", """#!/usr/bin/env node
// Greet NUMBER.
const name = process.argv[2];
const greeting = process.argv[3] || "Hello";
console.log(greeting, name);
"""),
    (".py", """#!/usr/bin/env python3
\"\"\"Upper-case the text on stdin (NUMBER).\"\"\"
import sys
sys.stdout.write(sys.stdin.read().upper())
"""),
)  # fmt: skip


def write_ordinary(tools: Path, count: int = 1000) -> None:
    tools.mkdir(parents=True, exist_ok=True)
    for number in range(count):
        suffix, body = SHAPES[number % len(SHAPES)]
        path = tools / f"script_{number:04d}{suffix}"
        path.write_text(body.replace("NUMBER", f"{number:04d}"))
        path.chmod(0o755)


if __name__ == "__main__":
    from benchmarks.pipeline import _toolkiln_seconds

    root = Path(tempfile.mkdtemp(prefix="toolkiln-ordinary-"))
    try:
        write_ordinary(root / "tools")
        cold = _toolkiln_seconds("discover", root)
        configs = len(list((root / "config" / "tools").glob("*.json")))
        unchanged = min(_toolkiln_seconds("discover", root) for _ in range(3))
        print(f"cold discovery of 1,000 ordinary scripts: {cold:.2f} s ({configs} tool configs)")
        print(f"again, nothing changed: {unchanged:.2f} s")
    finally:
        shutil.rmtree(root)
