#!/bin/bash
# Tool: now
# Title: Date and time
# Version: 1.0.0
# Description: The current date and time in a time zone, or the date some days from now or ago. Use it whenever the answer depends on today's date or the time somewhere.
#
# @param timezone: An IANA time zone, e.g. Europe/Paris or America/New_York (type: string, default: UTC, min: 1, max: 64)
# @param days: Days to add to today; negative for days ago (type: integer, default: 0, min: -36500, max: 36500)
set -euo pipefail

# ==============================================================================
# The starter tool of a project made by `toolkiln init`: a script in the
# annotations dialect, a model's missing sense of time. Replace it, or keep it
# beside your own tools (`toolkiln new NAME` writes one from a template that
# explains the whole header grammar).
#
# THE HEADER above is what `toolkiln discover` reads (as text; it never runs the
# script to read it): `# Tool:` marks the file as a tool, named after its folder
# (tools/now/run.sh is the tool `now`); `# Description:` tells the model what it
# does; each `# @param` line is a parameter with its type, default and limits.
# toolkiln checks every call's arguments against them before the script runs.
#
# THE ARGUMENTS arrive three ways: as --name=value options, as environment
# variables named like the parameters ($timezone, $days), and as one JSON object
# on stdin. This script reads the environment; a run by hand works as well:
#   timezone=Asia/Tokyo days=3 ./tools/now/run.sh
#
# WHAT IT SENDS BACK: stdout is the result (a JSON object is also returned as
# structured content); stderr lines starting with INFO, WARNING or ERROR are its
# log; the exit code says how it went (0 success, 2 bad request, 4 not found).
#
# Try it:
#   toolkiln call now timezone=Europe/Paris days=7
# ==============================================================================

timezone="${timezone-UTC}"
days="${days-0}"

fail() {  # fail EXIT_CODE MESSAGE: an ERROR log line on stderr, then exit
  echo "ERROR $2" >&2
  exit "$1"
}

[[ "$days" =~ ^-?[0-9]+$ ]] || fail 2 "days must be a whole number, got '$days'"
# A zone name is letters, digits, _, +, - in /-separated parts: never a path that climbs.
[[ "$timezone" =~ ^[A-Za-z0-9_+-]+(/[A-Za-z0-9_+-]+)*$ ]] || fail 2 "'$timezone' is not a time zone name"
zoneinfo="${TZDIR:-/usr/share/zoneinfo}"
if [ "$timezone" != UTC ] && [ -d "$zoneinfo" ] && [ ! -f "$zoneinfo/$timezone" ]; then
  fail 4 "unknown time zone '$timezone' (e.g. UTC, Europe/Paris, America/New_York)"
fi

when=$(($(date +%s) + days * 86400))
show() {  # show FORMAT: the moment `when` in the time zone, in FORMAT (GNU or BSD date)
  TZ="$timezone" date -d "@$when" "+$1" 2>/dev/null || TZ="$timezone" date -r "$when" "+$1"
}

echo "INFO $timezone, days from now: $days" >&2
printf '{"timezone": "%s", "date": "%s", "time": "%s", "weekday": "%s", "utc_offset": "%s", "unix": %d}\n' \
  "$timezone" "$(show %Y-%m-%d)" "$(show %H:%M:%S)" "$(show %A)" "$(show %z)" "$when"
