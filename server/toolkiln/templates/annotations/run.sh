#!/bin/bash
# Tool: {{ name }}
# Version: 0.1.0
# Description: Say hello, or look a word up in a small pottery glossary. (Replace this with one line that tells a model what your tool does and when to use it.)
#
# @param function: What to do (type: string, required: true, enum: hello|lookup)
# @param name: Who to greet, for hello (type: string, required: false, default: world, min: 1, max: 100)
# @param times: How many greetings, for hello (type: integer, required: false, default: 1, min: 1, max: 5)
# @param shout: Greet in capital letters, for hello (type: boolean, required: false, default: false)
# @param word: The word to look up, for lookup (type: string, required: false, min: 1, max: 40)
# @param tags: Labels printed after the result (type: array, items: string, required: false, default: [], max: 10)
set -Eeuo pipefail

# ==============================================================================
# The tool {{ name }}, in the annotations dialect: made from the template
# annotations/run.sh (toolkiln's, or yours in a TEMPLATE/ folder beside the tools
# folder) by `toolkiln new {{ name }}`; a copy made by hand works too (the folder's name is the
# tool's name; the template's placeholders are only in comments). Then:
#
#   $EDITOR tools/{{ name }}/run.sh        # the header above and the functions below
#   toolkiln discover && toolkiln build
#   toolkiln call {{ name }} function=hello name=Ada times=2
#   ./tools/{{ name }}/run.sh lookup --word=kiln      # or run it by hand
#   toolkiln doctor                       # if something does not work
#
# ------------------------------------------------------------------------------
# THE HEADER
#
# `toolkiln discover` reads the header, the comment lines at the very top of the
# file (blank lines allowed) up to the first line of code, here `set -Eeuo
# pipefail`. It reads it as text and never runs the script. These comments below
# the first line of code are not part of it.
#
#   # Tool: NAME           marks the file as a tool. The tool's name comes from its
#                          path: tools/my-tool/run.sh is the tool my-tool.
#   # Description: TEXT    one line: what the tool does, for the model that calls it
#   # Title: TEXT          optional display name
#   # Version: TEXT        optional
#   # @param NAME: DESCRIPTION (KEY: VALUE, KEY: VALUE, ...)
#
# NAME: a letter or _, then letters, digits, _ or - (it becomes an environment
# variable, so PATH, HOME, LD_*, PYTHON* and the like are refused).
# The keys in the parentheses, all optional, in any order:
#
#   type:      string (when left out), integer, number, boolean, array, object,
#              any, or enum (a string that must be one of the enum values).
#              Also accepted: str, text = string; int = integer; float, double =
#              number; bool = boolean; list = array; dict = object; json = any.
#   required:  true or false (yes/no and 1/0 work too); false when left out.
#   default:   the value used when the caller leaves the parameter out; ignored
#              when required is true. Strings bare or quoted (default: "" is the
#              empty string), every other type as JSON: 3, 2.5, true, ["a", "b"],
#              {"key": 1}. No default: the parameter is simply absent.
#   enum:      the allowed values: a|b|c, or a JSON list ["a", "b"]. Works with
#              string, integer and number (enum: 1|2|3 with type: integer).
#   min, max:  integer and number: the smallest and largest value;
#              string: the length in characters; array: the number of items.
#   items:     array only: the type of every item (items: string).
#
# Examples of each type:
#   @param path: File to read (type: string, required: true, max: 255)
#   @param count: How many (type: integer, default: 10, min: 1, max: 100)
#   @param ratio: A fraction (type: number, default: 0.5, min: 0, max: 1)
#   @param verbose: Say more (type: boolean, default: false)
#   @param ids: Record ids (type: array, items: integer, min: 1, max: 50)
#   @param filters: Field -> value to match (type: object, default: {})
#   @param format: Output format (type: enum, enum: text|json, default: text)
#
# ------------------------------------------------------------------------------
# HOW THE ARGUMENTS ARRIVE (all three ways, on every call; use whichever suits)
#
#   argv   run.sh [<function>] --name=value --times=2 ...
#          The parameter called `function`, if the tool has one, comes first, as
#          a bare word; every other argument follows as --name=value.
#   env    each argument as an environment variable named exactly like the
#          parameter: $name, $times. A parameter the caller left out and that
#          has no default is unset.
#   stdin  all the arguments as one JSON object, e.g. {"function": "hello", ...}
#
# In argv and env, strings are passed as they are, booleans as true or false,
# and numbers, arrays and objects as JSON text (--tags=["a","b"]). toolkiln has
# already checked the arguments against the header (types, enum, min/max) and
# filled in the defaults; the checks below are for runs by hand.
#
# Every script also gets TOOLKILN_TOOL_NAME, TOOLKILN_TOOL_DIR (this folder),
# TOOLKILN_TOOLS_DIR, TOOLKILN_TRANSPORT and the MCPD_CONFIG_* variables.
# Its working directory is this folder.
#
# ------------------------------------------------------------------------------
# WHAT TO SEND BACK
#
#   stdout     the result. A JSON object is also returned as structured content.
#   stderr     lines that start with TRACE, DEBUG, INFO, WARNING (or WARN) or
#              ERROR are the tool's log: toolkiln logs each at its level.
#              `PROGRESS 3/10 message` lines report progress. The last lines of
#              stderr (progress aside) are shown with a failure.
#   exit code  0 success, 1 internal error, 2 bad request, 3 forbidden,
#              4 not found (any other non-zero code is an error too).
# ==============================================================================

