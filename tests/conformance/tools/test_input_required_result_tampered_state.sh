#!/bin/bash
# Tool: test_input_required_result_tampered_state
# Description: Asks for a value; a retry with a forged requestState is refused before it reaches the script
read -r arguments
echo 'INPUT {"value": {"method": "elicitation/create", "params": {"message": "Enter a value", "requestedSchema": {"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]}}}}' >&2
read -r answer
echo "Got $(jq -r '.value.content.value' <<<"$answer")"
