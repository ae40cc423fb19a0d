#!/bin/bash
# Tool: notes
# Title: Notes
# Description: List, read or write notes in this tool's workspace folder; paths cannot leave it
#
# @param function: What to do (type: string, required: true, enum: list|read|write)
# @param file: The note, relative to the workspace (type: path, required: false)
# @param text: What to write, for write (type: string, required: false, max: 10000)
#
# `file` is a path parameter: before this script runs, toolkiln resolves it inside the
# workspace of config/tools/notes.json (by default {TOOL_DIR}/workspace) and refuses
# `..`, absolute paths and symlinks that lead out. The script gets the absolute path.
set -euo pipefail
workspace="$(dirname "$0")/workspace"
case "$1" in
  list)
    ls -1 "$workspace" ;;
  read)
    [ -n "${file:-}" ] || { echo "read needs a file" >&2; exit 2; }
    [ -f "$file" ] || { echo "no note at $file" >&2; exit 4; }
    cat "$file" ;;
  write)
    [ -n "${file:-}" ] || { echo "write needs a file" >&2; exit 2; }
    mkdir -p "$(dirname "$file")"
    printf '%s\n' "${text:-}" > "$file"
    echo "INFO wrote $(wc -c < "$file") bytes" >&2
    echo "saved" ;;
esac
