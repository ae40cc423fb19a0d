#!/bin/bash
# Tool: multi_input
# Description: Asks two questions at once
read -r arguments
question='{"method": "elicitation/create", "params": {"message": "MSG", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}, "confirm": {"type": "boolean"}}}}}'
echo "INPUT {\"first\": ${question/MSG/First name?}, \"second\": ${question/MSG/Second name?}}" >&2
read -r answer
jq -r '"first: \(.first.content.name), second: \(.second.content.name)"' <<<"$answer"
