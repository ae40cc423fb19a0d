#!/bin/bash
# counter: a stateful help-json tool (seeds/000 "state": true). Its state is a
# resource, toolkiln://tools/counter/state (and mcpd://counter.sh/state): reading
# it runs `counter.sh --state`, and every call tells subscribers it changed.
state_file="${COUNTER_FILE:-${XDG_STATE_HOME:-$HOME/.local/state}/toolkiln/counter}"
count=$(cat "$state_file" 2>/dev/null || echo 0)
case "$1" in
  --help)
    echo '{"description": "Add to a counter that outlives the call; read it as a resource", "title": "Counter", "state": true}'
    echo '{"by": {"description": "How much to add (negative to subtract)", "value_type": "integer", "required": false, "default_value": 1, "size": {"min": -1000, "max": 1000}}}' >&2
    exit 0 ;;
  --state)
    echo "{\"count\": $count}"
    exit 0 ;;
esac
mkdir -p "$(dirname "$state_file")"
count=$((count + by))
echo "$count" > "$state_file"
echo "INFO counter is now $count" >&2
echo "{\"count\": $count}"
