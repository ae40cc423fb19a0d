#!/bin/bash
# hello-world: the smallest help-json tool. It takes no options, so `--help`
# prints `{}` on stderr, and it shows the optional `title` and `version` metadata.
if [ "$1" = "--help" ]; then
  echo '{"title": "Hello, world", "description": "Say hello to the world", "version": "1.0.0", "state": false}'
  echo '{}' >&2
  exit 0
fi
echo "Hello, world!"
