#!/usr/bin/env bash
# Start the toolkiln MCP server on this folder's tools/ and config/.
#
# It serves the project it belongs to (this clone's sample tools), by design: it is the
# repository's launcher, and sets up .venv on first use. For a folder of your own, run
# `toolkiln serve DIR` (or `toolkiln serve --tools-dir DIR/tools --config-dir DIR/config`).
#
#   ./start_server.sh                   serve config/tools.json as it is (fastest start)
#   ./start_server.sh --discover        rediscover changed tools and rebuild first
#   ./start_server.sh --force-discover  re-read every tool and rebuild first
#
# Any other option goes to `toolkiln serve` (see `toolkiln serve --help`).
# TOOLKILN_TOOLS_DIR and TOOLKILN_CONFIG_DIR choose other folders.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
toolkiln="$here/.venv/bin/toolkiln"
if [[ ! -x "$toolkiln" ]]; then
  make -C "$here" setup >&2
fi
export TOOLKILN_TOOLS_DIR="${TOOLKILN_TOOLS_DIR:-$here/tools}"
export TOOLKILN_CONFIG_DIR="${TOOLKILN_CONFIG_DIR:-$here/config}"
exec "$toolkiln" serve "$@"
