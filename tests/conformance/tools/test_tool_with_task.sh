#!/bin/bash
# Tool: test_tool_with_task
# Description: Asks the user's name first, then works on as a task and greets them
# An ordinary interactive script; its config has "ask_before_task": true, so its first
# question comes back as an input-required round of the call, and once it has the
# answer and works on (PROGRESS), the call is a task.
read -r arguments
echo 'INPUT {"user_name": {"method": "elicitation/create", "params": {"message": "What is your name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}}' >&2
read -r answer
name=$(jq -r '.user_name.content.name // "stranger"' <<<"$answer")
echo "PROGRESS 0/1 working for $name" >&2
sleep 0.5
echo "PROGRESS 1/1 done" >&2
echo "Hello, $name! The work is done."
