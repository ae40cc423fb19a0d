#!/bin/bash
# Tool: test_tool_with_progress
# Description: Tests tool that reports progress notifications
# PROGRESS lines on stderr become progress notifications when the client asked for them.
echo "PROGRESS 0/100" >&2
sleep 0.05
echo "PROGRESS 50/100" >&2
sleep 0.05
echo "PROGRESS 100/100" >&2
echo "Tool with progress executed successfully"
