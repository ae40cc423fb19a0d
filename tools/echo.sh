#!/bin/bash
# echo: prints `message` back exactly. The benchmarks call it: keep it minimal and fast.
if [ "$1" = "--help" ]; then
  echo '{"description": "Print the message back exactly as given", "state": false}'
  echo '{"message": {"description": "The text to print back", "required": true, "value_type": "string"}}' >&2
  exit 0
fi
printf '%s\n' "$message"
