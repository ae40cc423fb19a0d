#!/bin/bash
# reset-counter: sets the counter sample back to zero. Its config asks for the user's
# confirmation first (requires_confirmation) and tells clients it is destructive and
# idempotent: see config/tools/reset-counter.json.
state_file="${COUNTER_FILE:-${XDG_STATE_HOME:-$HOME/.local/state}/toolkiln/counter}"
if [ "$1" = "--help" ]; then
  echo '{"description": "Set the counter back to zero (asks the user first)", "title": "Reset counter"}'
  echo '{}' >&2
  exit 0
fi
mkdir -p "$(dirname "$state_file")"
echo 0 > "$state_file"
echo '{"count": 0}'
