#!/bin/bash
# Tool: test_logging_tool
# Description: Logs while it runs (sent only to clients that asked for logs)
echo "INFO working" >&2
echo "WARNING almost done" >&2
echo "done"
