#!/bin/bash
# Tool: test_error_handling
# Description: Tests error response handling
echo "This tool intentionally returns an error for testing" >&2
exit 1
