#!/bin/bash
# greet: a required option and an optional one with a default, in the original
# seeds/000 spellings (`value_type`, `default_value`, `size`). The script reads
# its options from the environment variables named after them.
if [ "$1" = "--help" ]; then
  echo '{"description": "Greet someone by name", "state": false}'
  cat >&2 <<'JSON'
{
  "name": {
    "description": "Who to greet",
    "required": true,
    "value_type": "string",
    "size": {"min": 1, "max": 100}
  },
  "greeting": {
    "description": "The word of greeting",
    "required": false,
    "value_type": "string",
    "default_value": "Hello",
    "size": {"min": 1, "max": 40}
  }
}
JSON
  exit 0
fi
if [ -z "${name:-}" ]; then
  echo "ERROR the option name is required" >&2
  exit 2
fi
echo "${greeting:-Hello}, ${name}!"
