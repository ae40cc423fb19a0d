#!/bin/bash
# Tool: test_tool_with_logging
# Description: Tests tool that emits log messages during execution
# Lines on stderr that start with a level are sent to the client as log messages.
echo "INFO Tool execution started" >&2
sleep 0.05
echo "INFO Tool processing data" >&2
sleep 0.05
echo "INFO Tool execution completed" >&2
echo "Tool with logging executed successfully"
