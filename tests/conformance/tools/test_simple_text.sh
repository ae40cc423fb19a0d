#!/bin/bash
# Tool: test_simple_text
# Description: Tests simple text content response
echo "This is a simple text response for testing."
