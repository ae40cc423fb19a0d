#!/bin/bash
# Tool: test_streaming_elicitation
# Description: Asks the user one question while it runs
read -r arguments
echo 'ELICIT {"message": "Continue?", "requestedSchema": {"type": "object", "properties": {"go": {"type": "boolean"}}, "required": ["go"]}}' >&2
read -r answer
echo "Answer: $answer"
