#!/bin/bash
# Tool: test_input_required_result_multiple_inputs
# Description: Asks the user, the model and the roots at once
read -r arguments
echo 'INPUT {"user_name": {"method": "elicitation/create", "params": {"message": "What is your name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}, "greeting": {"method": "sampling/createMessage", "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "Generate a greeting"}}], "maxTokens": 50}}, "client_roots": {"method": "roots/list", "params": {}}}' >&2
read -r answer
jq -c '{name: .user_name.content.name, greeting: .greeting.content.text, roots: [.client_roots.roots[]? | .uri]}' <<<"$answer"
