#!/bin/bash
# The tool {{ name }}, in the help-json dialect (docs/dialects.md): made from the template
# help-json/tool.sh (toolkiln's, or yours in a TEMPLATE/ folder beside the tools folder)
# by `toolkiln new {{ name }} --dialect help-json`; a copy made by hand works too, once
# executable (the file's name without .sh is the tool's name; the template's
# placeholders are only in comments). Then:
#
#   $EDITOR tools/{{ name }}.sh          # the --help answer and the code below it
#   toolkiln discover && toolkiln build
#   toolkiln call {{ name }} name=Ada times=2
#   name=Ada times=2 ./tools/{{ name }}.sh     # or run it by hand
#   toolkiln doctor                       # if something does not work
#
# ------------------------------------------------------------------------------
# HOW TOOLKILN READS IT
#
# `toolkiln discover` runs `tool.sh --help` (with a 5 second timeout) and reads:
#   stdout       one JSON object about the tool: "description" (one line, for the
#                model that calls it), and optionally "title", "version", "state".
#   stderr       one JSON object of options: each name maps to "description",
#                "required" (true/false), "value_type" (string, integer, number,
#                boolean, array, object, any), "default_value", "size" ({"min": ...,
#                "max": ...}: the value for numbers, the length for strings) and
#                "secret" (true: its value is redacted in the audit log).
#   exit status  0.
# An optional option needs a default_value (booleans and `any` aside).
#
# HOW THE ARGUMENTS ARRIVE (on every call; use whichever suits)
#
#   env    each option as an environment variable named exactly like it: $name,
#          $times, $shout (strings as they are, booleans true or false, numbers,
#          arrays and objects as JSON text). Defaults are filled in.
#   stdin  all the arguments as one JSON object, e.g. {"name": "Ada", "times": 2, ...}
#   argv   nothing: the script runs with no arguments.
#
# toolkiln has already checked the arguments against the options above (types,
# required, size) before the script runs; the checks below are for runs by hand.
#
# WHAT TO SEND BACK
#
#   stdout     the result. A JSON object is also returned as structured content.
#   stderr     lines that start with TRACE, DEBUG, INFO, WARNING (or WARN) or ERROR
#              are the tool's log; `PROGRESS 3/10 message` lines report progress.
#   exit code  0 success, 1 internal error, 2 bad request, 3 forbidden, 4 not found.
# ==============================================================================
set -euo pipefail

if [ "${1-}" = "--help" ]; then
  echo '{"description": "Greet someone by name. (Replace this with one line that tells a model what your tool does and when to use it.)", "version": "0.1.0"}'
  cat >&2 <<'JSON'
{
  "name": {"description": "Who to greet", "required": true, "value_type": "string", "size": {"min": 1, "max": 100}},
  "times": {"description": "How many greetings", "required": false, "value_type": "integer", "default_value": 1, "size": {"min": 1, "max": 5}},
  "shout": {"description": "Greet in capital letters", "required": false, "value_type": "boolean", "default_value": false}
}
JSON
  exit 0
fi

fail() {  # fail EXIT_CODE MESSAGE...: log an ERROR and stop with that exit code
  echo "ERROR ${*:2}" >&2
  exit "$1"
}

# The arguments, from the environment; the defaults apply to runs by hand.
name="${name-}"
times="${times-1}"
shout="${shout-false}"

if [ -z "$name" ]; then
  fail 2 "name is required: name=Ada ./$(basename "$0")"
fi
if ! [[ "$times" =~ ^[1-5]$ ]]; then
  fail 2 "times must be a whole number from 1 to 5, got '$times'"
fi

greeting="Hello, $name!"
if [ "$shout" = true ]; then
  greeting="${greeting^^}"
fi
for ((i = 1; i <= times; i++)); do
  echo "PROGRESS $i/$times greeting $name" >&2
  echo "$greeting"
done
echo "INFO greeted $name $times times" >&2