readonly EXIT_INTERNAL=1 EXIT_BAD_REQUEST=2 EXIT_FORBIDDEN=3 EXIT_NOT_FOUND=4

log() {  # log LEVEL MESSAGE...: one structured log line on stderr
  echo "$1 ${*:2}" >&2
}

fail() {  # fail EXIT_CODE MESSAGE...: log an ERROR and stop with that exit code
  log ERROR "${*:2}"
  exit "$1"
}

# Anything that fails unexpectedly (set -e) is an internal error, exit 1.
trap 'log ERROR "internal error at line $LINENO of $0"; exit "$EXIT_INTERNAL"' ERR

usage() {
  echo "usage: run.sh hello|lookup [--name=NAME] [--times=N] [--shout=true|false] [--word=WORD] [--tags=JSON]"
}

# The arguments: first from the environment (the alternative to argv, handy for
# runs by hand: `word=kiln ./run.sh lookup`), then from argv, which wins.
fn="${function-}"
name="${name-world}"
times="${times-1}"
shout="${shout-false}"
word="${word-}"
tags="${tags-[]}"

for arg in "$@"; do
  case "$arg" in
    -h | --help) usage; exit 0 ;;
    --name=*) name="${arg#*=}" ;;
    --times=*) times="${arg#*=}" ;;
    --shout=*) shout="${arg#*=}" ;;
    --word=*) word="${arg#*=}" ;;
    --tags=*) tags="${arg#*=}" ;;
    --*) fail "$EXIT_BAD_REQUEST" "unknown option ${arg%%=*}; $(usage)" ;;
    *) fn="$arg" ;;
  esac
done

# ------------------------------------------------------------------------------
# The functions. Replace them with your own.

hello() {
  if ! [[ "$times" =~ ^[1-5]$ ]]; then
    fail "$EXIT_BAD_REQUEST" "times must be a whole number from 1 to 5, got '$times'"
  fi
  if [ -z "$name" ]; then
    fail "$EXIT_BAD_REQUEST" "name must not be empty"
  fi
  local greeting="Hello, $name!"
  if [ "$shout" = true ]; then
    greeting="${greeting^^}"
  fi
  local i
  for ((i = 1; i <= times; i++)); do
    echo "PROGRESS $i/$times greeting $name" >&2
    echo "$greeting"
  done
}

lookup() {
  if [ -z "$word" ]; then
    fail "$EXIT_BAD_REQUEST" "lookup needs a word: --word=WORD"
  fi
  local meaning
  case "$word" in
    # 3 forbidden: the request is understood, but not allowed.
    _*) fail "$EXIT_FORBIDDEN" "'$word' is a private entry" ;;
    kiln) meaning="an oven for firing clay" ;;
    glaze) meaning="a glassy coat fused to clay in the kiln" ;;
    cone) meaning="a small clay pyramid that bends at a known heat, to measure a firing" ;;
    # 4 not found: what was asked for does not exist.
    *) fail "$EXIT_NOT_FOUND" "no glossary entry for '$word'" ;;
  esac
  echo "$word: $meaning"
}

log DEBUG "function=$fn name=$name times=$times shout=$shout word=$word tags=$tags"
case "$fn" in
  hello) hello ;;
  lookup) lookup ;;
  "") fail "$EXIT_BAD_REQUEST" "no function given; $(usage)" ;;
  *) fail "$EXIT_BAD_REQUEST" "unknown function '$fn' (use hello or lookup)" ;;
esac
if [ "$tags" != "[]" ]; then
  echo "tags: $tags"
fi
log INFO "$fn done"
