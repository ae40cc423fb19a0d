#!/bin/bash
# Tool: test_input_required_result_elicitation
# Description: Asks the user's name, then greets them (one elicitation)
# INPUT asks under keys of the script's choosing; the answer line has a result per key.
read -r arguments
echo 'INPUT {"user_name": {"method": "elicitation/create", "params": {"message": "What is your name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}}' >&2
read -r answer
echo "Hello, $(jq -r '.user_name.content.name // "stranger"' <<<"$answer")!"
