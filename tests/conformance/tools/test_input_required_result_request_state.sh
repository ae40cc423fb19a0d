#!/bin/bash
# Tool: test_input_required_result_request_state
# Description: Asks for a confirmation; the server checks the round's state before the script goes on
read -r arguments
echo 'INPUT {"confirm": {"method": "elicitation/create", "params": {"message": "Please confirm", "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}}}}' >&2
read -r answer
echo "state-ok: the same process resumed (pid $$), ok=$(jq -c '.confirm.content.ok' <<<"$answer")"
