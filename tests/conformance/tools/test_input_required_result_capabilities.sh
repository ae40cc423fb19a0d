#!/bin/bash
# Tool: test_input_required_result_capabilities
# Description: Asks the user and the model at once; the client is only asked what it declared it can answer
read -r arguments
echo 'INPUT {"user_name": {"method": "elicitation/create", "params": {"message": "What is your name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}, "summary": {"method": "sampling/createMessage", "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "Say hello"}}], "maxTokens": 20}}}' >&2
read -r answer
jq -c '{user_name: .user_name, summary: .summary.content.text}' <<<"$answer"
