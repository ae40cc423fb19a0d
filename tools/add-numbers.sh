#!/bin/bash
# add-numbers: two required integer options with value limits (`size`), read from
# the environment; it checks them again itself so that it is safe to run by hand.
if [ "$1" = "--help" ]; then
  echo '{"description": "Add two whole numbers and print the sum", "state": false}'
  cat >&2 <<'JSON'
{
  "a": {"description": "First number", "required": true, "value_type": "integer",
        "size": {"min": -1000000000000000, "max": 1000000000000000}},
  "b": {"description": "Second number", "required": true, "value_type": "integer",
        "size": {"min": -1000000000000000, "max": 1000000000000000}}
}
JSON
  exit 0
fi
for option in a b; do
  value="${!option:-}"
  if ! [[ "$value" =~ ^-?(0|[1-9][0-9]{0,15})$ ]]; then
    echo "ERROR $option must be a whole number of at most 16 digits, got '$value'" >&2
    exit 2
  fi
done
echo $((a + b))
