#!/bin/bash
# files/file-reader -> tool `files__file-reader`: reads a text file under this
# folder's data/ subfolder. Shows the exit codes of seeds/000: 2 bad request
# (absolute path, `..`, a folder), 3 forbidden (files named secret*, links that
# lead out of data/), 4 not found; and a WARNING log line when output is cut.
set -u

if [ "${1:-}" = "--help" ]; then
  echo '{"title": "File reader", "description": "Read a text file from the data folder next to this script", "version": "1.0.0", "state": false}'
  cat >&2 <<'JSON'
{
  "path": {
    "description": "The file to read, relative to the data folder, e.g. notes/glazes.md",
    "required": true,
    "value_type": "string",
    "size": {"min": 1, "max": 255}
  },
  "max_bytes": {
    "description": "Read at most this many bytes of the file",
    "required": false,
    "value_type": "integer",
    "default_value": 65536,
    "size": {"min": 1, "max": 1048576}
  }
}
JSON
  exit 0
fi

fail() {  # fail EXIT_CODE MESSAGE
  echo "ERROR $2" >&2
  exit "$1"
}

data_dir="$(cd "$(dirname "$0")" && pwd -P)/data"
path="${path:-}"
max_bytes="${max_bytes:-65536}"

[[ "$max_bytes" =~ ^[1-9][0-9]{0,6}$ ]] || fail 2 "max_bytes must be a whole number from 1 to 1048576"
[ -n "$path" ] || fail 2 "path must not be empty"
case "$path" in
  /*) fail 2 "path must be relative to the data folder, not absolute: $path" ;;
esac
case "/$path/" in
  */../*) fail 2 "path must not contain '..': $path" ;;
esac
case "/$path" in
  */secret*) fail 3 "reading $path is forbidden (files named secret* are private)" ;;
esac

target="$(realpath -e -- "$data_dir/$path" 2>/dev/null)" || fail 4 "no such file: $path"
case "$target" in
  "$data_dir") fail 2 "$path is the data folder itself; give the path of a file in it" ;;
  "$data_dir"/*) ;;
  *) fail 3 "$path leads outside the data folder" ;;
esac
case "/${target#"$data_dir"/}" in
  */secret*) fail 3 "reading $path is forbidden (it leads to a private secret* file)" ;;
esac
[ -d "$target" ] && fail 2 "$path is a folder; give the path of a file in it"
[ -r "$target" ] || fail 3 "$path is not readable"

size="$(stat -c %s -- "$target")"
echo "DEBUG reading $target ($size bytes)" >&2
if [ "$size" -gt "$max_bytes" ]; then
  echo "WARNING $path has $size bytes; showing the first $max_bytes" >&2
fi
head -c "$max_bytes" -- "$target"
